package cuq

import (
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

// FlowConfig configures the PostNet head's per-class radial flows.
type FlowConfig struct{ layers int }

// Flows returns the configuration of the PostNet head's flows: one chain
// of the given number of radial layers per class (the paper: 10), each
// layer z' = z + β·h(α, r)·(z − z₀), h = 1/(α + r), r = ‖z − z₀‖ (nn.RadialFlows).
func Flows(layers int) *FlowConfig { return &FlowConfig{layers: layers} }

// Builder describes a model without a graph: its parts, its
// hyperparameters and its training schedule. Every preset (GPN, CUQGCN,
// ...) returns a Builder with the paper's hyperparameters; every option can
// be changed before Done builds the model on a graph. Done does not change
// the builder, so one builder may be done on several graphs (the clean one
// and a leave-out-classes one, say), and a model copies its configuration:
// changing the builder or its parts afterwards changes no model built
// before.
type Builder struct {
	name string
	// newFamily builds the parts that set the model's kind apart on g: a
	// PostNet (GPN, LOP-GPN, CUQ-*), a softmax classifier (APPNP, GCN) or
	// GKDE.
	newFamily func(b *Builder, g *graph.Graph, init, dropout *rand.Rand) (family, error)

	encoder    *MLPConfig
	conv       nn.ConvConfig // nil: the encoder feeds the PostNet head
	pooling    Pooling
	latent     int
	flows      *FlowConfig
	prop       nn.APPNPConfig // evidence / logit propagation (APPNP, GPN, LOP-GPN)
	pruneAt    float64        // LOP-GPN: sparse pruned Π when > 0
	gkdeCutoff int
	gkdeSigma  float64
	sampling   sampling // first-order models: MC dropout or DropEdge

	train TrainConfig
}

// TrainConfig holds the optimisation schedule of the reference
// implementation.
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
	// Stream selects the random streams of dropout and DropEdge among
	// independent ones of the same seed and init, leaving the parameters'
	// initialisation alone. 0, as the reference, draws the same masks in
	// every run of an init, whatever its split; the grid's
	// IndependentDropout gives each split its own (Stream = split).
	Stream uint64
}

// firstOrderTraining is the schedule of the first-order baselines: Adam
// with learning rate 0.01 and weight decay wd, early stopping with
// patience 50.
func firstOrderTraining(wd float64) TrainConfig {
	return TrainConfig{LR: 0.01, WeightDecay: wd, MaxEpochs: 100000, Patience: 50, EvalEvery: 1, Seed: 42, Init: 1}
}

func defaultPostNetTraining() TrainConfig {
	return TrainConfig{LR: 0.01, WeightDecay: 1e-3, EntropyReg: 1e-4, WarmupEpochs: 5,
		MaxEpochs: 100000, Patience: 50, EvalEvery: 1, Seed: 42, Init: 1}
}

// CUQ returns a builder for a CUQ-GNN with no convolution set yet:
// encoder MLP(64), latent 16, 10 radial flows, behavioral pooling. The
// other poolings propagate with APPNPConv(10, 0.1) unless Propagation says
// otherwise.
func CUQ() *Builder {
	return &Builder{name: "CUQ-GNN", newFamily: newPostNet, encoder: MLP(64), latent: 16,
		flows: Flows(10), pooling: Behavioral, prop: APPNPConv(10, 0.1), train: defaultPostNetTraining()}
}

// CUQPPR returns the paper's CUQ-PPR: APPNP propagation (K = 10, t = 0.1) of
// the 64-d hidden features before the PostNet head.
func CUQPPR() *Builder { return CUQ().Name("CUQ-PPR").Conv(APPNPConv(10, 0.1)) }

// CUQGCN returns the paper's CUQ-GCN: two 64-d GCN layers.
func CUQGCN() *Builder { return CUQ().Name("CUQ-GCN").Conv(GCNConv(64)) }

// CUQGAT returns the paper's CUQ-GAT: two single-head 64-d GAT layers.
func CUQGAT() *Builder { return CUQ().Name("CUQ-GAT").Conv(GATConv(64)) }

// GPN returns the Graph Posterior Network: a PostNet on each node's own
// features whose evidence is propagated by APPNP (log-linear pooling).
func GPN() *Builder { return CUQ().Name("GPN").Pooling(LogLinear) }

