package cuq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/optim"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// This file holds the post-hoc calibrators that use the graph: CaGCN
// (Wang et al., NeurIPS 2021) and GATS (Hsu et al., NeurIPS 2022). Both
// learn a temperature Tᵢ > 0 per node from the prediction's logits on the
// graph and return p̃ᵢ = softmax(zᵢ / Tᵢ); TemperatureScaled is the same
// with one T for every node.

// calibrationLogits returns the logits the graph calibrators take: the
// centred log-probabilities
//
//	z_ic = ln p̄_ic − (1/K) Σ_k ln p̄_ik     (p̄ floored at eval.ProbabilityFloor).
//
// softmax(z_i / T) = softmax(ln p̄_i / T) for every T, so a constant
// temperature is temperature scaling; centring removes the per-node shift
// ln Σ_k exp(l_ik) that log-probabilities carry and logits do not. For a
// softmax model (APPNP, GCN) z_i is its logit vector l_i − mean_k l_ik,
// which a GCN logit vector equals up to the per-node shift that softmax
// ignores. For a Dirichlet model p̄ = α/α₀ and z_i = ln α_i − mean_k ln
// α_ik.
func calibrationLogits(p *Prediction) *tensor.Dense {
	z := tensor.New(p.Prob.Rows, p.Prob.Cols)
	for i := 0; i < z.Rows; i++ {
		row, pr := z.Row(i), p.Prob.Row(i)
		mean := 0.0
		for c, v := range pr {
			row[c] = math.Log(max(v, eval.ProbabilityFloor))
			mean += row[c]
		}
		mean /= float64(len(row))
		for c := range row {
			row[c] -= mean
		}
	}
	return z
}

// checkGraphCalibration checks what the graph calibrators need of a
// prediction and a split: class probabilities (finite, non-negative, at
// least two classes) for every node of a graph with an adjacency,
// validation nodes, and training nodes when train is set; every one of
// them labelled.
func (p *Prediction) checkGraphCalibration(method string, split graph.Split, train bool) error {
	if p.Prob == nil || p.Prob.Cols != p.Classes || len(p.Class) != p.Prob.Rows {
		return fmt.Errorf("cuq: %s: %s needs class probabilities and classes", p.Model, method)
	}
	if p.Classes < 2 {
		return fmt.Errorf("cuq: %s: %s needs at least two classes, not %d", p.Model, method, p.Classes)
	}
	if p.Graph == nil || p.Graph.Adj == nil {
		return fmt.Errorf("cuq: %s: %s needs the prediction's graph and its edges", p.Model, method)
	}
	if a := p.Graph.Adj; a.Rows != p.Prob.Rows || a.Cols != p.Prob.Rows {
		return fmt.Errorf("cuq: %s: %s: adjacency %s for %d predicted nodes", p.Model, method, a.Shape(), p.Prob.Rows)
	}
	for k, v := range p.Prob.Data {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("cuq: %s: %s: probability %v of node %d, class %d", p.Model, method, v, k/p.Classes, k%p.Classes)
		}
	}
	if len(split.Val) == 0 {
		return fmt.Errorf("cuq: %s: %s needs validation nodes", p.Model, method)
	}
	if train && len(split.Train) == 0 {
		return fmt.Errorf("cuq: %s: %s needs the training nodes", p.Model, method)
	}
	if err := p.checkLabelled(split.Val); err != nil {
		return err
	}
	if train {
		return p.checkLabelled(split.Train)
	}
	return nil
}

// calibratedPrediction returns the prediction p̃_i = softmax(β_i z_i) of
// every node, named p's model plus suffix: Class unchanged, Prob p̃, TU
// and LC from p̃, the other measures dropped (as TemperatureScaled).
func (p *Prediction) calibratedPrediction(z *tensor.Dense, beta []float64, suffix string) (*Prediction, error) {
	out := &Prediction{Model: p.Model + suffix, Graph: p.Graph, Classes: p.Classes,
		Class: slices.Clone(p.Class), Prob: tensor.New(z.Rows, z.Cols)}
	for i := 0; i < z.Rows; i++ {
		scaledSoftmax(out.Prob.Row(i), z.Row(i), beta[i])
	}
	var err error
	if out.Measures, err = uq.Categorical(out.Prob.Data, p.Classes); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return out, nil
}

// earlyStopping is the training schedule both calibrators share: Adam with
// coupled L2 weight decay, at most epochs steps, each followed by an
// evaluation of the monitored loss; training stops after patience epochs
// without improvement and the parameters of the best epoch are restored.
type earlyStopping struct {
	lr, weightDecay   float64
	epochs, patience  int
	ties              bool // a loss equal to the best counts as improvement (GATS) or not (CaGCN)
	method, modelName string
}

