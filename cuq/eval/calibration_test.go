package eval

import (
	"math"
	"strings"
	"testing"
)

// fourNodes are two-class probabilities with hand-computed metrics:
//
//	node  p          label  confidence  right
//	0     0.9 0.1    0      0.9         yes
//	1     0.2 0.8    0      0.8         no
//	2     0.6 0.4    0      0.6         yes
//	3     0.45 0.55  1      0.55        yes
var (
	fourProb   = []float64{0.9, 0.1, 0.2, 0.8, 0.6, 0.4, 0.45, 0.55}
	fourLabels = []int{0, 0, 0, 1}
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestCalibrationByHand(t *testing.T) {
	c, err := CalibrationOf(fourProb, 2, fourLabels, nil, CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Ten bins: 0.55 and 0.6 in (0.5, 0.6] (confidence 0.575, accuracy
	// 1), 0.8 in (0.7, 0.8] (accuracy 0), 0.9 in (0.8, 0.9] (accuracy 1):
	// ECE = (2·0.425 + 0.8 + 0.1)/4, MCE = 0.8.
	// Brier = (0.02 + 1.28 + 0.32 + 0.405)/4.
	// NLL = −(ln 0.9 + ln 0.2 + ln 0.6 + ln 0.55)/4 = 2.823461052614/4.
	// Ten equal-mass bins of four nodes hold one node each:
	// adaptive ECE = (0.1 + 0.8 + 0.4 + 0.45)/4.
	for _, m := range []struct {
		name      string
		got, want float64
	}{
		{"nodes", float64(c.Nodes), 4},
		{"accuracy", c.Accuracy, 0.75},
		{"confidence", c.Confidence, 0.7125},
		{"ECE", c.ECE, 0.4375},
		{"MCE", c.MCE, 0.8},
		{"adaptive ECE", c.AdaptiveECE, 0.4375},
		{"Brier", c.Brier, 0.50625},
		{"NLL", c.NLL, 0.705865263153},
	} {
		if !near(m.got, m.want, 1e-10) {
			t.Errorf("%s = %.12g, want %.12g", m.name, m.got, m.want)
		}
	}
	if len(c.Bins) != DefaultBins {
		t.Fatalf("%d bins, want the default %d", len(c.Bins), DefaultBins)
	}
	for b, want := range []Bin{
		{Lo: 0.5, Hi: 0.6, Count: 2, Confidence: 0.575, Accuracy: 1},
		{Lo: 0.7, Hi: 0.8, Count: 1, Confidence: 0.8, Accuracy: 0},
		{Lo: 0.8, Hi: 0.9, Count: 1, Confidence: 0.9, Accuracy: 1},
	} {
		got := c.Bins[[]int{5, 7, 8}[b]]
		if got.Lo != want.Lo || got.Hi != want.Hi || got.Count != want.Count ||
			!near(got.Confidence, want.Confidence, 1e-15) || got.Accuracy != want.Accuracy {
			t.Errorf("bin %d = %+v, want %+v", []int{5, 7, 8}[b], got, want)
		}
	}
	if e := c.Bins[0]; e.Count != 0 || !math.IsNaN(e.Confidence) || !math.IsNaN(e.Accuracy) {
		t.Errorf("empty bin 0 = %+v, want count 0 and NaN means", e)
	}

	// Two equal-mass bins: {0.55, 0.6} (confidence 0.575, accuracy 1) and
	// {0.8, 0.9} (confidence 0.85, accuracy ½): ECE = (2·0.425 + 2·0.35)/4.
	c2, err := CalibrationOf(fourProb, 2, fourLabels, nil, CalibrationOptions{Bins: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !near(c2.AdaptiveECE, 0.3875, 1e-15) {
		t.Errorf("adaptive ECE with 2 bins = %v, want 0.3875", c2.AdaptiveECE)
	}
	// Two equal-width bins: everything in (0.5, 1]: one gap |0.75 − 0.7125|.
	if !near(c2.ECE, 0.0375, 1e-15) || !near(c2.MCE, 0.0375, 1e-15) {
		t.Errorf("2 equal-width bins: ECE %v, MCE %v, want 0.0375 both", c2.ECE, c2.MCE)
	}
	// A subset of nodes, in any order.
	c3, err := CalibrationOf(fourProb, 2, fourLabels, []int{3, 1}, CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c3.Nodes != 2 || c3.Accuracy != 0.5 || !near(c3.Brier, (1.28+0.405)/2, 1e-15) {
		t.Errorf("nodes 3 and 1: %+v", c3)
	}
}

func TestCalibrationPerfectAndOneClass(t *testing.T) {
	// Certain and right: every error is 0.
	c, err := CalibrationOf([]float64{1, 0, 0, 0, 1, 0}, 3, []int{0, 1}, nil, CalibrationOptions{Bins: 15})
	if err != nil {
		t.Fatal(err)
	}
	if c.ECE != 0 || c.MCE != 0 || c.AdaptiveECE != 0 || c.Brier != 0 || c.NLL != 0 {
		t.Errorf("certain and right: %+v, want all errors 0", c)
	}
	if c.Bins[14].Count != 2 {
		t.Errorf("confidence 1 is not in the last bin: %+v", c.Bins)
	}
	// One class: p = 1 always right.
	c, err = CalibrationOf([]float64{1, 1, 1}, 1, []int{0, 0, 0}, nil, CalibrationOptions{})
	if err != nil || c.ECE != 0 || c.Brier != 0 || c.Accuracy != 1 {
		t.Errorf("one class: %+v, %v", c, err)
	}
	// The uniform prediction over K classes has Brier 1 − 1/K.
	c, err = CalibrationOf([]float64{0.25, 0.25, 0.25, 0.25}, 4, []int{2}, nil, CalibrationOptions{})
	if err != nil || !near(c.Brier, 0.75, 1e-15) || !near(c.NLL, math.Log(4), 1e-15) {
		t.Errorf("uniform over 4 classes: Brier %v, NLL %v, want 0.75 and ln 4", c.Brier, c.NLL)
	}
	// Rounding may push a probability past 1: its confidence counts as 1.
	c, err = CalibrationOf([]float64{1 + 1e-9, 0}, 2, []int{0}, nil, CalibrationOptions{})
	if err != nil || c.Confidence != 1 || c.Bins[9].Count != 1 || c.ECE != 0 {
		t.Errorf("probability 1 + 1e-9: %+v, %v; want confidence 1 in the last bin", c, err)
	}
	// Ties between classes: the first class of maximal probability is
	// predicted, so label 1 is wrong.
	c, err = CalibrationOf([]float64{0.5, 0.5}, 2, []int{1}, nil, CalibrationOptions{})
	if err != nil || c.Accuracy != 0 || c.ECE != 0.5 {
		t.Errorf("tied classes: accuracy %v, ECE %v, want 0 and 0.5", c.Accuracy, c.ECE)
	}
}

func TestNLLFloor(t *testing.T) {
	got, err := NLL([]float64{1, 0, 0.5, 0.5}, 2, []int{1, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// −ln 0 is capped at 1022·ln 2; the other node adds ln 2.
	if want := (1022*math.Ln2 + math.Ln2) / 2; !near(got, want, 1e-12) || math.IsInf(got, 0) {
		t.Errorf("NLL with a zero probability = %v, want %v", got, want)
	}
	// Subnormal probabilities are floored too, normal ones are not.
	sub, _ := NLL([]float64{1 - 1e-310, 1e-310}, 2, []int{1}, nil)
	normal, _ := NLL([]float64{1 - 1e-300, 1e-300}, 2, []int{1}, nil)
	if !near(sub, 1022*math.Ln2, 1e-12) || !near(normal, 300*math.Ln10, 1e-9) {
		t.Errorf("NLL of 1e-310 = %v (want the cap %v), of 1e-300 = %v (want %v)", sub, 1022*math.Ln2, normal, 300*math.Ln10)
	}
}

func TestEqualWidthBinEdges(t *testing.T) {
	// Right-closed bins: an edge belongs to the bin below it, 0 to the
	// first bin; 0.3 is the float64 edge 3/10 although 0.3·10 rounds up.
	conf := []float64{0, 0.1, 0.3, math.Nextafter(0.3, 1), 1}
	bins, err := EqualWidthBins(conf, make([]bool, len(conf)), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int{0: 2, 2: 1, 3: 1, 9: 1}
	for b, bin := range bins {
		if bin.Count != want[b] {
			t.Errorf("bin %d (%v, %v] holds %d, want %d", b, bin.Lo, bin.Hi, bin.Count, want[b])
		}
	}
	// Edges where bins·c rounds across: 2/3 and the value just above it
	// for 3 bins, 14/25 for 25 bins.
	for _, tc := range []struct {
		c    float64
		bins int
		want int
	}{
		{2.0 / 3, 3, 1}, {math.Nextafter(2.0/3, 1), 3, 2}, {14.0 / 25, 25, 13}, {math.Nextafter(14.0/25, 1), 25, 14},
	} {
		bins, err := EqualWidthBins([]float64{tc.c}, []bool{true}, tc.bins)
		if err != nil {
			t.Fatal(err)
		}
		if bins[tc.want].Count != 1 {
			t.Errorf("confidence %.17g with %d bins: not in bin %d", tc.c, tc.bins, tc.want)
		}
	}
}

// TestEqualMassTiesAreExpectations checks the tie rule of EqualMassBins by
// hand and against the mean over every order of the tied nodes.
func TestEqualMassTiesAreExpectations(t *testing.T) {
	// Three nodes at 0.7, one right; one node at 0.9, right. Two bins of
	// two: the first holds two of the tied nodes (accuracy ⅓), the second
	// the third tied one and 0.9 (accuracy (⅓ + 1)/2).
	conf := []float64{0.7, 0.9, 0.7, 0.7}
	correct := []bool{false, true, true, false}
	bins, err := EqualMassBins(conf, correct, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !near(bins[0].Accuracy, 1.0/3, 1e-15) || !near(bins[1].Accuracy, 2.0/3, 1e-15) ||
		!near(bins[1].Confidence, 0.8, 1e-15) || bins[0].Lo != 0.7 || bins[1].Hi != 0.9 {
		t.Errorf("bins %+v", bins)
	}
	// Brute force: the tied nodes in each of their orders, split by
	// position without any tie rule.
	order := [][]bool{{false, true, false}, {true, false, false}, {false, false, true}}
	var mean [2]float64
	for _, o := range order {
		seq := append(append([]bool(nil), o...), true) // 0.7 ×3 then 0.9
		for b := range 2 {
			r := 0.0
			for _, ok := range seq[2*b : 2*b+2] {
				if ok {
					r++
				}
			}
			mean[b] += r / 2 / float64(len(order))
		}
	}
	for b := range 2 {
		if !near(bins[b].Accuracy, mean[b], 1e-15) {
			t.Errorf("bin %d accuracy %v, mean over the orders of the tied nodes %v", b, bins[b].Accuracy, mean[b])
		}
	}
	// Fewer nodes than bins: the empty bins are NaN and weigh nothing.
	bins, err = EqualMassBins([]float64{0.6, 0.9}, []bool{true, false}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	for _, b := range bins {
		counts = append(counts, b.Count)
	}
	if got := ECE(bins); !near(got, (0.4+0.9)/2, 1e-15) || bins[0].Count != 0 || !math.IsNaN(bins[0].Lo) {
		t.Errorf("2 nodes in 5 bins: counts %v, ECE %v, want %v", counts, got, 0.65)
	}
}

func TestECEAndMCEOfNoNodes(t *testing.T) {
	empty := []Bin{{Count: 0, Confidence: math.NaN(), Accuracy: math.NaN()}}
	if !math.IsNaN(ECE(empty)) || !math.IsNaN(MCE(empty)) || !math.IsNaN(ECE(nil)) {
		t.Error("ECE or MCE of empty bins is not NaN")
	}
}

func TestCalibrationErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prob   []float64
		k      int
		labels []int
		nodes  []int
		bins   int
		want   string
	}{
		{"no classes", nil, 0, nil, nil, 0, "0 classes"},
		{"rows", []float64{1, 0, 1}, 2, []int{0, 0}, nil, 0, "3 probabilities for 2 labels of 2 classes"},
		{"no nodes", nil, 2, nil, nil, 0, "no nodes"},
		{"empty node set", fourProb, 2, fourLabels, []int{}, 0, "empty node set"},
		{"node range", fourProb, 2, fourLabels, []int{4}, 0, "node 4 out of range [0, 4)"},
		{"unlabelled", fourProb, 2, []int{0, -1, 0, 1}, nil, 0, "node 1 has label -1, not in [0, 2)"},
		{"NaN", []float64{math.NaN(), 1}, 2, []int{0}, nil, 0, "node 0 has probability NaN for class 0"},
		{"negative", []float64{-0.1, 1.1}, 2, []int{0}, nil, 0, "node 0 has probability -0.1 for class 0"},
		{"above 1", []float64{1.00001, -0.00001}, 2, []int{0}, nil, 0, "node 0 has probability 1.00001 for class 0"},
		{"sum", []float64{0.5, 0.4}, 2, []int{0}, nil, 0, "probabilities of node 0 sum to 0.9, not 1"},
		{"bins", fourProb, 2, fourLabels, nil, -3, "-3 bins"},
	} {
		_, err := CalibrationOf(tc.prob, tc.k, tc.labels, tc.nodes, CalibrationOptions{Bins: tc.bins})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "eval: CalibrationOf: ") {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// An unlabelled node outside the set is no error.
	if _, err := Brier(fourProb, 2, []int{0, -1, 0, 1}, []int{0, 2}); err != nil {
		t.Errorf("unlabelled node outside the set: %v", err)
	}
	for _, tc := range []struct {
		conf    []float64
		correct []bool
		bins    int
		want    string
	}{
		{[]float64{0.5}, []bool{true}, 0, "0 bins"},
		{[]float64{0.5}, nil, 10, "1 confidences but 0 correctness flags"},
		{nil, nil, 10, "no nodes"},
		{[]float64{0.5, math.NaN()}, []bool{true, true}, 10, "confidence 1 is NaN, not in [0, 1]"},
		{[]float64{1.5}, []bool{true}, 10, "confidence 0 is 1.5"},
	} {
		for name, f := range map[string]func([]float64, []bool, int) ([]Bin, error){"EqualWidthBins": EqualWidthBins, "EqualMassBins": EqualMassBins} {
			if _, err := f(tc.conf, tc.correct, tc.bins); err == nil || !strings.Contains(err.Error(), "eval: "+name+": "+tc.want) {
				t.Errorf("%s: error %v, want %q", name, err, tc.want)
			}
		}
	}
}
