package cuq

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/optim"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Phase is a stage of training.
type Phase int

// The phases of Fit, in order.
const (
	WarmupPhase Phase = iota // flow-only warm-up of a PostNet head
	TrainPhase               // the main training with early stopping
)

var phaseNames = [...]string{WarmupPhase: "warmup", TrainPhase: "train"}

// String returns "warmup" or "train".
func (p Phase) String() string { return enum.String(p, phaseNames[:]) }

// EpochStats reports one epoch of training to a progress callback.
type EpochStats struct {
	Phase    Phase
	Epoch    int // 1-based within the phase
	Loss     float64
	ValCE    float64 // NaN when the epoch was not evaluated
	ValAcc   float64
	Best     bool // the validation loss improved (strictly)
	MaxEpoch int
	// StopAt is the epoch at which training ends unless the validation
	// loss improves before (early stopping), at most MaxEpoch: the total
	// a progress bar can show.
	StopAt int
	// Member is the committee member (1-based) the epoch trained; 0 for a
	// single model.
	Member int
}

// StopReason says why Fit ended.
type StopReason int

// The reasons training ends.
const (
	Interrupted      StopReason = iota // Fit returned an error (cancelled, diverged)
	NothingToTrain                     // the model has no parameters (GKDE)
	MaxEpochsReached                   // the main training ran MaxEpochs epochs
	EarlyStopping                      // the validation loss stopped improving for Patience evaluations
)

var stopReasonNames = [...]string{
	Interrupted:      "interrupted",
	NothingToTrain:   "nothing to train",
	MaxEpochsReached: "reached the maximum number of epochs",
	EarlyStopping:    "early stopping",
}

// String returns the reason in a few words.
func (r StopReason) String() string { return enum.String(r, stopReasonNames[:]) }

// History is the record of a Fit.
//
// Epochs are numbered within their phase: the flow-only warm-up epochs
// 1…W of the PostNet models, then the main training epochs 1…E. "Epoch n"
// means the n-th main epoch wherever cuqgnn reports one (BestEpoch, the
// progress line, kernelext's Stats, the training chart, where warm-up
// epoch k is labelled wk); warm-up epochs are counted apart.
type History struct {
	Epochs    []EpochStats // every epoch, warm-up first
	BestEpoch int          // the main epoch whose parameters were restored
	BestValCE float64      // its validation cross entropy
	Reason    StopReason   // why training ended
	Stopped   string       // why training ended, in a sentence with the numbers
	// Members holds the history of each member of a committee, in order;
	// nil for a single model (see Committee.Fit).
	Members []*History
	// Shared is true when Fit did not train but took the state and the
	// history of the same training from a TrainingCache; for a committee,
	// when every member did.
	Shared bool
}

// WarmupEpochs returns the number of warm-up epochs in h.Epochs.
func (h *History) WarmupEpochs() int {
	n := 0
	for _, e := range h.Epochs {
		if e.Phase == WarmupPhase {
			n++
		}
	}
	return n
}

// Validation returns what telling a collapsed training apart needs (see
// eval.Collapsed): the accuracy on the validation nodes val of pred, the
// trained model's prediction, and, when h ended by early stopping, their
// chance (eval.Chance); chance is 0 otherwise, since a model without
// parameters (GKDE) does not train and a run cut by MaxEpochs is
// unfinished, so neither can collapse.
func (h *History) Validation(pred *Prediction, labels, val []int) (acc, chance float64, err error) {
	if acc, err = eval.Accuracy(pred.Class, labels, val); err != nil {
		return 0, 0, err
	}
	if h.Reason == EarlyStopping {
		if chance, err = eval.Chance(labels, val); err != nil {
			return 0, 0, err
		}
	}
	return acc, chance, nil
}

// TrainEpochs returns the number of main training epochs in h.Epochs: the
// last epoch's number, warm-up not counted.
func (h *History) TrainEpochs() int { return len(h.Epochs) - h.WarmupEpochs() }

// Fit trains the model on the labels of split.Train, with early stopping on
// the cross entropy of split.Val, as the Schedule among opts says (the
// model's own, Model.Schedule, when there is none; see Schedule for the
// steps, which are the reference implementation's). A run whose validation cross entropy is never finite (a
// learning rate far too large, say) is an error naming the last evaluated
// epoch and its loss, as is a run too short for a single evaluation: the
// model is then left untrained. GKDE computes its evidence instead. With
// ShareTrainings, a fresh model (neither fitted, stepped nor given a
// state) whose training was already done through the cache takes its
// state instead of training.
func (m *Model) Fit(split graph.Split, opts ...FitOption) (*History, error) {
	o := newFitOptions(opts)
	s := o.resolve(m.schedule)
	if m.Trainable() {
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
		}
		if o.share != nil && m.base == nil && !m.trained && m.stepper == nil {
			return o.share.fit(o.ctx, m.trainingKey(split, s), m, func() (*History, error) { return m.fit(split, s, o) })
		}
	}
	return m.fit(split, s, o)
}