// fit trains params on loss and returns the number of epochs run.
// monitor returns the loss that early stopping watches, computed on the
// evaluation tape it is given. The tapes take their storage from one pool.
func (s earlyStopping) fit(params []*ad.Value, loss func(t *ad.Tape) *ad.Value, monitor func(t *ad.Tape) float64) (int, error) {
	opt, err := optim.NewAdam(optim.Group{Params: params, LR: s.lr, WeightDecay: s.weightDecay})
	if err != nil {
		return 0, fmt.Errorf("cuq: %s: %s: %w", s.modelName, s.method, err)
	}
	pool := ad.NewPool()
	best, bad, saved := math.Inf(1), 0, false
	kept := snapshot(params)
	epoch := 0
	for epoch < s.epochs {
		epoch++
		tape := ad.NewTape().WithPool(pool)
		l := loss(tape)
		opt.ZeroGrad()
		err := tape.Backward(l)
		tape.Release()
		if err != nil {
			return epoch, fmt.Errorf("cuq: %s: %s: %w", s.modelName, s.method, err)
		}
		opt.Step()
		tape = ad.NewEvalTape().WithPool(pool)
		v := monitor(tape)
		tape.Release()
		if v < best || (s.ties && v == best) {
			best, bad, saved = v, 0, true
			copyInto(kept, params)
		} else if bad++; bad >= s.patience {
			break
		}
	}
	if !saved {
		return epoch, fmt.Errorf("cuq: %s: %s: the monitored loss was never finite", s.modelName, s.method)
	}
	restore(params, kept)
	return epoch, nil
}

// calibrationNLL returns the mean over the rows of y of −ln softmax(y_r)_{labels[r]}.
func calibrationNLL(t *ad.Tape, y *ad.Value, labels []int) *ad.Value {
	return t.Neg(t.Mean(t.Pick(t.LogSoftmax(y), labels)))
}

// labelsOf returns the labels of the given nodes.
func labelsOf(g *graph.Graph, nodes []int) []int {
	y := make([]int, len(nodes))
	for k, i := range nodes {
		y[k] = g.Labels[i]
	}
	return y
}

// meanCrossEntropy returns the mean over nodes of −ln softmax(β_i z_i)_{y_i},
// NaN if a β_i is not positive and finite.
func meanCrossEntropy(z *tensor.Dense, beta []float64, nodes, labels []int) float64 {
	q := make([]float64, z.Cols)
	s := 0.0
	for k, i := range nodes {
		if !(beta[i] > 0) || math.IsInf(beta[i], 1) {
			return math.NaN()
		}
		scaledSoftmax(q, z.Row(i), beta[i])
		s -= math.Log(max(q[labels[k]], eval.ProbabilityFloor))
	}
	return s / float64(len(nodes))
}

// CaGCNBuilder configures the CaGCN calibrator (Wang et al., "Be
// Confident! Towards Trustworthy Graph Neural Networks via Confidence
// Calibration", NeurIPS 2021). Its options change it in place and return
// it; Done returns the calibrator.
type CaGCNBuilder struct{ c CaGCNCalibrator }

// CaGCN returns the CaGCN calibrator with the defaults of the paper's code
// (github.com/BUPT-GAMMA/CaGCN, CaGCN.py for Cora, Citeseer and Pubmed): a
// two-layer GCN of width 16 with dropout 0.5, Adam with learning rate 0.01
// and weight decay 5·10⁻³ (--lr_for_cal, --l2_for_cal), at most 2000
// epochs with patience 100, the margin term with weight 0.5 (--Lambda),
// seed 0.
func CaGCN() *CaGCNBuilder {
	return &CaGCNBuilder{CaGCNCalibrator{hidden: 16, dropout: 0.5, lr: 0.01, weightDecay: 5e-3,
		margin: 0.5, epochs: 2000, patience: 100}}
}

// Hidden sets the width of the hidden GCN layer.
func (b *CaGCNBuilder) Hidden(n int) *CaGCNBuilder { b.c.hidden = n; return b }

// Dropout sets the dropout probability after the hidden layer.
func (b *CaGCNBuilder) Dropout(p float64) *CaGCNBuilder { b.c.dropout = p; return b }

// LR sets Adam's learning rate.
func (b *CaGCNBuilder) LR(lr float64) *CaGCNBuilder { b.c.lr = lr; return b }

// WeightDecay sets the L2 weight decay of every parameter.
func (b *CaGCNBuilder) WeightDecay(wd float64) *CaGCNBuilder { b.c.weightDecay = wd; return b }

