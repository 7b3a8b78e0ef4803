package cuq

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Pooling says how a PostNet model combines the opinions of a node's
// neighbourhood.
type Pooling int

const (
	// Behavioral pooling (CUQ-GNN): the graph convolutions form one opinion
	// from the committee of neighbours before the PostNet head; pseudo-counts
	// are not propagated.
	Behavioral Pooling = iota
	// LogLinear pooling (GPN): each node's feature evidence β_ft is spread
	// by personalised PageRank, α = 1 + Π β_ft, a log-linear pooling of the
	// neighbours' Dirichlets.
	LogLinear
	// Linear pooling (LOP-GPN): node i predicts the mixture
	// Σ_j Π_ij Dir(α_ft(j)).
	Linear
)

var poolingNames = [...]string{Behavioral: "behavioral", LogLinear: "log-linear", Linear: "linear"}

// String returns the paper's name of the pooling scheme.
func (p Pooling) String() string { return enum.String(p, poolingNames[:]) }

// MLPConfig configures the feature encoder: Linear → ReLU → Dropout per
// hidden layer.
type MLPConfig struct {
	hidden  []int
	dropout float64
}

// MLP returns an encoder with the given hidden sizes (the paper: one layer
// of 64) and dropout 0.5.
func MLP(hidden ...int) *MLPConfig { return &MLPConfig{hidden: hidden, dropout: 0.5} }

// Dropout sets the dropout probability after each hidden layer.
func (c *MLPConfig) Dropout(p float64) *MLPConfig { c.dropout = p; return c }

// APPNPConv returns parameter-free personalised-PageRank propagation with
// k steps and the given teleport probability t (the paper: 10, 0.1),
//
//	H⁽⁰⁾ = H,  H⁽ᵏ⁺¹⁾ = (1−t)·Â H⁽ᵏ⁾ + t·H,  Â = D^−½(A+I)D^−½.
func APPNPConv(k int, teleport float64) nn.APPNPConfig {
	return nn.APPNPConfig{K: k, Teleport: teleport}
}

// GCNConv returns a stack of GCN layers H' = Â H W + b of the given width,
// Â = D^−½(A+I)D^−½: two layers with ReLU and dropout 0.5 between them, as
// CUQ-GCN. Its options set the number of layers and the dropout.
func GCNConv(hidden int) *nn.GCNConfig { return nn.NewGCNConfig(hidden) }

// GATConv returns a stack of GAT layers of the given width (per attention
// head): two single-head layers with ELU and dropout 0.5 between them,
// LeakyReLU slope 0.2 and no attention dropout, as CUQ-GAT. Its options set
// the layers, heads, dropouts and slope.
func GATConv(hidden int) *nn.GATConfig { return nn.NewGATConfig(hidden) }

// Seeding says which random streams a model draws from: its parameters
// are the Init-th initialisation of Seed (1-based; the reference trains
// inits 1..10 of seed 42 on every split), and its dropout and DropEdge
// masks come from the Stream-th of the independent streams of that seed
// and init. Stream 0, as the reference, draws the same masks in every run
// of an init, whatever its split; the grid's IndependentDropout gives each
// split its own (Stream = split).
type Seeding struct {
	Seed   uint64
	Init   int
	Stream uint64
}

// check refuses inits below 1 and inits or streams too large to keep the
// streams apart.
func (s Seeding) check() error {
	switch {
	case s.Init < 1:
		return fmt.Errorf("init %d, inits are numbered from 1", s.Init)
	case s.Init >= 1<<32 || s.Stream >= 1<<24:
		return fmt.Errorf("init %d, dropout stream %d: want inits below 2³² and streams below 2²⁴", s.Init, s.Stream)
	}
	return nil
}

// DefaultSeeding returns the presets' seeding: init 1 of the reference's
// seed 42, stream 0.
func DefaultSeeding() Seeding { return Seeding{Seed: 42, Init: 1} }

