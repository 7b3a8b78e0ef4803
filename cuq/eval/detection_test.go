package eval

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDetectionByHand(t *testing.T) {
	// Negatives 0.1, 0.4, 0.4; positives 0.4, 0.8. From the top: 0.8 (one
	// positive: precision 1), then the tied 0.4 (one positive, two
	// negatives: precision 2/4), so AP = (1 + ½)/2. Reversed, the
	// negatives by −score: −0.1 (precision 1), the tied −0.4 (two
	// negatives, one positive: precision 3/4), so AP = (1 + 2·¾)/3. The
	// ROC curve runs (0, 0) – (0, ½) – (⅔, 1) – (1, 1): TPR 0.95 lies
	// nine tenths along the tied segment, at FPR 0.9·⅔ = 0.6.
	d, err := DetectionOf([]float64{0.1, 0.4, 0.4}, []float64{0.4, 0.8})
	if err != nil {
		t.Fatal(err)
	}
	want := Detection{AUROC: 5.0 / 6, AUPRPositive: 0.75, AUPRNegative: 2.5 / 3, FPR95: 0.6}
	if !near(d.AUROC, want.AUROC, 1e-15) || !near(d.AUPRPositive, want.AUPRPositive, 1e-15) ||
		!near(d.AUPRNegative, want.AUPRNegative, 1e-15) || !near(d.FPR95, want.FPR95, 1e-15) {
		t.Errorf("DetectionOf = %+v, want %+v", d, want)
	}
}

func TestFPRAtTPRWithoutTies(t *testing.T) {
	// 20 positives scored 101..120 and 10 negatives, no ties: TPR 0.95 is
	// reached with the 19th positive (score 102), below the negatives at
	// 110.5 and 102.5 and above the one at 101.5.
	var pos []float64
	for s := 101.0; s <= 120; s++ {
		pos = append(pos, s)
	}
	neg := []float64{110.5, 102.5, 101.5, 50, 40, 30, 20, 10, 5, 1}
	for _, tc := range []struct{ level, want float64 }{
		{0.95, 0.2},
		{0.9, 0.1},  // the 18th positive, 103
		{0.91, 0.2}, // the ⌈18.2⌉ = 19th positive
		{1, 0.3},    // the last positive, 101
		{0.05, 0},   // the first positive, 120
	} {
		got, err := FPRAtTPR(neg, pos, tc.level)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, tc.want, 1e-15) {
			t.Errorf("FPR at TPR %v = %v, want %v", tc.level, got, tc.want)
		}
	}
}

func TestDetectionExtremes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		neg, pos []float64
		want     Detection
	}{
		// Every score equal: chance everywhere.
		{"all tied", []float64{1, 1, 1}, []float64{1}, Detection{AUROC: 0.5, AUPRPositive: 0.25, AUPRNegative: 0.75, FPR95: 0.95}},
		{"separated", []float64{0, 1}, []float64{2, 3}, Detection{AUROC: 1, AUPRPositive: 1, AUPRNegative: 1, FPR95: 0}},
		// Positives all below: every negative is flagged first.
		{"inverted", []float64{2, 3}, []float64{0, 1}, Detection{AUROC: 0, AUPRPositive: (1.0/3 + 2.0/4) / 2, AUPRNegative: (1.0/3 + 2.0/4) / 2, FPR95: 1}},
		// NaN scores count as 0, ±Inf as ±MaxFloat64: here NaN ties with 0.
		{"NaN and Inf", []float64{0, math.Inf(-1)}, []float64{math.NaN(), math.Inf(1)}, Detection{AUROC: 0.875, AUPRPositive: (1 + 2.0/3) / 2, AUPRNegative: (1 + 2.0/3) / 2, FPR95: 0.45}},
	} {
		d, err := DetectionOf(tc.neg, tc.pos)
		if err != nil {
			t.Fatal(err)
		}
		if !near(d.AUROC, tc.want.AUROC, 1e-15) || !near(d.AUPRPositive, tc.want.AUPRPositive, 1e-15) ||
			!near(d.AUPRNegative, tc.want.AUPRNegative, 1e-15) || !near(d.FPR95, tc.want.FPR95, 1e-15) {
			t.Errorf("%s: %+v, want %+v", tc.name, d, tc.want)
		}
	}
}

func TestDetectionDoesNotDependOnOrder(t *testing.T) {
	neg := []float64{0.3, 0.1, 0.3, 0.7, 0.2, 0.3}
	pos := []float64{0.3, 0.9, 0.7, 0.3}
	a, err := DetectionOf(neg, pos)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(neg)
	slices.Sort(pos)
	b, _ := DetectionOf(neg, pos)
	if a != b {
		t.Errorf("reordered input: %+v, then %+v", a, b)
	}
}

func TestDetectionErrors(t *testing.T) {
	one := []float64{1}
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"DetectionOf no negatives", func() error { _, err := DetectionOf(nil, one); return err }, "eval: DetectionOf: need negatives and positives, got 0 negatives and 1 positives"},
		{"AUPR no positives", func() error { _, err := AUPR(one, nil); return err }, "eval: AUPR: need negatives and positives, got 1 negatives and 0 positives"},
		{"FPRAtTPR empty", func() error { _, err := FPRAtTPR(nil, nil, 0.95); return err }, "eval: FPRAtTPR: need negatives and positives"},
		{"FPRAtTPR level 0", func() error { _, err := FPRAtTPR(one, one, 0); return err }, "true-positive rate 0 not in (0, 1]"},
		{"FPRAtTPR level NaN", func() error { _, err := FPRAtTPR(one, one, math.NaN()); return err }, "true-positive rate NaN not in (0, 1]"},
		{"FPRAtTPR level above 1", func() error { _, err := FPRAtTPR(one, one, 1.5); return err }, "true-positive rate 1.5 not in (0, 1]"},
	} {
		if err := tc.f(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
