package eval

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestCurveArea(t *testing.T) {
	// Trapezoids of width ½: (0.6 + 0.8)/4 + (0.8 + 1)/4.
	got, err := Curve{P: []float64{0, 0.5, 1}, Acc: []float64{0.6, 0.8, 1}}.Area()
	if err != nil || !near(got, 0.8, 1e-15) {
		t.Errorf("area %v, %v; want 0.8", got, err)
	}
	// A constant accuracy a over [0, 1] has area a: so has the ARC of a
	// prediction that is always right.
	c, err := ARC([]float64{0.3, 0.1, 0.2}, []bool{true, true, true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Area(); err != nil || !near(got, 1, 1e-12) {
		t.Errorf("area of an all-right ARC %v, %v; want 1", got, err)
	}
	// The example of ARC: wrong predictions first. Without the point at
	// P = 1 the area covers [0, 0.99].
	c, _ = ARC([]float64{0.9, 0.1, 0.7, 0.2, 0.3}, []bool{false, true, false, true, true})
	full, _ := c.Area()
	head, _ := Curve{P: c.P[:100], Acc: c.Acc[:100]}.Area()
	if !near(full-head, 0.01, 1e-12) {
		t.Errorf("the last segment adds %v, want 0.01·(1 + 1)/2", full-head)
	}
	for _, tc := range []struct {
		c    Curve
		want string
	}{
		{Curve{P: []float64{0, 1}, Acc: []float64{1}}, "2 rejection fractions but 1 accuracies"},
		{Curve{P: []float64{0}, Acc: []float64{1}}, "need at least 2 points, got 1"},
		{Curve{P: []float64{0, 0.5, 0.5}, Acc: []float64{1, 1, 1}}, "rejection fractions not increasing at point 2 (0.5 after 0.5)"},
		{Curve{P: []float64{0, math.NaN()}, Acc: []float64{1, 1}}, "rejection fractions not increasing at point 1 (NaN after 0)"},
		{Curve{P: []float64{0, 1}, Acc: []float64{1, math.NaN()}}, "accuracy at point 1 (P = 1) is NaN"},
	} {
		if _, err := tc.c.Area(); err == nil || !strings.Contains(err.Error(), "eval: Curve.Area: "+tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.c, err, tc.want)
		}
	}
}

func TestRiskCoverageByHand(t *testing.T) {
	// Kept from the least uncertain: 0.1 ✓, 0.2 ✓, 0.3 ✓, 0.7 ✗, 0.9 ✗.
	rc, err := RiskCoverageOf([]float64{0.9, 0.1, 0.7, 0.2, 0.3}, []bool{false, true, false, true, true})
	if err != nil {
		t.Fatal(err)
	}
	wantRisk := []float64{0, 0, 0, 0.25, 0.4}
	for k := range wantRisk {
		if rc.Coverage[k] != float64(k+1)/5 || !near(rc.Risk[k], wantRisk[k], 1e-15) {
			t.Errorf("point %d: coverage %v, risk %v; want %v, %v", k, rc.Coverage[k], rc.Risk[k], float64(k+1)/5, wantRisk[k])
		}
	}
	if got := rc.AURC(); !near(got, 0.13, 1e-15) {
		t.Errorf("AURC %v, want (0.25 + 0.4)/5 = 0.13", got)
	}
	// Ties: 0 ✓, then three nodes at 1 with one wrong, which adds ⅓ error
	// per node kept: risks 0, ⅓/2, ⅔/3, 1/4.
	rc, _ = RiskCoverageOf([]float64{1, 1, 0, 1}, []bool{true, false, true, true})
	if want := (0 + 1.0/6 + 2.0/9 + 0.25) / 4; !near(rc.AURC(), want, 1e-15) {
		t.Errorf("tied AURC %v, want %v", rc.AURC(), want)
	}
	// NaN counts as uncertainty 0, the least uncertain here.
	rc, _ = RiskCoverageOf([]float64{math.NaN(), 0.5}, []bool{false, true})
	if rc.Risk[0] != 1 || rc.Risk[1] != 0.5 {
		t.Errorf("NaN uncertainty: risks %v, want [1 0.5]", rc.Risk)
	}
	if !math.IsNaN((RiskCoverage{}).AURC()) {
		t.Error("AURC of an empty curve is not NaN")
	}
	if _, err := RiskCoverageOf([]float64{1}, nil); err == nil || !strings.Contains(err.Error(), "1 uncertainties but 0 correctness flags") {
		t.Errorf("lengths: error %v", err)
	}
	if _, err := RiskCoverageOf(nil, nil); err == nil || !strings.Contains(err.Error(), "eval: RiskCoverageOf: no nodes") {
		t.Errorf("no nodes: error %v", err)
	}
}

// TestRiskCoverageTiesAreExpectations checks that the risk-coverage curve
// of tied uncertainties is the mean of the curves of every order of the
// tied nodes, computed without any tie rule.
func TestRiskCoverageTiesAreExpectations(t *testing.T) {
	u := []float64{0.2, 0.5, 0.5, 0.1, 0.5, 0.2}
	correct := []bool{false, true, false, true, false, true}
	rc, err := RiskCoverageOf(u, correct)
	if err != nil {
		t.Fatal(err)
	}
	// Groups by uncertainty: 0.1 {3}, 0.2 {0, 5}, 0.5 {1, 2, 4}.
	groups := [][]int{{3}, {0, 5}, {1, 2, 4}}
	mean := make([]float64, len(u))
	var orders int
	var visit func(g int, prefix []int)
	visit = func(g int, prefix []int) {
		if g == len(groups) {
			orders++
			wrong := 0.0
			for k, i := range prefix {
				if !correct[i] {
					wrong++
				}
				mean[k] += wrong / float64(k+1)
			}
			return
		}
		for _, p := range permutations(groups[g]) {
			visit(g+1, append(append([]int(nil), prefix...), p...))
		}
	}
	visit(0, nil)
	for k := range mean {
		if want := mean[k] / float64(orders); !near(rc.Risk[k], want, 1e-15) {
			t.Errorf("risk at %d nodes %v, mean over the %d orders %v", k+1, rc.Risk[k], orders, want)
		}
	}
}

// permutations returns every order of s.
func permutations(s []int) [][]int {
	if len(s) <= 1 {
		return [][]int{append([]int(nil), s...)}
	}
	var out [][]int
	for i := range s {
		rest := append(append([]int(nil), s[:i]...), s[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int{s[i]}, p...))
		}
	}
	return out
}

