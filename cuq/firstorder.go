package cuq

import (
	"fmt"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// firstOrder is the family of the softmax classifiers APPNP and GCN: a
// head maps the node features to class logits z over an operator derived
// from the graph's adjacency, and p = softmax(z). It predicts a categorical
// distribution per node, so it has total uncertainty only, unless its
// sampling draws several predictions (MC dropout, DropEdge), whose entropy
// decomposition gives AU and EU.
type firstOrder struct {
	head     logitHead
	rng      rand.Source // dropout in training
	edges    *rand.Rand  // DropEdge in training
	sampling sampling
	seeding  Seeding // of the prediction streams
	ops      cache[nn.Operator]
	tapes
}

// A logitHead computes a first-order model's class logits.
type logitHead interface {
	// check returns an error if g's features do not fit the head.
	check(g *graph.Graph) error
	// operator derives the head's graph operator from an adjacency.
	operator(adj *tensor.CSR) (nn.Operator, error)
	// logits returns the N×C logits of g's nodes on t, drawing dropout
	// from rng when t records.
	logits(t *ad.Tape, g *graph.Graph, op nn.Operator, rng rand.Source) *ad.Value
	// embed returns the N×d input of the output layer on t (the
	// embeddings of GEBM), drawing dropout from rng when t records; logits
	// computes it on the way.
	embed(t *ad.Tape, g *graph.Graph, op nn.Operator, rng rand.Source) *ad.Value
	// params returns the trainable parameters.
	params() []*ad.Value
	// dropout returns the dropout probability of the hidden layers.
	dropout() float64
}

// samplingKind names how a first-order model draws the predictions it
// averages.
type samplingKind int

const (
	noSampling samplingKind = iota
	mcDropout
	dropEdge
)

func (k samplingKind) String() string {
	switch k {
	case mcDropout:
		return "MC dropout"
	case dropEdge:
		return "DropEdge"
	}
	return "no sampling"
}

// sampling configures the sampled predictions of a first-order model.
type sampling struct {
	kind    samplingKind
	p       float64 // DropEdge: probability of dropping an undirected edge
	samples int     // forward passes averaged by Predict
}

// check returns an error for an invalid configuration.
func (s sampling) check(h logitHead) error {
	switch {
	case s.kind == noSampling:
		return nil
	case s.samples < 1:
		return fmt.Errorf("%v with %d samples, need at least 1", s.kind, s.samples)
	case s.kind == dropEdge && !(s.p >= 0 && s.p < 1):
		return fmt.Errorf("DropEdge probability %v not in [0, 1)", s.p)
	case s.kind == mcDropout && h.dropout() == 0:
		return fmt.Errorf("MC dropout needs dropout, but the model's dropout is 0")
	}
	return nil
}

// newFirstOrder checks the builder's configuration of a first-order model
// and draws its parameters from init: APPNP's head without a convolution,
// a GCN head with a GCN convolution.
func newFirstOrder(b *config, g *graph.Graph, init *rand.Rand, dropout rand.Source) (family, error) {
	var h logitHead
	var err error
	switch {
	case b.gcn != nil:
		h, err = newGCNHead(b.gcn, b.linearOut, b.binaryIn, g, init)
	case b.linearOut:
		err = fmt.Errorf("a linear output layer needs GCN layers (Conv)")
	case b.binaryIn:
		err = fmt.Errorf("binary features are read by GCN layers (Conv)")
	default:
		h, err = newAPPNPHead(b, g, init)
	}
	if err != nil {
		return nil, err
	}
	if err := b.sampling.check(h); err != nil {
		return nil, err
	}
	return &firstOrder{head: h, rng: dropout, edges: rand.New(stream(b.seeding, edgeStream)), sampling: b.sampling, seeding: b.seeding}, nil
}

func (f *firstOrder) params() (flows, others []*ad.Value) { return nil, f.head.params() }

func (f *firstOrder) keepProducts(on bool) {
	if k, ok := f.head.(productKeeper); ok {
		k.keepProducts(on)
	}
}

func (f *firstOrder) buffers() []*ad.Value {
	if b, ok := f.head.(nn.Buffered); ok {
		return b.Buffers()
	}
	return nil
}

// prepare checks g's features and returns the head's operator of its
// adjacency.
func (f *firstOrder) prepare(g *graph.Graph) (nn.Operator, error) {
	if err := f.head.check(g); err != nil {
		return nil, err
	}
	return f.ops.get(g.Adj, f.head.operator)
}

// forward computes on tape t the log-probabilities log softmax(z) on graph
// g with operator op, one row per node.
func (f *firstOrder) forward(t *ad.Tape, g *graph.Graph, op nn.Operator, rng rand.Source) *ad.Value {
	return t.LogSoftmax(f.head.logits(t, g, op, rng))
}

func (f *firstOrder) fit(g *graph.Graph, split graph.Split, trainY []int, _ Schedule) (objective, error) {
	op, err := f.prepare(g)
	if err != nil {
		return nil, err
	}
	return &firstOrderObjective{f: f, g: g, op: op, split: split, trainY: trainY}, nil
}

func (f *firstOrder) output(g *graph.Graph, dst *tensor.Dense) (*tensor.Dense, error) {
	op, err := f.prepare(g)
	if err != nil {
		return nil, err
	}
	t := f.evaluation()
	return kept(t, f.forward(t, g, op, f.rng).Data, dst), nil
}

// predict gives the softmax probabilities and their categorical measures,
// or the mean and entropy decomposition of the sampled predictions.
func (f *firstOrder) predict(p *Prediction) error {
	op, err := f.prepare(p.Graph)
	if err != nil {
		return err
	}
	s := f.sampling
	if s.kind == noSampling {
		t := f.evaluation()
		z := f.head.logits(t, p.Graph, op, f.rng)
		p.Logits = z.Data.Clone()
		p.Prob = exp(t.LogSoftmax(z).Data)
		t.Release()
		p.Measures, err = uq.Categorical(p.Prob.Data, p.Classes)
		return err
	}
	src := stream(f.seeding, edgeSamplesStream)
	if s.kind == mcDropout {
		src = stream(f.seeding, mcDropoutStream)
	}
	rng := rand.New(src) // the same draws as src
	probs := make([][]float64, s.samples)
	p.Logits = tensor.New(p.Graph.N, p.Classes)
	for k := range probs {
		t, op := ad.NewEvalTape(), op
		switch s.kind {
		case mcDropout:
			// A sampling tape keeps dropout on; nothing is
			// differentiated, and BatchNorms use their running
			// estimates.
			t = ad.NewSamplingTape()
		case dropEdge:
			if op, err = f.head.operator(dropEdges(p.Graph.Adj, s.p, rng)); err != nil {
				return err
			}
		}
		z := f.head.logits(t, p.Graph, op, src)
		addScaled(p.Logits.Data, z.Data.Data, 1/float64(s.samples))
		probs[k] = exp(t.LogSoftmax(z).Data).Data
	}
	return sampledPrediction(p, probs)
}

// addScaled adds w·x to dst elementwise.
func addScaled(dst, x []float64, w float64) {
	for i, v := range x {
		dst[i] += float64(w * v)
	}
}

// sampledPrediction fills p with the mean of the sampled categorical
// predictions probs (each N×C, row-major) and their entropy decomposition,
// and keeps probs for the credal sets.
func sampledPrediction(p *Prediction, probs [][]float64) error {
	mean, err := uq.SampleMean(probs, p.Classes)
	if err != nil {
		return err
	}
	if p.Prob, err = tensor.FromSlice(len(mean)/p.Classes, p.Classes, mean); err != nil {
		return err
	}
	p.credal.samples = probs
	p.Measures, err = uq.Samples(probs, p.Classes)
	return err
}

// exp returns e^x elementwise: the probabilities of log-probabilities.
func exp(x *tensor.Dense) *tensor.Dense {
	out := tensor.New(x.Rows, x.Cols)
	tensor.Exp(out.Data, x.Data)
	return out
}

// firstOrderObjective is a first-order model's loss on one split: the mean
// negative log-likelihood of the training labels, on a graph with dropped
// edges each epoch under DropEdge.
type firstOrderObjective struct {
	f      *firstOrder
	g      *graph.Graph
	op     nn.Operator
	split  graph.Split
	trainY []int
}

func (o *firstOrderObjective) tape() *ad.Tape { return o.f.training() }

func (o *firstOrderObjective) loss(t *ad.Tape) (*ad.Value, error) {
	f, op := o.f, o.op
	if f.sampling.kind == dropEdge && f.sampling.p > 0 {
		var err error
		if op, err = f.head.operator(dropEdges(o.g.Adj, f.sampling.p, f.edges)); err != nil {
			return nil, err
		}
	}
	return nllLoss(t, f.head.logits(t, o.g, op, f.rng), o.split.Train, o.trainY), nil
}

// valProbs returns the softmax probabilities of the validation nodes, one
// row each; like nllLoss, it normalises only the rows it needs.
func (o *firstOrderObjective) valProbs() *tensor.Dense {
	t := o.f.evaluation()
	logits := o.f.head.logits(t, o.g, o.op, o.f.rng)
	probs := exp(t.LogSoftmax(t.GatherRows(logits, o.split.Val)).Data)
	t.Release()
	return probs
}

// appnpHead is APPNP's head: encoder → output layer → propagation of the
// logits, z = Π·(enc(X)·W + b) with Π the personalised-PageRank operator
// over D^−½(A+I)D^−½.
type appnpHead struct {
	enc  *encoder
	out  *nn.Linear
	prop nn.APPNPConfig
}

// newAPPNPHead checks the builder's encoder and propagation and draws the
// head's parameters from init.
func newAPPNPHead(b *config, g *graph.Graph, init *rand.Rand) (*appnpHead, error) {
	if err := b.checkPropagation(); err != nil {
		return nil, err
	}
	_, in := g.Features.Dims()
	enc, err := newEncoder(b.encoder, in, init)
	if err != nil {
		return nil, err
	}
	return &appnpHead{enc: enc, prop: b.prop, out: nn.NewLinear("output", enc.width(), g.NumClasses, true, init)}, nil
}

func (h *appnpHead) check(g *graph.Graph) error { return h.enc.check(g) }

func (h *appnpHead) operator(adj *tensor.CSR) (nn.Operator, error) {
	return graph.NewPPR(graph.SymNorm(adj), h.prop.Teleport, h.prop.K)
}

func (h *appnpHead) logits(t *ad.Tape, g *graph.Graph, op nn.Operator, rng rand.Source) *ad.Value {
	return nn.Propagate(t, op.(*graph.PPR), h.out.Forward(t, h.embed(t, g, op, rng)))
}

// embed returns the encoder's output enc(X), which does not depend on the
// graph's edges.
func (h *appnpHead) embed(t *ad.Tape, g *graph.Graph, _ nn.Operator, rng rand.Source) *ad.Value {
	return h.enc.forward(t, g, rng)
}

func (h *appnpHead) params() []*ad.Value {
	return append(nn.ParamsOf(h.enc.layers...), h.out.Params()...)
}

func (h *appnpHead) dropout() float64 { return h.enc.dropout }

func (h *appnpHead) keepProducts(on bool) { h.enc.keepProducts(on) }

// gcnHead is the GCN classifier's head (Kipf and Welling): hidden GCN
// layers h⁽ˡ⁺¹⁾ = Â·Dropout(BN(σ(h⁽ˡ⁾)))·W⁽ˡ⁾ + b⁽ˡ⁾ on h⁽⁰⁾ = X (no
// activation, normalisation and dropout before the first), with Â =
// D^−½(A+I)D^−½, σ ReLU or GELU and BN a BatchNorm or none, then an output
// layer to the class logits: by default one more GCN layer
// z = Â·Dropout(BN(σ(h⁽ᴸ⁾)))·W + b, with a linear output (LinearOutput)
// z = Dropout(BN(σ(h⁽ᴸ⁾)))·W + b.
type gcnHead struct {
	layers []*nn.GCN       // the hidden layers, then the output layer unless out is set
	norms  []*nn.BatchNorm // after each hidden layer's activation; nil without
	act    nn.Activation   // after each hidden layer
	out    *nn.Linear      // the linear output layer; nil: the last of layers
	drop   float64
	// binary makes the first layer read 1 for every positive feature and 0
	// otherwise; operand keeps the binarised copy.
	binary  bool
	operand operandCache
	first   firstProduct // the product X·W⁽⁰⁾
}

func (h *gcnHead) keepProducts(on bool) { h.first.keep(on) }

// newGCNHead builds the hidden layers of c on g's features and adds the
// output layer to g's classes, a GCN layer Glorot-initialised from init,
// or with linearOut a Linear initialised as torch.nn.Linear; with binary
// the first layer reads the features binarised.
func newGCNHead(c *nn.GCNConfig, linearOut, binary bool, g *graph.Graph, init *rand.Rand) (*gcnHead, error) {
	_, in := g.Features.Dims()
	conv, err := c.New(in, init)
	if err != nil {
		return nil, err
	}
	hidden := conv.(*nn.GCNStack)
	h := &gcnHead{layers: hidden.Layers, act: hidden.Act, drop: hidden.Dropout, binary: binary}
	if c.Normalized() {
		last := fmt.Sprintf("gcn%d.bn", len(hidden.Layers)-1)
		h.norms = append(hidden.Norms, nn.NewBatchNorm(last, hidden.Width()))
	}
	if linearOut {
		h.out = nn.NewLinear("output", hidden.Width(), g.NumClasses, true, init)
	} else {
		h.layers = append(h.layers, &nn.GCN{Lin: nn.NewGlorotLinear("output", hidden.Width(), g.NumClasses, true, init)})
	}
	return h, nil
}

func (h *gcnHead) check(g *graph.Graph) error { return checkWidth(h.layers[0].Lin.In, g) }

func (h *gcnHead) operator(adj *tensor.CSR) (nn.Operator, error) { return graph.SymNorm(adj), nil }

// hidden returns the number of hidden layers.
func (h *gcnHead) hidden() int {
	if h.out != nil {
		return len(h.layers)
	}
	return len(h.layers) - 1
}

// logits applies the output layer to the embeddings (embed).
func (h *gcnHead) logits(t *ad.Tape, g *graph.Graph, op nn.Operator, rng rand.Source) *ad.Value {
	e := h.embed(t, g, op, rng)
	if h.out != nil {
		return h.out.Forward(t, e)
	}
	return h.layers[len(h.layers)-1].Forward(t, op.(*tensor.CSR), e)
}

// embed returns the input of the output layer, Dropout(BN(σ(h⁽ᴸ⁾))) for
// the last hidden layer's output h⁽ᴸ⁾. It multiplies the (dense or
// sparse) features by W⁽⁰⁾ as a constant input, then propagates.
func (h *gcnHead) embed(t *ad.Tape, g *graph.Graph, op nn.Operator, rng rand.Source) *ad.Value {
	adj := op.(*tensor.CSR)
	first := h.layers[0].Lin
	xw := h.first.forward(t, &nn.Linear{W: first.W, In: first.In, Out: first.Out}, h.input(g.Features))
	x := t.LeftMulAddRow(adj, xw, first.B)
	for k, l := range h.layers[1:h.hidden()] {
		x = l.Forward(t, adj, h.between(t, k, x, rng))
	}
	return h.between(t, h.hidden()-1, x, rng)
}

// input returns the matrix the first layer multiplies for the features x:
// x, or with binary features its binarised copy (graph.Binarize), kept for
// the next call with the same x (operandCache).
func (h *gcnHead) input(x tensor.Matrix) tensor.Matrix {
	if !h.binary {
		return x
	}
	return h.operand.get(x, graph.Binarize)
}

// between returns Dropout(BN(σ(x))) for the output x of hidden layer k.
func (h *gcnHead) between(t *ad.Tape, k int, x *ad.Value, rng rand.Source) *ad.Value {
	x = h.act.Apply(t, x)
	if h.norms != nil {
		x = h.norms[k].Forward(t, x)
	}
	return t.Dropout(x, h.drop, rng)
}

// params returns the layers' weights and biases, then the BatchNorms' γ
// and β and the linear output layer's.
func (h *gcnHead) params() []*ad.Value {
	ps := append(nn.ParamsOf(h.layers...), nn.ParamsOf(h.norms...)...)
	if h.out != nil {
		ps = append(ps, h.out.Params()...)
	}
	return ps
}

// Buffers returns the BatchNorms' running estimates.
func (h *gcnHead) Buffers() []*ad.Value { return nn.BuffersOf(h.norms...) }

func (h *gcnHead) dropout() float64 { return h.drop }
