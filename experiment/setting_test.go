package experiment

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// TestCatalogueHoldsGraphSettings checks that every setting of package
// graph's catalogue is a setting of the grid, that the paper's keep their
// records, and which of them train models of their own.
func TestCatalogueHoldsGraphSettings(t *testing.T) {
	for _, gs := range graph.Settings() {
		s, err := ParseSetting(gs.Name)
		if err != nil {
			t.Errorf("graph setting %s: %v", gs.Name, err)
			continue
		}
		base := strings.TrimSuffix(gs.Name, "_inductive")
		own := gs.Name == "loc" || gs.Name == "loc_random" || base != gs.Name ||
			slices.Contains([]string{"pagerank", "ppr_locality", "clustering", "homophily_shift"}, gs.Name)
		if s.ownModel() != own {
			t.Errorf("%s: trains a model of its own %v, want %v", gs.Name, s.ownModel(), own)
		}
	}
	for _, s := range AllSettings {
		if s >= BernoulliNoise+1 {
			t.Errorf("paper setting %v after the paper's four", s)
		}
	}
	if len(knownSettings) != len(settings) || len(ExtendedSettings) != len(settings)-4 {
		t.Errorf("%d known, %d extended of %d settings", len(knownSettings), len(ExtendedSettings), len(settings))
	}
}