// LOPGPN returns LOP-GPN: GPN's per-node Dirichlets pooled linearly into a
// mixture with personalised-PageRank weights over the random-walk
// normalised adjacency. Π is exact and dense unless Prune sets a threshold.
func LOPGPN() *Builder { return CUQ().Name("LOP-GPN").Pooling(Linear) }

// APPNP returns the first-order APPNP baseline: MLP(64) → logits,
// propagated by APPNP (K = 10, t = 0.1), softmax output; trained with cross
// entropy, weight decay 1e-4 on all parameters.
func APPNP() *Builder {
	return &Builder{name: "APPNP", newFamily: newFirstOrder, encoder: MLP(64), prop: APPNPConv(10, 0.1),
		train: firstOrderTraining(1e-4)}
}

// GCN returns the first-order GCN baseline (Kipf and Welling), as in
// the GPN reference: a hidden GCN layer of 64 with ReLU and dropout 0.5,
// then a GCN layer to the class logits, softmax output,
//
//	p = softmax(Â · Dropout(ReLU(Â X W₀ + b₀)) · W₁ + b₁),  Â = D^−½(A+I)D^−½,
//
// on the raw node features (no encoder). It is trained with cross entropy,
// Adam with learning rate 0.01 and weight decay 5e-4 on all parameters
// (Kipf's original decays the first layer only), and early stopping on the
// validation cross entropy with patience 50, as APPNP. Conv(GCNConv(h).Layers(L))
// sets L hidden layers of width h before the output layer. It predicts a
// categorical distribution, so it has TU and LC only, unless MCDropout or
// DropEdge makes it a committee.
func GCN() *Builder {
	return &Builder{name: "GCN", newFamily: newFirstOrder, conv: GCNConv(64).Layers(1),
		train: firstOrderTraining(5e-4)}
}

// GKDE returns the graph-kernel Dirichlet estimate: evidence
// e[v, y_t] += K(d(v, t)) from every training node t, with K the Gaussian
// kernel of σ = 1 on hop distances up to cutoff 10. It has no parameters.
func GKDE() *Builder {
	return &Builder{name: "GKDE", newFamily: newKernelEstimate, gkdeCutoff: 10, gkdeSigma: 1}
}

// Name sets the model's display name.
func (b *Builder) Name(name string) *Builder { b.name = name; return b }

// Encoder sets the feature encoder.
func (b *Builder) Encoder(c *MLPConfig) *Builder { b.encoder = c; return b }

// Conv sets the graph convolution between encoder and PostNet head:
// APPNPConv, GCNConv or GATConv (or any nn.ConvConfig); nil for none. For a
// first-order model it sets the GCN preset's hidden GCN layers; there nil
// means the APPNP preset's propagation of logits, and other convolutions
// are an error at Done.
func (b *Builder) Conv(c nn.ConvConfig) *Builder { b.conv = c; return b }

// Latent sets the latent dimension of the PostNet head.
func (b *Builder) Latent(d int) *Builder { b.latent = d; return b }

// PostNet sets the flows of the PostNet head.
func (b *Builder) PostNet(f *FlowConfig) *Builder { b.flows = f; return b }

// Pooling sets how neighbours' opinions are combined.
func (b *Builder) Pooling(p Pooling) *Builder { b.pooling = p; return b }

