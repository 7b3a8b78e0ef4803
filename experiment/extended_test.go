package experiment

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// extendedRecords returns two classification and DICE runs of GPN on
// CoraML, with round metrics, and a run of a record written before the
// metrics existed, which the extended table leaves out.
func extendedRecords() []*Record {
	run := func(split int, ece, cov float64, correct int) *Record {
		return &Record{Dataset: "CoraML", Model: "gpn", Split: split, Init: 1, Results: map[string]*Result{
			"classification": {Accuracy: 0.8, ARC: map[string][]float64{"TU": curve(0.8)},
				Metrics:     map[string]float64{"ECE": ece, "AURC/EU": 0.1, "COVERAGE/DAPS": cov, "SET_SIZE/DAPS": 2},
				Reliability: []BinCount{{}, {Count: 4, Correct: correct, ConfidenceSum: 2}},
				SetSizes:    map[string][]int{"DAPS": {0, 3, 1}}},
			"dice": {Accuracy: 0.7, IDAccuracy: ptr(0.75), OODAccuracy: ptr(0.6),
				AUROC: map[string]float64{"EU": 0.6 + 0.1*float64(split)}, Metrics: map[string]float64{"FPR95/EU": 0.5}},
		}}
	}
	old := &Record{Dataset: "CoraML", Model: "appnp", Split: 1, Init: 1, Results: map[string]*Result{
		"classification": {Accuracy: 0.8, ARC: map[string][]float64{"TU": curve(0.8)}}}}
	return []*Record{run(1, 0.1, 0.9, 1), run(2, 0.2, 0.8, 3), old}
}

