package cuq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/optim"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// CFGNNBuilder configures CF-GNN, the conformalized graph neural network
// of Huang, Jin, Candès and Leskovec ("Uncertainty Quantification over
// Graph with Conformalized Graph Neural Networks", NeurIPS 2023). Its
// options change it in place and return it; Done returns the calibrator.
type CFGNNBuilder struct{ c CFGNNCalibrator }

// CFGNN returns the CF-GNN calibrator with the hyperparameters of the
// paper's code (github.com/snap-stanford/conformalized-gnn) for Cora_ML
// with a GCN base model (params/optimal_param_set.pkl, read by --optimal):
// a two-layer GAT correction with one head and hidden width 64, dropout
// 0.5 before each layer, Adam with learning rate 10⁻⁴ and weight decay
// 5·10⁻⁴, 5000 epochs of which the first 1000 train on the cross entropy
// alone, inefficiency weight λ = 0.1, smoothing temperature τ = 1, target
// size 1, α = 0.1 (--alpha), seed 0. --optimal, which the paper's tables
// use, replaces the code's command-line defaults (one GCN layer, learning
// rate 10⁻³, τ = 0.1, λ = 1, target size 0); the weight decay, dropout,
// epochs and warm-up are fixed in the code.
func CFGNN() *CFGNNBuilder {
	return &CFGNNBuilder{CFGNNCalibrator{hidden: 64, dropout: 0.5, lr: 1e-4, weightDecay: 5e-4,
		epochs: 5000, warmup: 1000, sizeWeight: 0.1, tau: 1, targetSize: 1, alpha: conformal.DefaultAlpha}}
}

// cfgnnEvalSplits is the number of random halvings of the validation
// nodes over which CF-GNN measures the mean APS set size of an epoch, as
// the paper's code does (100 trials).
const cfgnnEvalSplits = 100

// Hidden sets the width of the correction GAT's hidden layer.
func (b *CFGNNBuilder) Hidden(n int) *CFGNNBuilder { b.c.hidden = n; return b }

// Dropout sets the dropout probability before each GAT layer.
func (b *CFGNNBuilder) Dropout(p float64) *CFGNNBuilder { b.c.dropout = p; return b }

// LR sets Adam's learning rate.
func (b *CFGNNBuilder) LR(lr float64) *CFGNNBuilder { b.c.lr = lr; return b }

// WeightDecay sets the L2 weight decay of every parameter.
func (b *CFGNNBuilder) WeightDecay(wd float64) *CFGNNBuilder { b.c.weightDecay = wd; return b }

// Epochs sets the number of training epochs.
func (b *CFGNNBuilder) Epochs(n int) *CFGNNBuilder { b.c.epochs = n; return b }

// Warmup sets the number of first epochs trained on the cross entropy
// alone, before the inefficiency loss is added.
func (b *CFGNNBuilder) Warmup(n int) *CFGNNBuilder { b.c.warmup = n; return b }

// SizeWeight sets the weight λ of the inefficiency loss.
func (b *CFGNNBuilder) SizeWeight(lambda float64) *CFGNNBuilder { b.c.sizeWeight = lambda; return b }

// Temperature sets the temperature τ of the smooth set size.
func (b *CFGNNBuilder) Temperature(tau float64) *CFGNNBuilder { b.c.tau = tau; return b }

// TargetSize sets the set size s₀ below which the inefficiency loss does
// not penalise a node.
func (b *CFGNNBuilder) TargetSize(s float64) *CFGNNBuilder { b.c.targetSize = s; return b }

// Alpha sets the miscoverage level α that the correction is trained and
// selected for; the conformal step afterwards may use another.
func (b *CFGNNBuilder) Alpha(alpha float64) *CFGNNBuilder { b.c.alpha = alpha; return b }

// Seed sets the seed of the initial weights, the dropout and the random
// halvings of the validation nodes.
func (b *CFGNNBuilder) Seed(s uint64) *CFGNNBuilder { b.c.seed = s; return b }