// Margin sets the weight λ of the margin term; 0 trains on the NLL alone.
func (b *CaGCNBuilder) Margin(lambda float64) *CaGCNBuilder { b.c.margin = lambda; return b }

// Epochs sets the largest number of training epochs.
func (b *CaGCNBuilder) Epochs(n int) *CaGCNBuilder { b.c.epochs = n; return b }

// Patience sets the number of epochs without improvement of the monitored
// loss after which training stops.
func (b *CaGCNBuilder) Patience(n int) *CaGCNBuilder { b.c.patience = n; return b }

// Seed sets the seed of the initial weights and the dropout.
func (b *CaGCNBuilder) Seed(s uint64) *CaGCNBuilder { b.c.seed = s; return b }

// Done returns the configured calibrator, a copy: changing the builder
// later does not change it.
func (b *CaGCNBuilder) Done() *CaGCNCalibrator { c := b.c; return &c }

// CaGCNCalibrator is the CaGCN calibrator: a two-layer GCN on the graph
// reads each node's logits z_i (see below) and returns a scale
//
//	h = Dropout(ReLU(Â z W₁ + b₁)),   s = Â h W₂ + b₂,
//	t_i = ln(e^{s_i} + 1.1),           p̃_i = softmax(t_i · z_i),
//
// so the temperature T_i = 1/t_i is positive and at most 1/ln 1.1 ≈ 10.49,
// as in the paper's code (which multiplies the logits by
// log(exp(t) + 1.1)). Â = D^−½(A+I)D^−½ is the GCN normalisation, W₁
// and W₂ are Glorot-initialised and the biases zero (torch_geometric's
// GCNConv, as the GATS code's CaGCN; the CaGCN code draws both from
// U(±1/√out)). The network is trained on the validation nodes V with
//
//	L = −(1/|V|) Σ_{i∈V} ln p̃_{i,y_i} + λ (1/|V|) Σ_{i∈V} m_i,
//	m_i = 1 − p̃_{i,(1)} + p̃_{i,(2)}   if the prediction of i is right,
//	m_i = p̃_{i,(1)} − p̃_{i,(2)}       if it is wrong,
//
// p̃_{(1)} ≥ p̃_{(2)} the two largest probabilities: the paper's code adds
// this margin term (intra_distance_loss, weight --Lambda 0.5) to the NLL
// when it trains the calibrator. Early stopping watches the validation
// NLL without dropout and without the margin term, as the code does (it
// trains and stops on the same nodes). The logits stay fixed while the
// calibrator trains; the CaGCN code leaves the frozen base GCN's dropout
// on during calibration, which a post-hoc calibrator of a prediction
// cannot do.
//
// The logits are the prediction's centred log-probabilities z_ic = ln
// p̄_ic − (1/K) Σ_k ln p̄_ik: for APPNP and GCN the model's logits up to a
// per-node constant, for the Dirichlet models (GPN, CUQ-*) ln α_i up to
// one; a constant t_i = 1/T gives temperature scaling at T.
type CaGCNCalibrator struct {
	hidden                           int
	dropout, lr, weightDecay, margin float64
	epochs, patience                 int
	seed                             uint64
}

// cagcnOffset is the constant the CaGCN code adds under the logarithm of
// its scale: t = ln(eˢ + 1.1) ≥ ln 1.1.
const cagcnOffset = 1.1

// cagcnNet is CaGCN's network on one prediction.
type cagcnNet struct {
	l1, l2  *nn.GCN
	adj     *tensor.CSR
	z       *ad.Value
	dropout float64
}

// scale returns the N×1 scales t_i = ln(e^{s_i} + 1.1) = ln 1.1 +
// softplus(s_i − ln 1.1), with dropout when the tape records.
func (n *cagcnNet) scale(t *ad.Tape, rng *rand.Rand) *ad.Value {
	h := t.ReLU(n.l1.Forward(t, n.adj, n.z))
	if t.Training() {
		h = t.Dropout(h, n.dropout, rng)
	}
	s := n.l2.Forward(t, n.adj, h)
	c := math.Log(cagcnOffset)
	return t.AddConst(t.Softplus(t.AddConst(s, -c)), c)
}

