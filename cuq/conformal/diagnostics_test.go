package conformal

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// diagResult is a hand-made result at α = 0.2 of six evaluation nodes of
// three classes, labels diagLabels:
//
//	node     0  1  2  3  4  5
//	label    0  0  1  1  2  2
//	size     1  0  2  3  1  2
//	covered  ✓  ✗  ✓  ✓  ✗  ✗
var (
	diagResult = Result{Alpha: 0.2, Classes: 3, Nodes: []int{0, 1, 2, 3, 4, 5},
		Sizes: []int{1, 0, 2, 3, 1, 2}, Covered: []bool{true, false, true, true, false, false}}
	diagLabels = []int{0, 0, 1, 1, 2, 2}
)

func near(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 1e-12 }

// TestClassCoverageByHand: the classes are covered ½, 1 and 0, so CovGap
// = (0.3 + 0.2 + 0.8)/3; a fourth class without nodes is NaN and left out
// of the mean.
func TestClassCoverageByHand(t *testing.T) {
	cov, gap, err := ClassCoverage(diagResult, diagLabels)
	if err != nil || !slices.EqualFunc(cov, []float64{0.5, 1, 0}, near) || !near(gap, 1.3/3) {
		t.Errorf("coverage %v, CovGap %v, %v; want [0.5 1 0], 0.4333", cov, gap, err)
	}
	four := diagResult
	four.Classes = 4
	cov, gap, err = ClassCoverage(four, diagLabels)
	if err != nil || !slices.EqualFunc(cov, []float64{0.5, 1, 0, math.NaN()}, near) || !near(gap, 1.3/3) {
		t.Errorf("four classes: coverage %v, CovGap %v, %v", cov, gap, err)
	}
	if _, _, err := ClassCoverage(diagResult, []int{0, 0, 1, 1, 2, -1}); err == nil || !strings.Contains(err.Error(), "node 5 is unlabelled") {
		t.Errorf("unlabelled node: %v", err)
	}
}

// TestSizeStratifiedByHand: the default strata 0–1, 2 and 3 hold nodes
// {0, 1, 4} (coverage ⅓), {2, 5} (½) and {3} (1), so SSCV = |⅓ − 0.8|;
// the strata 0 and 1–3 hold {1} (0) and the rest (⅗), SSCV 0.8.
func TestSizeStratifiedByHand(t *testing.T) {
	strata, sscv, err := SizeStratified(diagResult, nil)
	want := []Stratum{{0, 1, 3, 1.0 / 3}, {2, 2, 2, 0.5}, {3, 3, 1, 1}}
	same := func(a, b Stratum) bool {
		return a.Lo == b.Lo && a.Hi == b.Hi && a.Count == b.Count && near(a.Coverage, b.Coverage)
	}
	if err != nil || !slices.EqualFunc(strata, want, same) || !near(sscv, 0.8-1.0/3) {
		t.Errorf("default strata %v, SSCV %v, %v; want %v, 0.4667", strata, sscv, err, want)
	}
	strata, sscv, err = SizeStratified(diagResult, []int{0})
	want = []Stratum{{0, 0, 1, 0}, {1, 3, 5, 0.6}}
	if err != nil || !slices.EqualFunc(strata, want, same) || !near(sscv, 0.8) {
		t.Errorf("strata 0, 1–3: %v, SSCV %v, %v; want %v, 0.8", strata, sscv, err, want)
	}
	// An empty stratum is NaN and does not count.
	strata, sscv, err = SizeStratified(Result{Alpha: 0.2, Classes: 3, Sizes: []int{2}, Covered: []bool{true}}, nil)
	if err != nil || strata[0].Count != 0 || !math.IsNaN(strata[0].Coverage) || !near(sscv, 0.2) {
		t.Errorf("one node: %v, %v, %v", strata, sscv, err)
	}
	for _, upper := range [][]int{{2, 1}, {3}, {-1}} {
		if _, _, err := SizeStratified(diagResult, upper); err == nil || !strings.Contains(err.Error(), "not increasing sizes below 3") {
			t.Errorf("strata %v: %v", upper, err)
		}
	}
}