// Done returns the configured calibrator, a copy: changing the builder
// later does not change it.
func (b *CFGNNBuilder) Done() *CFGNNCalibrator { c := b.c; return &c }

// CFGNNCalibrator is CF-GNN's topology-aware correction. A GAT on the
// graph reads each node's class probabilities p̄_i (the softmax outputs of
// the base model, which the paper's code feeds it) and returns corrected
// logits,
//
//	h = ReLU(GAT₁(Dropout(p̄))),   μ̃ = GAT₂(Dropout(h)),   p̃_i = softmax(μ̃_i),
//
// GAT₁ of width Hidden and GAT₂ of K outputs, one head each
// (torch_geometric's GATConv). The validation nodes V are split at random
// into halves: V_q, which fixes a threshold, and V_s, whose set sizes are
// penalised. With n = |V_q| and k = ⌈(n+1)(1−α)⌉ the threshold is
//
//	t̂ = the k-th largest of p̃_{j,y_j} over j ∈ V_q,
//
// the conformal threshold of the score 1 − p̃_{i,y_i} (the code's
// torch.quantile at level 1 − k/n, "higher" interpolation); as there its
// gradient reaches the one probability it selects. The smooth set size
// of node i and the inefficiency loss are
//
//	ŝ_i = Σ_c σ((p̃_ic − t̂)/τ),   L_size = (1/|V_s|) Σ_{i∈V_s} max(0, ŝ_i − s₀),
//
// ŝ_i → |{c : p̃_ic ≥ t̂}| as τ → 0. The network is trained with Adam on
//
//	L = −(1/|T|) Σ_{i∈T} ln p̃_{i,y_i} + λ L_size
//
// (T the training nodes; λ = 0 during the warm-up epochs) and the epoch
// kept is the one, warm-up included, whose corrected prediction (without
// dropout) gives the smallest mean size of the non-randomised APS sets
// over the validation nodes, averaged over 100 random halvings into
// calibration and evaluation nodes, as in the code's model selection.
//
// The correction sees the labels of the training and validation nodes
// only, so split conformal prediction on the test nodes of the corrected
// prediction (Prediction.Conformal) keeps its guarantee: the test nodes
// stay exchangeable.
//
// Where it departs from the paper's code: the code holds out half of
// n = min(1000, |test|/2) test nodes (--conftr_calib_holdout) for V_q and
// V_s and calibrates on the rest; here they are the validation nodes (the
// code's --conftr_valid_holdout), so every test node stays available to
// the conformal step. The selection's APS quantile takes the ⌈(n+1)(1−α)⌉-
// th smallest calibration score (conformal.Quantile) where the code's
// np.quantile takes the next one.
type CFGNNCalibrator struct {
	hidden                   int
	dropout, lr, weightDecay float64
	epochs, warmup           int
	sizeWeight, tau          float64
	targetSize, alpha        float64
	seed                     uint64
}

// cfgnnNet is CF-GNN's correction network on one prediction.
type cfgnnNet struct {
	l1, l2  *nn.GAT
	att     *nn.AttentionGraph
	x       *ad.Value
	dropout float64
}

// logits returns the corrected logits μ̃ of every node, with dropout when
// the tape records.
func (n *cfgnnNet) logits(t *ad.Tape, rng *rand.Rand) *ad.Value {
	h := t.Dropout(n.x, n.dropout, rng)
	h = t.ReLU(n.l1.Forward(t, n.att, h, nil))
	h = t.Dropout(h, n.dropout, rng)
	return n.l2.Forward(t, n.att, h, nil)
}

