package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// oracleTolerance is the agreement required between Go and numpy, relative
// to max(1, |value|).
const oracleTolerance = 1e-9

// jsonFloat encodes NaN and ±Inf as the strings "NaN", "Inf" and "-Inf",
// which encoding/json cannot write as numbers, and finite values exactly.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	case math.IsInf(x, 1):
		return []byte(`"Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

func jsonFloats(x []float64) []jsonFloat {
	out := make([]jsonFloat, len(x))
	for i, v := range x {
		out[i] = jsonFloat(v)
	}
	return out
}

// oracleCase is one input of the script.
type oracleCase struct {
	Kind string `json:"kind"`
	// calibration
	Prob   [][]float64 `json:"prob,omitempty"`
	Labels []int       `json:"labels,omitempty"`
	Bins   int         `json:"bins,omitempty"`
	// detection
	Negative []jsonFloat `json:"negative,omitempty"`
	Positive []jsonFloat `json:"positive,omitempty"`
	// selective
	Uncertainty []jsonFloat `json:"uncertainty,omitempty"`
	Correct     []bool      `json:"correct,omitempty"`
	Rejection   []float64   `json:"rejection,omitempty"`
	Accuracy    []float64   `json:"accuracy,omitempty"`
}

// oracleResult is one answer of the script; undefined numbers are null.
type oracleResult struct {
	Accuracy     *float64      `json:"accuracy"`
	Confidence   *float64      `json:"confidence"`
	ECE          *float64      `json:"ece"`
	MCE          *float64      `json:"mce"`
	AdaptiveECE  *float64      `json:"adaptive_ece"`
	ClasswiseECE *float64      `json:"classwise_ece"`
	Brier        *float64      `json:"brier"`
	NLL          *float64      `json:"nll"`
	Width        [][3]*float64 `json:"width"`
	Mass         [][3]*float64 `json:"mass"`
	AUROC        *float64      `json:"auroc"`
	AUPRPositive *float64      `json:"aupr_positive"`
	AUPRNegative *float64      `json:"aupr_negative"`
	FPR95        *float64      `json:"fpr95"`
	Risk         []float64     `json:"risk"`
	AURC         *float64      `json:"aurc"`
	Area         *float64      `json:"area"`
}

// randomCases returns n cases of each kind, with ties, boundary values,
// one-class sets, NaN and ±Inf scores among them.
func randomCases(rng *rand.Rand, n int) []oracleCase {
	var cases []oracleCase
	binChoices := []int{1, 2, 3, 5, 6, 7, 9, 10, 12, 15, 20, 25, 29, 40}
	for range n {
		k := 1 + rng.IntN(6)
		m := 1 + rng.IntN(60)
		c := oracleCase{Kind: "calibration", Bins: binChoices[rng.IntN(len(binChoices))]}
		mode := rng.IntN(4)
		for range m {
			w := make([]float64, k)
			if mode == 3 && k > 1 {
				// Confidences on a bin edge b/bins ≥ ½ or one ulp beside
				// it, where bins·c often rounds to the other side.
				bins := c.Bins
				conf := float64(bins-rng.IntN((bins+1)/2)) / float64(bins)
				conf = math.Nextafter(conf, []float64{0, conf, 1}[rng.IntN(3)])
				w[0], w[1] = conf, 1-conf
				rng.Shuffle(k, func(a, b int) { w[a], w[b] = w[b], w[a] })
				c.Prob = append(c.Prob, w)
				c.Labels = append(c.Labels, rng.IntN(k))
				continue
			}
			if mode == 2 && k > 1 {
				// Tenths: confidences 0.5, 0.6, …, 1 on the edges of 2,
				// 5, 10, 20 and 40 bins, most of them not exact in
				// binary, where bins·c rounds across the edge.
				j := rng.IntN(11)
				w[0], w[1] = float64(j)/10, float64(10-j)/10
				rng.Shuffle(k, func(a, b int) { w[a], w[b] = w[b], w[a] })
				c.Prob = append(c.Prob, w)
				c.Labels = append(c.Labels, rng.IntN(k))
				continue
			}
			var s float64
			for j := range w {
				if mode == 0 { // small integers: ties and zeros
					w[j] = float64(rng.IntN(4))
				} else {
					w[j] = math.Exp(2 * rng.NormFloat64())
				}
				s += w[j]
			}
			if s == 0 {
				w[rng.IntN(k)], s = 1, 1
			}
			for j := range w {
				w[j] /= s
			}
			c.Prob = append(c.Prob, w)
			c.Labels = append(c.Labels, rng.IntN(k))
		}
		cases = append(cases, c)
	}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0}
	draw := func(mode int, shift float64) float64 {
		switch {
		case mode == 3 && rng.IntN(5) == 0:
			return special[rng.IntN(len(special))]
		case mode == 0 || mode == 3:
			return float64(rng.IntN(5)) + shift
		case mode == 1:
			return rng.NormFloat64() + shift
		}
		return 1 // mode 2: every score equal
	}
	for range n {
		mode := rng.IntN(4)
		c := oracleCase{Kind: "detection"}
		for range 1 + rng.IntN(40) {
			c.Negative = append(c.Negative, jsonFloat(draw(mode, 0)))
		}
		for range 1 + rng.IntN(40) {
			c.Positive = append(c.Positive, jsonFloat(draw(mode, float64(rng.IntN(2)))))
		}
		cases = append(cases, c)
	}
	for range n {
		mode := rng.IntN(4)
		pRight := []float64{0, 0.3, 0.7, 1}[rng.IntN(4)]
		c := oracleCase{Kind: "selective"}
		for range 1 + rng.IntN(80) {
			c.Uncertainty = append(c.Uncertainty, jsonFloat(draw(mode, 0)))
			c.Correct = append(c.Correct, rng.Float64() < pRight)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestMetricsAgreeWithPython compares every metric of this package with an
// independent numpy implementation on a few hundred random inputs. It skips
// where no Python with numpy is installed.
func TestMetricsAgreeWithPython(t *testing.T) {
	cases := randomCases(rand.New(rand.NewPCG(12, 2026)), 120)
	// The curves of the selective cases come from ARC, for Curve.Area.
	for i := range cases {
		c := &cases[i]
		if c.Kind != "selective" {
			continue
		}
		curve, err := ARC(floats(c.Uncertainty), c.Correct)
		if err != nil {
			t.Fatal(err)
		}
		c.Rejection, c.Accuracy = curve.P, curve.Acc
	}
	var want []oracleResult
	testenv.NumpyOracle(t, "metrics-oracle.py", cases, &want)
	if len(want) != len(cases) {
		t.Fatalf("%d results for %d cases", len(want), len(cases))
	}
	var worst float64
	compare := func(i int, name string, got float64, want *float64) {
		t.Helper()
		if want == nil {
			if !math.IsNaN(got) {
				t.Errorf("case %d (%s): %s = %v, numpy has none", i, cases[i].Kind, name, got)
			}
			return
		}
		d := math.Abs(got-*want) / max(1, math.Abs(*want))
		worst = max(worst, d)
		if !(d <= oracleTolerance) {
			t.Errorf("case %d (%s): %s = %.17g, numpy %.17g", i, cases[i].Kind, name, got, *want)
		}
	}
	compareBins := func(i int, name string, got []Bin, want [][3]*float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("case %d: %d %s bins, numpy %d", i, len(got), name, len(want))
			return
		}
		for b := range got {
			if float64(got[b].Count) != *want[b][0] {
				t.Errorf("case %d: %s bin %d holds %d nodes, numpy %v", i, name, b, got[b].Count, *want[b][0])
			}
			compare(i, fmt.Sprintf("%s bin %d confidence", name, b), got[b].Confidence, want[b][1])
			compare(i, fmt.Sprintf("%s bin %d accuracy", name, b), got[b].Accuracy, want[b][2])
		}
	}
	for i, c := range cases {
		w := want[i]
		switch c.Kind {
		case "calibration":
			k := len(c.Prob[0])
			var prob []float64
			for _, row := range c.Prob {
				prob = append(prob, row...)
			}
			cal, err := CalibrationOf(prob, k, c.Labels, nil, CalibrationOptions{Bins: c.Bins})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			compare(i, "accuracy", cal.Accuracy, w.Accuracy)
			compare(i, "confidence", cal.Confidence, w.Confidence)
			compare(i, "ECE", cal.ECE, w.ECE)
			compare(i, "MCE", cal.MCE, w.MCE)
			compare(i, "adaptive ECE", cal.AdaptiveECE, w.AdaptiveECE)
			compare(i, "classwise ECE", cal.ClasswiseECE, w.ClasswiseECE)
			compare(i, "Brier", cal.Brier, w.Brier)
			compare(i, "NLL", cal.NLL, w.NLL)
			compareBins(i, "equal-width", cal.Bins, w.Width)
			conf, correct, _ := Confidences(prob, k, c.Labels, nil)
			mass, err := EqualMassBins(conf, correct, c.Bins)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			compareBins(i, "equal-mass", mass, w.Mass)
		case "detection":
			d, err := DetectionOf(floats(c.Negative), floats(c.Positive))
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			compare(i, "AUROC", d.AUROC, w.AUROC)
			compare(i, "AUPR (positives)", d.AUPRPositive, w.AUPRPositive)
			compare(i, "AUPR (negatives)", d.AUPRNegative, w.AUPRNegative)
			compare(i, "FPR95", d.FPR95, w.FPR95)
		case "selective":
			rc, err := RiskCoverageOf(floats(c.Uncertainty), c.Correct)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if len(rc.Risk) != len(w.Risk) {
				t.Fatalf("case %d: %d risks, numpy %d", i, len(rc.Risk), len(w.Risk))
			}
			for k := range rc.Risk {
				compare(i, fmt.Sprintf("risk at %d", k+1), rc.Risk[k], &w.Risk[k])
			}
			compare(i, "AURC", rc.AURC(), w.AURC)
			area, err := Curve{P: c.Rejection, Acc: c.Accuracy}.Area()
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			compare(i, "ARC area", area, w.Area)
		}
	}
	t.Logf("%d cases; largest relative difference from numpy %.3g", len(cases), worst)
}

func floats(x []jsonFloat) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
