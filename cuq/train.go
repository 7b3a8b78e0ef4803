package cuq

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/optim"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// EpochStats reports one epoch of training to a progress callback.
type EpochStats struct {
	Phase    string // "warmup" or "train"
	Epoch    int    // 1-based within the phase
	Loss     float64
	ValCE    float64 // NaN when the epoch was not evaluated
	ValAcc   float64
	Best     bool // the validation loss improved (strictly)
	MaxEpoch int
	// StopAt is the epoch at which training ends unless the validation
	// loss improves before (early stopping), at most MaxEpoch: the total
	// a progress bar can show.
	StopAt int
}

// History is the record of a Fit.
type History struct {
	Epochs    []EpochStats
	BestEpoch int     // epoch whose parameters were restored
	BestValCE float64 // its validation cross entropy
	Stopped   string  // why training ended
}

type fitOptions struct {
	ctx      context.Context
	onEpoch  func(EpochStats)
	maxEpoch int
}

// FitOption changes how Fit runs.
type FitOption func(*fitOptions)

// WithContext lets ctx cancel training; Fit then returns ctx's error.
func WithContext(ctx context.Context) FitOption { return func(o *fitOptions) { o.ctx = ctx } }

// OnEpoch calls fn after every epoch (warm-up epochs included), for
// progress bars and training curves.
func OnEpoch(fn func(EpochStats)) FitOption { return func(o *fitOptions) { o.onEpoch = fn } }

// Fit trains the model on the labels of split.Train, with early stopping on
// the cross entropy of split.Val, exactly as the reference implementation
// schedules it: for PostNet models a flow-only warm-up with its own
// Adam, then Adam with two parameter groups (flows without weight decay);
// evaluation every EvalEvery epochs; early stopping after Patience
// evaluations without strict improvement; the best parameters are
// restored. A run whose validation cross entropy is never finite (a
// learning rate far too large, say) is an error naming the last evaluated
// epoch and its loss, as is a run too short for a single evaluation: the
// model is then left untrained. GKDE computes its evidence instead.
func (m *Model) Fit(split graph.Split, opts ...FitOption) (*History, error) {
	o := fitOptions{ctx: context.Background()}
	for _, f := range opts {
		f(&o)
	}
	tr, err := m.newTrainer(split)
	if err != nil {
		return nil, err
	}
	if m.cfg.gkde {
		m.fitGKDE(tr.g, split.Train, tr.trainY)
		m.trained = true
		return &History{Stopped: "GKDE has no parameters"}, nil
	}
	g, s, valY, piVal, step := tr.g, tr.s, tr.valY, tr.piVal, tr.step
	hist := &History{BestValCE: math.Inf(1)}
	report := func(e EpochStats) {
		hist.Epochs = append(hist.Epochs, e)
		if o.onEpoch != nil {
			o.onEpoch(e)
		}
	}
	tc := m.cfg.train
	if m.flows != nil && tc.WarmupEpochs > 0 {
		warm, err := optim.NewAdam(optim.Group{Params: m.flowParams(), LR: tc.LR, WeightDecay: tc.FlowWeightDecay})
		if err != nil {
			return nil, err
		}
		for e := 1; e <= tc.WarmupEpochs; e++ {
			if err := o.ctx.Err(); err != nil {
				return hist, err
			}
			v, err := step(warm)
			if err != nil {
				return hist, fmt.Errorf("cuq: %s: warm-up epoch %d: %w", m.name, e, err)
			}
			report(EpochStats{Phase: "warmup", Epoch: e, Loss: v, ValCE: math.NaN(), ValAcc: math.NaN(), MaxEpoch: tc.WarmupEpochs, StopAt: tc.WarmupEpochs})
		}
	}
	opt, err := m.mainOptimizer()
	if err != nil {
		return nil, err
	}
	params := append(m.otherParams(), m.flowParams()...)
	best := snapshot(params)
	sinceBest := 0
	var last EpochStats // the last evaluated epoch (Epoch 0: none)
	hist.Stopped = fmt.Sprintf("reached %d epochs", tc.MaxEpochs)
	for e := 1; e <= tc.MaxEpochs; e++ {
		if err := o.ctx.Err(); err != nil {
			restore(params, best)
			return hist, err
		}
		v, err := step(opt)
		if err != nil {
			restore(params, best)
			return hist, fmt.Errorf("cuq: %s: epoch %d: %w", m.name, e, err)
		}
		stats := EpochStats{Phase: "train", Epoch: e, Loss: v, ValCE: math.NaN(), ValAcc: math.NaN(), MaxEpoch: tc.MaxEpochs}
		if e%tc.EvalEvery == 0 {
			probs := m.evalProbs(g, s, split.Val, piVal)
			stats.ValCE, stats.ValAcc = crossEntropy(probs, valY)
			if stats.ValCE < hist.BestValCE {
				hist.BestValCE, hist.BestEpoch, stats.Best = stats.ValCE, e, true
				copyInto(best, params)
				sinceBest = 0
			} else {
				sinceBest++
			}
		}
		stats.StopAt = min(tc.MaxEpochs, e+(tc.Patience-sinceBest)*tc.EvalEvery-e%tc.EvalEvery)
		report(stats)
		if e%tc.EvalEvery == 0 {
			last = stats
		}
		if sinceBest >= tc.Patience {
			hist.Stopped = fmt.Sprintf("early stopping: no improvement of the validation loss for %d evaluations", tc.Patience)
			break
		}
	}
	restore(params, best)
	if hist.BestEpoch == 0 {
		// No evaluation gave a finite loss, so best holds the initial
		// parameters: an untrained model must not pass for a trained one.
		if last.Epoch == 0 {
			return hist, fmt.Errorf("cuq: %s: no validation loss in %d epochs (evaluated every %d epochs)", m.name, tc.MaxEpochs, tc.EvalEvery)
		}
		return hist, fmt.Errorf("cuq: %s: training diverged: the validation loss was never finite; at epoch %d, the last evaluated, it was %v (training loss %v)",
			m.name, last.Epoch, last.ValCE, last.Loss)
	}
	m.trained = true
	return hist, nil
}