// inefficiency returns CF-GNN's inefficiency loss L_size (see
// CFGNNCalibrator): probQ holds the probabilities p̃ of the threshold
// nodes V_q, labelsQ their labels, probS those of the penalised nodes
// V_s; k is the rank of the threshold among the true-label probabilities,
// 1 ≤ k ≤ len(labelsQ), counted from the largest. The threshold's
// gradient goes to the probability it selects.
func inefficiency(t *ad.Tape, probQ *ad.Value, labelsQ []int, probS *ad.Value, k int, tau, target float64) *ad.Value {
	labelProb := t.Pick(probQ, labelsQ)
	order := make([]int, len(labelsQ))
	for i := range order {
		order[i] = i
	}
	v := labelProb.Data.Data
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case v[a] > v[b]:
			return -1
		case v[a] < v[b]:
			return 1
		}
		return 0
	})
	threshold := t.GatherRows(labelProb, order[k-1:k])
	soft := t.Sigmoid(t.Scale(t.Sub(probS, threshold), 1/tau))
	return t.Mean(t.ReLU(t.AddConst(t.SumRows(soft), -target)))
}

// Calibrate fits CF-GNN's correction on the training and validation nodes
// of split and returns the corrected prediction of every node, named the
// model's plus "+CF-GNN": Prob is p̃, Class its most probable class (the
// correction may change it), TU and LC are recomputed from p̃ and the
// other measures dropped. Run Prediction.Conformal on it with the test
// nodes to get the sets. It returns an error for an invalid
// configuration or α outside (0, 1), a prediction without probabilities
// or without its graph's edges, a probability that is NaN, infinite or
// negative, fewer than two classes, no training nodes, a node of the split
// outside the prediction or without a label, a node in two of the
// split's sets, or too few validation nodes for α (each half needs
// ⌈(n+1)(1−α)⌉ ≤ n).
func (c *CFGNNCalibrator) Calibrate(p *Prediction, split graph.Split) (*Prediction, error) {
	if err := c.check(p, split); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.seed, 0xcf6))
	val := slices.Clone(split.Val)
	rng.Shuffle(len(val), func(i, j int) { val[i], val[j] = val[j], val[i] })
	sizeNodes, quantNodes := val[:len(val)/2], val[len(val)/2:]
	k, err := conformal.QuantileRank(len(quantNodes), c.alpha)
	if err != nil || k > len(quantNodes) || len(sizeNodes) == 0 {
		return nil, fmt.Errorf("cuq: %s: CF-GNN: %d validation nodes are too few for α = %v: each half needs at least %d",
			p.Model, len(split.Val), c.alpha, int(math.Ceil(1/c.alpha-1)))
	}
	sel := newSetSizeSelection(p, split.Val, c.alpha, cfgnnEvalSplits, rng)
	f, err := c.newFit(p, rng)
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: CF-GNN: %w", p.Model, err)
	}
	f.train, f.yTrain = split.Train, labelsOf(p.Graph, split.Train)
	f.sizeNodes, f.quantNodes, f.yQuant, f.k = sizeNodes, quantNodes, labelsOf(p.Graph, quantNodes), k
	best, kept := math.Inf(1), snapshot(f.params)
	for epoch := 1; epoch <= c.epochs; epoch++ {
		if err := f.step(epoch, rng); err != nil {
			return nil, fmt.Errorf("cuq: %s: CF-GNN: %w", p.Model, err)
		}
		size, err := sel.meanSize(f.prob)
		if err != nil {
			return nil, fmt.Errorf("cuq: %s: CF-GNN: epoch %d: %w", p.Model, epoch, err)
		}
		if size < best {
			best = size
			copyInto(kept, f.params)
		}
	}
	if math.IsInf(best, 1) {
		return nil, fmt.Errorf("cuq: %s: CF-GNN: the validation set size was never finite", p.Model)
	}
	restore(f.params, kept)
	softmaxRows(f.prob, f.net.logits(ad.NewEvalTape(), nil).Data)
	return corrected(p, f.prob)
}

