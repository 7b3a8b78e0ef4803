package chart

import (
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
)

func TestShareY(t *testing.T) {
	// Set sizes: one distribution's largest fraction is 0.5 (axis to 0.5),
	// the other's 0.9 (axis to 0.9).
	a, err := SetSizesOfCounts(0.1, SetSizeCounts{Label: "a", Counts: []int{0, 5, 5}}).Done()
	if err != nil {
		t.Fatal(err)
	}
	b, err := SetSizesOfCounts(0.1, SetSizeCounts{Label: "b", Counts: []int{0, 9, 1}}).Done()
	if err != nil {
		t.Fatal(err)
	}
	if a.YAxisName() != "fraction of evaluation nodes" || a.YAxisName() != b.YAxisName() {
		t.Errorf("y axes %q and %q", a.YAxisName(), b.YAxisName())
	}
	if err := ShareY(a, b); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Chart{a, b} {
		y := decodeOption(t, c)["yAxis"].(map[string]any)
		if y["min"] != 0.0 || y["max"] != 0.9 {
			t.Errorf("%s: y from %v to %v, want 0 to 0.9", c.Title, y["min"], y["max"])
		}
	}
	// Lines have no set range: the values decide, 1 to 7.
	l1, _ := Lines("l1", "x", "seconds", []string{"1", "2"}, Curve{Name: "a", Mean: []float64{1, 3}})
	l2, _ := Lines("l2", "x", "seconds", []string{"1", "2"}, Curve{Name: "b", Mean: []float64{2, 7}})
	if err := ShareY(l1, l2); err != nil {
		t.Fatal(err)
	}
	if y := decodeOption(t, l1)["yAxis"].([]any)[0].(map[string]any); y["min"] != 1.0 || y["max"] != 7.0 || y["scale"] != nil {
		t.Errorf("lines share y %v, want 1 to 7", y)
	}
	g, _ := ARCGrid("g", []float64{0, 0.5}, 2, []Panel{{Title: "p"}, {Title: "q"}})
	if err := ShareY(l1, g); err == nil || !strings.Contains(err.Error(), "chart 1 has no y axis") {
		t.Errorf("grid of panels: error %v", err)
	}
}

func TestMinWidthAndRow(t *testing.T) {
	p := setSizePrediction(t)
	one, err := SetSizesOf(p, []int{0, 1, 2, 3, 4}).Scores(conformal.APS{}).Done()
	if err != nil {
		t.Fatal(err)
	}
	if one.MinWidth() != 360 {
		t.Errorf("single plot: min width %d, want 360", one.MinWidth())
	}
	grid, _ := ARCGrid("g", []float64{0, 0.5}, 2, []Panel{{Title: "p"}, {Title: "q"}})
	if grid.MinWidth() != grid.Width {
		t.Errorf("panels placed in pixels: min width %d, want the width %d", grid.MinWidth(), grid.Width)
	}
	row := NewPage("").AddRow(one, grid).Fragment()
	for _, want := range []string{
		`<div style="flex:1 1 0;min-width:360px;max-width:680px;">`,
		`id="` + one.ID + `" class="cuq-chart" style="width:100%;`,
		"new ResizeObserver(resize).observe(el)",
	} {
		if !strings.Contains(row, want) {
			t.Errorf("row lacks %q", want)
		}
	}
}
