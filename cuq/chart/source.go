package chart

import (
	"fmt"
	"reflect"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// The charts of a model's prediction take the small interfaces below, each
// what one kind of chart needs, rather than a model package's types.
// *cuq.Prediction satisfies all of them, so any of its values can be
// passed; other code can fill them from its own results.

// Scored is a prediction's uncertainty per node and whether it classifies
// each node right: what the accuracy-rejection, risk-coverage and
// decomposition charts and the AUROC tables draw.
type Scored interface {
	// Name names the model.
	Name() string
	// Available lists the uncertainty measures the prediction has.
	Available() []uq.Measure
	// Uncertainty returns measure m of every node (larger is more
	// uncertain), or an error naming the measures there are.
	Uncertainty(m uq.Measure) ([]float64, error)
	// SplitByCorrectness splits nodes into those classified right and
	// those classified wrong, or returns an error for a node without a
	// prediction or a label.
	SplitByCorrectness(nodes []int) (right, wrong []int, err error)
}

// Calibrated is a prediction whose class probabilities can be checked for
// calibration: what the reliability diagram draws.
type Calibrated interface {
	Name() string
	// Calibration returns the calibration of the nodes' probabilities
	// against their labels (see eval.CalibrationOf).
	Calibration(nodes []int, opts eval.CalibrationOptions) (eval.Calibration, error)
}

// Conformable is a prediction whose class probabilities give conformal
// prediction sets: what the set-size chart draws.
type Conformable interface {
	Name() string
	// Conformal runs split conformal prediction on the nodes (see
	// conformal.Evaluate), one result per score.
	Conformal(nodes []int, opts conformal.Options) ([]conformal.Result, error)
}

// GraphScored is a Scored prediction with its graph and predicted classes:
// what the neighbourhood view draws.
type GraphScored interface {
	Scored
	// Predicted returns the predicted class of every node.
	Predicted() []int
	// OnGraph returns the graph the prediction was made on.
	OnGraph() *graph.Graph
}

// Prediction is everything the comparison charts and tables draw of a
// prediction (see Run).
type Prediction interface {
	Scored
	Calibrated
	Conformable
}

// TrainingRecord is the record of a training run that HistoryOf draws;
// *cuq.History satisfies it.
type TrainingRecord interface {
	// TrainingCurves returns, per epoch in training order (warm-up
	// first), the training loss and the validation cross entropy and
	// accuracy, NaN where the epoch was not evaluated.
	TrainingCurves() (loss, valCE, valAcc []float64)
	// Milestones returns the number of warm-up epochs, the 1-based
	// position among all epochs of the restored epoch (0: none) and why
	// training ended.
	Milestones() (warmup, best int, stopped string)
}

// valuesAt returns measure m of p at nodes, or an error naming a node
// outside the prediction.
func valuesAt(p Scored, m uq.Measure, nodes []int) ([]float64, error) {
	v, err := p.Uncertainty(m)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(nodes))
	for k, i := range nodes {
		if i < 0 || i >= len(v) {
			return nil, fmt.Errorf("node %d out of range [0, %d)", i, len(v))
		}
		out[k] = v[i]
	}
	return out, nil
}

// correctness reports for each of nodes whether p classifies it right,
// after checking the nodes against measure m's values.
func correctness(p Scored, m uq.Measure, nodes []int) ([]bool, error) {
	if _, err := valuesAt(p, m, nodes); err != nil {
		return nil, err
	}
	right, _, err := p.SplitByCorrectness(nodes)
	if err != nil {
		return nil, err
	}
	isRight := make(map[int]bool, len(right))
	for _, i := range right {
		isRight[i] = true
	}
	out := make([]bool, len(nodes))
	for k, i := range nodes {
		out[k] = isRight[i]
	}
	return out, nil
}

// measuresOf returns ms, or when it is nil every measure p has but LC.
func measuresOf(p Scored, ms []uq.Measure) []uq.Measure {
	if ms != nil {
		return ms
	}
	var out []uq.Measure
	for _, m := range p.Available() {
		if m != uq.LC {
			out = append(out, m)
		}
	}
	return out
}

// isNil reports whether p is nil or a nil pointer in an interface (a nil
// *cuq.Prediction, say), whose methods would fail.
func isNil(p any) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