// check returns an error for an invalid configuration, α outside (0, 1),
// or a prediction and split CF-GNN cannot calibrate.
func (c *CFGNNCalibrator) check(p *Prediction, split graph.Split) error {
	if c.hidden < 1 || c.epochs < 1 || c.warmup < 0 || !(c.dropout >= 0 && c.dropout < 1) ||
		!(c.lr > 0) || !(c.weightDecay >= 0) || !(c.sizeWeight >= 0) || !(c.tau > 0) ||
		math.IsInf(c.tau, 1) || math.IsNaN(c.targetSize) || math.IsInf(c.sizeWeight, 1) {
		return fmt.Errorf("cuq: CF-GNN: invalid configuration: hidden %d, dropout %v, lr %v, weight decay %v, epochs %d, warm-up %d, size weight %v, τ %v, target size %v",
			c.hidden, c.dropout, c.lr, c.weightDecay, c.epochs, c.warmup, c.sizeWeight, c.tau, c.targetSize)
	}
	if !(c.alpha > 0 && c.alpha < 1) {
		return fmt.Errorf("cuq: CF-GNN: α = %v, need 0 < α < 1", c.alpha)
	}
	if err := p.checkGraphCalibration("CF-GNN", split, true); err != nil {
		return err
	}
	return disjoint(p.Model, split)
}

// cfgnnFit is the training of CF-GNN's correction network: the network,
// its parameters and optimiser, the training nodes and labels, the
// penalised nodes V_s, the threshold nodes V_q with their labels and the
// threshold's rank k, and prob, the corrected probabilities after the
// last step.
type cfgnnFit struct {
	c                     *CFGNNCalibrator
	net                   *cfgnnNet
	params                []*ad.Value
	opt                   *optim.Adam
	pool                  *ad.Pool
	train, yTrain         []int
	sizeNodes, quantNodes []int
	yQuant                []int
	k                     int
	prob                  *tensor.Dense
}

// newFit builds the two-layer GAT correction network on p's graph, with
// p's probabilities as its input, and its optimiser.
func (c *CFGNNCalibrator) newFit(p *Prediction, rng *rand.Rand) (*cfgnnFit, error) {
	att, err := nn.NewAttentionGraph(graph.AddRemainingSelfLoops(graph.RemoveSelfLoops(p.Graph.Adj), 1))
	if err != nil {
		return nil, err
	}
	net := &cfgnnNet{
		l1:      nn.NewGAT("cfgnn0", p.Classes, c.hidden, 1, true, rng),
		l2:      nn.NewGAT("cfgnn1", c.hidden, p.Classes, 1, true, rng),
		att:     att,
		x:       ad.Const(p.Prob),
		dropout: c.dropout,
	}
	params := append(net.l1.Params(), net.l2.Params()...)
	opt, err := optim.NewAdam(optim.Group{Params: params, LR: c.lr, WeightDecay: c.weightDecay})
	if err != nil {
		return nil, err
	}
	return &cfgnnFit{c: c, net: net, params: params, opt: opt, pool: ad.NewPool(),
		prob: tensor.New(p.Prob.Rows, p.Classes)}, nil
}

// step takes one optimiser step on the training NLL, plus the weighted
// inefficiency after the warm-up, and sets prob to the corrected
// probabilities in evaluation mode.
func (f *cfgnnFit) step(epoch int, rng *rand.Rand) error {
	c := f.c
	tape := ad.NewTape().WithPool(f.pool)
	out := f.net.logits(tape, rng)
	loss := calibrationNLL(tape, tape.GatherRows(out, f.train), f.yTrain)
	if epoch > c.warmup && c.sizeWeight > 0 {
		probQ := tape.Exp(tape.LogSoftmax(tape.GatherRows(out, f.quantNodes)))
		probS := tape.Exp(tape.LogSoftmax(tape.GatherRows(out, f.sizeNodes)))
		size := inefficiency(tape, probQ, f.yQuant, probS, f.k, c.tau, c.targetSize)
		loss = tape.Add(loss, tape.Scale(size, c.sizeWeight))
	}
	f.opt.ZeroGrad()
	err := tape.Backward(loss)
	tape.Release()
	if err != nil {
		return err
	}
	f.opt.Step()
	tape = ad.NewEvalTape().WithPool(f.pool)
	softmaxRows(f.prob, f.net.logits(tape, nil).Data)
	tape.Release()
	return nil
}

