package cuq

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Model is a node classifier with uncertainty, built on a graph by the
// Done of a PostNetBuilder, a FirstOrderBuilder or a GKDEBuilder. Train it with Fit, then Predict on its graph or on a
// variant of it: a graph with the same number of nodes and the same
// feature width, whose features (feature noise) and edges (structure
// shifts) may differ; the graph's labels serve only the prediction's
// evaluation (see Predict).
type Model struct {
	name     string
	g        *graph.Graph
	classes  int
	schedule Schedule // Fit's when given none
	seeding  Seeding
	fam      family
	recipe   [sha256.Size]byte // what training reads of the configuration (config.recipe)

	trained bool
	stepper *trainer // state of Step

	// base is the model whose parameters a variant (WithPropagation,
	// WithPooling) shares, nil for other models.
	base *Model
}

// A family is what sets one kind of model apart: a PostNet (GPN, LOP-GPN,
// CUQ-*), a softmax classifier (APPNP, GCN) or GKDE's kernel estimate. Model
// holds what they share (the graph, the training schedule, the checks of
// graphs and splits) and leaves the rest to its family.
type family interface {
	// params returns the trainable parameters in the reference's two
	// optimizer groups: the flows of a PostNet head, and all others.
	params() (flows, others []*ad.Value)
	// fit prepares training on split, whose training nodes have the
	// (checked) labels trainY. It returns the objective that gradient
	// training minimises, or nil for a family without parameters, which
	// fit has then fitted.
	// s.EntropyReg is the loss's regulariser.
	fit(g *graph.Graph, split graph.Split, trainY []int, s Schedule) (objective, error)
	// output returns the family's raw output on g in evaluation mode (see
	// Model.Forward), written into dst when it is not nil (see kept).
	output(g *graph.Graph, dst *tensor.Dense) (*tensor.Dense, error)
	// predict fills p.Prob, p.Alpha and p.Measures for the graph p.Graph.
	predict(p *Prediction) error
}

// An objective is a family's training loss on one split and the
// validation predictions early stopping watches.
type objective interface {
	// tape returns a recording tape for one training step.
	tape() *ad.Tape
	// loss records the training loss on t, a recording tape.
	loss(t *ad.Tape) (*ad.Value, error)
	// valProbs returns the mean class probabilities p̄ of the validation
	// nodes in evaluation mode, one row per node in the split's order.
	valProbs() *tensor.Dense
}

// Name returns the model's display name (APPNP, GCN, GKDE, GPN, LOP-GPN,
// CUQ-PPR, CUQ-GCN, CUQ-GAT, MC-Dropout-GCN, DropEdge-GCN or a user's).
func (m *Model) Name() string { return m.name }

// Graph returns the graph the model was built on.
func (m *Model) Graph() *graph.Graph { return m.g }

// Trainable reports whether the model has parameters to train (all but
// GKDE).
func (m *Model) Trainable() bool { return m.NumParams() > 0 }

// IsPostNet reports whether the model predicts Dirichlet distributions
// through a PostNet head (GPN, LOP-GPN, CUQ-*).
func (m *Model) IsPostNet() bool {
	_, ok := m.fam.(*postNet)
	return ok
}

// Parameters returns the trainable parameters in the reference's two
// optimizer groups: the flows of a PostNet head (x₀, a′, b′; none for
// APPNP, GCN and GKDE), and all others in the order encoder, convolution,
// latent projection (APPNP: encoder, output layer; GCN: its layers). Each
// value's Data is the parameter and, after a training epoch, Grad its
// gradient; they are
// the model's own, for inspection and export (an OnEpoch callback of Fit
// sees the gradients of the epoch just run).
func (m *Model) Parameters() (flows, others []*ad.Value) { return m.fam.params() }

// A bufferedFamily has values besides its parameters that training changes
// and a trained model's state holds: the running estimates of BatchNorms.
type bufferedFamily interface {
	buffers() []*ad.Value
}