// TestWorstSlabByHand puts the six nodes on a line, x_i = i, where every
// direction gives the same slabs: the windows of at least three nodes in
// order ✓ ✗ ✓ ✓ ✗ ✗, the worst (✓ ✗ ✗, nodes 3 – 5) covering ⅓. When nodes
// 2 and 3 share x = 2, a slab cannot hold 3 without 2, and the worst is
// nodes 1 – 5, ⅖. With δ = 1 the only slab is all nodes, ½.
func TestWorstSlabByHand(t *testing.T) {
	line := &tensor.Dense{Rows: 6, Cols: 1, Data: []float64{0, 1, 2, 3, 4, 5}}
	for _, tc := range []struct {
		x     []float64
		delta float64
		want  float64
	}{
		{[]float64{0, 1, 2, 3, 4, 5}, 0.5, 1.0 / 3},
		{[]float64{0, 1, 2, 2, 4, 5}, 0.5, 0.4},
		{[]float64{0, 1, 2, 3, 4, 5}, 1, 0.5},
	} {
		line.Data = tc.x
		got, err := WorstSlabCoverage(diagResult, line, SlabOptions{Fraction: tc.delta, Directions: 3})
		if err != nil || !near(got, tc.want) {
			t.Errorf("x %v, δ %v: WSC %v, %v; want %v", tc.x, tc.delta, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		opts SlabOptions
		x    tensor.Matrix
		want string
	}{
		{SlabOptions{Fraction: 1.5}, line, "need 0 < δ ≤ 1"},
		{SlabOptions{Directions: -1}, line, "need 0 < δ ≤ 1 and directions ≥ 0"},
		{SlabOptions{}, &tensor.Dense{Rows: 3, Cols: 1, Data: []float64{0, 1, 2}}, "node 3 has no feature row of 3"},
	} {
		if _, err := WorstSlabCoverage(diagResult, tc.x, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// TestWorstSlabBruteForce compares WorstSlabCoverage with every slab
// [a, b] between two projections, ties and all, along the same random
// directions, for random features of 25 nodes in three dimensions (some
// rows repeated, so projections tie).
func TestWorstSlabBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 71))
	const m, d, directions = 25, 3, 5
	r := Result{Alpha: 0.1, Classes: 2, Sizes: make([]int, m)}
	x := &tensor.Dense{Rows: m, Cols: d, Data: make([]float64, m*d)}
	for i := range m {
		r.Nodes = append(r.Nodes, i)
		r.Covered = append(r.Covered, rng.IntN(3) > 0)
		for f := range d {
			x.Data[i*d+f] = float64(rng.IntN(3))
		}
	}
	for _, delta := range []float64{0.1, 0.3, 0.5} {
		got, err := WorstSlabCoverage(r, x, SlabOptions{Fraction: delta, Directions: directions, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		dirs := rand.New(rand.NewPCG(9, slabStream))
		want := math.Inf(1)
		for range directions {
			v := make([]float64, d)
			for f := range v {
				v[f] = dirs.NormFloat64()
			}
			z := make([]float64, m)
			for i := range m {
				for f := range d {
					z[i] += x.Data[i*d+f] * v[f]
				}
			}
			for _, a := range z {
				for _, b := range z {
					var in, covered float64
					for i := range m {
						if z[i] >= a && z[i] <= b {
							in++
							if r.Covered[i] {
								covered++
							}
						}
					}
					if in >= delta*m-1e-9 {
						want = min(want, covered/in)
					}
				}
			}
		}
		if !near(got, want) {
			t.Errorf("δ %v: WSC %v, brute force %v", delta, got, want)
		}
	}
}

// TestCoverageByGroupByHand: nodes 0 and 1 are covered ½ with mean size ½,
// node 3 alone 1 with size 3, an empty group NaN.
func TestCoverageByGroupByHand(t *testing.T) {
	got, err := CoverageByGroup(diagResult, []eval.Group{{Lo: 0, Hi: 1, Nodes: []int{1, 0}}, {Lo: 1, Hi: 2, Nodes: []int{3}}, {Lo: 2, Hi: 3}})
	want := []CoverageGroup{{0, 1, 2, 0.5, 0.5}, {1, 2, 1, 1, 3}, {2, 3, 0, math.NaN(), math.NaN()}}
	same := func(a, b CoverageGroup) bool {
		return a.Lo == b.Lo && a.Hi == b.Hi && a.Count == b.Count && near(a.Coverage, b.Coverage) && near(a.MeanSize, b.MeanSize)
	}
	if err != nil || !slices.EqualFunc(got, want, same) {
		t.Errorf("groups %+v, %v; want %+v", got, err, want)
	}
	if _, err := CoverageByGroup(diagResult, []eval.Group{{Nodes: []int{9}}}); err == nil || !strings.Contains(err.Error(), "node 9 of group 0 is not an evaluation node") {
		t.Errorf("foreign node: %v", err)
	}
}

// TestDiagnose checks that Diagnose assembles the diagnostics of a real
// hand-made result on the path 0 – 1 – … – 5 with the labels 0, 0, 1, 1,
// 2, 2: the diagnostics of the separate functions, and the coverage by
// degree and homophily by hand.
func TestDiagnose(t *testing.T) {
	adj, err := tensor.FromCOO(6, 6, []int{0, 1, 1, 2, 2, 3, 3, 4, 4, 5}, []int{1, 0, 2, 1, 3, 2, 4, 3, 5, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prob := make([]float64, 18)
	for i := range 6 {
		prob[3*i+i%3] = 1
	}
	d, err := Diagnose(diagResult, prob, diagLabels, adj, DiagnosticOptions{Slab: SlabOptions{Directions: 4}})
	if err != nil {
		t.Fatal(err)
	}
	cov, gap, _ := ClassCoverage(diagResult, diagLabels)
	strata, sscv, _ := SizeStratified(diagResult, nil)
	wsc, _ := WorstSlabCoverage(diagResult, &tensor.Dense{Rows: 6, Cols: 3, Data: prob}, SlabOptions{Directions: 4})
	if !slices.Equal(d.ClassCoverage, cov) || d.CovGap != gap || !slices.Equal(d.Strata, strata) || d.SSCV != sscv || d.WorstSlab != wsc {
		t.Errorf("diagnostics %+v", d)
	}
	// Degree 1: nodes 0 ✓ and 5 ✗; degree 2: nodes 1 – 4, two covered.
	if len(d.ByDegree) != 3 || d.ByDegree[1].Count != 2 || d.ByDegree[1].Coverage != 0.5 || d.ByDegree[2].Count != 4 || d.ByDegree[2].Coverage != 0.5 {
		t.Errorf("by degree %+v", d.ByDegree)
	}
	// Homophily: nodes 0 and 5 have their one neighbour alike (1), nodes
	// 1 – 4 one of two (½): bins (0.4, 0.6] with nodes 1 – 4 (✗ ✓ ✓ ✗)
	// and (0.8, 1] with nodes 0 and 5 (✓ ✗), both covered ½.
	if len(d.ByHomophily) != 5 || d.ByHomophily[2].Count != 4 || d.ByHomophily[2].Coverage != 0.5 ||
		d.ByHomophily[4].Count != 2 || d.ByHomophily[4].Coverage != 0.5 || d.ByHomophily[0].Count+d.ByHomophily[1].Count+d.ByHomophily[3].Count != 0 {
		t.Errorf("by homophily %+v", d.ByHomophily)
	}
	if d, err := Diagnose(diagResult, prob, diagLabels, nil, DiagnosticOptions{}); err != nil || d.ByDegree != nil || d.ByHomophily != nil {
		t.Errorf("without a graph: %+v, %v", d, err)
	}
}

// TestEvaluateDiagnostics checks that Evaluate attaches Diagnose's result
// to every Result when asked, and nothing otherwise.
func TestEvaluateDiagnostics(t *testing.T) {
	prob, labels, adj := categoricalData(t, rand.New(rand.NewPCG(6, 1)), 80, 3)
	all := make([]int, 80)
	for i := range all {
		all[i] = i
	}
	opts := DiagnosticOptions{Slab: SlabOptions{Directions: 20, Seed: 2}, HomophilyBins: 4}
	res, err := Evaluate(prob, 3, labels, adj, all, Options{Scores: []Score{APS{}, DAPS{}}, Seed: 3, Diagnostics: &opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		want, err := Diagnose(r, prob, labels, adj, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d := r.Diagnostics; d == nil || d.CovGap != want.CovGap || d.SSCV != want.SSCV || d.WorstSlab != want.WorstSlab || len(d.ByHomophily) != 4 ||
			!slices.EqualFunc(d.ByDegree, want.ByDegree, func(a, b CoverageGroup) bool { return a.Count == b.Count && near(a.Coverage, b.Coverage) }) {
			t.Errorf("%s: diagnostics %+v, want %+v", r.Score, d, want)
		}
	}
	res, err = Evaluate(prob, 3, labels, adj, all, Options{Seed: 3})
	if err != nil || res[0].Diagnostics != nil {
		t.Errorf("without options: %+v, %v", res[0].Diagnostics, err)
	}
}