// TestRunJobGraphSettings runs the three kinds of catalogue setting of
// package graph on the tiny graph: an isolated perturbation (the
// classification model, every perturbed node scored on a graph of its
// own), a transductive structural shift and an inductive one (models of
// their own), and checks what they score, their accuracy and the record's
// identity.
func TestRunJobGraphSettings(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	ctx := context.Background()
	split, err := d.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	isolated, _ := ParseSetting("gaussian_isolated")
	rec, err := RunJob(ctx, d, Job{Dataset: "Tiny", Model: GKDE, Split: 1, Init: 1, Settings: []Setting{Classification, isolated}}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Results["gaussian_isolated"]
	// The GPN code scores every test node, clean, as ID, and each of
	// min(100, test) perturbed test nodes on its own graph as OOD. GKDE
	// ignores features: its accuracy and uncertainty do not change, so an
	// OOD node's uncertainty equals its clean one and the AUROC is that
	// of a random subset, and ID and OOD accuracy are the clean ones.
	wantOOD := min(graph.IsolatedNodes, len(split.Test))
	if r.NumID != len(split.Test) || r.NumOOD != wantOOD {
		t.Errorf("isolated: %d ID and %d OOD, want %d and %d", r.NumID, r.NumOOD, len(split.Test), wantOOD)
	}
	if clean := rec.Results["classification"].Accuracy; !near(*r.IDAccuracy, clean) {
		t.Errorf("isolated: GKDE's ID accuracy %v, clean %v", *r.IDAccuracy, clean)
	}
	if rec.Trained != "" || rec.LOC {
		t.Errorf("isolated: record trained for %q (loc %v), want the classification model", rec.Trained, rec.LOC)
	}

	for _, name := range []string{"pagerank", "ppr_locality_inductive"} {
		s, err := ParseSetting(name)
		if err != nil {
			t.Fatal(err)
		}
		j := Job{Dataset: "Tiny", Model: GPN, Split: 2, Init: 1, Trained: s, Settings: []Setting{s}}
		rec, err := RunJob(ctx, d, j, RunOptions{MaxEpochs: 5})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := rec.Results[name]
		sh, err := graph.LookupSetting(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sh.Apply(d.Graph, split, graph.ShiftOptions{Seed: 2, LeftOut: d.LeftOut})
		if err != nil {
			t.Fatal(err)
		}
		if r.NumID != len(want.IDTest) || r.NumOOD != len(want.OODTest) || r.Accuracy != *r.IDAccuracy {
			t.Errorf("%s: %d ID and %d OOD test nodes (accuracy %v, ID %v), want %d and %d", name, r.NumID, r.NumOOD, r.Accuracy, *r.IDAccuracy, len(want.IDTest), len(want.OODTest))
		}
		if len(r.AUROC) != 6 {
			t.Errorf("%s: %d AUROCs, want GPN's 6", name, len(r.AUROC))
		}
		if rec.Trained != name || rec.LOC || filepath.Base(j.Path()) != "s02_i01_"+name+".json" {
			t.Errorf("%s: record trained for %q, path %s", name, rec.Trained, j.Path())
		}
		back, err := rec.Job()
		if err != nil || back.Trained != s || back.Path() != j.Path() {
			t.Errorf("%s: record's job %v (%v), want %v", name, back, err, j)
		}
	}
}

// TestGraphCalibrationSetting checks the graph-aware calibration
// setting: its ECE and NLL before and after temperature scaling are those
// the classification setting records on the same model, and CaGCN and
// GATS add theirs; the record reads back and the extended table shows it.
func TestGraphCalibrationSetting(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	j := Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1, Settings: []Setting{Classification, GraphCalibration}}
	rec, err := RunJob(context.Background(), d, j, RunOptions{MaxEpochs: 5})
	if err != nil {
		t.Fatal(err)
	}
	cl, gc := rec.Results["classification"], rec.Results["graph_calibration"]
	for _, m := range []Metric{ECE, NLL, ECEScaled, NLLScaled} {
		if gc.Metrics[m.Key("")] != cl.Metrics[m.Key("")] {
			t.Errorf("%v: %v, the classification setting's %v", m, gc.Metrics[m.Key("")], cl.Metrics[m.Key("")])
		}
	}
	for _, m := range []Metric{ECECaGCN, NLLCaGCN, ECEGATS, NLLGATS} {
		if v, ok := gc.Metrics[m.Key("")]; !ok || !(v >= 0) {
			t.Errorf("%v: %v (recorded %v)", m, v, ok)
		}
	}
	if gc.Accuracy != cl.Accuracy {
		t.Errorf("accuracy %v, classification's %v", gc.Accuracy, cl.Accuracy)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecord(path); err != nil {
		t.Fatal(err)
	}
	res, err := Aggregate([]*Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tb := range extendedTables() {
		if tb.setting == GraphCalibration && tb.grouping == nil {
			header, rows := res.extendedCells("Tiny", tb)
			found = len(rows) == 1 && slices.Contains(header, "ECE (CaGCN)") && slices.Contains(header, "NLL (GATS)")
		}
	}
	if !found {
		t.Error("no graph-aware calibration table with the calibrators' columns")
	}
}

// TestGraphConformalSetting checks the graph-aware conformal setting: its
// APS, RAPS and DAPS sets are the classification setting's (same split,
// same seed), SNAPS and NAPS and the diagnostics are there, and a
// diagnostic is what its definition gives on the recorded coverage.
func TestGraphConformalSetting(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	j := Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1, Settings: []Setting{Classification, GraphConformal}}
	rec, err := RunJob(context.Background(), d, j, RunOptions{MaxEpochs: 5})
	if err != nil {
		t.Fatal(err)
	}
	cl, gc := rec.Results["classification"], rec.Results["graph_conformal"]
	for _, name := range scoreNames {
		for _, m := range []Metric{Coverage, SetSize, Singletons} {
			if gc.Metrics[m.Key(name)] != cl.Metrics[m.Key(name)] {
				t.Errorf("%s %v: %v, the classification setting's %v", name, m, gc.Metrics[m.Key(name)], cl.Metrics[m.Key(name)])
			}
		}
	}
	// Coverages lie in [0, 1], a set holds at most the 4 classes, and
	// CovGap and SSCV are deviations of coverages from 1 − α, so at most
	// max(α, 1 − α) = 1 − α.
	bound := map[Metric]float64{Coverage: 1, WorstSlab: 1, SetSize: 4, CovGap: 1 - ConformalAlpha, SSCV: 1 - ConformalAlpha}
	for _, name := range graphScoreNames {
		for m, hi := range bound {
			v, ok := gc.Metrics[m.Key(name)]
			if !ok || !(v >= 0 && v <= hi) {
				t.Errorf("%s %v: %v (recorded %v), want in [0, %v]", name, m, v, ok, hi)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecord(path); err != nil {
		t.Fatal(err)
	}
}
