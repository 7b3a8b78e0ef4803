package cuq_test

import (
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
)

// With a learning rate far too large, APPNP's validation cross entropy is
// +Inf from the first epoch on (some validation node gets probability 0
// for its class) while its training loss stays finite. Fit used to return
// the initial parameters without an error; it must fail, naming the epoch
// and the loss, and leave the model untrained.
func TestFitNeverFiniteValidationLoss(t *testing.T) {
	g, split := smallGraph(t)
	m := must(cuq.APPNP().Done(g))
	s := m.Schedule()
	s.LR = 1000
	hist, err := m.Fit(split, s)
	// Patience 50: training stops after epoch 50, the last evaluated.
	want := "cuq: APPNP: training diverged: the validation loss was never finite; at epoch 50, the last evaluated, it was +Inf (training loss "
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if hist == nil || len(hist.Epochs) != 50 || hist.BestEpoch != 0 {
		t.Errorf("history %+v, want 50 epochs and no best one", hist)
	}
	if _, err := m.Predict(nil); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("Predict after a diverged Fit: %v, want a not-trained error", err)
	}

	// A run too short for an evaluation never has a validation loss either.
	short := must(cuq.GPN().Done(g))
	s = short.Schedule()
	s.MaxEpochs, s.EvalEvery = 3, 10
	if _, err := short.Fit(split, s); err == nil || !strings.Contains(err.Error(), "cuq: GPN: no validation loss in 3 epochs (evaluated every 10 epochs)") {
		t.Errorf("3 epochs evaluated every 10: %v", err)
	}
}

// History.Validation: 2 of 4 validation nodes right, the largest class 3
// of 4; no chance for a run that did not end by early stopping.
func TestHistoryValidation(t *testing.T) {
	pred := &cuq.Prediction{Class: []int{0, 1, 1, 1, 2}}
	labels, val := []int{0, 1, 0, 0, 0}, []int{0, 1, 2, 3}
	for _, c := range []struct {
		reason cuq.StopReason
		chance float64
	}{{cuq.EarlyStopping, 0.75}, {cuq.MaxEpochsReached, 0}, {cuq.NothingToTrain, 0}} {
		acc, chance, err := (&cuq.History{Reason: c.reason}).Validation(pred, labels, val)
		if err != nil || acc != 0.5 || chance != c.chance {
			t.Errorf("%v: accuracy %v, chance %v, %v; want 0.5, %v", c.reason, acc, chance, err, c.chance)
		}
	}
	if _, _, err := (&cuq.History{Reason: cuq.EarlyStopping}).Validation(pred, labels, []int{9}); err == nil {
		t.Error("a node out of range: no error")
	}
}