// Propagation sets the APPNP propagation of evidence (GPN, LOP-GPN) or of
// logits (APPNP).
func (b *Builder) Propagation(k int, teleport float64) *Builder {
	b.prop = APPNPConv(k, teleport)
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

// DropoutStream selects the s-th of the independent streams of dropout
// and DropEdge masks of the seed and init (TrainConfig.Stream); the
// initial parameters stay those of the init. The default 0 is the
// reference's stream, the same in every run of an init.
func (b *Builder) DropoutStream(s uint64) *Builder { b.train.Stream = s; return b }

// MCDropout makes a first-order model (APPNP, GCN) an MC-dropout committee
// (Gal and Ghahramani 2016): training is unchanged, and Predict keeps
// dropout on and draws T = samples forward passes p⁽ˢ⁾ from a stream of
// the seed and init, so the same model gives the same prediction. The
// prediction is their mean p̄ = (1/T) Σ_s p⁽ˢ⁾, with TU, AU and EU the
// entropy decomposition of the samples (uq.Samples). Forward stays one
// pass with dropout off. It replaces DropEdge; a model without dropout, a
// PostNet or GKDE is an error at Done.
func (b *Builder) MCDropout(samples int) *Builder {
	b.sampling = sampling{kind: mcDropout, samples: samples}
	return b
}

// DropEdge makes a first-order model (APPNP, GCN) a DropEdge committee (Rong
// et al. 2020): every training epoch runs on a graph from which each
// undirected edge {i, j} (both its entries) is dropped with probability p,
// drawn anew each epoch from a stream of the seed and init, and Predict
// averages samples forward passes (dropout off) over independently dropped
// graphs, with TU, AU and EU the entropy decomposition of the samples
// (uq.Samples). Self loops stay. Early stopping watches the full graph.
// With p = 0 training is the plain model's. It replaces MCDropout; a
// PostNet or GKDE is an error at Done.
func (b *Builder) DropEdge(p float64, samples int) *Builder {
	b.sampling = sampling{kind: dropEdge, p: p, samples: samples}
	return b
}

// Training replaces the whole training configuration.
func (b *Builder) Training(c TrainConfig) *Builder { b.train = c; return b }

// Done checks the configuration, builds the model on g and initialises its
// parameters from the seed and init number. The model copies what it needs
// from the builder, and Done leaves the builder unchanged: it may be done
// again, on g or on another graph, and changed afterwards without changing
// the models built before.
func (b *Builder) Done(g *graph.Graph) (*Model, error) {
	if g == nil {
		return nil, fmt.Errorf("cuq: %s: no graph", b.name)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", b.name, err)
	}
	if g.NumClasses < 2 {
		return nil, fmt.Errorf("cuq: %s: graph %q has %d classes, need at least 2", b.name, g.Name, g.NumClasses)
	}
	// The init-th model of a seed: every init draws its parameters from
	// its own stream, so init k has the same weights on every split (as
	// the reference, which re-seeds before each run); dropout draws from
	// a second stream.
	fam, err := b.newFamily(b, g, stream(b.train, initStream), stream(b.train, dropoutStream))
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", b.name, err)
	}
	return &Model{name: b.name, g: g, classes: g.NumClasses, train: b.train, fam: fam}, nil
}

// The random streams of a model: stream k of init i of seed s is
// PCG(s, i + k·2³² + t·2⁴⁰), t the TrainConfig's Stream for every stream
// but the parameters' (t = 0 for those, and by default for all).
// Inits below 2³² and streams below 2²⁴ keep them apart.
const (
	initStream        = iota // parameters
	dropoutStream            // dropout in training
	edgeStream               // DropEdge in training
	mcDropoutStream          // MC dropout in Predict, anew each call
	edgeSamplesStream        // DropEdge in Predict, anew each call
)

// stream returns random stream k of the seed and init of tc.
func stream(tc TrainConfig, k uint64) *rand.Rand {
	var t uint64
	if k != initStream {
		t = tc.Stream
	}
	return rand.New(rand.NewPCG(tc.Seed, uint64(tc.Init)+k<<32+t<<40))
}

// checkNoSampling returns an error for a model of a family without
// sampled predictions (PostNet, GKDE) that asks for them.
func (b *Builder) checkNoSampling() error {
	if b.sampling.kind != noSampling {
		return fmt.Errorf("%v applies to first-order models (APPNP, GCN) only", b.sampling.kind)
	}
	return nil
}

// checkTraining checks the training schedule of a model with parameters.
func (b *Builder) checkTraining() error {
	t := b.train
	switch {
	case !(t.LR > 0):
		return fmt.Errorf("learning rate %v must be positive", t.LR)
	case t.WeightDecay < 0 || t.FlowWeightDecay < 0:
		return fmt.Errorf("negative weight decay")
	case t.MaxEpochs < 1 || t.Patience < 1 || t.EvalEvery < 1 || t.WarmupEpochs < 0:
		return fmt.Errorf("epochs %d, patience %d, eval every %d, warm-up %d (need positive values)", t.MaxEpochs, t.Patience, t.EvalEvery, t.WarmupEpochs)
	case t.Init < 1:
		return fmt.Errorf("init %d, inits are numbered from 1", t.Init)
	case t.Init >= 1<<32 || t.Stream >= 1<<24:
		return fmt.Errorf("init %d, dropout stream %d: want inits below 2³² and streams below 2²⁴", t.Init, t.Stream)
	}
	return nil
}

// checkPropagation checks the propagation of evidence or logits.
func (b *Builder) checkPropagation() error {
	if p := b.prop; p.K < 0 || !(p.Teleport >= 0 && p.Teleport <= 1) {
		return fmt.Errorf("propagation K = %d, teleport %v", p.K, p.Teleport)
	}
	return nil
}