// A ModelBuilder builds one Model on a graph: a *PostNetBuilder, a
// *FirstOrderBuilder or a *GKDEBuilder, whose options are those of their
// family of models.
type ModelBuilder interface {
	ClassifierBuilder
	Done(g *graph.Graph) (*Model, error)
}

var (
	_ ModelBuilder = (*PostNetBuilder)(nil)
	_ ModelBuilder = (*FirstOrderBuilder)(nil)
	_ ModelBuilder = (*GKDEBuilder)(nil)
)

// errNoBuilder is the error of a nil builder's Classifier.
var errNoBuilder = errors.New("cuq: no model builder")

// config is what a family builder has collected: the parts of a model and
// their hyperparameters, its seeding and its default schedule. Done copies
// it into the model.
type config struct {
	name string
	// newFamily builds the parts that set the model's kind apart on g.
	newFamily func(c *config, g *graph.Graph, init *rand.Rand, dropout rand.Source) (family, error)

	encoder    *MLPConfig
	conv       nn.ConvConfig // PostNet: nil, the encoder feeds the head
	gcn        *nn.GCNConfig // first order: the GCN layers; nil, APPNP
	linearOut  bool          // first order: a linear output layer after the GCN layers
	binaryIn   bool          // first order: the GCN layers read binarised features
	pooling    Pooling
	latent     int
	flowLayers int
	prop       nn.APPNPConfig // evidence / logit propagation (APPNP, GPN, LOP-GPN)
	pruneAt    float64        // LOP-GPN: sparse pruned Π when > 0
	gkdeCutoff int
	gkdeSigma  float64
	sampling   sampling // first-order models: MC dropout or DropEdge

	seeding  Seeding
	schedule Schedule
}

// done checks the configuration, builds the model on g and initialises its
// parameters from the seeding. The model copies what it needs, so c may be
// done again and changed afterwards without changing the models built
// before.
func (c *config) done(g *graph.Graph) (*Model, error) {
	if g == nil {
		return nil, fmt.Errorf("cuq: %s: no graph", c.name)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", c.name, err)
	}
	if g.NumClasses < 2 {
		return nil, fmt.Errorf("cuq: %s: graph %q has %d classes, need at least 2", c.name, g.Name, g.NumClasses)
	}
	if err := c.seeding.check(); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", c.name, err)
	}
	// The init-th model of a seed: every init draws its parameters from
	// its own stream, so init k has the same weights on every split (as
	// the reference, which re-seeds before each run); dropout draws from
	// a second stream.
	fam, err := c.newFamily(c, g, rand.New(stream(c.seeding, initStream)), stream(c.seeding, dropoutStream))
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", c.name, err)
	}
	return &Model{name: c.name, g: g, classes: g.NumClasses, schedule: c.schedule, seeding: c.seeding, fam: fam, recipe: c.recipe(fam)}, nil
}

// The random streams of a model: stream k of init i of seed s is
// PCG(s, i + k·2³² + t·2⁴⁰), t the Seeding's Stream for every stream
// but the parameters' (t = 0 for those, and by default for all).
// Inits below 2³² and streams below 2²⁴ keep them apart.
const (
	initStream        = iota // parameters
	dropoutStream            // dropout in training
	edgeStream               // DropEdge in training
	mcDropoutStream          // MC dropout in Predict, anew each call
	edgeSamplesStream        // DropEdge in Predict, anew each call
)

// stream returns random stream k of the seed and init of s. It is a
// *rand.PCG, not a *rand.Rand, so that ad.Tape.Dropout can draw from it
// on all cores; rand.New of it draws the same numbers.
func stream(s Seeding, k uint64) *rand.PCG {
	var t uint64
	if k != initStream {
		t = s.Stream
	}
	return rand.NewPCG(s.Seed, uint64(s.Init)+k<<32+t<<40)
}

// checkPropagation checks the propagation of evidence or logits.
func (c *config) checkPropagation() error {
	if p := c.prop; p.K < 0 || !(p.Teleport >= 0 && p.Teleport <= 1) {
		return fmt.Errorf("propagation K = %d, teleport %v", p.K, p.Teleport)
	}
	return nil
}