// trainer holds what one training run derives from its split.
type trainer struct {
	m              *Model
	g              *graph.Graph
	s              *structures
	split          graph.Split
	trainY, valY   []int
	piTrain, piVal *tensor.CSR
	local          []int       // 0..len(Train)−1: training rows of a head run on them alone
	opt            *optim.Adam // for Step
}

func (m *Model) newTrainer(split graph.Split) (*trainer, error) {
	g := m.cfg.g
	if err := split.Validate(g.N); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	if len(split.Train) == 0 || len(split.Val) == 0 {
		return nil, fmt.Errorf("cuq: %s: the split needs training and validation nodes (%d train, %d val)", m.name, len(split.Train), len(split.Val))
	}
	tr := &trainer{m: m, g: g, split: split, local: make([]int, len(split.Train))}
	for i := range tr.local {
		tr.local[i] = i
	}
	var err error
	if tr.trainY, err = m.labelsOf(g, split.Train, "training"); err != nil {
		return nil, err
	}
	if tr.valY, err = m.labelsOf(g, split.Val, "validation"); err != nil {
		return nil, err
	}
	if m.cfg.gkde {
		return tr, nil
	}
	m.setPrior(tr.trainY)
	if tr.s, err = m.prepare(g); err != nil {
		return nil, err
	}
	if tr.s.mixture != nil {
		tr.piTrain, tr.piVal = rowsOf(tr.s.mixture, split.Train), rowsOf(tr.s.mixture, split.Val)
	}
	return tr, nil
}

// loss builds the training loss on t.
func (tr *trainer) loss(t *ad.Tape) *ad.Value {
	m := tr.m
	out := m.forward(t, tr.g, tr.s, tr.split.Train)
	rows := tr.split.Train
	if m.headRows(rows) {
		rows = tr.local
	}
	switch {
	case m.cfg.firstOrder:
		return nllLoss(t, out, rows, tr.trainY)
	case tr.piTrain != nil:
		return mixtureLoss(t, out, tr.piTrain, tr.trainY, m.cfg.train.EntropyReg)
	}
	return uceLoss(t, out, rows, tr.trainY, m.cfg.train.EntropyReg)
}

// step runs one epoch: forward, backward, optimizer step. It returns the
// loss, or an error when the loss is not finite.
func (tr *trainer) step(opt *optim.Adam) (float64, error) {
	opt.ZeroGrad()
	t := ad.NewTape()
	l := tr.loss(t)
	v := l.Scalar()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		t.Reset()
		return v, fmt.Errorf("loss is %v", v)
	}
	if err := t.Backward(l); err != nil {
		return v, err
	}
	opt.Step()
	return v, nil
}

func (m *Model) mainOptimizer() (*optim.Adam, error) {
	tc := m.cfg.train
	groups := []optim.Group{{Params: m.otherParams(), LR: tc.LR, WeightDecay: tc.WeightDecay}}
	if m.flows != nil {
		groups = append(groups, optim.Group{Params: m.flowParams(), LR: tc.LR, WeightDecay: tc.FlowWeightDecay})
	}
	return optim.NewAdam(groups...)
}

