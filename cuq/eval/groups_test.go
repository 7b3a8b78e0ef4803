package eval

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// handGraph is the graph 0 – 1, 0 – 2, 0 – 3, 1 – 2, a self loop at 3 and
// 4 – 5, in CSR form, with labels 0, 0, 1, 0, 1 and node 5 unlabelled.
var (
	handPtr    = []int{0, 3, 5, 7, 9, 10, 11}
	handInd    = []int{1, 2, 3, 0, 2, 0, 1, 0, 3, 5, 4}
	handLabels = []int{0, 0, 1, 0, 1, -1}
)

func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) <= 1e-15 })
}

// TestLocalHomophilyByHand: node 0's neighbours 1, 2, 3 carry labels 0, 1,
// 0 (⅔ like it), node 1's 0 and 2 (½), node 2's 0 and 1 (0), node 3's
// only other neighbour 0 (1, the self loop left out); node 4's one
// neighbour is unlabelled and node 5 is unlabelled: NaN.
func TestLocalHomophilyByHand(t *testing.T) {
	h, err := LocalHomophily(handPtr, handInd, handLabels, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{2.0 / 3, 0.5, 0, 1, math.NaN(), math.NaN()}; !sameFloats(h, want) {
		t.Errorf("homophily %v, want %v", h, want)
	}
	if _, err := LocalHomophily(handPtr[:5], handInd, handLabels, 2); err == nil || !strings.Contains(err.Error(), "row pointer of 5 entries") {
		t.Errorf("short row pointer: %v", err)
	}
	if _, err := LocalHomophily(handPtr, append(slices.Clone(handInd[:10]), 6), handLabels, 2); err == nil || !strings.Contains(err.Error(), "neighbour 6 of node 5 outside [0, 6)") {
		t.Errorf("bad neighbour: %v", err)
	}
}

func TestDegreesByHand(t *testing.T) {
	d, err := Degrees(handPtr, handInd)
	if err != nil || !slices.Equal(d, []int{3, 2, 2, 1, 1, 1}) {
		t.Errorf("degrees %v, %v; want 3, 2, 2, 1 (self loop left out), 1, 1", d, err)
	}
	if _, err := Degrees([]int{0, 2}, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "neighbour 1 of node 0 outside [0, 1)") {
		t.Errorf("bad neighbour: %v", err)
	}
	if _, err := Degrees(nil, nil); err == nil {
		t.Error("no row pointer: no error")
	}
}

func TestDegreeGroupsByHand(t *testing.T) {
	degree := []int{0, 1, 2, 3, 4, 5, 8, 9}
	g, err := DegreeGroups(degree, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{{0, 0, []int{0}}, {1, 1, []int{1}}, {2, 2, []int{2}}, {3, 4, []int{3, 4}}, {5, 8, []int{5, 6}}, {9, 16, []int{7}}}
	if !slices.EqualFunc(g, want, sameGroup) {
		t.Errorf("groups %v, want %v", g, want)
	}
	g, err = DegreeGroups(degree, []int{4, 1})
	if err != nil {
		t.Fatal(err)
	}
	want = []Group{{0, 0, nil}, {1, 1, []int{1}}, {2, 2, nil}, {3, 4, []int{4}}}
	if !slices.EqualFunc(g, want, sameGroup) {
		t.Errorf("groups of nodes 4, 1: %v, want %v", g, want)
	}
	if _, err := DegreeGroups([]int{1, -2}, nil); err == nil || !strings.Contains(err.Error(), "node 1 has degree -2") {
		t.Errorf("negative degree: %v", err)
	}
	if _, err := DegreeGroups(degree, []int{8}); err == nil || !strings.Contains(err.Error(), "node 8 out of range") {
		t.Errorf("node out of range: %v", err)
	}
}

func sameGroup(a, b Group) bool {
	return a.Lo == b.Lo && a.Hi == b.Hi && slices.Equal(a.Nodes, b.Nodes)
}

func TestHomophilyGroupsByHand(t *testing.T) {
	h := []float64{2.0 / 3, 0.5, 0, 1, math.NaN(), math.NaN()}
	g, err := HomophilyGroups(h, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	// ½ lies in the first bin (0, ½], 0 too; the NaNs are left out.
	want := []Group{{0, 0.5, []int{1, 2}}, {0.5, 1, []int{0, 3}}}
	if !slices.EqualFunc(g, want, sameGroup) {
		t.Errorf("groups %v, want %v", g, want)
	}
	if _, err := HomophilyGroups([]float64{1.5}, nil, 2); err == nil || !strings.Contains(err.Error(), "homophily 1.5") {
		t.Errorf("homophily 1.5: %v", err)
	}
	if _, err := HomophilyGroups(h, nil, 0); err == nil || !strings.Contains(err.Error(), "0 bins") {
		t.Errorf("0 bins: %v", err)
	}
}

// groupProb holds four nodes of two classes: node 0 right at confidence
// 0.9, node 1 wrong at 0.6, node 2 right at 0.7, node 3 wrong at 0.8.
var (
	groupProb   = []float64{0.9, 0.1, 0.6, 0.4, 0.3, 0.7, 0.2, 0.8}
	groupLabels = []int{0, 1, 1, 0}
)

// TestCalibrationByGroupByHand: nodes 0 and 1 have accuracy ½, mean
// confidence 0.75 and, each alone in its confidence bin of ten, ECE
// (|1 − 0.9| + |0 − 0.6|)/2 = 0.35; nodes 2 and 3 accuracy ½, confidence
// 0.75, ECE (|1 − 0.7| + |0 − 0.8|)/2 = 0.55; an empty group is NaN.
func TestCalibrationByGroupByHand(t *testing.T) {
	groups := []Group{{0, 1, []int{0, 1}}, {1, 2, []int{2, 3}}, {2, 3, nil}}
	got, err := CalibrationByGroup(groupProb, 2, groupLabels, groups, 0)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := []GroupCalibration{{0, 1, 2, 0.5, 0.75, 0.35}, {1, 2, 2, 0.5, 0.75, 0.55}, {2, 3, 0, nan, nan, nan}}
	for k := range want {
		g, w := got[k], want[k]
		if g.Lo != w.Lo || g.Hi != w.Hi || g.Count != w.Count || !sameFloats([]float64{g.Accuracy, g.Confidence, g.ECE}, []float64{w.Accuracy, w.Confidence, w.ECE}) {
			t.Errorf("group %d: %+v, want %+v", k, g, w)
		}
	}
	if _, err := CalibrationByGroup(groupProb, 2, groupLabels, []Group{{0, 1, []int{4}}}, 0); err == nil || !strings.Contains(err.Error(), "node 4 out of range") {
		t.Errorf("node out of range: %v", err)
	}
}

// TestClasswiseECEByHand: four nodes of three classes,
//
//	p0 = (0.7, 0.2, 0.1) label 0, p1 = (0.5, 0.3, 0.2) label 1,
//	p2 = (0.1, 0.1, 0.8) label 2, p3 = (0.4, 0.4, 0.2) label 2,
//
// two bins (0, ½] and (½, 1]. Class 0: the bin of 0.5, 0.1, 0.4 (none
// labelled 0) has confidence ⅓, accuracy 0, weight ¾; the bin of 0.7
// (labelled 0) confidence 0.7, accuracy 1, weight ¼: ECE ¼ + 0.075 =
// 0.325. Class 1: one bin, confidence (0.2+0.3+0.1+0.4)/4 = ¼ and
// accuracy ¼: 0. Class 2: the bin of 0.1, 0.2, 0.2 (one labelled 2) has
// confidence ⅙, accuracy ⅓, weight ¾, the bin of 0.8 (labelled 2) 0.8 and
// 1: ECE 0.125 + 0.05 = 0.175. The mean is ⅙.
func TestClasswiseECEByHand(t *testing.T) {
	prob := []float64{0.7, 0.2, 0.1, 0.5, 0.3, 0.2, 0.1, 0.1, 0.8, 0.4, 0.4, 0.2}
	labels := []int{0, 1, 2, 2}
	got, err := ClasswiseECE(prob, 3, labels, nil, 2)
	if err != nil || math.Abs(got-1.0/6) > 1e-15 {
		t.Errorf("classwise ECE %v, %v; want 1/6", got, err)
	}
	c, err := CalibrationOf(prob, 3, labels, nil, CalibrationOptions{Bins: 2})
	if err != nil || c.ClasswiseECE != got {
		t.Errorf("CalibrationOf's classwise ECE %v, %v; want %v", c.ClasswiseECE, err, got)
	}
	if _, err := ClasswiseECE(prob, 3, labels, nil, -1); err == nil || !strings.Contains(err.Error(), "-1 bins") {
		t.Errorf("negative bins: %v", err)
	}
}

// TestCalibrationOfGroups checks that CalibrationOf with degrees and
// homophilies reports CalibrationByGroup of DegreeGroups and
// HomophilyGroups, and nothing without them.
func TestCalibrationOfGroups(t *testing.T) {
	degree, h := []int{1, 3, 4, 0}, []float64{0.2, math.NaN(), 0.9, 1}
	c, err := CalibrationOf(groupProb, 2, groupLabels, []int{0, 1, 2, 3}, CalibrationOptions{Degree: degree, Homophily: h, HomophilyBins: 2})
	if err != nil {
		t.Fatal(err)
	}
	dg, _ := DegreeGroups(degree, []int{0, 1, 2, 3})
	hg, _ := HomophilyGroups(h, []int{0, 1, 2, 3}, 2)
	wantD, _ := CalibrationByGroup(groupProb, 2, groupLabels, dg, 0)
	wantH, _ := CalibrationByGroup(groupProb, 2, groupLabels, hg, 0)
	same := func(a, b GroupCalibration) bool {
		return a.Lo == b.Lo && a.Hi == b.Hi && a.Count == b.Count && sameFloats([]float64{a.Accuracy, a.Confidence, a.ECE}, []float64{b.Accuracy, b.Confidence, b.ECE})
	}
	if len(c.ByDegree) != 4 || !slices.EqualFunc(c.ByDegree, wantD, same) || len(c.ByHomophily) != 2 || !slices.EqualFunc(c.ByHomophily, wantH, same) {
		t.Errorf("by degree %+v, want %+v; by homophily %+v, want %+v", c.ByDegree, wantD, c.ByHomophily, wantH)
	}
	if c.ByHomophily[1].Count != 2 || c.ByDegree[3].Count != 2 {
		t.Errorf("counts: homophily (½, 1] has %d (want 2: 0.9 and 1), degree 3–4 %d (want 2: 3 and 4)", c.ByHomophily[1].Count, c.ByDegree[3].Count)
	}
	if c, err := CalibrationOf(groupProb, 2, groupLabels, nil, CalibrationOptions{}); err != nil || c.ByDegree != nil || c.ByHomophily != nil {
		t.Errorf("without covariates: %+v, %v", c, err)
	}
	if _, err := CalibrationOf(groupProb, 2, groupLabels, nil, CalibrationOptions{Degree: []int{1}}); err == nil || !strings.Contains(err.Error(), "1 degrees for 4 nodes") {
		t.Errorf("short degrees: %v", err)
	}
}
