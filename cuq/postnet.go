package cuq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/internal/memstat"
)

// postNet is the family of GPN, LOP-GPN and the CUQ models: encoder →
// graph convolution → latent projection → one radial flow per class →
// Dirichlet evidence, pooled over neighbours as its Pooling says.
type postNet struct {
	enc      *encoder
	conv     nn.Conv
	convProp *nn.APPNPConfig // conv's propagation when it is APPNP (CUQ-PPR), else nil
	latent   *nn.Linear
	flows    *nn.RadialFlows
	pooling  Pooling
	prop     nn.APPNPConfig // log-linear and linear pooling
	pruneAt  float64        // linear pooling: sparse pruned Π when > 0
	logPrior []float64      // log p(c) from the training labels
	rng      rand.Source    // dropout
	ops      cache[*postNetOps]
	tapes
}

// postNetOps is what a postNet derives from a graph's adjacency.
type postNetOps struct {
	conv    nn.Operator
	prop    *graph.PPR // log-linear pooling: propagation of evidence
	mixture *mixture   // linear pooling: the mixture weights Π
}

// newPostNet checks the builder's configuration of a PostNet and draws its
// parameters from init: encoder, convolution, latent projection, flows.
func newPostNet(b *config, g *graph.Graph, init *rand.Rand, dropout rand.Source) (family, error) {
	switch b.pooling {
	case Behavioral:
	case LogLinear, Linear:
		if err := b.checkPropagation(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown pooling %v", b.pooling)
	}
	if b.latent < 1 {
		return nil, fmt.Errorf("latent dimension %d", b.latent)
	}
	if b.pruneAt < 0 || b.pruneAt >= 1 {
		return nil, fmt.Errorf("prune threshold %v not in [0, 1)", b.pruneAt)
	}
	_, in := g.Features.Dims()
	enc, err := newEncoder(b.encoder, in, init)
	if err != nil {
		return nil, err
	}
	p := &postNet{enc: enc, conv: direct{enc.width()}, pooling: b.pooling, prop: b.prop,
		pruneAt: b.pruneAt, rng: dropout}
	if b.conv != nil {
		if p.conv, err = b.conv.New(enc.width(), init); err != nil {
			return nil, err
		}
		p.convProp = appnpConv(b.conv)
	}
	p.latent = nn.NewLinear("latent", p.conv.Width(), b.latent, true, init)
	if p.flows, err = nn.NewRadialFlows("flow", g.NumClasses, b.flowLayers, b.latent, init); err != nil {
		return nil, err
	}
	return p, nil
}

// direct is the absence of a convolution: the encoder feeds the latent
// projection.
type direct struct{ width int }

func (direct) Operator(*tensor.CSR) (nn.Operator, error) { return nil, nil }

func (direct) ForwardProjected(t *ad.Tape, _ nn.Operator, x *ad.Value, l *nn.Linear, _ rand.Source) *ad.Value {
	return l.Forward(t, x)
}

func (d direct) Width() int { return d.width }

func (direct) Params() []*ad.Value { return nil }

func (p *postNet) keepProducts(on bool) { p.enc.keepProducts(on) }

func (p *postNet) params() (flows, others []*ad.Value) {
	others = append(nn.ParamsOf(p.enc.layers...), p.conv.Params()...)
	return p.flows.Params(), append(others, p.latent.Params()...)
}

func (p *postNet) buffers() []*ad.Value {
	if b, ok := p.conv.(nn.Buffered); ok {
		return b.Buffers()
	}
	return nil
}

// prepare checks g's features and returns the operators of its adjacency.
func (p *postNet) prepare(g *graph.Graph) (*postNetOps, error) {
	if err := p.enc.check(g); err != nil {
		return nil, err
	}
	return p.ops.get(g.Adj, p.derive)
}

func (p *postNet) derive(adj *tensor.CSR) (*postNetOps, error) {
	ops := &postNetOps{}
	var err error
	if ops.conv, err = p.conv.Operator(adj); err != nil {
		return nil, err
	}
	switch p.pooling {
	case LogLinear:
		ops.prop, err = graph.NewPPR(graph.SymNorm(adj), p.prop.Teleport, p.prop.K)
	case Linear:
		if err = p.checkMixtureMemory(adj.Rows); err != nil {
			break
		}
		ops.mixture, err = mixtureWeights.get(adj, p.prop.Teleport, p.prop.K, p.pruneAt, func() (*mixture, error) {
			return p.deriveMixture(adj)
		})
	}
	if err != nil {
		return nil, err
	}
	return ops, nil
}

// deriveMixture derives linear pooling's mixture weights Π over adj:
// dense, or sparse and pruned when p.pruneAt > 0.
func (p *postNet) deriveMixture(adj *tensor.CSR) (*mixture, error) {
	ppr, err := graph.NewPPR(graph.RWNorm(adj), p.prop.Teleport, p.prop.K)
	if err != nil {
		return nil, err
	}
	if p.pruneAt > 0 {
		return newMixture(ppr.SparsePruned(p.pruneAt))
	}
	return newMixture(tensor.DenseToCSR(ppr.Dense()))
}

// checkMixtureMemory returns an error if the dense mixture weights of n
// nodes (unpruned linear pooling) would not fit in the machine's RAM: Π
// dense, then as a CSR matrix of n² entries (values and column indices),
// 24·n² bytes.
func (p *postNet) checkMixtureMemory(n int) error {
	if p.pruneAt > 0 {
		return nil
	}
	need := 24 * float64(n) * float64(n)
	if ram := physicalMemory(); ram > 0 && need > float64(ram) {
		return fmt.Errorf("cuq: LOP-GPN without pruning needs the dense %d×%d matrix Π, about %.1f GB, more than this machine's %.1f GB of RAM; prune it (Builder.Prune(0.01), as the reference does on large graphs)",
			n, n, need/1e9, float64(ram)/1e9)
	}
	return nil
}

// headRows reports whether forward with these rows returns only those
// rows.
func (p *postNet) headRows(rows []int) bool {
	return rows != nil && p.pooling == Behavioral
}

// physicalMemory returns the machine's RAM, which the dense matrices
// whose size grows as N² are checked against; tests replace it.
var physicalMemory = memstat.Physical

// budgetConst is ½·d·log 4π, the "latent-new" certainty budget of the
// reference: log β = log p(z|c) + log p(c) + ½ d log 4π.
func budgetConst(d int) float64 { return float64(0.5 * float64(d) * math.Log(4*math.Pi)) }

// forward computes on tape t the pseudo-counts α (behavioral and
// log-linear pooling) or the per-node α_ft (linear pooling) on graph g with
// its operators ops, one row per node.
//
// With behavioral pooling the PostNet head of a node depends on its own
// latent only, so when rows is non-nil the head runs on those nodes alone
// and the output has one row per entry of rows (training needs the labelled
// nodes only; the flows dominate the cost of a CUQ model otherwise). The
// other poolings need every node and ignore rows; use headRows to know
// which layout the output has.
func (p *postNet) forward(t *ad.Tape, g *graph.Graph, ops *postNetOps, rows []int) *ad.Value {
	return p.pool(t, ops, p.evidence(t, g, ops, rows))
}

// evidence computes on tape t the evidence β of every node's own PostNet
// head, before pooling: β_c = exp(clamp(log q(z|c) + log p(c) + ½ d log 4π,
// −30, 30)), one row per node (or per entry of rows, see forward).
func (p *postNet) evidence(t *ad.Tape, g *graph.Graph, ops *postNetOps, rows []int) *ad.Value {
	h := p.enc.forward(t, g, p.rng)
	z := p.conv.ForwardProjected(t, ops.conv, h, p.latent, p.rng)
	if p.headRows(rows) {
		z = t.GatherRows(z, rows)
	}
	logp := p.flows.LogDensity(t, z)
	if !t.Training() {
		// eval mode: NaN log-densities become −inf (the reference's Density)
		for i, v := range logp.Data.Data {
			if math.IsNaN(v) {
				logp.Data.Data[i] = math.Inf(-1)
			}
		}
	}
	shift := tensor.New(1, len(p.logPrior))
	for c := range shift.Data {
		shift.Data[c] = p.logPrior[c] + budgetConst(p.latent.Out)
	}
	return t.Exp(t.Clamp(t.Add(logp, ad.Const(shift)), -30, 30))
}

// pool returns 1 + β after the evidence pooling of log-linear models (the
// propagation of β); the other poolings return 1 + β itself.
func (p *postNet) pool(t *ad.Tape, ops *postNetOps, beta *ad.Value) *ad.Value {
	if p.pooling == LogLinear {
		beta = nn.Propagate(t, ops.prop, beta)
	}
	return t.AddConst(beta, 1)
}

// setPrior sets log p(c) from the training labels; a class without
// training nodes gets log 0 = −inf, so its evidence is clamped to e^−30.
func (p *postNet) setPrior(trainY []int) {
	counts := make([]float64, p.flows.Classes)
	for _, y := range trainY {
		counts[y]++
	}
	p.logPrior = make([]float64, len(counts))
	for c, n := range counts {
		p.logPrior[c] = math.Log(n / float64(len(trainY)))
	}
}

func (p *postNet) fit(g *graph.Graph, split graph.Split, trainY []int, s Schedule) (objective, error) {
	p.setPrior(trainY)
	ops, err := p.prepare(g)
	if err != nil {
		return nil, err
	}
	o := &postNetObjective{p: p, g: g, ops: ops, split: split, trainY: trainY, reg: s.EntropyReg, local: make([]int, len(split.Train))}
	for i := range o.local {
		o.local[i] = i
	}
	if ops.mixture != nil {
		o.piTrain, o.piVal = rowsOf(ops.mixture.pi, split.Train), rowsOf(ops.mixture.pi, split.Val)
		o.piTrainEntropy = ops.mixture.entropyOf(split.Train)
	}
	return o, nil
}

func (p *postNet) output(g *graph.Graph, dst *tensor.Dense) (*tensor.Dense, error) {
	out, _, _, err := p.evaluate(g, dst, false)
	return out, err
}

// evaluate returns the output on g in evaluation mode (into dst when it is
// not nil), with withFeat the feature-only uncertainty −Σ_c (1 + β_c) of
// every node's head before pooling (see uq.EUFeat), and the operators of
// g's adjacency.
func (p *postNet) evaluate(g *graph.Graph, dst *tensor.Dense, withFeat bool) (*tensor.Dense, []float64, *postNetOps, error) {
	if p.logPrior == nil {
		return nil, nil, nil, fmt.Errorf("no class prior yet: call Fit or Step first")
	}
	ops, err := p.prepare(g)
	if err != nil {
		return nil, nil, nil, err
	}
	t := p.evaluation()
	beta := p.evidence(t, g, ops, nil)
	var feat []float64
	if withFeat {
		feat = make([]float64, beta.Data.Rows)
		for i := range feat {
			a0 := 0.0
			for _, b := range beta.Data.Row(i) {
				a0 += 1 + b
			}
			feat[i] = -a0
		}
	}
	return kept(t, p.pool(t, ops, beta).Data, dst), feat, ops, nil
}

// predict gives the Dirichlet measures of α, or for linear pooling those
// of the mixture Σⱼ Πᵢⱼ Dir(α_ft(j)).
//
// EUFeat is −Σ_c α_ft,c with α_ft = 1 + β the pseudo-counts of each node's
// own head before pooling: before the propagation of log-linear pooling
// (GPN), before the mixture of linear pooling (LOP-GPN); for behavioral
// pooling (CUQ-*) there is no pooling after the head and EUFeat equals
// EU_PC (their convolution, if any, mixes neighbours' features before the
// head).
func (p *postNet) predict(pr *Prediction) error {
	out, feat, ops, err := p.evaluate(pr.Graph, nil, true)
	if err != nil {
		return err
	}
	pr.EUFeat = feat
	if ops.mixture == nil {
		return dirichletPrediction(pr, out)
	}
	pi, weights := ops.mixture.pi, ops.mixture.weights
	pr.credal.mixture, pr.credal.components = pi, out.Data
	if pr.nodes != nil {
		// Π's rows of the nodes asked for alone; each row's sums are
		// those of the whole product.
		part, err := newMixture(rowsOf(pi, pr.nodes))
		if err != nil {
			return err
		}
		pi, weights = part.pi, part.weights
	}
	ms, mean, err := weights.Mixture(out.Data, pr.Classes)
	if err != nil {
		return err
	}
	alpha := tensor.New(pi.Rows, out.Cols)
	pi.MulTo(alpha, out)
	if pr.nodes == nil {
		pr.Prob, err = tensor.FromSlice(pi.Rows, pr.Classes, mean)
		pr.Alpha, pr.Measures = alpha, ms
		return err
	}
	n := out.Rows
	pr.Prob, pr.Alpha = spreadRows(mean, pr.nodes, n, pr.Classes), spreadRows(alpha.Data, pr.nodes, n, out.Cols)
	spread := func(v []float64) []float64 { return spreadRows(v, pr.nodes, n, 1).Data }
	pr.Measures = uq.Measures{TU: spread(ms.TU), AU: spread(ms.AU), EU: spread(ms.EU),
		EUPC: spread(ms.EUPC), EUSO: spread(ms.EUSO), LC: spread(ms.LC)}
	return nil
}

// spreadRows returns the n×cols matrix whose row nodes[k] is row k of the
// row-major rows and whose other rows are NaN.
func spreadRows(rows []float64, nodes []int, n, cols int) *tensor.Dense {
	out := tensor.New(n, cols)
	out.Fill(math.NaN())
	for k, i := range nodes {
		copy(out.Row(i), rows[k*cols:(k+1)*cols])
	}
	return out
}

// dirichletPrediction fills p with the means and measures of the
// Dirichlets Dir(αᵢ), one per row of alpha.
func dirichletPrediction(p *Prediction, alpha *tensor.Dense) error {
	p.Alpha = alpha
	p.Prob = dirichletMeans(alpha)
	var err error
	p.Measures, err = uq.Dirichlet(alpha.Data, p.Classes)
	return err
}

// dirichletMeans returns the means θ̄ = α/α₀ of the Dirichlets Dir(αᵢ), one
// per row of alpha.
func dirichletMeans(alpha *tensor.Dense) *tensor.Dense {
	mean := tensor.New(alpha.Rows, alpha.Cols)
	for i := 0; i < alpha.Rows; i++ {
		uq.Mean(alpha.Row(i), mean.Row(i))
	}
	return mean
}

// postNetObjective is a postNet's loss on one split: the UCE loss with
// entropy regulariser, or its mixture form for linear pooling.
type postNetObjective struct {
	p              *postNet
	g              *graph.Graph
	ops            *postNetOps
	split          graph.Split
	trainY         []int
	reg            float64     // entropy regulariser of the loss
	local          []int       // 0..len(Train)−1: training rows of a head run on them alone
	piTrain, piVal *tensor.CSR // linear pooling: the rows of Π of the training and validation nodes
	piTrainEntropy float64     // linear pooling: Σᵢ H_cat(Πᵢ) over the training rows
	mixture        mixtureMemo // linear pooling: the loss's gradient products kept from step to step
}

func (o *postNetObjective) tape() *ad.Tape { return o.p.training() }

func (o *postNetObjective) loss(t *ad.Tape) (*ad.Value, error) {
	out := o.p.forward(t, o.g, o.ops, o.split.Train)
	if o.piTrain != nil {
		return mixtureLoss(t, out, o.piTrain, o.piTrainEntropy, o.trainY, o.reg, &o.mixture), nil
	}
	rows := o.split.Train
	if o.p.headRows(rows) {
		rows = o.local
	}
	return uceLoss(t, out, rows, o.trainY, o.reg), nil
}

func (o *postNetObjective) valProbs() *tensor.Dense {
	nodes := o.split.Val
	t := o.p.evaluation()
	mean := dirichletMeans(o.p.forward(t, o.g, o.ops, nodes).Data)
	t.Release()
	probs := tensor.New(len(nodes), mean.Cols)
	switch {
	case o.piVal != nil:
		o.piVal.MulTo(probs, mean)
	case o.p.headRows(nodes):
		return mean
	default:
		for k, i := range nodes {
			copy(probs.Row(k), mean.Row(i))
		}
	}
	return probs
}