// TestNaNUncertaintyOrder checks the package's one rule for NaN
// uncertainties on both paths. With u = (0.9, NaN, −∞, 0.2) and the
// nodes wrong, right, wrong, right, by hand: NaN ranks below −∞, so the
// risk-coverage curve keeps NaN (right), −∞ (wrong), 0.2 (right), 0.9
// (wrong) in this order, risks 0, ½, ⅓, ½; and the ARC rejects them in
// the reverse order, accuracies ½, ⅔, ½, 1 at rejected fractions 0, ¼, ½,
// ¾ (1 − Risk_k at P = 1 − k/n). Before the rule, RiskCoverageOf read
// NaN as 0 and kept it third, risks 1, ½, ⅓, ½.
func TestNaNUncertaintyOrder(t *testing.T) {
	u := []float64{0.9, math.NaN(), math.Inf(-1), 0.2}
	correct := []bool{false, true, false, true}
	rc, err := RiskCoverageOf(u, correct)
	if err != nil {
		t.Fatal(err)
	}
	wantRisk := []float64{0, 0.5, 1.0 / 3, 0.5}
	if !slices.EqualFunc(rc.Risk, wantRisk, func(a, b float64) bool { return math.Abs(a-b) <= 1e-15 }) {
		t.Errorf("risk-coverage: risks %v, want %v", rc.Risk, wantRisk)
	}
	c, err := ARC(u, correct)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]float64{0: 0.5, 25: 2.0 / 3, 50: 0.5, 75: 1, 100: 1} {
		if math.Abs(c.Acc[i]-want) > 1e-15 {
			t.Errorf("ARC: accuracy %v at P = %v, want %v", c.Acc[i], c.P[i], want)
		}
	}
	// Several NaNs tie with each other: two NaNs, one right and one wrong,
	// share their expected risk ½ at k = 1 and 2.
	rc, err = RiskCoverageOf([]float64{math.NaN(), 1, math.NaN()}, []bool{true, true, false})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 0.5, 1.0 / 3}; !slices.EqualFunc(rc.Risk, want, func(a, b float64) bool { return math.Abs(a-b) <= 1e-15 }) {
		t.Errorf("tied NaNs: risks %v, want %v", rc.Risk, want)
	}
}
