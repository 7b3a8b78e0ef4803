package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// runOf returns a run whose validation loss falls to 1 by epoch 30, then
// stays (healthy) or climbs by 0.05 per epoch (collapsing).
func runOf(side string, r int, valAcc float64, climbs bool) *Run {
	ce := make([]*float64, 120)
	for e := range ce {
		v := 2 - float64(min(e, 30))/30
		if climbs && e > 30 {
			v += 0.05 * float64(e-30)
		}
		ce[e] = &v
	}
	return &Run{Setting: "classification", Side: side, Run: r, ValAccuracy: valAcc, TestAccuracy: valAcc, Chance: 0.25, ValCE: ce, Epochs: len(ce)}
}

// TestSummary checks the summary of hand-made runs: 2 of 10 collapsed on
// cuqgnn's side (Wilson 95%: 5.7–51.0%; accuracies 8 × 0.9 and 2 × 0.4,
// mean 0.8, standard error √(0.4/9)/√10 = 0.067), 0 of 10 with torch's
// masks (0–27.8%); Fisher's test of [[2 8] [0 10]]: the tables a = 0, 1,
// 2 have probabilities 45, 100, 45 over C(20, 2) = 190, so p = 90/190;
// the replica on cuqgnn's masks repeats one of the two collapses; the
// validation loss tells the collapses apart from epoch 40 on (AUROC 1)
// but not at epoch 20, where every run's loss is the same (0.5).
func TestSummary(t *testing.T) {
	var runs []*Run
	for r := 1; r <= 10; r++ {
		bad := r <= 2
		acc := 0.9
		if bad {
			acc = 0.4
		}
		runs = append(runs, runOf("cuqgnn", r, acc, bad), runOf("torch", r, 0.9, false))
	}
	runs = append(runs, runOf("masks", 1, 0.4, true), runOf("masks", 2, 0.9, false), runOf("masks", 3, 0.9, false))
	var b bytes.Buffer
	if err := summarise(&b, runs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| classification | cuqgnn | 10 | 2 | 20.0% (5.7–51.0) | 80.0 ± 6.7 | 90.0 ± 0.0 | 40.0 ± 0.0 | 25.0 |",
		"| classification | torch | 10 | 0 | 0.0% (0.0–27.8) |",
		"classification, cuqgnn: lowest validation accuracies 40.0 40.0 90.0 90.0 90.0 90.0 90.0 90.0\n",
		"cuqgnn 2 of 10 collapsed, the replica with torch's masks 0 of 10; Fisher's exact test p = 0.474.",
		"the same verdict in 2 of 3 runs and the same best epoch in 3; of cuqgnn's 2 collapses it repeats 1.",
		"| classification | cuqgnn | 2 / 10 | 0.50 | 0.50 | 1.00 | 1.00 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-settings dice -out x", `unknown setting "dice"`},
		{"-sides jax -out x", `unknown side "jax"`},
		{"-settings classification", "-out is required"},
		{"-runs 0 -out x", "want positive numbers"},
		{"-list 3,x -out x", `run "x": want a positive number`},
	} {
		_, err := parse(strings.Fields(c.args), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.args, err, c.want)
		}
	}
}