// loss returns CaGCN's training loss on the nodes val with labels y:
// the NLL of softmax(t_i z_i) plus margin times the margin term. top1 and
// top2 are each node's two most probable classes (scaling by t_i > 0
// keeps the order), right whether top1 is its label.
func (n *cagcnNet) loss(t *ad.Tape, rng *rand.Rand, val, y, top1, top2 []int, sign *ad.Value, right int, margin float64) *ad.Value {
	scale := t.GatherRows(n.scale(t, rng), val)
	logits := t.Mul(t.GatherRows(n.z, val), scale)
	nll := calibrationNLL(t, logits, y)
	if margin == 0 {
		return nll
	}
	prob := t.Exp(t.LogSoftmax(logits))
	gap := t.Sub(t.Pick(prob, top1), t.Pick(prob, top2))
	// Σ_i m_i = right + Σ_i sign_i · gap_i with sign −1 for right, +1 for wrong
	m := t.AddConst(t.Sum(t.Mul(gap, sign)), float64(right))
	return t.Add(nll, t.Scale(m, margin/float64(len(val))))
}

// Calibrate fits CaGCN on the validation nodes of split (the other sets
// are not used) and returns the calibrated prediction of every node, named
// the model's plus "+CaGCN", and each node's temperature T_i = 1/t_i. The
// classes are unchanged; Prob is p̃, TU and LC are recomputed from it and
// the other measures dropped, as TemperatureScaled. It returns an error
// for an invalid configuration, a prediction without probabilities or
// without its graph's edges, a probability that is NaN, infinite or
// negative, fewer than two classes, no validation nodes or one without a
// label.
func (c *CaGCNCalibrator) Calibrate(p *Prediction, split graph.Split) (*Prediction, []float64, error) {
	const method = "CaGCN"
	if c.hidden < 1 || c.epochs < 1 || c.patience < 1 || !(c.dropout >= 0 && c.dropout < 1) ||
		!(c.lr > 0) || !(c.weightDecay >= 0) || !(c.margin >= 0) {
		return nil, nil, fmt.Errorf("cuq: CaGCN: invalid configuration: hidden %d, dropout %v, lr %v, weight decay %v, margin %v, epochs %d, patience %d",
			c.hidden, c.dropout, c.lr, c.weightDecay, c.margin, c.epochs, c.patience)
	}
	if err := p.checkGraphCalibration(method, split, false); err != nil {
		return nil, nil, err
	}
	z := calibrationLogits(p)
	rng := rand.New(rand.NewPCG(c.seed, 0xca6c))
	net := &cagcnNet{
		l1:      &nn.GCN{Lin: nn.NewGlorotLinear("cagcn0", p.Classes, c.hidden, true, rng)},
		l2:      &nn.GCN{Lin: nn.NewGlorotLinear("cagcn1", c.hidden, 1, true, rng)},
		adj:     graph.SymNorm(p.Graph.Adj),
		z:       ad.Const(z),
		dropout: c.dropout,
	}
	val := split.Val
	y := labelsOf(p.Graph, val)
	top1, top2, sign, right := topTwo(z, val, y)
	params := append(net.l1.Params(), net.l2.Params()...)
	beta := make([]float64, z.Rows)
	evalScale := func(t *ad.Tape) {
		copy(beta, net.scale(t, nil).Data.Data)
	}
	s := earlyStopping{lr: c.lr, weightDecay: c.weightDecay, epochs: c.epochs, patience: c.patience,
		method: method, modelName: p.Model}
	_, err := s.fit(params,
		func(t *ad.Tape) *ad.Value { return net.loss(t, rng, val, y, top1, top2, sign, right, c.margin) },
		func(t *ad.Tape) float64 { evalScale(t); return meanCrossEntropy(z, beta, val, y) })
	if err != nil {
		return nil, nil, err
	}
	evalScale(ad.NewEvalTape())
	temps := make([]float64, len(beta))
	for i, b := range beta {
		temps[i] = 1 / b
	}
	out, err := p.calibratedPrediction(z, beta, "+CaGCN")
	if err != nil {
		return nil, nil, err
	}
	return out, temps, nil
}

// topTwo returns, for the given nodes, the first most probable class of
// z_i and the first most probable of the others, the sign of the margin
// term (−1 when the first is the label y, +1 otherwise) and the number of
// right predictions.
func topTwo(z *tensor.Dense, nodes, y []int) (top1, top2 []int, sign *ad.Value, right int) {
	top1, top2 = make([]int, len(nodes)), make([]int, len(nodes))
	sign = ad.Const(tensor.New(len(nodes), 1))
	for k, i := range nodes {
		row := z.Row(i)
		a := argmax(row)
		b := -1
		for c, v := range row {
			if c != a && (b < 0 || v > row[b]) {
				b = c
			}
		}
		top1[k], top2[k] = a, b
		if a == y[k] {
			sign.Data.Data[k] = -1
			right++
		} else {
			sign.Data.Data[k] = 1
		}
	}
	return top1, top2, sign, right
}