// Step runs a single training epoch (forward pass, backward pass and Adam
// step with the main parameter groups) on split, without warm-up or early
// stopping, and returns the training loss. It is the unit that benchmarks
// time and lets notebooks train step by step; Fit is the full schedule.
func (m *Model) Step(split graph.Split) (float64, error) {
	if m.cfg.gkde {
		return 0, fmt.Errorf("cuq: GKDE has no parameters to train")
	}
	if m.stepper == nil || !sameSplit(m.stepper.split, split) {
		tr, err := m.newTrainer(split)
		if err != nil {
			return 0, err
		}
		if tr.opt, err = m.mainOptimizer(); err != nil {
			return 0, err
		}
		m.stepper = tr
	}
	v, err := m.stepper.step(m.stepper.opt)
	if err != nil {
		return v, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	m.trained = true
	return v, nil
}

// Forward runs the model once in evaluation mode on g (nil: the training
// graph) and returns its raw output: log-probabilities for APPNP, the
// Dirichlet parameters α for GPN and CUQ models, the per-node α_ft for
// LOP-GPN. Predict adds the uncertainty measures.
func (m *Model) Forward(g *graph.Graph) (*tensor.Dense, error) {
	if m.cfg.gkde {
		if m.gkdeAlpha == nil {
			return nil, fmt.Errorf("cuq: GKDE is not fitted")
		}
		return m.gkdeAlpha, nil
	}
	if g == nil {
		g = m.cfg.g
	}
	if m.logPrior == nil && m.flows != nil {
		return nil, fmt.Errorf("cuq: %s has no class prior yet: call Fit or Step first", m.name)
	}
	s, err := m.prepare(g)
	if err != nil {
		return nil, err
	}
	return m.forward(ad.NewEvalTape(), g, s, nil).Data, nil
}

func sameSplit(a, b graph.Split) bool {
	return slices.Equal(a.Train, b.Train) && slices.Equal(a.Val, b.Val)
}

func (m *Model) labelsOf(g *graph.Graph, nodes []int, what string) ([]int, error) {
	y := make([]int, len(nodes))
	for k, i := range nodes {
		if g.Labels[i] < 0 || g.Labels[i] >= m.classes {
			return nil, fmt.Errorf("cuq: %s: %s node %d has label %d outside [0, %d)", m.name, what, i, g.Labels[i], m.classes)
		}
		y[k] = g.Labels[i]
	}
	return y, nil
}

// setPrior sets log p(c) from the training labels; a class without
// training nodes gets log 0 = −inf, so its evidence is clamped to e^−30.
func (m *Model) setPrior(trainY []int) {
	counts := make([]float64, m.classes)
	for _, y := range trainY {
		counts[y]++
	}
	m.logPrior = make([]float64, m.classes)
	for c, n := range counts {
		m.logPrior[c] = math.Log(n / float64(len(trainY)))
	}
}

// evalProbs runs the model in evaluation mode and returns the mean class
// probabilities p̄ of the given nodes (rows in the order of nodes).
func (m *Model) evalProbs(g *graph.Graph, s *structures, nodes []int, piRows *tensor.CSR) *tensor.Dense {
	out := m.forward(ad.NewEvalTape(), g, s, nodes).Data
	c := m.classes
	probs := tensor.New(len(nodes), c)
	if m.cfg.firstOrder {
		for k, i := range nodes {
			for j, v := range out.Row(i) {
				probs.Data[k*c+j] = math.Exp(v)
			}
		}
		return probs
	}
	mean := dirichletMeans(out)
	if piRows != nil {
		piRows.MulTo(probs, mean)
		return probs
	}
	if m.headRows(nodes) {
		return mean
	}
	for k, i := range nodes {
		copy(probs.Row(k), mean.Row(i))
	}
	return probs
}

func dirichletMeans(alpha *tensor.Dense) *tensor.Dense {
	mean := tensor.New(alpha.Rows, alpha.Cols)
	for i := 0; i < alpha.Rows; i++ {
		row, out := alpha.Row(i), mean.Row(i)
		a0 := 0.0
		for _, a := range row {
			a0 += a
		}
		for j, a := range row {
			out[j] = a / a0
		}
	}
	return mean
}

// crossEntropy returns the mean −log p[y] and the accuracy of argmax p.
func crossEntropy(probs *tensor.Dense, y []int) (ce, acc float64) {
	for k, label := range y {
		row := probs.Row(k)
		ce -= math.Log(row[label])
		if argmax(row) == label {
			acc++
		}
	}
	n := float64(len(y))
	return ce / n, acc / n
}

// argmax returns the first index of the largest value (torch.max's choice
// in practice).
func argmax(row []float64) int {
	best := 0
	for j, v := range row {
		if v > row[best] {
			best = j
		}
	}
	return best
}

func snapshot(params []*ad.Value) [][]float64 {
	s := make([][]float64, len(params))
	for i, p := range params {
		s[i] = slices.Clone(p.Data.Data)
	}
	return s
}

func copyInto(dst [][]float64, params []*ad.Value) {
	for i, p := range params {
		copy(dst[i], p.Data.Data)
	}
}

func restore(params []*ad.Value, s [][]float64) {
	for i, p := range params {
		copy(p.Data.Data, s[i])
	}
}
