package cuq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Model is a node classifier with uncertainty, built by a Builder. Train it
// with Fit, then Predict on its graph or on a graph with the same adjacency
// and perturbed features.
type Model struct {
	name    string
	cfg     Builder
	classes int
	feats   int

	encoder []*nn.Linear
	gcn     []*nn.GCN
	gat     []*nn.GAT
	latent  *nn.Linear
	flows   *nn.RadialFlows
	output  *nn.Linear // APPNP's logit layer

	logPrior []float64 // log p(c) from the training labels
	rng      *rand.Rand
	trained  bool

	structs *structures
	stepper *trainer // state of Step

	gkdeAlpha *tensor.Dense
}

// structures caches what a model derives from a graph's adjacency.
type structures struct {
	adj     *tensor.CSR
	sym     *tensor.CSR // D^−½(A+I)D^−½
	gatPat  *tensor.CSR // adjacency pattern with one self loop per node
	convPPR *graph.PPR  // APPNP propagation as the convolution (CUQ-PPR)
	prop    *graph.PPR  // propagation of logits (APPNP) or evidence (GPN)
	mixture *tensor.CSR // LOP-GPN's Π
}

// Build validates the configuration and initialises the parameters from the
// seed and init number.
func (b *Builder) Build() (*Model, error) {
	if b.err != nil {
		return nil, b.err
	}
	if err := b.validate(); err != nil {
		return nil, err
	}
	m := &Model{name: b.name, cfg: *b, classes: b.g.NumClasses}
	_, m.feats = b.g.Features.Dims()
	if b.gkde {
		return m, nil
	}
	// The init-th model of a seed: every init draws from its own stream, so
	// init k has the same weights on every split (as the reference, which
	// re-seeds before each run).
	rng := rand.New(rand.NewPCG(b.train.Seed, uint64(b.train.Init)))
	in := m.feats
	for i, h := range b.encoder.hidden {
		m.encoder = append(m.encoder, nn.NewLinear(fmt.Sprintf("encoder%d", i), in, h, true, rng))
		in = h
	}
	if b.firstOrder {
		m.output = nn.NewLinear("output", in, m.classes, true, rng)
	} else {
		if c := b.conv; c != nil {
			switch c.kind {
			case ConvGCN:
				for l := 0; l < c.layers; l++ {
					m.gcn = append(m.gcn, &nn.GCN{Lin: nn.NewGlorotLinear(fmt.Sprintf("gcn%d", l), in, c.hidden, true, rng)})
					in = c.hidden
				}
			case ConvGAT:
				// hidden layers concatenate their heads, the last averages
				// them (as the reference's second GATConv)
				for l := 0; l < c.layers; l++ {
					concat := l+1 < c.layers
					gat := nn.NewGAT(fmt.Sprintf("gat%d", l), nil, in, c.hidden, c.heads, concat, rng)
					gat.NegativeSlope = c.negativeSlope
					gat.AttentionDropout = c.attnDropout
					m.gat = append(m.gat, gat)
					in = c.hidden
					if concat {
						in *= c.heads
					}
				}
			}
		}
		m.latent = nn.NewLinear("latent", in, b.latent, true, rng)
		flows, err := nn.NewRadialFlows("flow", m.classes, b.flows.layers, b.latent, rng)
		if err != nil {
			return nil, fmt.Errorf("cuq: %s: %w", b.name, err)
		}
		m.flows = flows
	}
	m.rng = rand.New(rand.NewPCG(b.train.Seed, uint64(b.train.Init)+1<<32))
	return m, nil
}

// Name returns the model's display name (APPNP, GKDE, GPN, LOP-GPN,
// CUQ-PPR, CUQ-GCN, CUQ-GAT or a user's).
func (m *Model) Name() string { return m.name }

// Graph returns the graph the model was built on.
func (m *Model) Graph() *graph.Graph { return m.cfg.g }

// Trainable reports whether the model has parameters to train (all but
// GKDE).
func (m *Model) Trainable() bool { return !m.cfg.gkde }

// IsPostNet reports whether the model predicts Dirichlet distributions
// through a PostNet head (GPN, LOP-GPN, CUQ-*).
func (m *Model) IsPostNet() bool { return m.flows != nil }

// flowParams and otherParams are the two optimizer groups of the reference.
func (m *Model) flowParams() []*ad.Value {
	if m.flows == nil {
		return nil
	}
	return m.flows.Params()
}

func (m *Model) otherParams() []*ad.Value {
	var ps []*ad.Value
	for _, l := range m.encoder {
		ps = append(ps, l.Params()...)
	}
	for _, l := range m.gcn {
		ps = append(ps, l.Params()...)
	}
	for _, l := range m.gat {
		ps = append(ps, l.Params()...)
	}
	if m.latent != nil {
		ps = append(ps, m.latent.Params()...)
	}
	if m.output != nil {
		ps = append(ps, m.output.Params()...)
	}
	return ps
}

// NumParams returns the number of trainable scalars.
func (m *Model) NumParams() int {
	n := 0
	for _, p := range append(m.flowParams(), m.otherParams()...) {
		n += len(p.Data.Data)
	}
	return n
}

