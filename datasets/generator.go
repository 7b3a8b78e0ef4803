package datasets

import (
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// generator holds what the synthetic generators (CSBM, BarabasiAlbert,
// Lattice) share: the number of classes, the feature model, the seed and
// the graph's name, and the setters of the last three. C is the
// generator's configuration type, which embeds the generator; the setters
// return it, so that calls chain.
type generator[C any] struct {
	config   *C
	classes  int
	features featureModel
	seed     uint64
	name     string
}

// newGenerator returns the settings of config with the defaults: Gaussian
// features of dimension dim with signal 1, seed 1.
func newGenerator[C any](config *C, name string, classes, dim int) generator[C] {
	return generator[C]{
		config:   config,
		classes:  classes,
		features: featureModel{kind: gaussianFeatures, dim: dim, signal: 1},
		seed:     1,
		name:     name,
	}
}

// Features sets the feature dimension F.
func (g *generator[C]) Features(f int) *C { g.features.dim = f; return g.config }

// FeatureSignal sets s: for Gaussian features the scale of the class means
// (x_i = s·μ_{y_i} + N(0, I), ‖μ_c‖ ≈ 1); for bag-of-words features the
// probability that a word comes from the node's class topic.
func (g *generator[C]) FeatureSignal(s float64) *C { g.features.signal = s; return g.config }

// Gaussian selects dense Gaussian features (the default).
func (g *generator[C]) Gaussian() *C { g.features.kind = gaussianFeatures; return g.config }

// BagOfWords selects sparse binary bag-of-words features with the given
// number of word draws per node (see FeatureSignal).
func (g *generator[C]) BagOfWords(wordsPerNode int) *C {
	g.features.kind, g.features.words = bagOfWords, wordsPerNode
	return g.config
}

// Seed sets the seed of the random generator (PCG, math/rand/v2).
func (g *generator[C]) Seed(seed uint64) *C { g.seed = seed; return g.config }

// Name sets the graph's name (by default the generator's).
func (g *generator[C]) Name(name string) *C { g.name = name; return g.config }

// rand returns the random source of the generator's own stream.
func (g *generator[C]) rand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.seed, stream))
}

// build draws the features of the labelled nodes from r and returns the
// graph.
func (g *generator[C]) build(r *rand.Rand, adj *tensor.CSR, labels []int) (*graph.Graph, error) {
	x := g.features.generate(r, labels, g.classes)
	return graph.New(g.name, adj, x, labels, g.classes, nil)
}
