package cuq

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// ErrTemperature is wrapped by the error of a calibrator whose fitted
// temperature is not positive and finite at some node (GATS, whose
// additive bias is not constrained, as in its authors' code).
var ErrTemperature = errors.New("the calibrated temperature is not positive")

// GATSBuilder configures the GATS calibrator (Hsu et al., "What Makes
// Graph Neural Networks Miscalibrated?", NeurIPS 2022). Its options change
// it in place and return it; Done returns the calibrator.
type GATSBuilder struct{ c GATSCalibrator }

// GATS returns the GATS calibrator with the defaults of the paper's code
// (github.com/hans66hsu/GATS, config/GATS for Cora and Citeseer): 8
// attention heads, bias initialised to 1, Adam with learning rate 0.01 and
// weight decay 5·10⁻³ (cal_wdecay), at most 2000 epochs with patience
// 100, seed 0.
func GATS() *GATSBuilder {
	return &GATSBuilder{GATSCalibrator{heads: 8, bias: 1, lr: 0.01, weightDecay: 5e-3, epochs: 2000, patience: 100}}
}

// Heads sets the number of attention heads H.
func (b *GATSBuilder) Heads(n int) *GATSBuilder { b.c.heads = n; return b }

// Bias sets the initial value of the additive bias b of the temperature.
func (b *GATSBuilder) Bias(v float64) *GATSBuilder { b.c.bias = v; return b }

// LR sets Adam's learning rate.
func (b *GATSBuilder) LR(lr float64) *GATSBuilder { b.c.lr = lr; return b }

// WeightDecay sets the L2 weight decay of every parameter.
func (b *GATSBuilder) WeightDecay(wd float64) *GATSBuilder { b.c.weightDecay = wd; return b }

// Epochs sets the largest number of training epochs.
func (b *GATSBuilder) Epochs(n int) *GATSBuilder { b.c.epochs = n; return b }

// Patience sets the number of epochs without improvement of the monitored
// loss after which training stops.
func (b *GATSBuilder) Patience(n int) *GATSBuilder { b.c.patience = n; return b }

// StopOnValidation makes early stopping watch the validation NLL, the
// loss GATS is trained on, as CaGCN's code does, instead of the training
// nodes' NLL. A model that is confident on its training nodes (GPN,
// CUQ-*, an overconfident one) has a training NLL that only grows as
// GATS raises the temperatures, so the default stops it at its first
// epoch.
func (b *GATSBuilder) StopOnValidation() *GATSBuilder { b.c.stopOnVal = true; return b }

// Seed sets the seed of the initial weights.
func (b *GATSBuilder) Seed(s uint64) *GATSBuilder { b.c.seed = s; return b }

// Done returns the configured calibrator, a copy: changing the builder
// later does not change it.
func (b *GATSBuilder) Done() *GATSCalibrator { c := b.c; return &c }

// GATSCalibrator is graph attention temperature scaling. For node i with
// logits z_i (the centred log-probabilities of CaGCNCalibrator) it learns
//
//	x̃_i  = sort↑((z_i − min_c z_ic) / (max_c z_ic − min_c z_ic))        (K values)
//	τ_i  = x̃_i W                                                          (H heads)
//	a_i  = ω₀ if i is a training node, ω₁ if its nearest one is a neighbour, else 1
//	e_ij = LeakyReLU_0.2(⟨z_i/a_i, z_j/a_j⟩),   α_ij = softmax_{j ∈ N(i)∪{i}}(e_ij)
//	δ_i  = (1/|N(i)∪{i}|) Σ_{j ∈ N(i)∪{i}} (conf_i − conf_j),   conf_i = max_c softmax(z_i)_c
//	T_i  = (1/H) Σ_h softplus(Σ_j α_ij a_j τ_jʰ + γ δ_i) + b
//
// and returns p̃_i = softmax(z_i / T_i). The attention weighs a
// neighbour by the agreement of its logits with the node's (an attention
// without parameters of its own), a_i is the learnable factor for the
// distance to the training nodes (ω₀, ω₁ start at 1), γ (from 0) weighs
// the relative confidence δ_i, W (K×H, Glorot) and the bias b (from
// Bias) complete the parameters, as CalibAttentionLayer of the GATS
// code. It is trained on the validation nodes' NLL with early stopping on
// the NLL of the training nodes (the GATS code trains on the validation
// set and stops on the training set; StopOnValidation stops on the
// validation set instead).
//
// Deliberate differences from the code: the distances to the training
// nodes are computed here (breadth-first to depth 2, the code's
// shortest_path_length with bfs_depth 2) rather than read from its files;
// a node whose logits are all equal gets x̃_i = 0 where the code divides
// 0 by 0; and the code leaves T_i unconstrained below (b may fall under
// −mean softplus), where Calibrate returns an error if a final T_i is not
// positive and finite. The GATS protocol splits the labelled nodes into
// three folds and calibrates once per fold; Calibrate takes the split it
// is given.
type GATSCalibrator struct {
	heads                 int
	bias, lr, weightDecay float64
	epochs, patience      int
	seed                  uint64
	stopOnVal             bool
}