// prepare returns the adjacency-derived structures for g, reusing them while
// the adjacency is the same matrix.
func (m *Model) prepare(g *graph.Graph) (*structures, error) {
	if g.N != m.cfg.g.N {
		return nil, fmt.Errorf("cuq: %s was built for %d nodes, graph %q has %d", m.name, m.cfg.g.N, g.Name, g.N)
	}
	if _, f := g.Features.Dims(); f != m.feats && !m.cfg.gkde {
		return nil, fmt.Errorf("cuq: %s was built for %d features, graph %q has %d", m.name, m.feats, g.Name, f)
	}
	if m.structs != nil && m.structs.adj == g.Adj {
		return m.structs, nil
	}
	s := &structures{adj: g.Adj}
	b := m.cfg
	needSym := len(m.gcn) > 0 || (b.conv != nil && b.conv.kind == ConvAPPNP) || b.firstOrder || b.pooling == LogLinear
	if needSym {
		s.sym = graph.SymNorm(g.Adj)
	}
	if len(m.gat) > 0 {
		pat := graph.AddRemainingSelfLoops(graph.RemoveSelfLoops(g.Adj), 1)
		s.gatPat = pat
	}
	var err error
	if b.conv != nil && b.conv.kind == ConvAPPNP {
		s.convPPR, err = graph.NewPPR(s.sym, b.conv.teleport, b.conv.k)
	}
	switch {
	case err != nil:
	case b.firstOrder || b.pooling == LogLinear:
		s.prop, err = graph.NewPPR(s.sym, b.prop.teleport, b.prop.k)
	case b.pooling == Linear:
		var p *graph.PPR
		p, err = graph.NewPPR(graph.RWNorm(g.Adj), b.prop.teleport, b.prop.k)
		if err == nil {
			if b.pruneAt > 0 {
				s.mixture = p.SparsePruned(b.pruneAt)
			} else {
				s.mixture = tensor.DenseToCSR(p.Dense())
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	m.structs = s
	return s, nil
}

// headRows reports whether forward with these rows returns only those
// rows.
func (m *Model) headRows(rows []int) bool {
	return rows != nil && m.flows != nil && m.cfg.pooling == Behavioral
}

// budgetConst is ½·d·log 4π, the "latent-new" certainty budget of the
// reference: log β = log p(z|c) + log p(c) + ½ d log 4π.
func budgetConst(d int) float64 { return 0.5 * float64(d) * math.Log(4*math.Pi) }

// forward computes the model's output on tape t for graph g: log-softmax
// probabilities (APPNP), α (GPN, CUQ) or per-node α_ft (LOP-GPN), one row
// per node.
//
// With behavioral pooling the PostNet head of a node depends on its own
// latent only, so when rows is non-nil the head runs on those nodes alone
// and the output has one row per entry of rows (training needs the labelled
// nodes only; the flows dominate the cost of a CUQ model otherwise). The
// other models need every node and ignore rows; use headRows to know which
// layout the output has.
func (m *Model) forward(t *ad.Tape, g *graph.Graph, s *structures, rows []int) *ad.Value {
	b := m.cfg
	var h *ad.Value
	for i, l := range m.encoder {
		if i == 0 {
			h = l.ForwardConst(t, g.Features)
		} else {
			h = l.Forward(t, h)
		}
		h = t.Dropout(t.ReLU(h), b.encoder.dropout, m.rng)
	}
	if b.firstOrder {
		logits := nn.Propagate(t, s.prop, m.output.Forward(t, h))
		return t.LogSoftmax(logits)
	}
	// The convolutions end linearly (no activation after the last layer),
	// so the latent projection is applied before the last propagation or
	// aggregation: it then carries the latent size (16) instead of the
	// hidden size (64) columns. The result is the reference's up to
	// rounding (nn.PropagateProjected, GCN.ForwardProjected,
	// GAT.ForwardProjected).
	var z *ad.Value
	switch {
	case b.conv != nil && b.conv.kind == ConvAPPNP:
		z = nn.PropagateProjected(t, s.convPPR, h, m.latent)
	case len(m.gcn) > 0:
		for i, l := range m.gcn {
			l.Adj = s.sym
			if i+1 == len(m.gcn) {
				z = l.ForwardProjected(t, h, m.latent)
				break
			}
			h = t.Dropout(t.ReLU(l.Forward(t, h)), b.conv.dropout, m.rng)
		}
	case len(m.gat) > 0:
		// The reference's input dropout before the first GAT layer is
		// discarded (REFERENCE.md §9.1), so none is applied here.
		for i, l := range m.gat {
			l.SetPattern(s.gatPat)
			if i+1 == len(m.gat) {
				z = l.ForwardProjected(t, h, m.latent, m.rng)
				break
			}
			h = t.Dropout(t.ELU(l.Forward(t, h, m.rng)), b.conv.dropout, m.rng)
		}
	default:
		z = m.latent.Forward(t, h)
	}
	if m.headRows(rows) {
		z = t.GatherRows(z, rows)
	}
	logp := m.flows.LogDensity(t, z)
	if !t.Training() {
		// eval mode: NaN log-densities become −inf (the reference's Density)
		for i, v := range logp.Data.Data {
			if math.IsNaN(v) {
				logp.Data.Data[i] = math.Inf(-1)
			}
		}
	}
	shift := tensor.New(1, m.classes)
	for c := range shift.Data {
		shift.Data[c] = m.logPrior[c] + budgetConst(b.latent)
	}
	beta := t.Exp(t.Clamp(t.Add(logp, ad.Const(shift)), -30, 30))
	if b.pooling == LogLinear {
		beta = nn.Propagate(t, s.prop, beta)
	}
	return t.AddConst(beta, 1)
}
