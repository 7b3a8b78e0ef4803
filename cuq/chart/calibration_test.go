package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// calibrationPrediction returns a two-class prediction of five nodes on a
// path, labels 0, 1, 0, 1, 0:
//
//	node  p̄          predicted  confidence  TU   AU
//	0     0.9 0.1    0 right    0.9         0.1  0.2
//	1     0.3 0.7    1 right    0.7         0.2  0.3
//	2     0.65 0.35  0 right    0.65        0.3  0.4
//	3     0.2 0.8    1 right    0.8         0.4  0.5
//	4     0.4 0.6    1 wrong    0.6         0.6  0.1
//
// TU puts the wrong node last, AU first.
func calibrationPrediction(t *testing.T) *cuq.Prediction {
	t.Helper()
	return &cuq.Prediction{
		Model: "Toy", Graph: pathGraph(t), Classes: 2, Class: []int{0, 1, 0, 1, 1},
		Prob: tensor.MustFromSlice(5, 2, []float64{0.9, 0.1, 0.3, 0.7, 0.65, 0.35, 0.2, 0.8, 0.4, 0.6}),
		Measures: uq.Measures{
			TU: []float64{0.1, 0.2, 0.3, 0.4, 0.6},
			AU: []float64{0.2, 0.3, 0.4, 0.5, 0.1},
		},
	}
}

