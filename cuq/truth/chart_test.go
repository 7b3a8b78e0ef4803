package truth

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func TestTableChart(t *testing.T) {
	row := func(model string, h, s float64, seed uint64, m uq.Measure, rho float64) Row {
		return Row{Model: model, Homophily: h, Signal: s, Seed: seed, Measure: m, Truth: TruthOf(m), Spearman: rho}
	}
	table := Table{
		row("APPNP", 0.9, 2, 1, uq.TU, 0.2), row("APPNP", 0.9, 2, 2, uq.TU, 0.4),
		row("APPNP", 0.5, 0.5, 1, uq.TU, 0.1), row("APPNP", 0.5, 0.5, 2, uq.TU, 0.1),
		row("APPNP", 0.9, 2, 1, uq.LC, 0.9), // not drawn
		row("GPN", 0.9, 2, 1, uq.AU, -0.1), row("GPN", 0.9, 2, 2, uq.AU, math.NaN()),
		row("GPN", 0.5, 0.5, 1, uq.AU, 0.3), row("GPN", 0.5, 0.5, 2, uq.AU, 0.5),
	}
	if _, err := table.Chart("sweep"); err != nil {
		t.Fatal(err)
	}
	x, curves, err := table.curves("sweep")
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != 2 || x[0] != "h=0.9, s=2" || x[1] != "h=0.5, s=0.5" {
		t.Errorf("x labels %v", x)
	}
	// APPNP TU: means (0.3, 0.1), SE (√(0.02/2) = 0.1, 0). GPN AU: the NaN
	// seed is left out, so −0.1 with no SE, then 0.4 ± 0.1. LC is not
	// drawn.
	want := map[string][2][]float64{
		"APPNP TU": {{0.3, 0.1}, {0.1, 0}}, "GPN AU": {{-0.1, 0.4}, {0, 0.1}},
	}
	if len(curves) != 2 {
		t.Fatalf("%d curves, want APPNP TU and GPN AU", len(curves))
	}
	for _, c := range curves {
		w, ok := want[c.Name]
		if !ok {
			t.Fatalf("curve %q", c.Name)
		}
		for i := range w[0] {
			if math.Abs(c.Mean[i]-w[0][i]) > 1e-12 || math.Abs(c.SE[i]-w[1][i]) > 1e-12 {
				t.Errorf("%s at point %d: %v ± %v, want %v ± %v", c.Name, i, c.Mean[i], c.SE[i], w[0][i], w[1][i])
			}
		}
		if (c.Name == "APPNP TU") != (c.Dash == chart.Solid) {
			t.Errorf("%s drawn %v", c.Name, c.Dash)
		}
	}
	if _, err := table[4:5].Chart("empty"); err == nil || !strings.Contains(err.Error(), "no TU, AU or EU rows") {
		t.Errorf("error %v for a table without TU, AU or EU", err)
	}
	undefined := Table{row("GPN", 0.9, 2, 1, uq.EU, math.NaN())}
	if _, err := undefined.Chart("nan"); err == nil || !strings.Contains(err.Error(), "GPN EU has no defined Spearman correlation at h=0.9, s=2") {
		t.Errorf("error %v for an undefined correlation", err)
	}
}
