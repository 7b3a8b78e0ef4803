package cuq

import (
	"context"
	"fmt"
)

// Schedule is how Fit trains a model: the optimiser's learning rates and
// decays, the loss's entropy regulariser, and the epochs. Every preset
// carries the reference implementation's schedule for its kind of model,
// which Model.Schedule returns; Fit uses it unless it is given another:
//
//	s := model.Schedule()
//	s.MaxEpochs = 200
//	hist, err := model.Fit(split, s)
//
// Fit runs, for a PostNet model, WarmupEpochs epochs of Adam on the flows
// alone (learning rate LR, decay FlowWeightDecay), then Adam on every
// parameter in two groups (flows with FlowWeightDecay, the others with
// WeightDecay) for at most MaxEpochs epochs, evaluating the validation
// cross entropy every EvalEvery epochs and stopping after Patience
// evaluations without a strict improvement; the best evaluation's
// parameters are restored. The loss of a PostNet model is the Bayesian
// loss minus EntropyReg·H(Dir(α)). A Schedule is a FitOption.
type Schedule struct {
	LR              float64 // learning rate of all parameters
	WeightDecay     float64 // coupled L2 decay of non-flow parameters
	FlowWeightDecay float64 // decay of flow parameters (0)
	EntropyReg      float64 // coefficient of −H(Dir(α)) in a PostNet's loss
	WarmupEpochs    int     // flow-only epochs before the main training
	MaxEpochs       int     // bound on the main training's epochs
	Patience        int     // evaluations without strict improvement of the validation loss
	EvalEvery       int     // evaluate every this many epochs
}

// PostNetSchedule returns the reference's schedule of the PostNet models
// (GPN, LOP-GPN, CUQ-*): Adam with learning rate 0.01, weight decay 1e-3
// (none on the flows), entropy regulariser 1e-4, 5 warm-up epochs, early
// stopping with patience 50 evaluated every epoch, at most 100,000 epochs.
func PostNetSchedule() Schedule {
	return Schedule{LR: 0.01, WeightDecay: 1e-3, EntropyReg: 1e-4, WarmupEpochs: 5,
		MaxEpochs: 100000, Patience: 50, EvalEvery: 1}
}

// FirstOrderSchedule returns the reference's schedule of the first-order
// baselines (APPNP, GCN): Adam with learning rate 0.01 and weight decay wd
// on every parameter, early stopping with patience 50 evaluated every
// epoch, at most 100,000 epochs.
func FirstOrderSchedule(wd float64) Schedule {
	return Schedule{LR: 0.01, WeightDecay: wd, MaxEpochs: 100000, Patience: 50, EvalEvery: 1}
}

// Check returns an error for a schedule Fit cannot run: a learning rate
// that is not positive, a negative decay, or epochs, patience or
// evaluation interval below 1 (warm-up below 0).
func (s Schedule) Check() error {
	switch {
	case !(s.LR > 0):
		return fmt.Errorf("learning rate %v must be positive", s.LR)
	case s.WeightDecay < 0 || s.FlowWeightDecay < 0:
		return fmt.Errorf("negative weight decay (%v, flows %v)", s.WeightDecay, s.FlowWeightDecay)
	case s.MaxEpochs < 1 || s.Patience < 1 || s.EvalEvery < 1 || s.WarmupEpochs < 0:
		return fmt.Errorf("epochs %d, patience %d, eval every %d, warm-up %d (need positive values)", s.MaxEpochs, s.Patience, s.EvalEvery, s.WarmupEpochs)
	}
	return nil
}

func (s Schedule) applyFit(o *fitOptions) { o.schedule = &s }

// FitOption changes how Fit runs: a Schedule, MaxEpochs, WithContext or
// OnEpoch.
type FitOption interface{ applyFit(*fitOptions) }

type fitOptions struct {
	ctx       context.Context
	onEpoch   func(EpochStats)
	schedule  *Schedule // nil: the model's own
	maxEpochs int       // > 0: replaces the schedule's MaxEpochs
	share     *TrainingCache
}

// resolve returns the schedule Fit runs: o's Schedule, else own, with
// MaxEpochs's cap.
func (o fitOptions) resolve(own Schedule) Schedule {
	s := own
	if o.schedule != nil {
		s = *o.schedule
	}
	if o.maxEpochs > 0 {
		s.MaxEpochs = o.maxEpochs
	}
	return s
}

// forward returns the options that pass o's schedule, cap and training
// cache on to the members of a committee or the base of an energy model.
func (o fitOptions) forward() []FitOption {
	opts := []FitOption{ShareTrainings(o.share)}
	if o.schedule != nil {
		opts = append(opts, *o.schedule)
	}
	if o.maxEpochs > 0 {
		opts = append(opts, MaxEpochs(o.maxEpochs))
	}
	return opts
}

// newFitOptions applies opts to the defaults: the background context, no
// callback, the model's schedule.
func newFitOptions(opts []FitOption) fitOptions {
	o := fitOptions{ctx: context.Background()}
	for _, f := range opts {
		if f != nil {
			f.applyFit(&o)
		}
	}
	return o
}

// fitOptionFunc is a FitOption that is a function.
type fitOptionFunc func(*fitOptions)

func (f fitOptionFunc) applyFit(o *fitOptions) { f(o) }

// MaxEpochs sets the schedule's MaxEpochs to n, whichever schedule Fit
// runs: the shorthand of a Schedule whose only change is the number of
// epochs, as quick runs and tests want. n ≤ 0 changes nothing.
func MaxEpochs(n int) FitOption {
	return fitOptionFunc(func(o *fitOptions) { o.maxEpochs = n })
}

// WithContext lets ctx cancel training; Fit then returns ctx's error.
func WithContext(ctx context.Context) FitOption {
	return fitOptionFunc(func(o *fitOptions) { o.ctx = ctx })
}

// OnEpoch calls fn after every epoch (warm-up epochs included), for
// progress bars and training curves.
func OnEpoch(fn func(EpochStats)) FitOption {
	return fitOptionFunc(func(o *fitOptions) { o.onEpoch = fn })
}
