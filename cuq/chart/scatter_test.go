package chart

import (
	"math"
	"strings"
	"testing"
)

func TestScatter(t *testing.T) {
	c, err := Scatter("truth", "ground truth", "model", Points{Name: "GPN", X: []float64{0.1, 0.5}, Y: []float64{0.3, 0.2}},
		Points{Name: "mine", X: []float64{0.7}, Y: []float64{0.9}, Color: "#123456"})
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	s := series(t, opt)
	if len(s) != 2 {
		t.Fatalf("%d series, want 2", len(s))
	}
	if d := s[0]["data"].([]any); len(d) != 2 || d[1].([]any)[0] != 0.5 || d[1].([]any)[1] != 0.2 {
		t.Errorf("GPN's points %v, want (0.1, 0.3), (0.5, 0.2)", d)
	}
	if got := s[0]["itemStyle"].(map[string]any)["color"]; got != ModelColor("GPN") {
		t.Errorf("GPN's colour %v, want its model colour %s", got, ModelColor("GPN"))
	}
	if got := s[1]["itemStyle"].(map[string]any)["color"]; got != "#123456" {
		t.Errorf("second series' colour %v, want the one given", got)
	}
	if s[0]["symbol"] == s[1]["symbol"] {
		t.Errorf("both series drawn with symbol %v", s[0]["symbol"])
	}
	if name := opt["yAxis"].([]any)[0].(map[string]any)["name"]; name != "model" {
		t.Errorf("y axis named %v", name)
	}
	for _, tc := range []struct {
		series []Points
		want   string
	}{
		{nil, "no series"},
		{[]Points{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}, `series "a" has 2 x and 1 y values`},
		{[]Points{{Name: "a", X: []float64{1}, Y: []float64{math.NaN()}}}, `series "a": point 0 (1, NaN) is not finite`},
		{[]Points{{Name: "a", X: []float64{1}, Y: []float64{1}, Color: "red;"}}, `series "a"`},
	} {
		if _, err := Scatter("g", "x", "y", tc.series...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestScatterPanels(t *testing.T) {
	c, err := ScatterPanels("truth", "x", "y", 2, Points{Name: "a", X: []float64{0, 1}, Y: []float64{0.5, 0.2}},
		Points{Name: "b", X: []float64{-1}, Y: []float64{3}}, Points{Name: "c", X: []float64{2}, Y: []float64{0}})
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	s := series(t, opt)
	grids := opt["grid"].([]any)
	if len(s) != 3 || len(grids) != 3 {
		t.Fatalf("%d series in %d panels, want 3 in 3", len(s), len(grids))
	}
	// Two panels in the first row, the third below the first.
	g := func(k int, key string) float64 { return grids[k].(map[string]any)[key].(float64) }
	if g(0, "top") != g(1, "top") || g(1, "left") <= g(0, "left") || g(2, "left") != g(0, "left") || g(2, "top") <= g(0, "top") {
		t.Errorf("panels at %v, want two in a row and the third below the first", grids)
	}
	for k, axis := range opt["xAxis"].([]any) {
		a := axis.(map[string]any)
		if a["min"] != -1.0 || a["max"] != 2.0 || a["gridIndex"] != float64(k) {
			t.Errorf("x axis %d: %v, want [−1, 2] shared, in panel %d", k, a, k)
		}
		if y := opt["yAxis"].([]any)[k].(map[string]any); y["min"] != 0.0 || y["max"] != 3.0 {
			t.Errorf("y axis %d: %v, want [0, 3] shared", k, y)
		}
		if s[k]["xAxisIndex"] != float64(k) {
			t.Errorf("series %d drawn on axis %v", k, s[k]["xAxisIndex"])
		}
	}
	if _, err := ScatterPanels("g", "x", "y", 0, Points{Name: "a"}); err == nil || !strings.Contains(err.Error(), "0 columns") {
		t.Errorf("error %v for 0 columns", err)
	}
	if _, err := ScatterPanels("g", "x", "y", 1, Points{Name: "a"}); err == nil || !strings.Contains(err.Error(), "no points") {
		t.Errorf("error %v for series without points", err)
	}
	if _, err := ScatterPanels("g", "x", "y", 1, Points{Name: "a", X: []float64{math.Inf(1)}, Y: []float64{0}}); err == nil ||
		!strings.Contains(err.Error(), `series "a": point 0 (+Inf, 0) is not finite`) {
		t.Errorf("error %v for an infinite point", err)
	}
}
