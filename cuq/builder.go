package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
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

// String returns the paper's name of the pooling scheme.
func (p Pooling) String() string {
	switch p {
	case Behavioral:
		return "behavioral"
	case LogLinear:
		return "log-linear"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("Pooling(%d)", int(p))
}

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

// ConvKind names a graph convolution.
type ConvKind int

// The graph convolutions of the paper.
const (
	ConvNone ConvKind = iota
	ConvAPPNP
	ConvGCN
	ConvGAT
)

// ConvConfig configures the stack of graph convolutions of a CUQ model.
type ConvConfig struct {
	kind          ConvKind
	hidden        int
	layers        int
	dropout       float64
	k             int
	teleport      float64
	heads         int
	negativeSlope float64
	attnDropout   float64
}

// APPNP returns parameter-free personalised-PageRank propagation with k
// steps and the given teleport probability (the paper: 10, 0.1), using the
// symmetric normalisation D^−½(A+I)D^−½.
func APPNP(k int, teleport float64) *ConvConfig {
	return &ConvConfig{kind: ConvAPPNP, k: k, teleport: teleport}
}

// GCN returns a stack of GCN layers of the given width: two layers with
// ReLU and dropout 0.5 between them, as CUQ-GCN.
func GCN(hidden int) *ConvConfig {
	return &ConvConfig{kind: ConvGCN, hidden: hidden, layers: 2, dropout: 0.5}
}

// GAT returns a stack of GAT layers of the given width (per attention
// head): two single-head layers with ELU and dropout 0.5 between them,
// LeakyReLU slope 0.2 and no attention dropout, as CUQ-GAT. Heads sets
// more attention heads per layer.
func GAT(hidden int) *ConvConfig {
	return &ConvConfig{kind: ConvGAT, hidden: hidden, layers: 2, dropout: 0.5, heads: 1, negativeSlope: 0.2}
}

// Layers sets the number of convolution layers (GCN, GAT).
func (c *ConvConfig) Layers(n int) *ConvConfig { c.layers = n; return c }

// Dropout sets the dropout between convolution layers (GCN, GAT).
func (c *ConvConfig) Dropout(p float64) *ConvConfig { c.dropout = p; return c }

// Heads sets the number of attention heads of every GAT layer (the paper
// uses one). The heads of a hidden layer are concatenated, so the next
// layer sees heads·hidden features; those of the last layer are averaged
// (torch_geometric's GATConv with concat=False), so the stack's output
// width stays hidden. Build rejects n < 1.
func (c *ConvConfig) Heads(n int) *ConvConfig { c.heads = n; return c }

// NegativeSlope sets the LeakyReLU slope of the attention scores (GAT).
func (c *ConvConfig) NegativeSlope(s float64) *ConvConfig { c.negativeSlope = s; return c }

// AttentionDropout sets the dropout on attention coefficients (GAT).
func (c *ConvConfig) AttentionDropout(p float64) *ConvConfig { c.attnDropout = p; return c }

// FlowConfig configures the PostNet head's per-class radial flows.
type FlowConfig struct{ layers int }

// RadialFlows returns one chain of the given number of radial layers per
// class (the paper: 10).
func RadialFlows(layers int) *FlowConfig { return &FlowConfig{layers: layers} }

// Builder assembles a model from its parts. Every preset (GPN, CUQGCN, ...)
// returns a Builder with the paper's hyperparameters; every option can be
// changed before Build.
type Builder struct {
	g    *graph.Graph
	name string

	firstOrder bool // APPNP: logits propagated, softmax output
	gkde       bool
	encoder    *MLPConfig
	conv       *ConvConfig
	pooling    Pooling
	latent     int
	flows      *FlowConfig
	prop       *ConvConfig // evidence / logit propagation (APPNP, GPN, LOP-GPN)
	pruneAt    float64     // LOP-GPN: sparse pruned Π when > 0
	gkdeCutoff int
	gkdeSigma  float64

	train TrainConfig
	err   error
}

// TrainConfig holds the optimisation schedule of the reference (REFERENCE.md
// §2).
type TrainConfig struct {
	LR              float64 // learning rate of all parameters
	WeightDecay     float64 // coupled L2 decay of non-flow parameters
	FlowWeightDecay float64 // decay of flow parameters (0)
	EntropyReg      float64 // coefficient of −H(Dir(α)) in the loss
	WarmupEpochs    int     // flow-only epochs before the main training
	MaxEpochs       int
	Patience        int // evaluations without strict improvement of val CE
	EvalEvery       int // evaluate every this many epochs
	Seed            uint64
	Init            int // which initialisation (1-based) of the seed
}

func defaultPostNetTraining() TrainConfig {
	return TrainConfig{LR: 0.01, WeightDecay: 1e-3, EntropyReg: 1e-4, WarmupEpochs: 5,
		MaxEpochs: 100000, Patience: 50, EvalEvery: 1, Seed: 42, Init: 1}
}

// CUQ returns a builder for a CUQ-GNN on g with no convolution set yet:
// encoder MLP(64), latent 16, 10 radial flows, behavioral pooling.
func CUQ(g *graph.Graph) *Builder {
	return &Builder{g: g, name: "CUQ-GNN", encoder: MLP(64), latent: 16, flows: RadialFlows(10),
		pooling: Behavioral, train: defaultPostNetTraining()}
}

// CUQPPR returns the paper's CUQ-PPR: APPNP propagation (K = 10, t = 0.1) of
// the 64-d hidden features before the PostNet head.
func CUQPPR(g *graph.Graph) *Builder { return CUQ(g).Name("CUQ-PPR").Conv(APPNP(10, 0.1)) }

// CUQGCN returns the paper's CUQ-GCN: two 64-d GCN layers.
func CUQGCN(g *graph.Graph) *Builder { return CUQ(g).Name("CUQ-GCN").Conv(GCN(64)) }

// CUQGAT returns the paper's CUQ-GAT: two single-head 64-d GAT layers.
func CUQGAT(g *graph.Graph) *Builder { return CUQ(g).Name("CUQ-GAT").Conv(GAT(64)) }

// GPN returns the Graph Posterior Network: a PostNet on each node's own
// features whose evidence is propagated by APPNP (log-linear pooling).
func GPN(g *graph.Graph) *Builder {
	b := CUQ(g).Name("GPN").Pooling(LogLinear)
	b.prop = APPNP(10, 0.1)
	return b
}

// LOPGPN returns LOP-GPN: GPN's per-node Dirichlets pooled linearly into a
// mixture with personalised-PageRank weights over the random-walk
// normalised adjacency. Π is exact and dense unless Prune sets a threshold.
func LOPGPN(g *graph.Graph) *Builder {
	b := CUQ(g).Name("LOP-GPN").Pooling(Linear)
	b.prop = APPNP(10, 0.1)
	return b
}

// APPNPModel returns the first-order APPNP baseline: MLP(64) → logits,
// propagated by APPNP (K = 10, t = 0.1), softmax output; trained with cross
// entropy, weight decay 1e-4 on all parameters.
func APPNPModel(g *graph.Graph) *Builder {
	return &Builder{g: g, name: "APPNP", firstOrder: true, encoder: MLP(64), prop: APPNP(10, 0.1),
		train: TrainConfig{LR: 0.01, WeightDecay: 1e-4, MaxEpochs: 100000, Patience: 50, EvalEvery: 1, Seed: 42, Init: 1}}
}

// GKDE returns the graph-kernel Dirichlet estimate: evidence
// e[v, y_t] += K(d(v, t)) from every training node t, with K the Gaussian
// kernel of σ = 1 on hop distances up to cutoff 10. It has no parameters.
func GKDE(g *graph.Graph) *Builder {
	return &Builder{g: g, name: "GKDE", gkde: true, gkdeCutoff: 10, gkdeSigma: 1}
}

// Name sets the model's display name.
func (b *Builder) Name(name string) *Builder { b.name = name; return b }

// Encoder sets the feature encoder.
func (b *Builder) Encoder(c *MLPConfig) *Builder { b.encoder = c; return b }

// Conv sets the graph convolutions between encoder and PostNet head.
func (b *Builder) Conv(c *ConvConfig) *Builder { b.conv = c; return b }

// Latent sets the latent dimension of the PostNet head.
func (b *Builder) Latent(d int) *Builder { b.latent = d; return b }

// PostNet sets the flows of the PostNet head.
func (b *Builder) PostNet(f *FlowConfig) *Builder { b.flows = f; return b }

// Pooling sets how neighbours' opinions are combined. LogLinear and Linear
// propagate with APPNP(10, 0.1) unless Propagation says otherwise.
func (b *Builder) Pooling(p Pooling) *Builder {
	b.pooling = p
	if p != Behavioral && b.prop == nil {
		b.prop = APPNP(10, 0.1)
	}
	return b
}

// Propagation sets the APPNP propagation of evidence (GPN, LOP-GPN) or of
// logits (APPNP).
func (b *Builder) Propagation(k int, teleport float64) *Builder {
	b.prop = APPNP(k, teleport)
	return b
}

// Prune makes LOP-GPN's mixture weights sparse: after each propagation step
// entries below threshold are dropped and their mass moved to the diagonal
// (the reference does this with 0.01 on the larger graphs).
func (b *Builder) Prune(threshold float64) *Builder { b.pruneAt = threshold; return b }

// Cutoff sets GKDE's maximum hop distance.
func (b *Builder) Cutoff(hops int) *Builder { b.gkdeCutoff = hops; return b }

// Sigma sets the width of GKDE's Gaussian kernel.
func (b *Builder) Sigma(s float64) *Builder { b.gkdeSigma = s; return b }

// LR sets the learning rate.
func (b *Builder) LR(lr float64) *Builder { b.train.LR = lr; return b }

// WeightDecay sets the L2 decay of non-flow parameters.
func (b *Builder) WeightDecay(wd float64) *Builder { b.train.WeightDecay = wd; return b }

// EntropyReg sets the coefficient of the Dirichlet entropy regulariser.
func (b *Builder) EntropyReg(c float64) *Builder { b.train.EntropyReg = c; return b }

// Warmup sets the number of flow-only warm-up epochs.
func (b *Builder) Warmup(epochs int) *Builder { b.train.WarmupEpochs = epochs; return b }

// MaxEpochs bounds the main training.
func (b *Builder) MaxEpochs(n int) *Builder { b.train.MaxEpochs = n; return b }

// Patience sets early stopping's patience, in evaluations.
func (b *Builder) Patience(n int) *Builder { b.train.Patience = n; return b }

// EvalEvery evaluates the validation loss every n epochs.
func (b *Builder) EvalEvery(n int) *Builder { b.train.EvalEvery = n; return b }

// Seed sets the random seed of initialisation and dropout.
func (b *Builder) Seed(s uint64) *Builder { b.train.Seed = s; return b }

// Init selects the init-th initialisation of the seed (1-based): the
// reference trains inits 1..10 of seed 42 on every split.
func (b *Builder) Init(k int) *Builder { b.train.Init = k; return b }

// Training replaces the whole training configuration.
func (b *Builder) Training(c TrainConfig) *Builder { b.train = c; return b }

// Graph returns the graph the model is built for.
func (b *Builder) Graph() *graph.Graph { return b.g }

// MustBuild is Build that panics on error, for notebooks.
func (b *Builder) MustBuild() *Model {
	m, err := b.Build()
	if err != nil {
		panic(err)
	}
	return m
}

func (b *Builder) validate() error {
	g := b.g
	if g == nil {
		return fmt.Errorf("cuq: %s: no graph", b.name)
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("cuq: %s: %w", b.name, err)
	}
	if g.NumClasses < 2 {
		return fmt.Errorf("cuq: %s: graph %q has %d classes, need at least 2", b.name, g.Name, g.NumClasses)
	}
	if b.gkde {
		if b.gkdeCutoff < 0 || !(b.gkdeSigma > 0) {
			return fmt.Errorf("cuq: GKDE: cutoff %d and sigma %v (need cutoff ≥ 0, sigma > 0)", b.gkdeCutoff, b.gkdeSigma)
		}
		return nil
	}
	t := b.train
	switch {
	case !(t.LR > 0):
		return fmt.Errorf("cuq: %s: learning rate %v must be positive", b.name, t.LR)
	case t.WeightDecay < 0 || t.FlowWeightDecay < 0:
		return fmt.Errorf("cuq: %s: negative weight decay", b.name)
	case t.MaxEpochs < 1 || t.Patience < 1 || t.EvalEvery < 1 || t.WarmupEpochs < 0:
		return fmt.Errorf("cuq: %s: epochs %d, patience %d, eval every %d, warm-up %d (need positive values)", b.name, t.MaxEpochs, t.Patience, t.EvalEvery, t.WarmupEpochs)
	case t.Init < 1:
		return fmt.Errorf("cuq: %s: init %d, inits are numbered from 1", b.name, t.Init)
	}
	if b.encoder == nil || len(b.encoder.hidden) == 0 {
		return fmt.Errorf("cuq: %s: the encoder needs at least one hidden layer", b.name)
	}
	for _, h := range b.encoder.hidden {
		if h < 1 {
			return fmt.Errorf("cuq: %s: encoder width %d", b.name, h)
		}
	}
	if p := b.encoder.dropout; p < 0 || p >= 1 {
		return fmt.Errorf("cuq: %s: encoder dropout %v not in [0, 1)", b.name, p)
	}
	if b.prop != nil && (b.prop.k < 0 || b.prop.teleport < 0 || b.prop.teleport > 1) {
		return fmt.Errorf("cuq: %s: propagation K = %d, teleport %v", b.name, b.prop.k, b.prop.teleport)
	}
	if b.firstOrder {
		return nil
	}
	if b.latent < 1 {
		return fmt.Errorf("cuq: %s: latent dimension %d", b.name, b.latent)
	}
	if b.flows == nil || b.flows.layers < 0 {
		return fmt.Errorf("cuq: %s: the PostNet head needs radial flows", b.name)
	}
	if c := b.conv; c != nil {
		switch c.kind {
		case ConvAPPNP:
			if c.k < 0 || c.teleport < 0 || c.teleport > 1 {
				return fmt.Errorf("cuq: %s: APPNP K = %d, teleport %v", b.name, c.k, c.teleport)
			}
		case ConvGCN, ConvGAT:
			if c.layers < 1 || c.hidden < 1 {
				return fmt.Errorf("cuq: %s: %d convolution layers of width %d", b.name, c.layers, c.hidden)
			}
			if c.dropout < 0 || c.dropout >= 1 || c.attnDropout < 0 || c.attnDropout >= 1 {
				return fmt.Errorf("cuq: %s: convolution dropout %v / attention dropout %v not in [0, 1)", b.name, c.dropout, c.attnDropout)
			}
			if c.kind == ConvGAT && c.heads < 1 {
				return fmt.Errorf("cuq: %s: %d attention heads; GAT needs at least one", b.name, c.heads)
			}
		}
	}
	if b.pruneAt < 0 || b.pruneAt >= 1 {
		return fmt.Errorf("cuq: %s: prune threshold %v not in [0, 1)", b.name, b.pruneAt)
	}
	return nil
}
