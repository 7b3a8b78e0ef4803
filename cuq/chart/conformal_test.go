package chart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// setSizePrediction returns calibrationPrediction (labels 0, 1, 0, 1, 0 on
// a path) with p̄ = (0.8, 0.2) for the nodes of label 0 and (0.3, 0.7) for
// those of label 1. Non-randomised APS gives the former the scores
// (0.8, 1), the latter (1, 0.7).
func setSizePrediction(t *testing.T) *cuq.Prediction {
	t.Helper()
	p := calibrationPrediction(t)
	p.Prob = tensor.MustFromSlice(5, 2, []float64{0.8, 0.2, 0.3, 0.7, 0.8, 0.2, 0.3, 0.7, 0.8, 0.2})
	return p
}

func TestSetSizesOf(t *testing.T) {
	p := setSizePrediction(t)
	all := []int{0, 1, 2, 3, 4}
	scores := []conformal.Score{conformal.APS{NonRandomized: true}, conformal.RAPS{Lambda: 0.5, NonRandomized: true}}
	// Three of the five nodes calibrate (round(2.5)), at least one of
	// label 0. At α = ¼ q̂ is the largest of three true-label scores: 0.8
	// for APS, 1.3 for RAPS (penalty 0.5·rank), whatever the split; every
	// set is then the predicted class alone, and right.
	c, err := SetSizesOf(p, all).Scores(scores...).Alpha(0.25).Seed(5).Done()
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Toy: conformal set sizes" {
		t.Errorf("title %q", c.Title)
	}
	opt := decodeOption(t, c)
	sub := opt["title"].(map[string]any)["subtext"].(string)
	want := "α = 0.25: each set holds the label with probability ≥ 75% · 3 calibration, 2 evaluation nodes\n" +
		"q̂: APS (non-randomised) 0.8 · RAPS (λ 0.5, k_reg 0) (non-randomised) 1.3"
	if sub != want {
		t.Errorf("subtitle\n%q, want\n%q", sub, want)
	}
	checkSizeBars(t, opt, []string{
		"APS (non-randomised): coverage 100.0%, mean size 1.00",
		"RAPS (λ 0.5, k_reg 0) (non-randomised): coverage 100.0%, mean size 1.00",
	}, [][]float64{{0, 2, 0}, {0, 2, 0}}, 2)
	// At α = 0.2 the rank ⌈4·0.8⌉ = 4 exceeds the three calibration
	// nodes: q̂ = +∞ and every set holds both classes.
	c, err = SetSizesOf(p, all).Scores(scores[0]).Alpha(0.2).Title("All").Done()
	if err != nil {
		t.Fatal(err)
	}
	opt = decodeOption(t, c)
	if sub := opt["title"].(map[string]any)["subtext"].(string); !strings.HasSuffix(sub, "q̂: APS (non-randomised) +Inf") || c.Title != "All" {
		t.Errorf("title %q, subtitle %q", c.Title, sub)
	}
	checkSizeBars(t, opt, []string{"APS (non-randomised): coverage 100.0%, mean size 2.00"}, [][]float64{{0, 0, 2}}, 2)
}

// checkSizeBars checks the legend and, per series, the node count and
// fraction of evaluation nodes of every set size.
func checkSizeBars(t *testing.T, opt map[string]any, names []string, counts [][]float64, nodes int) {
	t.Helper()
	legend := opt["legend"].(map[string]any)["data"].([]any)
	if fmt.Sprint(legend) != fmt.Sprint(names) {
		t.Errorf("legend %v, want %v", legend, names)
	}
	s := series(t, opt)
	if len(s) != len(counts) {
		t.Fatalf("%d series, want %d", len(s), len(counts))
	}
	for k := range s {
		if s[k]["name"] != names[k] || s[k]["type"] != "bar" || s[k]["itemStyle"].(map[string]any)["color"] != Palette[k] {
			t.Errorf("series %d: %v", k, s[k])
		}
		data := s[k]["data"].([]any)
		if len(data) != len(counts[k]) {
			t.Fatalf("series %d has %d bars, want %d", k, len(data), len(counts[k]))
		}
		for size, d := range data {
			item := d.(map[string]any)
			if item["count"] != counts[k][size] || item["value"] != counts[k][size]/float64(nodes) {
				t.Errorf("series %d, size %d: %v, want %v of %d nodes", k, size, item, counts[k][size], nodes)
			}
		}
	}
}