// corrected returns the prediction of CF-GNN's corrected probabilities
// prob: its classes and measures.
func corrected(p *Prediction, prob *tensor.Dense) (*Prediction, error) {
	out := &Prediction{Model: p.Model + "+CF-GNN", Graph: p.Graph, Classes: p.Classes,
		Class: make([]int, prob.Rows), Prob: prob}
	for i := range out.Class {
		out.Class[i] = argmax(prob.Row(i))
	}
	var err error
	if out.Measures, err = uq.Categorical(prob.Data, p.Classes); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return out, nil
}

// disjoint returns an error naming a node that two of the split's
// training, validation and test sets share.
func disjoint(model string, split graph.Split) error {
	seen := map[int]string{}
	for _, set := range []struct {
		name  string
		nodes []int
	}{{"training", split.Train}, {"validation", split.Val}, {"test", split.Test}} {
		for _, i := range set.nodes {
			if other, ok := seen[i]; ok {
				return fmt.Errorf("cuq: %s: CF-GNN: node %d is both a %s and a %s node", model, i, other, set.name)
			}
			seen[i] = set.name
		}
	}
	return nil
}

// softmaxRows sets each row of dst to the softmax of that row of z.
func softmaxRows(dst, z *tensor.Dense) {
	for i := 0; i < z.Rows; i++ {
		scaledSoftmax(dst.Row(i), z.Row(i), 1)
	}
}

// setSizeSelection measures CF-GNN's selection criterion: the mean size
// of the non-randomised APS sets of the validation nodes, averaged over
// fixed random halvings of them into calibration and evaluation nodes.
type setSizeSelection struct {
	nodes, labels []int
	classes       int
	alpha         float64
	halves        [][]bool // halves[r][k]: whether nodes[k] calibrates in halving r
	sub           []float64
}

// newSetSizeSelection draws the halvings of the validation nodes val.
func newSetSizeSelection(p *Prediction, val []int, alpha float64, splits int, rng *rand.Rand) *setSizeSelection {
	s := &setSizeSelection{nodes: slices.Clone(val), labels: labelsOf(p.Graph, val), classes: p.Classes,
		alpha: alpha, halves: make([][]bool, splits), sub: make([]float64, len(val)*p.Classes)}
	for r := range s.halves {
		h := make([]bool, len(val))
		for _, k := range rng.Perm(len(val))[:len(val)/2] {
			h[k] = true
		}
		s.halves[r] = h
	}
	return s
}

// meanSize returns the criterion for the probabilities prob of every node.
func (s *setSizeSelection) meanSize(prob *tensor.Dense) (float64, error) {
	for k, i := range s.nodes {
		copy(s.sub[k*s.classes:(k+1)*s.classes], prob.Row(i))
	}
	scores, err := conformal.APS{NonRandomized: true}.Scores(conformal.Input{Prob: s.sub, Classes: s.classes})
	if err != nil {
		return 0, err
	}
	var total float64
	cal := make([]float64, 0, len(s.nodes))
	for _, h := range s.halves {
		cal = cal[:0]
		for k, in := range h {
			if in {
				cal = append(cal, scores[k*s.classes+s.labels[k]])
			}
		}
		q, err := conformal.Quantile(cal, s.alpha)
		if err != nil {
			return 0, err
		}
		var size, m int
		for k, in := range h {
			if in {
				continue
			}
			m++
			for _, v := range scores[k*s.classes : (k+1)*s.classes] {
				if v <= q {
					size++
				}
			}
		}
		total += float64(size) / float64(m)
	}
	return total / float64(len(s.halves)), nil
}
