package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
)

// TestWinners picks, per setting and metric, the best model and measure
// of hand-made extended rows: larger AUROC and AUPR-Out, smaller FPR@95,
// ties to the earlier model, NaN means skipped, sweeps and other datasets
// ignored.
func TestWinners(t *testing.T) {
	st := func(m float64) eval.Stat { return eval.Stat{Mean: m, SE: 0.01, N: 3} }
	pagerank, err := ParseSetting("pagerank")
	if err != nil {
		t.Fatal(err)
	}
	res := &Results{Datasets: []string{"A", "B"}, Extended: []ExtendedRow{
		{Dataset: "A", Model: GPN, Setting: GaussianNoise, Stats: map[string]eval.Stat{
			"AUROC/TU": st(0.6), "AUROC/EU": st(0.8), "AUPR_OUT/TU": st(0.5), "AUPR_OUT/EU": st(0.4), "FPR95/TU": st(0.7), "FPR95/EU": st(0.3)}},
		{Dataset: "A", Model: APPNP, Setting: GaussianNoise, Stats: map[string]eval.Stat{
			"AUROC/TU": st(0.8), "AUPR_OUT/TU": st(0.9), "FPR95/TU": st(math.NaN())}},
		{Dataset: "A", Model: GPN, Setting: pagerank, Stats: map[string]eval.Stat{"AUROC/AU": st(0.55)}},
		{Dataset: "A", Model: GPN, Setting: GaussianSweep, Severity: 2, Stats: map[string]eval.Stat{"AUROC/TU": st(0.99)}},
		{Dataset: "B", Model: GPN, Setting: GaussianNoise, Stats: map[string]eval.Stat{"AUROC/TU": st(0.99)}},
		{Dataset: "A", Model: GPN, Setting: Classification, Stats: map[string]eval.Stat{"ACC": st(0.9)}},
	}}
	settings, winners := res.Winners("A")
	if len(settings) != 2 || settings[0] != GaussianNoise || settings[1] != pagerank {
		t.Fatalf("settings %v, want gaussian and pagerank", settings)
	}
	want := []Winner{
		{APPNP, "TU", st(0.8)}, // 0.8 ties GPN's EU: APPNP comes first in the catalogue
		{APPNP, "TU", st(0.9)},
		{GPN, "EU", st(0.3)},
	}
	for k, w := range want {
		if g := winners[0][k]; g.Model != w.Model || g.Measure != w.Measure || g.Stat.Mean != w.Stat.Mean {
			t.Errorf("gaussian, %s: %v %s %v, want %v %s %v", detectionMetrics[k].title, g.Model, g.Measure, g.Stat.Mean, w.Model, w.Measure, w.Stat.Mean)
		}
	}
	if g := winners[1]; g[0].Model != GPN || g[0].Measure != "AU" || g[1].Measure != "" || g[2].Measure != "" {
		t.Errorf("pagerank winners %+v, want GPN AU by AUROC and none by the others", g)
	}
	table, err := res.WinnerTable("A")
	if err != nil {
		t.Fatal(err)
	}
	html := table.HTML()
	for _, s := range []string{"APPNP TU", "80.0 ± 1.0", "GPN EU", "30.0 ± 1.0", "popularity (PageRank)", "–"} {
		if !strings.Contains(html, s) {
			t.Errorf("winner table lacks %q:\n%s", s, html)
		}
	}
	if !res.beyondPaperShifts() {
		t.Error("pagerank is beyond the paper")
	}
	if (&Results{Extended: res.Extended[:2]}).beyondPaperShifts() {
		t.Error("Gaussian noise is the paper's")
	}
}