// TestSetSizesOfDefaultScores checks the default chart of APS, RAPS and
// DAPS against cuq.Prediction.Conformal on the same split.
func TestSetSizesOfDefaultScores(t *testing.T) {
	p := calibrationPrediction(t)
	all := []int{0, 1, 2, 3, 4}
	c, err := SetSizesOf(p, all).Alpha(0.5).Seed(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Conformal(all, conformal.Options{Alpha: 0.5, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var counts [][]float64
	for _, r := range res {
		names = append(names, fmt.Sprintf("%s: coverage %.1f%%, mean size %.2f", r.Score, 100*r.Coverage, r.MeanSize))
		var row []float64
		for _, n := range r.SizeCounts() {
			row = append(row, float64(n))
		}
		counts = append(counts, row)
	}
	if len(names) != 3 || !strings.HasPrefix(names[2], "DAPS") {
		t.Fatalf("default scores %v", names)
	}
	checkSizeBars(t, decodeOption(t, c), names, counts, 2)
}

func TestSetSizesOfErrors(t *testing.T) {
	p := setSizePrediction(t)
	for _, tc := range []struct {
		chart *SetSizesChart
		want  string
	}{
		{SetSizesOf(nil, []int{0, 1}), "chart.SetSizesOf: nil prediction"},
		{SetSizesOf(p, []int{0, 1, 2}).Alpha(1.5), "chart.SetSizesOf: cuq: Toy: conformal: α = 1.5, need 0 < α < 1"},
		{SetSizesOf(p, []int{0, 1, 7}), "chart.SetSizesOf: cuq: Toy: conformal: node 7 outside [0, 5)"},
		{SetSizesOf(p, []int{0}), "of 1 nodes leaves 1 to calibrate and 0 to evaluate"},
	} {
		if _, err := tc.chart.Done(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestSetSizesOfCounts draws distributions given as counts, such as those
// of several runs added up: fractions of each series' own total.
func TestSetSizesOfCounts(t *testing.T) {
	c, err := SetSizesOfCounts(0.1,
		SetSizeCounts{Label: "GPN", Counts: []int{1, 6, 3}, Coverage: 0.9, MeanSize: 1.2},
		SetSizeCounts{Label: "APPNP", Counts: []int{0, 4}, Coverage: 0.925, MeanSize: 1},
	).Done()
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "conformal set sizes" {
		t.Errorf("title %q", c.Title)
	}
	opt := decodeOption(t, c)
	if sub := opt["title"].(map[string]any)["subtext"].(string); sub != "α = 0.1: each set holds the label with probability ≥ 90% · up to 10 evaluated nodes per series" {
		t.Errorf("subtitle %q", sub)
	}
	// Each series' fractions are of its own total; a size beyond a
	// series' counts has no bar.
	want := [][]any{{0.1, 0.6, 0.3}, {0.0, 1.0, nil}}
	for k, sr := range series(t, opt) {
		var got []any
		for _, d := range sr["data"].([]any) {
			if d == nil {
				got = append(got, nil)
				continue
			}
			got = append(got, d.(map[string]any)["value"])
		}
		if fmt.Sprint(got) != fmt.Sprint(want[k]) {
			t.Errorf("series %d: fractions %v, want %v", k, got, want[k])
		}
	}
	legend := opt["legend"].(map[string]any)["data"].([]any)
	if fmt.Sprint(legend) != "[GPN: coverage 90.0%, mean size 1.20 APPNP: coverage 92.5%, mean size 1.00]" {
		t.Errorf("legend %v", legend)
	}
	for _, bad := range [][]SetSizeCounts{nil, {{Label: "x", Counts: []int{0, 0}}}, {{Label: "y", Counts: []int{2, -1}}}} {
		if _, err := SetSizesOfCounts(0.1, bad...).Done(); err == nil || !strings.Contains(err.Error(), "chart.SetSizesOfCounts") {
			t.Errorf("counts %v: error %v", bad, err)
		}
	}
}