// gatsNet is GATS on one prediction: the constants of the graph and the
// logits, and the parameters.
type gatsNet struct {
	pattern *tensor.CSR // N(i) ∪ {i} per row
	src     []int       // source j of every stored entry (i, j)
	dst     []int       // its row i
	dots    *ad.Value   // E×1: ⟨z_i, z_j⟩ per entry
	sorted  *ad.Value   // N×K: x̃
	relConf *ad.Value   // N×1: δ
	dist    []int       // 0 training node, 1 neighbour of one, 2 farther

	w, confCoef, bias, trainA, dist1A *ad.Value
}

// newGATSNet returns the network for the logits z on the graph of adj with
// the training nodes train, its weight drawn from rng.
func newGATSNet(z *tensor.Dense, adj *tensor.CSR, train []int, heads int, bias float64, rng *rand.Rand) *gatsNet {
	n, k := z.Rows, z.Cols
	pattern := graph.AddRemainingSelfLoops(graph.RemoveSelfLoops(adj), 1)
	net := &gatsNet{pattern: pattern, src: pattern.Ind, dst: make([]int, pattern.NNZ()),
		dots: ad.Const(tensor.New(pattern.NNZ(), 1)), sorted: ad.Const(tensor.New(n, k)),
		relConf: ad.Const(tensor.New(n, 1)), dist: distanceToTraining(pattern, train)}
	conf := make([]float64, n)
	q := make([]float64, k)
	for i := 0; i < n; i++ {
		row := z.Row(i)
		lo, hi := slices.Min(row), slices.Max(row)
		xs := net.sorted.Data.Row(i)
		if hi > lo {
			for c, v := range row {
				xs[c] = (v - lo) / (hi - lo)
			}
			slices.Sort(xs)
		}
		scaledSoftmax(q, row, 1)
		conf[i] = slices.Max(q)
	}
	for i := 0; i < n; i++ {
		d := 0.0
		for l := pattern.Ptr[i]; l < pattern.Ptr[i+1]; l++ {
			j := pattern.Ind[l]
			net.dst[l] = i
			dot := 0.0
			for c, v := range z.Row(i) {
				dot += float64(v * z.At(j, c))
			}
			net.dots.Data.Data[l] = dot
			d += conf[i] - conf[j]
		}
		net.relConf.Data.Data[i] = d / float64(pattern.Ptr[i+1]-pattern.Ptr[i])
	}
	scalar := func(name string, v float64) *ad.Value {
		d := tensor.New(1, 1)
		d.Data[0] = v
		return ad.Param(name, d)
	}
	net.w = ad.Param("gats.W", nn.Glorot(rng, k, heads))
	net.confCoef = scalar("gats.conf_coef", 0)
	net.bias = scalar("gats.bias", bias)
	net.trainA = scalar("gats.train_a", 1)
	net.dist1A = scalar("gats.dist1_a", 1)
	return net
}

// distanceToTraining returns each node's distance to the nearest training
// node, 0, 1, or 2 for any farther (or unreachable) node.
func distanceToTraining(pattern *tensor.CSR, train []int) []int {
	dist := make([]int, pattern.Rows)
	for i := range dist {
		dist[i] = 2
	}
	for _, i := range train {
		dist[i] = 0
	}
	for _, i := range train {
		for l := pattern.Ptr[i]; l < pattern.Ptr[i+1]; l++ {
			if j := pattern.Ind[l]; dist[j] == 2 {
				dist[j] = 1
			}
		}
	}
	return dist
}

// params returns the trainable parameters.
func (n *gatsNet) params() []*ad.Value {
	return []*ad.Value{n.w, n.confCoef, n.bias, n.trainA, n.dist1A}
}

