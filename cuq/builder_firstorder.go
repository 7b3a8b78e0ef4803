package cuq

import (
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
)

// FirstOrderBuilder describes a first-order (softmax) model without a
// graph: APPNP, GCN and the committees made of them by MC dropout or
// DropEdge. The presets (APPNP, GCN, MCDropoutGCN, DropEdgeGCN) return one
// with the reference's hyperparameters and FirstOrderSchedule; every
// option can be changed before Done builds the model on a graph. Done does
// not change the builder, and models built before a change keep their
// configuration.
type FirstOrderBuilder struct{ c config }

// APPNP returns the first-order APPNP baseline: MLP(64) → logits,
// propagated by APPNP (K = 10, t = 0.1), softmax output; trained with cross
// entropy, weight decay 1e-4 on all parameters.
func APPNP() *FirstOrderBuilder {
	return &FirstOrderBuilder{config{name: "APPNP", newFamily: newFirstOrder, encoder: MLP(64), prop: APPNPConv(10, 0.1),
		seeding: DefaultSeeding(), schedule: FirstOrderSchedule(1e-4)}}
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
func GCN() *FirstOrderBuilder {
	return &FirstOrderBuilder{config{name: "GCN", newFamily: newFirstOrder, gcn: GCNConv(64).Layers(1),
		seeding: DefaultSeeding(), schedule: FirstOrderSchedule(5e-4)}}
}

// GCNBN returns the GCN of the structural-shift benchmark of Bazhenov et
// al. (2023), whose softmax entropy is their "SE" baseline: three GCN
// layers of width 256, each followed by GELU, BatchNorm and dropout 0.2,
// then a linear output layer,
//
//	h⁽ˡ⁺¹⁾ = Dropout(BN(GELU(Â h⁽ˡ⁾ W⁽ˡ⁾ + b⁽ˡ⁾))),  z = h⁽³⁾ V + c,  p = softmax(z),
//
// on binary node features (1 for each word a node has, BinaryFeatures, as
// the benchmark's files hold them; cuqgnn's loaders scale the rows to sum
// 1), with Â = D^−½(A+I)D^−½. It is trained with
// cross entropy and Adam (learning rate 3e-4, weight decay 1e-5 on all
// parameters) for 200 epochs, keeping the epoch of lowest validation cross
// entropy: their schedule, whose checkpoint watches the ID validation
// loss. The BatchNorms normalise over all nodes of the graph in training
// and use their running estimates in prediction (nn.BatchNorm).
func GCNBN() *FirstOrderBuilder {
	conv := GCNConv(256).Layers(3).Activation(nn.GELU).BatchNorm(true).Dropout(0.2)
	return &FirstOrderBuilder{config{name: "GCN-BN", newFamily: newFirstOrder, gcn: conv, linearOut: true, binaryIn: true,
		seeding: DefaultSeeding(), schedule: Schedule{LR: 3e-4, WeightDecay: 1e-5, MaxEpochs: 200, Patience: 200, EvalEvery: 1}}}
}

// Name sets the model's display name.
func (b *FirstOrderBuilder) Name(name string) *FirstOrderBuilder { b.c.name = name; return b }

// Seed sets the random seed of initialisation and dropout (Seeding).
func (b *FirstOrderBuilder) Seed(s uint64) *FirstOrderBuilder { b.c.seeding.Seed = s; return b }

// Init selects the init-th initialisation of the seed (Seeding).
func (b *FirstOrderBuilder) Init(k int) *FirstOrderBuilder { b.c.seeding.Init = k; return b }

// DropoutStream selects the stream of dropout and DropEdge masks of the
// seed and init, leaving the initial parameters alone (Seeding).
func (b *FirstOrderBuilder) DropoutStream(s uint64) *FirstOrderBuilder {
	b.c.seeding.Stream = s
	return b
}

// Seeding sets the seed, init and dropout stream at once.
func (b *FirstOrderBuilder) Seeding(s Seeding) *FirstOrderBuilder { b.c.seeding = s; return b }

// Encoder sets the feature encoder of APPNP (a GCN has none).
func (b *FirstOrderBuilder) Encoder(c *MLPConfig) *FirstOrderBuilder { b.c.encoder = c; return b }

// Conv sets the hidden GCN layers of a GCN; nil makes the model APPNP's
// propagation of its encoder's logits.
func (b *FirstOrderBuilder) Conv(c *nn.GCNConfig) *FirstOrderBuilder { b.c.gcn = c; return b }

// LinearOutput sets whether a GCN's output layer is linear, z = h W + b on
// the last hidden layer's h, instead of one more GCN layer (GCNBN's);
// a model without GCN layers refuses it at Done.
func (b *FirstOrderBuilder) LinearOutput(on bool) *FirstOrderBuilder { b.c.linearOut = on; return b }

// BinaryFeatures sets whether the first GCN layer reads the node features
// binarised, 1 where a feature is positive and 0 elsewhere (graph.Binarize:
// the bag of words before cuqgnn's loaders scale each row to sum 1), as
// GCNBN does; a model without GCN layers refuses it at Done.
func (b *FirstOrderBuilder) BinaryFeatures(on bool) *FirstOrderBuilder { b.c.binaryIn = on; return b }

// Propagation sets APPNP's propagation of logits.
func (b *FirstOrderBuilder) Propagation(k int, teleport float64) *FirstOrderBuilder {
	b.c.prop = APPNPConv(k, teleport)
	return b
}

// MCDropout makes the model an MC-dropout committee (Gal and Ghahramani
// 2016): training is unchanged, and Predict keeps dropout on and draws
// T = samples forward passes p⁽ˢ⁾ from a stream of the seed and init, so
// the same model gives the same prediction. The prediction is their mean
// p̄ = (1/T) Σ_s p⁽ˢ⁾, with TU, AU and EU the entropy decomposition of
// the samples (uq.Samples). Forward stays one pass with dropout off. It
// replaces DropEdge; a model without dropout is an error at Done.
func (b *FirstOrderBuilder) MCDropout(samples int) *FirstOrderBuilder {
	b.c.sampling = sampling{kind: mcDropout, samples: samples}
	return b
}

// DropEdge makes the model a DropEdge committee (Rong et al. 2020): every
// training epoch runs on a graph from which each undirected edge {i, j}
// (both its entries) is dropped with probability p, drawn anew each epoch
// from a stream of the seed and init, and Predict averages samples forward
// passes (dropout off) over independently dropped graphs, with TU, AU and
// EU the entropy decomposition of the samples (uq.Samples). Self loops
// stay. Early stopping watches the full graph. With p = 0 training is the
// plain model's. It replaces MCDropout.
func (b *FirstOrderBuilder) DropEdge(p float64, samples int) *FirstOrderBuilder {
	b.c.sampling = sampling{kind: dropEdge, p: p, samples: samples}
	return b
}

// Done checks the configuration, builds the model on g and initialises its
// parameters from the seed and init. The model's schedule is the preset's
// FirstOrderSchedule (Model.Schedule).
func (b *FirstOrderBuilder) Done(g *graph.Graph) (*Model, error) {
	if b == nil {
		return nil, errNoBuilder
	}
	return b.c.done(g)
}

// Classifier is Done as a ClassifierBuilder.
func (b *FirstOrderBuilder) Classifier(g *graph.Graph) (Classifier, error) {
	return asClassifier(b.Done(g))
}
