package experiment

import (
	"math"
	"strings"
	"testing"
)

func TestGrowthRunsAndSummaries(t *testing.T) {
	var calls int
	res, err := NewGrowth().Sides(12, 14).Seeds(2).Models(GPN).MaxEpochs(5).
		Progress(func(done, total int, msg string) { calls++ }).Run()
	if err != nil {
		t.Fatal(err)
	}
	// 2 sizes × 2 seeds × 2 families × 1 model.
	if len(res.Runs) != 8 || calls != 8 || len(res.Sizes) != 2 || res.Sizes[1] != 196 {
		t.Fatalf("%d runs, %d progress calls, sizes %v", len(res.Runs), calls, res.Sizes)
	}
	for _, r := range res.Runs {
		if r.Conflicts == 0 || math.Abs(r.ConflictRatio-r.EUConflict/r.EUOther) > 1e-15 || !(r.Accuracy >= 0 && r.Accuracy <= 1) {
			t.Errorf("run %+v is inconsistent", r)
		}
		if r.Family == "lattice" && r.MaxDegree > 4 {
			t.Errorf("a lattice of degree %d", r.MaxDegree)
		}
	}
	mean, se := res.Ratio("lattice", "GPN")
	var want float64
	for _, r := range res.Runs {
		if r.Family == "lattice" && r.Nodes == 144 {
			want += r.ConflictRatio / 2
		}
	}
	if len(mean) != 2 || math.Abs(mean[0]-want) > 1e-12 || !(se[0] >= 0) {
		t.Errorf("ratio %v ± %v, want first mean %v", mean, se, want)
	}
	if verb, _, _, _, _ := res.Trend("lattice", "GPN"); verb != "rises" && verb != "falls" && verb != "stays level" {
		t.Errorf("trend %q", verb)
	}
	c, err := res.Chart()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Option(), `"GPN, Barabási–Albert"`) {
		t.Error("chart lacks the Barabási–Albert curve")
	}
	tb, err := res.Table()
	if err != nil || len(tb.Rows) != 4 {
		t.Errorf("table: %v rows, %v", tb, err)
	}
	if _, err := NewGrowth().Sides(2).Run(); err == nil {
		t.Error("side 2: no error")
	}
	if _, err := NewGrowth().Seeds(0).Run(); err == nil {
		t.Error("no seeds: no error")
	}
}