// clusterFactors returns the N×1 factors a_i: ω₀ on training nodes, ω₁ on
// their neighbours, 1 elsewhere.
func (n *gatsNet) clusterFactors(t *ad.Tape) *ad.Value {
	out := t.Alloc(len(n.dist), 1)
	for i, d := range n.dist {
		switch d {
		case 0:
			out.Data[i] = n.trainA.Data.Data[0]
		case 1:
			out.Data[i] = n.dist1A.Data.Data[0]
		default:
			out.Data[i] = 1
		}
	}
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		for i, d := range n.dist {
			if d < 2 && grads[d] != nil {
				grads[d].Data[0] += g.Data[i]
			}
		}
	}, n.trainA, n.dist1A)
}

// temperatures returns the N×1 temperatures T_i.
func (n *gatsNet) temperatures(t *ad.Tape) *ad.Value {
	a := n.clusterFactors(t)
	inv := t.Pow(a, -1)
	e := t.Mul(t.Mul(n.dots, t.GatherRows(inv, n.dst)), t.GatherRows(inv, n.src))
	alpha := t.SegmentSoftmax(t.LeakyReLU(e, 0.2), n.pattern.Ptr)
	tau := t.Mul(t.MatMul(n.sorted, n.w), a)
	sim := t.SpMMValues(n.pattern, alpha, tau)
	u := t.Add(sim, t.Mul(n.relConf, n.confCoef))
	return t.Add(t.MeanRows(t.Softplus(u)), n.bias)
}

// loss returns the NLL of softmax(z_i / T_i) over nodes with labels y.
func (n *gatsNet) loss(t *ad.Tape, z *ad.Value, nodes, y []int) *ad.Value {
	logits := t.Div(t.GatherRows(z, nodes), t.GatherRows(n.temperatures(t), nodes))
	return calibrationNLL(t, logits, y)
}

// Calibrate fits GATS on split (trained on the validation nodes, stopped
// early on the training nodes, which also define the distances) and
// returns the calibrated prediction of every node, named the model's plus
// "+GATS", and each node's temperature T_i. The classes are unchanged;
// Prob is p̃, TU and LC are recomputed from it and the other measures
// dropped, as TemperatureScaled. It returns an error for an invalid
// configuration, a prediction without probabilities or without its
// graph's edges, a probability that is NaN, infinite or negative, fewer
// than two classes, no validation or no training nodes or one without a
// label, and a fitted temperature that is not positive and finite.
func (c *GATSCalibrator) Calibrate(p *Prediction, split graph.Split) (*Prediction, []float64, error) {
	const method = "GATS"
	if c.heads < 1 || c.epochs < 1 || c.patience < 1 || !(c.lr > 0) || !(c.weightDecay >= 0) ||
		math.IsNaN(c.bias) || math.IsInf(c.bias, 0) {
		return nil, nil, fmt.Errorf("cuq: GATS: invalid configuration: heads %d, bias %v, lr %v, weight decay %v, epochs %d, patience %d",
			c.heads, c.bias, c.lr, c.weightDecay, c.epochs, c.patience)
	}
	if err := p.checkGraphCalibration(method, split, true); err != nil {
		return nil, nil, err
	}
	z := calibrationLogits(p)
	net := newGATSNet(z, p.Graph.Adj, split.Train, c.heads, c.bias, rand.New(rand.NewPCG(c.seed, 0x6a75)))
	zc := ad.Const(z)
	val, train := split.Val, split.Train
	stop := train
	if c.stopOnVal {
		stop = val
	}
	yVal, yStop := labelsOf(p.Graph, val), labelsOf(p.Graph, stop)
	temps := make([]float64, z.Rows)
	beta := make([]float64, z.Rows)
	evalTemps := func(t *ad.Tape) {
		copy(temps, net.temperatures(t).Data.Data)
		for i, v := range temps {
			beta[i] = 1 / v
		}
	}
	s := earlyStopping{lr: c.lr, weightDecay: c.weightDecay, epochs: c.epochs, patience: c.patience,
		ties: true, method: method, modelName: p.Model}
	_, err := s.fit(net.params(),
		func(t *ad.Tape) *ad.Value { return net.loss(t, zc, val, yVal) },
		func(t *ad.Tape) float64 { evalTemps(t); return meanCrossEntropy(z, beta, stop, yStop) })
	if err != nil {
		return nil, nil, err
	}
	evalTemps(ad.NewEvalTape())
	for i, v := range temps {
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, nil, fmt.Errorf("cuq: %s: GATS fitted temperature %v at node %d: %w", p.Model, v, i, ErrTemperature)
		}
	}
	out, err := p.calibratedPrediction(z, beta, "+GATS")
	if err != nil {
		return nil, nil, err
	}
	return out, temps, nil
}