// fit is Fit with the schedule s resolved, without sharing.
func (m *Model) fit(split graph.Split, s Schedule, o fitOptions) (*History, error) {
	tr, err := m.newTrainer(split, s)
	if err != nil {
		return nil, err
	}
	if tr.obj == nil {
		m.trained = true
		return &History{Reason: NothingToTrain, Stopped: m.name + " has no parameters"}, nil
	}
	if k, ok := m.fam.(productKeeper); ok && handFirstProducts {
		k.keepProducts(true)
		defer k.keepProducts(false)
	}
	f := &fitRun{m: m, s: s, tr: tr, o: o, hist: &History{BestValCE: math.Inf(1)}}
	flows, others := m.fam.params()
	if len(flows) > 0 && s.WarmupEpochs > 0 {
		if err := f.warmup(flows); err != nil {
			return f.hist, err
		}
	}
	last, err := f.main(slices.Concat(others, flows, m.buffers()))
	if err != nil {
		return f.hist, err
	}
	if err := f.check(last); err != nil {
		return f.hist, err
	}
	m.trained = true
	return f.hist, nil
}

// fitRun is one Fit: the model, its trainer and the history so far.
type fitRun struct {
	m    *Model
	s    Schedule
	tr   *trainer
	o    fitOptions
	hist *History
}

// report records an epoch and passes it to OnEpoch.
func (f *fitRun) report(e EpochStats) {
	f.hist.Epochs = append(f.hist.Epochs, e)
	if f.o.onEpoch != nil {
		f.o.onEpoch(e)
	}
}

// warmup trains the flows alone for the warm-up epochs, with an Adam of
// their own.
func (f *fitRun) warmup(flows []*ad.Value) error {
	tc := f.s
	warm, err := optim.NewAdam(optim.Group{Params: flows, LR: tc.LR, WeightDecay: tc.FlowWeightDecay})
	if err != nil {
		return err
	}
	for e := 1; e <= tc.WarmupEpochs; e++ {
		if err := f.o.ctx.Err(); err != nil {
			return err
		}
		v, err := f.tr.step(warm)
		if err != nil {
			return fmt.Errorf("cuq: %s: warm-up epoch %d: %w", f.m.name, e, err)
		}
		f.report(EpochStats{Phase: WarmupPhase, Epoch: e, Loss: v, ValCE: math.NaN(), ValAcc: math.NaN(), MaxEpoch: tc.WarmupEpochs, StopAt: tc.WarmupEpochs})
	}
	return nil
}

// main trains every parameter until early stopping or MaxEpochs,
// evaluating the validation cross entropy every EvalEvery epochs, and
// restores the values of params (the parameters and the buffers) of the
// best evaluation (also when it fails). It returns the last evaluated epoch
// (Epoch 0: none).
func (f *fitRun) main(params []*ad.Value) (last EpochStats, err error) {
	tc, hist := f.s, f.hist
	opt, err := f.m.mainOptimizer(tc)
	if err != nil {
		return last, err
	}
	best := snapshot(params)
	defer restore(params, best)
	sinceBest := 0
	for e := 1; e <= tc.MaxEpochs; e++ {
		if err := f.o.ctx.Err(); err != nil {
			return last, err
		}
		v, err := f.tr.step(opt)
		if err != nil {
			return last, fmt.Errorf("cuq: %s: epoch %d: %w", f.m.name, e, err)
		}
		stats := EpochStats{Phase: TrainPhase, Epoch: e, Loss: v, ValCE: math.NaN(), ValAcc: math.NaN(), MaxEpoch: tc.MaxEpochs}
		if e%tc.EvalEvery == 0 {
			stats.ValCE, stats.ValAcc = crossEntropy(f.tr.obj.valProbs(), f.tr.valY)
			if stats.ValCE < hist.BestValCE {
				hist.BestValCE, hist.BestEpoch, stats.Best = stats.ValCE, e, true
				copyInto(best, params)
				sinceBest = 0
			} else {
				sinceBest++
			}
		}
		stats.StopAt = min(tc.MaxEpochs, e+(tc.Patience-sinceBest)*tc.EvalEvery-e%tc.EvalEvery)
		f.report(stats)
		if e%tc.EvalEvery == 0 {
			last = stats
		}
		if sinceBest >= tc.Patience {
			hist.Reason = EarlyStopping
			hist.Stopped = fmt.Sprintf("early stopping: no improvement of the validation loss for %d evaluations", tc.Patience)
			return last, nil
		}
	}
	hist.Reason, hist.Stopped = MaxEpochsReached, fmt.Sprintf("reached %d epochs", tc.MaxEpochs)
	return last, nil
}

// check refuses a run none of whose evaluations gave a finite loss: the
// restored parameters are then the initial ones, and an untrained model
// must not pass for a trained one.
func (f *fitRun) check(last EpochStats) error {
	if f.hist.BestEpoch != 0 {
		return nil
	}
	tc := f.s
	if last.Epoch == 0 {
		return fmt.Errorf("cuq: %s: no validation loss in %d epochs (evaluated every %d epochs)", f.m.name, tc.MaxEpochs, tc.EvalEvery)
	}
	return fmt.Errorf("cuq: %s: training diverged: the validation loss was never finite; at epoch %d, the last evaluated, it was %v (training loss %v)",
		f.m.name, last.Epoch, last.ValCE, last.Loss)
}