func TestExtendedTables(t *testing.T) {
	res, err := Aggregate(extendedRecords())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Extended) != 2 || res.Extended[0].Setting != Classification || res.Extended[1].Setting != DICE {
		t.Fatalf("extended rows %+v", res.Extended)
	}
	cl := res.Extended[0]
	// ECE 0.1 and 0.2: mean 0.15, var 0.005, SE sqrt(0.005/2) = 0.05.
	if st := cl.Stats["ECE"]; cl.Runs != 2 || !near(st.Mean, 0.15) || !near(st.SE, 0.05) || st.N != 2 {
		t.Errorf("ECE %+v over %d runs", st, cl.Runs)
	}
	if st := cl.Stats["AURC/EU"]; !near(st.Mean, 0.1) || st.SE != 0 {
		t.Errorf("AURC %+v", st)
	}
	// Bins add up over runs: 8 nodes, 4 right, confidences summing to 4.
	rel := res.Reliability["CoraML"][GPN]
	if len(rel) != 2 || rel[1] != (BinCount{Count: 8, Correct: 4, ConfidenceSum: 4}) {
		t.Errorf("reliability %+v", rel)
	}
	if b := bins(rel); !math.IsNaN(b[0].Accuracy) || b[1].Accuracy != 0.5 || b[1].Confidence != 0.5 || b[1].Lo != 0.5 || b[1].Hi != 1 {
		t.Errorf("bins %+v", b)
	}
	if got := res.SetSizes["CoraML"][GPN]["DAPS"]; len(got) != 3 || got[1] != 6 || got[2] != 2 {
		t.Errorf("set sizes %v", got)
	}

	dir := t.TempDir()
	must(t, res.WriteTables(dir))
	tables := readTables(t, dir)
	lines := extendedCSV(t, tables)
	if strings.Join(lines[0], ",") != "dataset,model,setting,severity,metric,of,mean,se,n" {
		t.Fatalf("header %v", lines[0])
	}
	find := func(setting, metric, of string) []string {
		for _, l := range lines[1:] {
			if l[2] == setting && l[4] == metric && l[5] == of {
				return l
			}
		}
		t.Fatalf("no line %s %s %s in\n%s", setting, metric, of, tables["extended.csv"])
		return nil
	}
	if l := find("classification", "COVERAGE", "DAPS"); l[0] != "CoraML" || l[1] != "gpn" || !closeTo(l[6], 0.85) || !closeTo(l[7], 0.05) || l[8] != "2" {
		t.Errorf("coverage line %v", l)
	}
	if l := find("dice", "AUROC", "EU"); !closeTo(l[6], 0.75) || l[3] != "" {
		t.Errorf("DICE AUROC line %v", l)
	}
	if l := find("dice", "ID_ACC", ""); !closeTo(l[6], 0.75) {
		t.Errorf("DICE ID accuracy line %v", l)
	}
	md := tables["extended.md"]
	for _, want := range []string{
		"| GPN | 80.0 ± 0.0 | 15.0 ± 5.0 |", // Acc, ECE in percent
		"| coverage DAPS | set size DAPS |", // conformal header
		"| GPN | – | – | – | – | – | – | 85.0 ± 5.0 | 2.000 ± 0.000 | – |",
		"CoraML, OOD detection: DICE",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("extended.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "APPNP") {
		t.Errorf("extended.md holds the run without metrics:\n%s", md)
	}
	page, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	html := page.Fragment()
	for _, want := range []string{"Calibration", "GPN on CoraML", "Conformal prediction sets", "CoraML: DAPS set sizes",
		"GPN: coverage 85.0%, mean size 2.00", "OOD detection: DICE"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func closeTo(s string, want float64) bool {
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		return false
	}
	return near(v, want)
}

// TestRunJobExtended runs every model beyond the paper, and GKDE and
// CUQ-PPR, in every extended setting that evaluates the classification
// model on the tiny dataset, and checks what the records hold.
func TestRunJobExtended(t *testing.T) {
	// The word-based perturbations draw 20 of the 100 most (least) common
	// words: the tiny dataset with 128 features instead of 16.
	g, err := datasets.CSBM(160, 4).Features(128).FeatureSignal(2).AvgDegree(4).Seed(7).Name("Tiny").Done()
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDataset(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	split, err := d.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	settings := []Setting{Classification, GaussianNoise}
	for _, s := range ExtendedSettings {
		if !s.ownModel() { // those are TestRunJobGraphSettings'
			settings = append(settings, s)
		}
	}
	for _, m := range append([]Model{GKDE, CUQPPR}, ExtendedModels...) {
		job := Job{Dataset: "Tiny", Model: m, Split: 1, Init: 1, Settings: settings}
		rec, err := RunJob(context.Background(), d, job, RunOptions{MaxEpochs: 5})
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		path := filepath.Join(t.TempDir(), "r.json")
		must(t, WriteRecord(path, rec))
		if _, err := ReadRecord(path); err != nil {
			t.Fatalf("%v: record does not read back: %v", m, err)
		}
		cl := rec.Results["classification"]
		for _, key := range []string{"ECE", "aECE", "MCE", "Brier", "NLL", "T", "ECE_TS", "NLL_TS", "AURC/TU",
			"COVERAGE/APS", "COVERAGE/RAPS", "COVERAGE/DAPS", "SET_SIZE/DAPS", "SINGLETONS/APS"} {
			if _, ok := cl.Metrics[key]; !ok {
				t.Errorf("%v: no %s among %v", m, key, cl.Metrics)
			}
		}
		// The committees decompose their uncertainty; the single GCNs, and
		// the energy baselines on a GCN, have TU only (and their energy
		// score).
		_, hasEU := cl.Metrics["AURC/EU"]
		preset, err := m.Preset(d.Name, cuq.DefaultSeeding())
		must(t, err)
		_, postHoc := preset.(*cuq.EnergyBuilder)
		if wantEU := m != GCN && m.Key() != "gcn_bn" && !postHoc; hasEU != wantEU {
			t.Errorf("%v: AURC of EU present %v, want %v", m, hasEU, wantEU)
		}
		// Half of the test nodes are evaluated, a set size is 0..classes.
		n := 0
		for size, count := range cl.SetSizes["DAPS"] {
			n += count
			if size > d.Graph.NumClasses {
				t.Errorf("%v: set of %d classes", m, size)
			}
		}
		if n != len(split.Test)-len(split.Test)/2 {
			t.Errorf("%v: %d nodes in the set sizes of %d test nodes", m, n, len(split.Test))
		}
		bins := 0
		for _, b := range cl.Reliability {
			bins += b.Count
			if b.Correct > b.Count || b.ConfidenceSum > float64(b.Count) {
				t.Errorf("%v: bin %+v", m, b)
			}
		}
		if bins != len(split.Test) {
			t.Errorf("%v: %d nodes in the reliability bins of %d test nodes", m, bins, len(split.Test))
		}
		for _, s := range []Setting{RandomEdges, DICE} {
			r := rec.Results[s.String()]
			if r.NumID+r.NumOOD != len(split.Test) || r.NumOOD == 0 || len(r.Metrics) == 0 {
				t.Errorf("%v %v: %d ID, %d OOD, metrics %v", m, s, r.NumID, r.NumOOD, r.Metrics)
			}
		}
		for s, want := range map[Setting][]float64{GaussianSweep: graph.GaussianSeverities, BernoulliSweep: graph.BernoulliSeverities} {
			r := rec.Results[s.String()]
			if len(r.Sweep) != len(want) {
				t.Fatalf("%v %v: %d points, want %d", m, s, len(r.Sweep), len(want))
			}
			for k, p := range r.Sweep {
				if p.Severity != want[k] || p.NumOOD != rec.Results["gaussian"].NumOOD {
					t.Errorf("%v %v point %d: severity %v, %d OOD", m, s, k, p.Severity, p.NumOOD)
				}
			}
		}
		// At the paper's severity the sweep repeats the paper's setting.
		paper := rec.Results["gaussian_sweep"].Sweep[slices.Index(graph.GaussianSeverities, 1)]
		if g := rec.Results["gaussian"]; paper.AUROC["TU"] != g.AUROC["TU"] || paper.Accuracy != g.Accuracy {
			t.Errorf("%v: sweep at σ = 1 gives AUROC %v, accuracy %v; the Gaussian setting %v, %v", m,
				paper.AUROC["TU"], paper.Accuracy, g.AUROC["TU"], g.Accuracy)
		}
	}
}

// TestGridExtended runs a grid of a paper model and the committees in a
// paper setting and the extended ones: the reference's tables hold the
// paper's model and settings only, the extended table and the report all.
func TestGridExtended(t *testing.T) {
	out := t.TempDir()
	sum, err := tinyGrid(t, out, GPN, EnsembleGCN, MCDropoutGCN).Settings(Classification, BernoulliNoise, DICE, GaussianSweep).
		Run(context.Background())
	if err != nil || !sum.Complete {
		t.Fatalf("%+v, %v", sum, err)
	}
	tables := readTables(t, out)
	if idood := tables["id_ood.csv"]; !strings.Contains(idood, "GPN") || strings.Contains(idood, "Ensemble") {
		t.Errorf("id_ood.csv:\n%s", idood)
	}
	csvText := tables["extended.csv"]
	for _, want := range []string{"Tiny,ens_gcn,classification,,ECE,,", "Tiny,mcd_gcn,dice,,AUROC,EU,", "Tiny,gpn,gaussian_sweep,0.5,FPR95,EU_SO,",
		"Tiny,gpn,bernoulli,,AUPR_OUT,TU,"} {
		if !strings.Contains(csvText, want) {
			t.Errorf("extended.csv lacks %q", want)
		}
	}
	md := tables["extended.md"]
	for _, want := range []string{"| Ensemble-GCN |", "Tiny, OOD detection: Gaussian noise severity", "| MC-Dropout-GCN | 2 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("extended.md lacks %q:\n%s", want, md)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Ensemble-GCN on Tiny", "Conformal prediction sets"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
