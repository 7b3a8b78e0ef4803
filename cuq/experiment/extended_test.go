package experiment

import (
	"encoding/csv"
	"fmt"
	"math"
	"strings"
	"testing"
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
	lines, err := csv.NewReader(strings.NewReader(tables["extended.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
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
		"| GPN | 80.0 ± 0.0 | 15.0 ± 5.0 |",         // Acc, ECE in percent
		"| coverage DAPS | set size DAPS |",          // conformal header
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
	for _, want := range []string{"Calibration", "GPN on CoraML", "Conformal prediction sets", "OOD detection: DICE"} {
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