// buffers returns the family's buffers, none for most models.
func (m *Model) buffers() []*ad.Value {
	if b, ok := m.fam.(bufferedFamily); ok {
		return b.buffers()
	}
	return nil
}

// Schedule returns the schedule Fit trains the model with when it is
// given none: its preset's (PostNetSchedule, FirstOrderSchedule; the zero
// Schedule for GKDE, which has nothing to train).
func (m *Model) Schedule() Schedule { return m.schedule }

// Seeding returns the seed, init and dropout stream the model's parameters
// and masks were drawn from.
func (m *Model) Seeding() Seeding { return m.seeding }

// NumParams returns the number of trainable scalars.
func (m *Model) NumParams() int {
	flows, others := m.fam.params()
	n := 0
	for _, p := range append(flows, others...) {
		n += len(p.Data.Data)
	}
	return n
}

// checkGraph checks that g has the nodes and the feature width of the
// model's graph.
func (m *Model) checkGraph(g *graph.Graph) error {
	if g.N != m.g.N {
		return fmt.Errorf("cuq: %s was built for %d nodes, graph %q has %d", m.name, m.g.N, g.Name, g.N)
	}
	if want := m.g.NumFeatures(); g.NumFeatures() != want {
		return fmt.Errorf("cuq: %s was built for %d features, graph %q has %d", m.name, want, g.Name, g.NumFeatures())
	}
	return nil
}

// encoder is the feature encoder of the networks: Linear → ReLU → Dropout
// per hidden layer.
type encoder struct {
	layers  []*nn.Linear
	dropout float64

	// The matrix the first layer multiplies for the features last seen
	// (see input).
	operand operandCache
	first   firstProduct // the product of the first layer
}

// firstProduct computes a first layer's product of the node features,
// handing it from each evaluation pass to the next training pass while
// keeping is on (nn.ConstProduct): Fit turns it on for its epochs, whose
// validation pass and next training step multiply the features by the
// same weights.
type firstProduct struct {
	memo nn.ConstProduct
	on   bool
}

// forward returns l.ForwardConst(t, x).
func (f *firstProduct) forward(t *ad.Tape, l *nn.Linear, x tensor.Matrix) *ad.Value {
	if f.on {
		return f.memo.Forward(t, l, x)
	}
	return l.ForwardConst(t, x)
}

// keep turns the handing on or off; off frees what is kept.
func (f *firstProduct) keep(on bool) {
	f.on = on
	if !on {
		f.memo.Drop()
	}
}

// A productKeeper is a family whose first layer multiplies the node
// features (firstProduct); Fit turns its keeping on while it trains.
type productKeeper interface{ keepProducts(on bool) }

// handFirstProducts lets Fit turn the families' keeping on; the tests
// turn it off to check that handing the products changes no bit.
var handFirstProducts = true

func (e *encoder) keepProducts(on bool) { e.first.keep(on) }

// operandCache keeps the matrix a first layer multiplies, derived from a
// graph's features, for the next call with the same features: a graph's
// features must not be modified in place once a model has used them.
type operandCache struct{ features, operand tensor.Matrix }

// get returns derive(x), derived again only when x is not the features
// of the kept operand.
func (c *operandCache) get(x tensor.Matrix, derive func(tensor.Matrix) tensor.Matrix) tensor.Matrix {
	if c.features != x {
		c.features, c.operand = x, derive(x)
	}
	return c.operand
}

// newEncoder checks c and returns its encoder for in features, the weights
// drawn from init.
func newEncoder(c *MLPConfig, in int, init *rand.Rand) (*encoder, error) {
	if c == nil || len(c.hidden) == 0 {
		return nil, fmt.Errorf("the encoder needs at least one hidden layer")
	}
	for _, h := range c.hidden {
		if h < 1 {
			return nil, fmt.Errorf("encoder width %d", h)
		}
	}
	if p := c.dropout; p < 0 || p >= 1 {
		return nil, fmt.Errorf("encoder dropout %v not in [0, 1)", p)
	}
	e := &encoder{dropout: c.dropout}
	for i, h := range c.hidden {
		e.layers = append(e.layers, nn.NewLinear(fmt.Sprintf("encoder%d", i), in, h, true, init))
		in = h
	}
	return e, nil
}

