package cuq

import (
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
)

// PostNetBuilder describes a PostNet model without a graph: GPN, LOP-GPN
// and the CUQ-GNNs. Each of them is
//
//	encoder → graph convolution → latent projection z → per-class radial flows → α = 1 + β,
//
// β_c the evidence of class c from the flow's density of z and the class
// prior (the package documentation gives the formula), pooled over a
// node's neighbourhood as Pooling says. The presets (CUQ, CUQPPR, CUQGCN,
// CUQGAT, GPN, LOPGPN) return one with the paper's hyperparameters and
// PostNetSchedule; every option can be changed before Done builds the
// model on a graph. Done does not change the builder, so one builder may
// be done on several graphs (the clean one and a leave-out-classes one,
// say); changing the builder or its parts afterwards changes no model
// built before.
type PostNetBuilder struct{ c config }

// CUQ returns a builder for a CUQ-GNN with no convolution set yet:
// encoder MLP(64), latent 16, 10 radial flows, behavioral pooling. The
// other poolings propagate with APPNPConv(10, 0.1) unless Propagation says
// otherwise.
func CUQ() *PostNetBuilder {
	return &PostNetBuilder{config{name: "CUQ-GNN", newFamily: newPostNet, encoder: MLP(64), latent: 16,
		flowLayers: 10, pooling: Behavioral, prop: APPNPConv(10, 0.1), seeding: DefaultSeeding(), schedule: PostNetSchedule()}}
}

// CUQPPR returns the paper's CUQ-PPR: APPNP propagation (K = 10, t = 0.1) of
// the 64-d hidden features before the PostNet head.
func CUQPPR() *PostNetBuilder { return CUQ().Name("CUQ-PPR").Conv(APPNPConv(10, 0.1)) }

// CUQGCN returns the paper's CUQ-GCN: two 64-d GCN layers.
func CUQGCN() *PostNetBuilder { return CUQ().Name("CUQ-GCN").Conv(GCNConv(64)) }

// CUQGAT returns the paper's CUQ-GAT: two single-head 64-d GAT layers.
func CUQGAT() *PostNetBuilder { return CUQ().Name("CUQ-GAT").Conv(GATConv(64)) }

// GPN returns the Graph Posterior Network: a PostNet on each node's own
// features whose evidence is propagated by APPNP (log-linear pooling).
func GPN() *PostNetBuilder { return CUQ().Name("GPN").Pooling(LogLinear) }

// LOPGPN returns LOP-GPN: GPN's per-node Dirichlets pooled linearly into a
// mixture with personalised-PageRank weights over the random-walk
// normalised adjacency. Π is exact and dense unless Prune sets a threshold.
func LOPGPN() *PostNetBuilder { return CUQ().Name("LOP-GPN").Pooling(Linear) }

// Name sets the model's display name.
func (b *PostNetBuilder) Name(name string) *PostNetBuilder { b.c.name = name; return b }

// Seed sets the random seed of initialisation and dropout (Seeding).
func (b *PostNetBuilder) Seed(s uint64) *PostNetBuilder { b.c.seeding.Seed = s; return b }

// Init selects the init-th initialisation of the seed (Seeding).
func (b *PostNetBuilder) Init(k int) *PostNetBuilder { b.c.seeding.Init = k; return b }

// DropoutStream selects the stream of dropout masks of the seed and init,
// leaving the initial parameters alone (Seeding).
func (b *PostNetBuilder) DropoutStream(s uint64) *PostNetBuilder { b.c.seeding.Stream = s; return b }

// Seeding sets the seed, init and dropout stream at once.
func (b *PostNetBuilder) Seeding(s Seeding) *PostNetBuilder { b.c.seeding = s; return b }

// Encoder sets the feature encoder.
func (b *PostNetBuilder) Encoder(c *MLPConfig) *PostNetBuilder { b.c.encoder = c; return b }

// Conv sets the graph convolution between encoder and PostNet head:
// APPNPConv, GCNConv or GATConv (or any nn.ConvConfig); nil for none.
func (b *PostNetBuilder) Conv(c nn.ConvConfig) *PostNetBuilder { b.c.conv = c; return b }

// Latent sets the dimension of the latent space z of the flows.
func (b *PostNetBuilder) Latent(d int) *PostNetBuilder { b.c.latent = d; return b }

// Flows sets the number of radial layers of each class's flow (the paper:
// 10), each z' = z + β·h(α, r)·(z − z₀), h = 1/(α + r), r = ‖z − z₀‖
// (nn.RadialFlows).
func (b *PostNetBuilder) Flows(layers int) *PostNetBuilder { b.c.flowLayers = layers; return b }

// Pooling sets how neighbours' opinions are combined.
func (b *PostNetBuilder) Pooling(p Pooling) *PostNetBuilder { b.c.pooling = p; return b }

// Propagation sets the APPNP propagation of evidence (log-linear pooling,
// GPN) or of the mixture weights (linear pooling, LOP-GPN).
func (b *PostNetBuilder) Propagation(k int, teleport float64) *PostNetBuilder {
	b.c.prop = APPNPConv(k, teleport)
	return b
}

// Prune makes linear pooling's mixture weights sparse: after each
// propagation step entries below threshold are dropped and their mass
// moved to the diagonal (the reference does this with 0.01 on the larger
// graphs).
func (b *PostNetBuilder) Prune(threshold float64) *PostNetBuilder { b.c.pruneAt = threshold; return b }

// Done checks the configuration, builds the model on g and initialises its
// parameters from the seed and init. The model's schedule is
// PostNetSchedule (Model.Schedule).
func (b *PostNetBuilder) Done(g *graph.Graph) (*Model, error) {
	if b == nil {
		return nil, errNoBuilder
	}
	return b.c.done(g)
}

// Classifier is Done as a ClassifierBuilder.
func (b *PostNetBuilder) Classifier(g *graph.Graph) (Classifier, error) {
	return asClassifier(b.Done(g))
}
