package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

func TestRunJobSettings(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	ctx := context.Background()
	split, err := d.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	clean := Job{Dataset: "Tiny", Model: GKDE, Split: 1, Init: 1, Settings: []Setting{Classification, GaussianNoise, BernoulliNoise}}
	rec, err := RunJob(ctx, d, clean, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cl := rec.Results["classification"]
	// Without rejection every curve is the test accuracy.
	for k, c := range cl.ARC {
		if !near(c[0], cl.Accuracy) {
			t.Errorf("ARC %s at p=0 is %v, accuracy %v", k, c[0], cl.Accuracy)
		}
	}
	if len(cl.ARC) != 7 { // six measures and α_ŷ
		t.Errorf("GKDE has %d curves, want 7", len(cl.ARC))
	}
	for _, s := range []string{"gaussian", "bernoulli"} {
		r := rec.Results[s]
		// GKDE ignores features: noise does not change its predictions.
		if !near(r.Accuracy, cl.Accuracy) {
			t.Errorf("%s: GKDE accuracy %v, clean %v", s, r.Accuracy, cl.Accuracy)
		}
		// 10% of the test nodes are perturbed.
		if r.NumOOD != len(split.Test)/10 || r.NumID+r.NumOOD != len(split.Test) {
			t.Errorf("%s: %d ID and %d OOD of %d test nodes", s, r.NumID, r.NumOOD, len(split.Test))
		}
	}

	loc := Job{Dataset: "Tiny", Model: CUQPPR, Split: 1, Init: 1, Trained: LeaveOutClasses, Settings: []Setting{LeaveOutClasses}}
	rec, err = RunJob(ctx, d, loc, RunOptions{MaxEpochs: 5})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Results["loc"]
	var ood int
	for _, i := range split.Test {
		if d.Graph.Labels[i] == 3 {
			ood++
		}
	}
	if *r.OODAccuracy != 0 || r.NumOOD != ood || r.NumID+r.NumOOD != len(split.Test) || r.Accuracy != *r.IDAccuracy {
		t.Errorf("LOC result %+v (%d OOD test nodes)", r, ood)
	}
	if len(r.AUROC) != 6 || rec.Epochs != 5+5 { // warm-up + capped training
		t.Errorf("LOC: %d AUROCs, %d epochs", len(r.AUROC), rec.Epochs)
	}

	for _, c := range []struct {
		job  Job
		want string
	}{
		{Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1, Settings: []Setting{Classification, LeaveOutClasses}}, "cannot share a model"},
		{Job{Dataset: "Tiny", Model: GPN, Split: 0, Init: 1, Settings: []Setting{Classification}}, "numbered from 1"},
		{Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1}, "no settings"},
		{Job{Dataset: "Other", Model: GPN, Split: 1, Init: 1, Settings: []Setting{Classification}}, "given dataset Tiny"},
	} {
		if _, err := RunJob(ctx, d, c.job, RunOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RunJob(%v): %v, want %q", c.job, err, c.want)
		}
	}
}

// TestRunJobCoraML evaluates GKDE, which needs no training, on CoraML and
// compares with the paper's numbers (its splits differ from ours, so only
// roughly).
func TestRunJobCoraML(t *testing.T) {
	d, err := LoadDataset("cora_ml", testenv.RequireDatasets(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "CoraML" || d.LeftOut != 3 || d.Official != nil {
		t.Fatalf("dataset %s, %d left out", d.Name, d.LeftOut)
	}
	ctx := context.Background()
	rec, err := RunJob(ctx, d, Job{Dataset: "CoraML", Model: GKDE, Split: 1, Init: 1, Settings: []Setting{Classification}}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Paper: 71.73%.
	if acc := rec.Results["classification"].Accuracy; acc < 0.66 || acc > 0.78 {
		t.Errorf("GKDE accuracy on CoraML %.4f, paper 0.7173", acc)
	}
	rec, err = RunJob(ctx, d, Job{Dataset: "CoraML", Model: GKDE, Split: 1, Init: 1, Trained: LeaveOutClasses, Settings: []Setting{LeaveOutClasses}}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Paper: ID accuracy 83.01%, AUROC of EU_PC 74.00%.
	r := rec.Results["loc"]
	if *r.IDAccuracy < 0.77 || *r.IDAccuracy > 0.89 || r.AUROC["EU_PC"] < 0.68 || r.AUROC["EU_PC"] > 0.80 {
		t.Errorf("GKDE leave-out classes on CoraML: ID accuracy %.4f, EU_PC AUROC %.4f; paper 0.8301, 0.7400", *r.IDAccuracy, r.AUROC["EU_PC"])
	}
}
