package cuq

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The methods below give read access to a prediction's and a history's
// fields through methods, so that packages that draw or tabulate them
// (cuq/chart) can take small interfaces instead of these types.

// Name returns the name of the model that made the prediction (p.Model).
func (p *Prediction) Name() string { return p.Model }

// Predicted returns the predicted class of every node (p.Class).
func (p *Prediction) Predicted() []int { return p.Class }

// ClassProbabilities returns the mean class probabilities p̄, one row per
// node (p.Prob).
func (p *Prediction) ClassProbabilities() *tensor.Dense { return p.Prob }

// OnGraph returns the graph the prediction was made on (p.Graph), with its
// adjacency and labels; nil when it was not kept.
func (p *Prediction) OnGraph() *graph.Graph { return p.Graph }

// TrainingCurves returns, per epoch in training order (warm-up epochs
// first), the training loss and the validation cross entropy and
// accuracy, both NaN where the epoch was not evaluated.
func (h *History) TrainingCurves() (loss, valCE, valAcc []float64) {
	for _, e := range h.Epochs {
		ce, acc := e.ValCE, e.ValAcc
		if math.IsNaN(ce) {
			acc = math.NaN()
		}
		loss, valCE, valAcc = append(loss, e.Loss), append(valCE, ce), append(valAcc, acc)
	}
	return loss, valCE, valAcc
}

// Milestones returns the number of warm-up epochs, the position (1-based,
// among all epochs, warm-up first) of the epoch whose parameters were
// restored, 0 if none, and why training ended.
func (h *History) Milestones() (warmup, best int, stopped string) {
	for k, e := range h.Epochs {
		if e.Phase == WarmupPhase {
			warmup = k + 1
		} else if e.Epoch == h.BestEpoch {
			best = k + 1
		}
	}
	return warmup, best, h.Stopped
}