// trainer holds what one training run derives from its split.
type trainer struct {
	split graph.Split
	valY  []int
	obj   objective   // nil for a model without parameters
	opt   *optim.Adam // for Step
}

// newTrainer checks split and its labels and lets the family prepare
// training on it.
func (m *Model) newTrainer(split graph.Split, s Schedule) (*trainer, error) {
	if m.base != nil {
		return nil, fmt.Errorf("cuq: %s is a prediction-time variant of %s and shares its parameters: train %s instead", m.name, m.base.name, m.base.name)
	}
	g := m.g
	if err := split.Validate(g.N); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	if len(split.Train) == 0 || len(split.Val) == 0 {
		return nil, fmt.Errorf("cuq: %s: the split needs training and validation nodes (%d train, %d val)", m.name, len(split.Train), len(split.Val))
	}
	trainY, err := m.labelsOf(g, split.Train, "training")
	if err != nil {
		return nil, err
	}
	tr := &trainer{split: split}
	if tr.valY, err = m.labelsOf(g, split.Val, "validation"); err != nil {
		return nil, err
	}
	if tr.obj, err = m.fam.fit(g, split, trainY, s); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	return tr, nil
}

// step runs one epoch: forward, backward, optimizer step. It returns the
// loss, or an error when the loss is not finite.
func (tr *trainer) step(opt *optim.Adam) (float64, error) {
	opt.ZeroGrad()
	t := tr.obj.tape()
	defer t.Release()
	l, err := tr.obj.loss(t)
	if err != nil {
		return math.NaN(), err
	}
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

func (m *Model) mainOptimizer(tc Schedule) (*optim.Adam, error) {
	flows, others := m.fam.params()
	groups := []optim.Group{{Params: others, LR: tc.LR, WeightDecay: tc.WeightDecay}}
	if len(flows) > 0 {
		groups = append(groups, optim.Group{Params: flows, LR: tc.LR, WeightDecay: tc.FlowWeightDecay})
	}
	return optim.NewAdam(groups...)
}

// Step runs a single training epoch (forward pass, backward pass and Adam
// step with the main parameter groups of the model's Schedule) on split,
// without warm-up or early stopping, and returns the training loss. It is the unit that benchmarks
// time and lets notebooks train step by step; Fit is the full schedule.
func (m *Model) Step(split graph.Split) (float64, error) {
	if !m.Trainable() {
		return 0, fmt.Errorf("cuq: %s has no parameters to train", m.name)
	}
	if m.stepper == nil || !sameSplit(m.stepper.split, split) {
		if err := m.schedule.Check(); err != nil {
			return 0, fmt.Errorf("cuq: %s: %w", m.name, err)
		}
		tr, err := m.newTrainer(split, m.schedule)
		if err != nil {
			return 0, err
		}
		if tr.opt, err = m.mainOptimizer(m.schedule); err != nil {
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
// graph) and returns its raw output: log-probabilities for APPNP and GCN
// (one pass with dropout off and the full graph, also under MCDropout and
// DropEdge), the Dirichlet parameters α for GPN and CUQ models, the
// per-node α_ft for LOP-GPN. Predict adds the uncertainty measures.
// ForwardTo writes the output into a matrix of the caller's.
func (m *Model) Forward(g *graph.Graph) (*tensor.Dense, error) {
	return m.forward(nil, g)
}

// ForwardTo is Forward that writes the output into dst, an N×C matrix for
// a graph of N nodes and the model's C classes, and returns nil or the
// error. A loop of evaluation passes that reuses one dst allocates no
// memory of the graph's size per pass: Forward returns a new matrix each
// time, which the garbage collector recycles only later, so that a quick
// succession of passes writes fresh pages, each first touch a page fault
// (on virtual machines that return freed memory to their host, several
// microseconds per 4 KiB page).
func (m *Model) ForwardTo(dst *tensor.Dense, g *graph.Graph) error {
	if dst == nil {
		return fmt.Errorf("cuq: %s: ForwardTo: nil destination", m.name)
	}
	_, err := m.forward(dst, g)
	return err
}

// forward is Forward, into dst when it is not nil.
func (m *Model) forward(dst *tensor.Dense, g *graph.Graph) (*tensor.Dense, error) {
	if g == nil {
		g = m.g
	}
	if err := m.checkGraph(g); err != nil {
		return nil, err
	}
	if dst != nil && (dst.Rows != g.N || dst.Cols != m.classes) {
		return nil, fmt.Errorf("cuq: %s: ForwardTo: destination %s for %d nodes and %d classes", m.name, dst.Shape(), g.N, m.classes)
	}
	m.follow()
	out, err := m.fam.output(g, dst)
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	return out, nil
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
