package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/truth"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func TestTruthSweep(t *testing.T) {
	row := func(model string, h, s float64, seed uint64, m uq.Measure, rho float64) truth.Row {
		return truth.Row{Model: model, Homophily: h, Signal: s, Seed: seed, Measure: m, Truth: truth.TruthOf(m), Spearman: rho}
	}
	table := truth.Table{
		row("APPNP", 0.9, 2, 1, uq.TU, 0.2), row("APPNP", 0.9, 2, 2, uq.TU, 0.4),
		row("APPNP", 0.5, 0.5, 1, uq.TU, 0.1), row("APPNP", 0.5, 0.5, 2, uq.TU, 0.1),
		row("APPNP", 0.9, 2, 1, uq.LC, 0.9), // not drawn
		row("GPN", 0.9, 2, 1, uq.AU, -0.1), row("GPN", 0.9, 2, 2, uq.AU, math.NaN()),
		row("GPN", 0.5, 0.5, 1, uq.AU, 0.3), row("GPN", 0.5, 0.5, 2, uq.AU, 0.5),
	}
	c, err := TruthSweep("sweep", table)
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	s := series(t, opt)
	if len(s) != 6 {
		t.Fatalf("%d series, want band and line of APPNP TU and GPN AU", len(s))
	}
	if x := opt["xAxis"].([]any)[0].(map[string]any)["data"].([]any); len(x) != 2 || x[0] != "h=0.9, s=2" || x[1] != "h=0.5, s=0.5" {
		t.Errorf("x labels %v", x)
	}
	// APPNP TU: means (0.3, 0.1), SE (√(0.02/2) = 0.1, 0): band from 0.2
	// of width 0.2 at the first point. GPN AU: the NaN seed is left out,
	// so −0.1 with no SE, then 0.4 ± 0.1.
	want := map[string][]float64{
		"APPNP TU": {0.3, 0.1}, "GPN AU": {-0.1, 0.4},
	}
	for _, ser := range s {
		if !strings.HasPrefix(ser["id"].(string), "curve-") {
			continue
		}
		name := ser["name"].(string)
		data := ser["data"].([]any)
		for i, v := range want[name] {
			if math.Abs(data[i].(float64)-v) > 1e-12 {
				t.Errorf("%s at point %d: %v, want %v", name, i, data[i], v)
			}
		}
		style := ser["lineStyle"].(map[string]any)["type"]
		if (name == "APPNP TU") != (style == "solid") {
			t.Errorf("%s drawn %v", name, style)
		}
	}
	if lower := s[0]["data"].([]any); math.Abs(lower[0].(float64)-0.2) > 1e-12 {
		t.Errorf("APPNP TU band starts at %v, want 0.2", lower[0])
	}
	if _, err := TruthSweep("empty", table[4:5]); err == nil || !strings.Contains(err.Error(), "no TU, AU or EU rows") {
		t.Errorf("error %v for a table without TU, AU or EU", err)
	}
	undefined := truth.Table{row("GPN", 0.9, 2, 1, uq.EU, math.NaN())}
	if _, err := TruthSweep("nan", undefined); err == nil || !strings.Contains(err.Error(), "GPN EU has no defined Spearman correlation at h=0.9, s=2") {
		t.Errorf("error %v for an undefined correlation", err)
	}
}