func TestReliabilityOf(t *testing.T) {
	p := calibrationPrediction(t)
	all := []int{0, 1, 2, 3, 4}
	c, opt := optionOf(t, ReliabilityOf(p, all))
	// Ten bins: 0.6 in (0.5, 0.6] (wrong), 0.65 and 0.7 in (0.6, 0.7],
	// 0.8 and 0.9 alone, all right. ECE = (0.6 + 2·0.325 + 0.2 + 0.1)/5
	// = 0.31, MCE = 0.6, mean confidence 3.65/5.
	sub := opt["title"].(map[string]any)["subtext"].(string)
	if !strings.HasPrefix(sub, "ECE 31.00% · MCE 60.00% over 10 equal-width bins\n5 nodes · accuracy 80.0% · mean confidence 73.0%") {
		t.Errorf("subtitle %q", sub)
	}
	if c.Title != "Toy: reliability diagram" {
		t.Errorf("title %q", c.Title)
	}
	s := series(t, opt)
	if len(s) != 3 {
		t.Fatalf("%d series, want bars, confidence marks and the diagonal", len(s))
	}
	bars, marks := s[0]["data"].([]any), s[1]["data"].([]any)
	if len(bars) != 10 || len(marks) != 10 {
		t.Fatalf("%d bars and %d marks, want 10 each", len(bars), len(marks))
	}
	want := map[int]struct {
		acc, conf float64
		count     float64
		rng       string
	}{
		5: {0, 0.6, 1, "(0.5, 0.6]"},
		6: {1, 0.675, 2, "(0.6, 0.7]"},
		7: {1, 0.8, 1, "(0.7, 0.8]"},
		8: {1, 0.9, 1, "(0.8, 0.9]"},
	}
	for b := range bars {
		w, ok := want[b]
		if !ok {
			if bars[b] != "-" || marks[b] != "-" {
				t.Errorf("empty bin %d drawn as %v, %v", b, bars[b], marks[b])
			}
			continue
		}
		bar, mark := bars[b].(map[string]any), marks[b].(map[string]any)
		if bar["value"] != w.acc || math.Abs(mark["value"].(float64)-w.conf) > 1e-15 ||
			bar["count"] != w.count || bar["range"] != w.rng || mark["count"] != w.count {
			t.Errorf("bin %d: bar %v, mark %v; want accuracy %v, confidence %v, %v nodes in %s", b, bar, mark, w.acc, w.conf, w.count, w.rng)
		}
	}
	diag := s[2]
	if d := diag["data"].([]any); diag["xAxisIndex"] != 1.0 || len(d) != 2 || d[1].([]any)[0] != 1.0 || d[1].([]any)[1] != 1.0 {
		t.Errorf("diagonal %v, want (0, 0) – (1, 1) on the value axis", diag)
	}
	if !strings.Contains(c.Option(), "formatter\":function (p)") {
		t.Error("the tooltip formatter is not written as code")
	}

	c, opt = optionOf(t, ReliabilityOf(p, all).Bins(4).Title("Four bins"))
	if n := len(series(t, opt)[0]["data"].([]any)); n != 4 || c.Title != "Four bins" {
		t.Errorf("%d bins titled %q, want 4 titled Four bins", n, c.Title)
	}
	// The first bin is closed at 0.
	c, _ = ReliabilityOf(p, all).Bins(1).Done()
	if r := series(t, decodeOption(t, c))[0]["data"].([]any)[0].(map[string]any)["range"]; r != "[0, 1]" {
		t.Errorf("one bin has range %v, want [0, 1]", r)
	}

	for _, tc := range []struct {
		build func() (*Chart, error)
		want  string
	}{
		{func() (*Chart, error) { return ReliabilityOf(nil, all).Done() }, "chart.ReliabilityOf: nil prediction"},
		{func() (*Chart, error) { return ReliabilityOf(p, all).Bins(-1).Done() }, "chart.ReliabilityOf: -1 bins"},
		{func() (*Chart, error) { return ReliabilityOf(p, []int{}).Done() }, "empty node set"},
		{func() (*Chart, error) { return ReliabilityOf(p, []int{9}).Done() }, "node 9 out of range"},
		{func() (*Chart, error) {
			return ReliabilityOf(&cuq.Prediction{Model: "APPNP"}, all).Done()
		}, "APPNP: calibration needs class probabilities"},
	} {
		if _, err := tc.build(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestRiskCoverageOf(t *testing.T) {
	p := calibrationPrediction(t)
	all := []int{0, 1, 2, 3, 4}
	c, opt := optionOf(t, RiskCoverageOf(p, all))
	s := series(t, opt)
	// TU keeps the wrong node last: risks 0, 0, 0, 0, 1/5, AURC 0.04, the
	// best possible. AU keeps it first: risks 1, 1/2, 1/3, 1/4, 1/5.
	wantNames := []string{"TU, AURC 0.0400", "AU, AURC 0.4567", "best possible, AURC 0.0400 (= TU, AURC 0.0400)"}
	wantRisk := [][]float64{{0, 0, 0, 0, 0.2}, {1, 0.5, 1.0 / 3, 0.25, 0.2}, {0, 0, 0, 0, 0.2}}
	if len(s) != len(wantNames) {
		t.Fatalf("%d series, want %v", len(s), wantNames)
	}
	for k := range s {
		if s[k]["name"] != wantNames[k] {
			t.Errorf("series %d is %q, want %q", k, s[k]["name"], wantNames[k])
		}
		for j, pt := range s[k]["data"].([]any) {
			xy := pt.([]any)
			if xy[0] != float64(j+1)/5 || math.Abs(xy[1].(float64)-wantRisk[k][j]) > 1e-15 {
				t.Errorf("%s point %d = %v, want (%v, %v)", wantNames[k], j, xy, float64(j+1)/5, wantRisk[k][j])
			}
		}
	}
	if color, _ := MeasureStyle(uq.AU); s[1]["color"] != color {
		t.Errorf("AU drawn in %v, want its colour %s", s[1]["color"], color)
	}
	if top := opt["yAxis"].(map[string]any)["max"]; top != 1.0 {
		t.Errorf("risk axis ends at %v, want 1", top)
	}
	sub := opt["title"].(map[string]any)["subtext"].(string)
	if !strings.HasPrefix(sub, "5 nodes, 1 wrong (error rate 20.0%)") {
		t.Errorf("subtitle %q", sub)
	}
	c, opt = optionOf(t, RiskCoverageOf(p, all).Measures(uq.TU).Title("TU only"))
	if len(series(t, opt)) != 2 || c.Title != "TU only" {
		t.Errorf("TU only: %d series titled %q, want 2 titled TU only", len(series(t, opt)), c.Title)
	}
	if _, err := RiskCoverageOf(p, all).Measures(uq.EU).Done(); err == nil || !strings.Contains(err.Error(), "Toy has no EU") {
		t.Errorf("missing measure: error %v", err)
	}
	if _, err := RiskCoverageOf(p, []int{5}).Done(); err == nil || !strings.Contains(err.Error(), "node 5 out of range") {
		t.Errorf("bad node: error %v", err)
	}
	if _, err := RiskCoverageOf(nil, all).Done(); err == nil {
		t.Error("nil prediction: no error")
	}
}