// width returns the number of features the encoder outputs.
func (e *encoder) width() int { return e.layers[len(e.layers)-1].Out }

// forward encodes g's node features on t, drawing dropout from rng.
func (e *encoder) forward(t *ad.Tape, g *graph.Graph, rng rand.Source) *ad.Value {
	var h *ad.Value
	for i, l := range e.layers {
		if i == 0 {
			h = e.first.forward(t, l, e.input(g.Features))
		} else {
			h = l.Forward(t, h)
		}
		h = t.Dropout(t.ReLU(h), e.dropout, rng)
	}
	return h
}

// input returns the matrix the first layer multiplies for the features x:
// a tensor.ScaledBinary view when x is dense and every row a scale times a
// 0/1 pattern (binarised, normalised bag-of-words features such as Amazon's,
// whose products it computes faster), x itself otherwise. The choice is
// kept for the next call with the same x (operandCache).
func (e *encoder) input(x tensor.Matrix) tensor.Matrix {
	return e.operand.get(x, func(x tensor.Matrix) tensor.Matrix {
		if d, ok := x.(*tensor.Dense); ok {
			if sb, ok := tensor.NewScaledBinary(d); ok {
				return sb
			}
		}
		return x
	})
}

// check returns an error if g's features do not have the encoder's input
// width.
func (e *encoder) check(g *graph.Graph) error { return checkWidth(e.layers[0].In, g) }

// checkWidth returns an error if g's features do not have in columns.
func checkWidth(in int, g *graph.Graph) error {
	if _, f := g.Features.Dims(); f != in {
		return fmt.Errorf("built for %d features, graph %q has %d", in, g.Name, f)
	}
	return nil
}

// cache holds what a family derives from one adjacency matrix (normalised
// adjacencies, propagations, mixture weights), derived again when the
// adjacency changes.
type cache[T any] struct {
	adj *tensor.CSR
	val T
}

// get returns the value for adj, deriving it when adj is not the adjacency
// of the cached value.
func (c *cache[T]) get(adj *tensor.CSR, derive func(*tensor.CSR) (T, error)) (T, error) {
	if c.adj != adj || c.adj == nil {
		v, err := derive(adj)
		if err != nil {
			return v, err
		}
		c.adj, c.val = adj, v
	}
	return c.val, nil
}

// tapes hands out the tapes of a model's passes, all drawing on one pool
// of matrix storage (ad.Pool), so that every epoch and evaluation pass
// reuses the memory of the previous ones instead of allocating, zeroing
// and collecting it anew. Its zero value is ready to use.
type tapes struct{ pool *ad.Pool }

func (tp *tapes) poolOf() *ad.Pool {
	if tp.pool == nil {
		tp.pool = ad.NewPool()
	}
	return tp.pool
}

// training returns a recording tape; call its Release after the
// optimizer step.
func (tp *tapes) training() *ad.Tape { return ad.NewTape().WithPool(tp.poolOf()) }

// evaluation returns an evaluation tape; call its Release, keeping the
// output the caller returns, when the pass is done.
func (tp *tapes) evaluation() *ad.Tape { return ad.NewEvalTape().WithPool(tp.poolOf()) }

// kept releases the evaluation tape t and returns its output out: out
// itself, kept out of the tape's pool, or with a destination dst out's
// values copied into dst, so that out's storage goes back to the pool for
// the next pass.
func kept(t *ad.Tape, out, dst *tensor.Dense) *tensor.Dense {
	if dst == nil {
		t.Release(out)
		return out
	}
	copy(dst.Data, out.Data)
	t.Release()
	return dst
}
