package experiment

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/experiment/reftables"
)

// shift returns the map with d added to every value.
func shift(m map[string]float64, d float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = v + d
	}
	return out
}

// handRecords returns records with round numbers: two runs of GPN and of
// APPNP on AmazonPhotos, one run of GPN on CoraML.
func handRecords() []*Record {
	auroc := map[string]float64{"LC": 0.6, "TU": 0.7, "AU": 0.75, "EU": 0.8, "EU_PC": 0.85, "EU_SO": 0.9}
	gpn := func(split int, acc, pc, tuOOD float64, d float64) *Record {
		return &Record{Dataset: "AmazonPhotos", Model: "gpn", Split: split, Init: 1, Results: map[string]*Result{
			"classification": {Accuracy: acc, ARC: map[string][]float64{"TU": curve(acc), "EU_PC": curve(pc), "LC": curve(0.25), PredictedAlpha: curve(pc)}},
			"gaussian": {Accuracy: 0.7, IDAccuracy: ptr(0.7), OODAccuracy: ptr(0.1), AUROC: shift(auroc, d),
				IDMean:  map[string]float64{"TU": 1, "EU_SO": -2, "EU": 0.5},
				OODMean: map[string]float64{"TU": tuOOD, "EU_SO": -1, "EU": -0.1}},
		}}
	}
	appnp := func(split int) *Record {
		return &Record{Dataset: "AmazonPhotos", Model: "appnp", Split: split, Init: 1, Results: map[string]*Result{
			"classification": {Accuracy: 0.6, ARC: map[string][]float64{"TU": curve(0.6), "LC": curve(0.5)}},
			"gaussian": {Accuracy: 0.6, IDAccuracy: ptr(0.6), OODAccuracy: ptr(0.3),
				AUROC: map[string]float64{"TU": 0.4, "LC": 0.45}},
		}}
	}
	cora := &Record{Dataset: "CoraML", Model: "gpn", Split: 1, Init: 1, Results: map[string]*Result{
		"classification": {Accuracy: 0.75, ARC: map[string][]float64{"TU": curve(0.75), "AU": curve(0.5), "EU": curve(0.5), "EU_PC": curve(0.8)}},
	}}
	return []*Record{gpn(2, 0.9, 0.75, 3, 0.1), appnp(1), cora, gpn(1, 0.8, 0.5, 1, 0), appnp(2)}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAggregateTables(t *testing.T) {
	res, err := Aggregate(handRecords())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Datasets, ",") != "CoraML,AmazonPhotos" || len(res.Models) != 2 || res.Models[0] != APPNP || res.Models[1] != GPN {
		t.Fatalf("datasets %v, models %v", res.Datasets, res.Models)
	}
	dir := t.TempDir()
	must(t, res.WriteTables(dir))
	tables := readTables(t, dir)
	rows, err := reftables.ReadIDOOD(strings.NewReader(tables["id_ood.csv"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Dataset != "CoraML" || rows[1].Dataset != `Amazon\\Photos` || rows[1].Model != "APPNP" || rows[2].Model != "GPN" {
		t.Fatalf("rows %+v", rows)
	}
	gpn := rows[2]
	// Accuracy 0.8 and 0.9: mean 0.85, var 0.005, SE sqrt(0.005/2) = 0.05.
	if !near(gpn.Acc.Value.Value, 0.85) || !near(gpn.Acc.SE.Value, 0.05) {
		t.Errorf("GPN acc %+v", gpn.Acc)
	}
	noise := gpn.Settings[reftables.OODNormal]
	for col, want := range map[reftables.SettingMetric]float64{
		reftables.IDAcc: 0.7, reftables.OODAcc: 0.1,
		reftables.OODTotal: 0.65, reftables.OODAleatoric: 0.65, reftables.OODTotalEntropy: 0.75, reftables.OODAleatoricEntropy: 0.8,
		reftables.OODEpistemicEntropyDiff: 0.85, reftables.OODEpistemic: 0.9, reftables.OODEpistemicEntropy: 0.95,
	} {
		m := noise.Metrics[col]
		if !m.Value.Valid || !near(m.Value.Value, want) {
			t.Errorf("GPN noise %s = %+v, want %v", reftables.SettingMetricNames[col], m.Value, want)
		}
	}
	// Change TU: mean ID 1, mean OOD 2 → +100%; EU_SO: −1/|−2| − 1 = −150%;
	// EU: the means differ in sign → absent; AU: no means → absent.
	ch := noise.Changes
	if !near(ch[reftables.TotalEntropyChange].Value, 1) || !near(ch[reftables.EpistemicEntropyChange].Value, -1.5) ||
		ch[reftables.EpistemicEntropyDiffChange].Valid || ch[reftables.AleatoricEntropyChange].Valid {
		t.Errorf("GPN changes %+v", ch)
	}
	if gpn.Settings[reftables.OODLoc].Metrics[reftables.IDAcc].Value.Valid {
		t.Errorf("leave-out classes present without records")
	}
	appnp := rows[1].Settings[reftables.OODNormal].Metrics
	if appnp[reftables.OODAleatoricEntropy].Value.Valid || !near(appnp[reftables.OODTotalEntropy].Value.Value, 0.4) {
		t.Errorf("APPNP: AU %+v (want absent), TU %+v", appnp[reftables.OODAleatoricEntropy], appnp[reftables.OODTotalEntropy])
	}
	// One run: no standard error ("0.00" in the table); Best is per dataset.
	if !strings.Contains(tables["id_ood.csv"], "\n0,CoraML,GPN,75.00,0.00,1,") || !strings.Contains(tables["id_ood.csv"], "\n2,Amazon\\\\Photos,GPN,85.00,5.00,1,") ||
		!strings.Contains(tables["id_ood.csv"], "\n1,Amazon\\\\Photos,APPNP,60.00,0.00,0,") {
		t.Errorf("id_ood.csv:\n%s", tables["id_ood.csv"])
	}

	// acc_rej: "sample" is EU_PC, falling back to max-prob for APPNP; GPN's
	// EU_PC curves 0.5 and 0.75 give mean 0.625, var 0.03125, SE 0.125.
	lines := strings.Split(tables["acc_rej_sample_Photos.csv"], "\n")
	if len(lines) != 102 || lines[0] != "p,appnpMean,appnpVar,appnpSE,gpnMean,gpnVar,gpnSE" ||
		lines[1] != "0.0,0.5,0.0,0.0,0.625,0.03125,0.125" || !strings.HasPrefix(lines[101], "1.0,") {
		t.Errorf("acc_rej_sample_Photos.csv: %d lines, %q, %q", len(lines), lines[0], lines[1])
	}
	if got := strings.SplitN(tables["acc_rej_prediction_Photos.csv"], "\n", 3)[1]; got != "0.0,0.5,0.0,0.0,0.625,0.03125,0.125" {
		t.Errorf("acc_rej_prediction_Photos.csv row 1 = %q", got)
	}
	// One run: the variance is NaN (an empty cell) and there is no SE ("0").
	if got := strings.SplitN(tables["acc_rej_sample_total_entropy_CoraML.csv"], "\n", 3); got[0] != "p,gpnMean,gpnVar,gpnSE" || got[1] != "0.0,0.75,,0" {
		t.Errorf("acc_rej_sample_total_entropy_CoraML.csv starts %q", got[:2])
	}
	// A model without AU (APPNP: a softmax's aleatoric entropy is its
	// entropy) contributes its TU curve, as in the reference; no Photos
	// record has an AU curve, so the two tables agree.
	if ale, tot := tables["acc_rej_sample_aleatoric_entropy_Photos.csv"], tables["acc_rej_sample_total_entropy_Photos.csv"]; ale == "" || ale != tot {
		t.Errorf("Photos aleatoric-entropy ARC table differs from the TU table (%d vs %d bytes)", len(ale), len(tot))
	}
	for _, name := range []string{"acc_rej_sample_aleatoric_entropy_CoraML.csv", "acc_rej_prediction_epistemic_Photos.csv", "id_ood.md"} {
		if _, ok := tables[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
	if !strings.Contains(tables["id_ood.md"], "| GPN | 85.00 ± 5.00 |") {
		t.Errorf("id_ood.md:\n%s", tables["id_ood.md"])
	}

	if _, err := Aggregate(append(handRecords(), handRecords()[0])); err == nil || !strings.Contains(err.Error(), "recorded twice") {
		t.Errorf("duplicate records: %v", err)
	}
}

func TestWriteReport(t *testing.T) {
	res, err := Aggregate(handRecords())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	must(t, res.WriteReport(dir, ReportOptions{}))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		"CoraML: TU", "CoraML: EU_PC", "AmazonPhotos: TU", // panels: datasets × measures
		"no curve in this panel",        // AmazonPhotos: AU
		">paper</td>", "80.34", "89.36", // the paper's CoraML GPN accuracy and LOC ID accuracy
		"CoraML: leave-out classes (%)", "CoraML: Gaussian noise (%)", "Bernoulli noise", "Training runs",
		"Licensed to the Apache Software Foundation", // ECharts inlined: the report draws offline
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(html, `class="cuq-chart"`); n != 1 {
		t.Errorf("%d charts, want the one figure of 8 panels", n)
	}
	if n := strings.Count(html, `"gridIndex":`); n != 16 {
		t.Errorf("%d axes, want 16 (8 panels: CoraML and AmazonPhotos × TU, AU, EU, EU_PC)", n)
	}
	png, err := os.ReadFile(filepath.Join(dir, "figures", "arc.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("arc.png: %v, %.8q", err, png)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "figures", "arc.svg"))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("CoraML: EU")) {
		t.Errorf("arc.svg: %v", err)
	}
	small := t.TempDir()
	must(t, res.WriteReport(small, ReportOptions{CDN: "https://example.org/echarts.js"}))
	if b, _ := os.ReadFile(filepath.Join(small, "report.html")); !bytes.Contains(b, []byte(`"https://example.org/echarts.js"`)) || len(b) > len(page)/2 {
		t.Errorf("CDN report (%d bytes) does not load the library from the CDN", len(b))
	}
}

func TestOODTableHasThePapersRows(t *testing.T) {
	res, err := Aggregate(handRecords())
	if err != nil {
		t.Fatal(err)
	}
	tb, err := res.OODTable("CoraML", LeaveOutClasses)
	if err != nil {
		t.Fatal(err)
	}
	var paper []string
	for _, r := range tb.Rows {
		if r[0] == "GPN" && r[1] == "paper" {
			paper = r
		}
	}
	// The paper's CoraML GPN row: Acc 80.34, LOC ID acc 89.36, TU 85.51.
	if paper == nil || paper[2] != "80.34" || paper[3] != "89.36" || paper[4] != "85.51" {
		t.Errorf("paper row %v, want GPN paper 80.34 89.36 85.51 …", paper)
	}
	if _, err := res.OODTable("CoraML", Classification); err == nil {
		t.Error("classification is not an OOD setting: no error")
	}
	if _, err := res.OODTable("Nowhere", GaussianNoise); err == nil || !strings.Contains(err.Error(), `"Nowhere"`) {
		t.Errorf("unknown dataset: error %v", err)
	}
}

func TestARCAreaTable(t *testing.T) {
	res, err := Aggregate(handRecords())
	if err != nil {
		t.Fatal(err)
	}
	tb, err := res.ARCAreaTable()
	if err != nil {
		t.Fatal(err)
	}
	if tb.Header[1] != res.Datasets[0]+" TU" || len(tb.Header) != 1+len(res.Datasets)*len(ARCMeasures) {
		t.Fatalf("header %v", tb.Header)
	}
	// Each area is the mean of the curve's first 100 points.
	for r, model := range res.Models {
		for k, m := range ARCMeasures {
			c, ok := res.Curves[res.Datasets[0]][m.String()][model]
			got := tb.Rows[r][1+k]
			if !ok {
				if got != "–" {
					t.Errorf("%v %v: %q for a missing curve", model, m, got)
				}
				continue
			}
			s := 0.0
			for _, v := range c.Mean[:100] {
				s += v
			}
			if want := fmt.Sprintf("%.2f", s); got != want {
				t.Errorf("%v %v: area %s, want %s", model, m, got, want)
			}
		}
	}
}
