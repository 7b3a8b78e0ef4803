package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// A record is collapsed when its chance is known and eval.Collapsed says
// so; without a chance (an old record, GKDE) never.
func TestRecordCollapsed(t *testing.T) {
	for _, c := range []struct {
		acc, chance float64
		want        bool
	}{{0.62, 0.25, true}, {0.9, 0.25, false}, {0.1, 0, false}} {
		r := &Record{ValAccuracy: c.acc, ValChance: c.chance}
		if got := r.Collapsed(); got != c.want {
			t.Errorf("validation accuracy %v, chance %v: collapsed %v, want %v", c.acc, c.chance, got, c.want)
		}
	}
}

// majorityShare counts by hand the share of the most frequent label among
// nodes.
func majorityShare(labels, nodes []int) float64 {
	best := 0.0
	for c := range 64 {
		n := 0
		for _, v := range nodes {
			if labels[v] == c {
				n++
			}
		}
		best = max(best, float64(n)/float64(len(nodes)))
	}
	return best
}

// TestRunJobValidation checks the validation accuracy and chance that a
// record keeps: the chance of the validation nodes of the graph the model
// trained on (under leave-out classes the in-distribution ones), and the
// accuracy of the same model trained again, for models trained to their
// early stop, GKDE (which does not train: no chance, never collapsed), a
// leave-out-classes run and a run cut by MaxEpochs (unfinished: no chance).
func TestRunJobValidation(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	split, err := d.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := graph.LeaveOutClasses(d.Graph, split, d.LeftOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model     Model
		trained   Setting
		maxEpochs int
		g         *graph.Graph
		split     graph.Split
		chance    bool
	}{
		{GPN, Classification, 0, d.Graph, split, true},
		{GKDE, Classification, 0, d.Graph, split, false},
		{APPNP, LeaveOutClasses, 0, loc.Graph, loc.Split, true},
		{GPN, Classification, 3, d.Graph, split, false},
	} {
		j := Job{Dataset: "Tiny", Model: c.model, Split: 1, Init: 1, Trained: c.trained, Settings: []Setting{c.trained}}
		rec, err := RunJob(context.Background(), d, j, RunOptions{MaxEpochs: c.maxEpochs})
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.model.Classifier(d, c.g, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Fit(c.split, Schedule(d.Name, m, c.maxEpochs)); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for _, n := range c.split.Val {
			if pred.Class[n] == c.g.Labels[n] {
				right++
			}
		}
		acc, chance := float64(right)/float64(len(c.split.Val)), 0.0
		if c.chance {
			chance = majorityShare(c.g.Labels, c.split.Val)
		}
		if rec.ValAccuracy != acc || rec.ValChance != chance {
			t.Errorf("%v %v, max epochs %d: validation accuracy %v, chance %v; want %v, %v", c.model, c.trained, c.maxEpochs, rec.ValAccuracy, rec.ValChance, acc, chance)
		}
	}
}

// TestCollapsedRunsReported checks that the extended table, its CSV and
// the report count and name a collapsed run, and that a table without one
// keeps its columns.
func TestCollapsedRunsReported(t *testing.T) {
	run := func(split int, valAcc float64) *Record {
		return &Record{Dataset: "AmazonPhotos", Model: "gpn", Split: split, Init: 1, ValAccuracy: valAcc, ValChance: 0.25,
			Results: map[string]*Result{"classification": {Accuracy: valAcc, ARC: map[string][]float64{"TU": curve(valAcc)},
				Metrics: map[string]float64{"ECE": 0.1}, Reliability: []BinCount{{Count: 4, Correct: 3, ConfidenceSum: 3}}}}}
	}
	healthy := func(split int) *Record {
		r := run(split, 0.9)
		r.Model = "gpn_lop"
		return r
	}
	res, err := Aggregate([]*Record{run(1, 0.9), run(2, 0.3), run(3, 0.88), healthy(1), healthy(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Extended) != 2 || res.Extended[0].Model != GPN || res.Extended[0].Collapsed != 1 || res.Extended[1].Collapsed != 0 {
		t.Fatalf("extended rows %+v", res.Extended)
	}
	dir := t.TempDir()
	must(t, res.WriteTables(dir))
	tables := readTables(t, dir)
	lines := extendedCSV(t, tables)
	var found bool
	for _, l := range lines {
		if l[1] == "gpn" && l[4] == "COLLAPSED" {
			found = true
			if !closeTo(l[6], 1.0/3) || l[8] != "3" {
				t.Errorf("COLLAPSED line %v, want mean 1/3 over 3 runs", l)
			}
		}
	}
	if !found {
		t.Errorf("no COLLAPSED line for GPN in\n%s", tables["extended.csv"])
	}
	md := tables["extended.md"]
	for _, want := range []string{"| Model | collapsed runs | Acc |", "| GPN | 1 of 3 | 69.3 ± 19.7 |", "| LOP-GPN | 0 of 2 | 90.0 ± 0.0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("extended.md lacks %q:\n%s", want, md)
		}
	}
	page, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	html := page.Fragment()
	for _, want := range []string{"1 of the runs collapsed", "split 2 init 1 (validation 30.0%, chance 25.0%)"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}

	// Without a collapse the tables keep their columns.
	res, err = Aggregate([]*Record{healthy(1), healthy(2)})
	if err != nil {
		t.Fatal(err)
	}
	must(t, res.WriteTables(dir))
	if md := readTables(t, dir)["extended.md"]; strings.Contains(md, "collapsed") {
		t.Errorf("a table without collapsed runs has the column:\n%s", md)
	}
}
