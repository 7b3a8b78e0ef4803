package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// Synthetic returns the default graph for runs without data: a CoraML-like
// contextual stochastic block model with 3000 nodes in 7 classes, average
// degree 5.4 and homophily 0.8 (CoraML: 2995 nodes, 7 classes, 5.4, about
// 0.8), and sparse bag-of-words features over 2879 words, 50 draws per
// node of which 40% come from the class topic, row-normalised as the real
// datasets are (graph.NormalizeFeatures). It is always the same graph
// (seed 1).
func Synthetic() (*graph.Graph, error) {
	g, err := CSBM(3000, 7).Homophily(0.8).AvgDegree(5.4).
		Features(2879).BagOfWords(50).FeatureSignal(0.4).
		Seed(1).Name("Synthetic").Done()
	if err != nil {
		return nil, err
	}
	g.Features = graph.CompactFeatures(graph.NormalizeFeatures(g.Features))
	return g, nil
}

// Sizes of ArxivLike, those of OGBN Arxiv.
const (
	arxivNodes    = 169343
	arxivClasses  = 40
	arxivFeatures = 128
	// arxivPairs node pairs are sampled; after coalescing the duplicates
	// (about 2% under the heavy-tailed weights) about 1.166 million distinct
	// undirected edges remain, as many as arxiv's 1,166,243 citations.
	arxivPairs = 1188000
)

// ArxivLike returns a synthetic graph of OGBN Arxiv's size for memory and
// speed tests: 169,343 nodes, 40 classes, 128 dense Gaussian features
// (signal 1) and about 1.17 million undirected edges (2.33 million stored
// entries).
//
// Class sizes are skewed like arxiv's: class c holds a share ∝ 1/(c+1) of
// the nodes, in contiguous blocks. Edges are sampled as in CSBM with
// homophily 0.65 (arxiv's edge homophily) but Chung–Lu style: endpoints are
// drawn proportionally to node weights w_i = min(U_i^(−1/1.5), 1000), U_i
// uniform, which gives a heavy-tailed (power-law exponent 2.5) degree
// distribution. The same seed gives the same graph.
func ArxivLike(seed uint64) (*graph.Graph, error) {
	r := rand.New(rand.NewPCG(seed, 0x61727876))
	harmonic := 0.0
	for c := range arxivClasses {
		harmonic += 1 / float64(c+1)
	}
	labels := make([]int, 0, arxivNodes)
	members := make([][]int, arxivClasses)
	for c := range arxivClasses {
		size := int(arxivNodes / harmonic / float64(c+1))
		if c == arxivClasses-1 {
			size = arxivNodes - len(labels)
		}
		for range size {
			members[c] = append(members[c], len(labels))
			labels = append(labels, c)
		}
	}
	weight := make([]float64, arxivNodes)
	for i := range weight {
		weight[i] = math.Min(math.Pow(1-float64(r.Float64()), -1/1.5), 1000)
	}
	adj := sampleEdges(r, labels, members, weight, arxivPairs, 0.65)
	fm := featureModel{kind: gaussianFeatures, dim: arxivFeatures, signal: 1}
	x := fm.generate(r, labels, arxivClasses)
	g, err := graph.New("ArxivLike", adj, x, labels, arxivClasses, nil)
	if err != nil {
		return nil, fmt.Errorf("datasets.ArxivLike: %w", err)
	}
	return g, nil
}
