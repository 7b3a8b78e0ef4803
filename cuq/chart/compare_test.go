package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// secondPrediction is testPrediction with nodes 3 and 4 wrong (accuracy
// 0.6) and model name "Other".
func secondPrediction(t *testing.T) *cuq.Prediction {
	p := testPrediction(t)
	p.Model, p.Class = "Other", []int{0, 1, 0, 0, 1}
	return p
}

func TestMeanSE(t *testing.T) {
	// 1, 2, 3: mean 2, sample standard deviation 1, SE 1/√3.
	if m, se := meanSE([]float64{1, 2, 3}); m != 2 || math.Abs(se-1/math.Sqrt(3)) > 1e-15 {
		t.Errorf("meanSE(1, 2, 3) = %v, %v; want 2, %v", m, se, 1/math.Sqrt(3))
	}
	if m, se := meanSE([]float64{4}); m != 4 || se != 0 {
		t.Errorf("meanSE(4) = %v, %v; want 4, 0", m, se)
	}
}

func TestGroupRuns(t *testing.T) {
	p, q := testPrediction(t), secondPrediction(t)
	g, err := groupRuns("op", []Run{{Pred: p}, {Label: "B", Pred: q}, {Label: "Toy", Pred: q}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || g[0].label != "Toy" || len(g[0].runs) != 2 || g[1].label != "B" {
		t.Errorf("groups %+v, want Toy (2 runs: the unlabelled one is named by its model), then B", g)
	}
	if _, err := groupRuns("op", nil); err == nil || err.Error() != "op: no runs" {
		t.Errorf("no runs: error %v", err)
	}
	var nilPred *cuq.Prediction
	if _, err := groupRuns("op", []Run{{Label: "x", Pred: nilPred}}); err == nil || !strings.Contains(err.Error(), `run 0 ("x") has no prediction`) {
		t.Errorf("nil prediction: error %v", err)
	}
}

func TestARCOfRunsOneMeasure(t *testing.T) {
	p, q := testPrediction(t), secondPrediction(t)
	all := []int{0, 1, 2, 3, 4}
	// Toy twice (0.8 both times) and Other once; then Toy's repeat with
	// Other's classes gives Toy the mean of 0.8 and 0.6.
	c, opt := optionOf(t, ARCOfRuns(Run{Pred: p, Nodes: all}, Run{Pred: q, Nodes: all},
		Run{Label: "Toy", Pred: q, Nodes: all}).Measures(uq.EU))
	if c.Title != "EU: accuracy-rejection curves by model" {
		t.Errorf("title %q", c.Title)
	}
	s := series(t, opt)
	// Toy: band (2 helper series) and mean; Other: mean only.
	if len(s) != 4 || s[2]["name"] != "Toy" || s[3]["name"] != "Other" {
		t.Fatalf("series %v, want Toy's band and curve, then Other's curve", s)
	}
	mean := s[2]["data"].([]any)
	if len(mean) != 100 {
		t.Errorf("%d points, want 100 (the one-node point at r = 1 dropped)", len(mean))
	}
	if math.Abs(mean[0].(float64)-0.7) > 1e-12 {
		t.Errorf("Toy's accuracy at r = 0 is %v, want the mean of 0.8 and 0.6", mean[0])
	}
	// SE of 0.8 and 0.6: sd 0.1414…, over √2: 0.1; the band is 0.6 to 0.8.
	if lo, w := s[0]["data"].([]any)[0].(float64), s[1]["data"].([]any)[0].(float64); math.Abs(lo-0.6) > 1e-12 || math.Abs(w-0.2) > 1e-12 {
		t.Errorf("band at r = 0 from %v, width %v; want 0.6 and 0.2", lo, w)
	}
	if s[2]["color"] != ModelColor("Toy") || s[3]["color"] != ModelColor("Other") {
		t.Errorf("colours %v, %v; want each model's", s[2]["color"], s[3]["color"])
	}
	if _, dash := MeasureStyle(uq.EU); dash != Dotted || s[2]["lineStyle"].(map[string]any)["type"] == "solid" {
		t.Errorf("EU curves drawn %v, want dotted", s[2]["lineStyle"])
	}
	if _, err := ARCOfRuns(Run{Pred: p, Nodes: all}).Measures(uq.EUSO).Done(); err == nil || !strings.Contains(err.Error(), "no model has EU_SO") {
		t.Errorf("missing measure: error %v", err)
	}
	if _, err := ARCOfRuns(Run{Pred: p, Nodes: []int{9}}).Done(); err == nil || !strings.Contains(err.Error(), "Toy: node 9 out of range [0, 5)") {
		t.Errorf("bad node: error %v", err)
	}
}

func TestARCOfRunsPanels(t *testing.T) {
	p, q := testPrediction(t), secondPrediction(t)
	q.EUPC = nil
	all := []int{0, 1, 2, 3, 4}
	_, opt := optionOf(t, ARCOfRuns(Run{Pred: p, Nodes: all}, Run{Pred: q, Nodes: all}).Cols(2))
	grids := opt["grid"].([]any)
	if len(grids) != 4 {
		t.Fatalf("%d panels, want TU, AU, EU, EU_PC", len(grids))
	}
	var titles []string
	for _, x := range opt["title"].([]any)[1:] {
		titles = append(titles, x.(map[string]any)["text"].(string))
	}
	if strings.Join(titles, ",") != "TU,AU,EU,EU_PC" {
		t.Errorf("panel titles %v", titles)
	}
	// Two curves in each of the first three panels, Toy's only in EU_PC's.
	perAxis := map[float64]int{}
	for _, s := range series(t, opt) {
		perAxis[s["xAxisIndex"].(float64)]++
	}
	if perAxis[0] != 2 || perAxis[1] != 2 || perAxis[2] != 2 || perAxis[3] != 1 {
		t.Errorf("curves per panel %v, want 2, 2, 2, 1", perAxis)
	}
	if legend := opt["legend"].(map[string]any)["data"].([]any); len(legend) != 2 || legend[0] != "Toy" || legend[1] != "Other" {
		t.Errorf("legend %v, want the two models", legend)
	}
}

func TestAddBins(t *testing.T) {
	nan := math.NaN()
	a := []eval.Bin{{Count: 2, Accuracy: 0.5, Confidence: 0.6}, {Count: 0, Accuracy: nan, Confidence: nan}, {Count: 1, Accuracy: 0, Confidence: 0.7}}
	b := []eval.Bin{{Count: 3, Accuracy: 1, Confidence: 0.8}, {Count: 1, Accuracy: 1, Confidence: 0.9}, {Count: 0, Accuracy: nan, Confidence: nan}}
	s := addBins(addBins(nil, a), b)
	// (2·0.5 + 3·1)/5 = 0.8, (2·0.6 + 3·0.8)/5 = 0.72.
	if s[0].Count != 5 || math.Abs(s[0].Accuracy-0.8) > 1e-12 || math.Abs(s[0].Confidence-0.72) > 1e-12 {
		t.Errorf("bin 0 = %+v, want 5 nodes, accuracy 0.8, confidence 0.72", s[0])
	}
	if s[1].Count != 1 || s[1].Accuracy != 1 || s[1].Confidence != 0.9 {
		t.Errorf("bin 1 = %+v, want the one node added, the empty bin's NaN gone", s[1])
	}
	if s[2].Count != 1 || s[2].Accuracy != 0 || s[2].Confidence != 0.7 {
		t.Errorf("bin 2 = %+v, want the first input's node, the empty bin's NaN ignored", s[2])
	}
	if a[0].Count != 2 {
		t.Error("addBins changed its first input")
	}
}

func TestReliabilityOfRuns(t *testing.T) {
	p := calibrationPrediction(t)
	q := calibrationPrediction(t)
	q.Model = "Other"
	all := []int{0, 1, 2, 3, 4}
	c, opt := optionOf(t, ReliabilityOfRuns(Run{Pred: p, Nodes: all}, Run{Pred: p, Nodes: all}, Run{Pred: q, Nodes: all[:3]}).Bins(4))
	titles := opt["title"].([]any)
	// Toy twice: 10 nodes; Other on 3 nodes.
	if got := titles[1].(map[string]any); got["text"] != "Toy" || !strings.HasSuffix(got["subtext"].(string), "10 nodes, 2 runs") {
		t.Errorf("first panel title %v, want Toy, 10 nodes, 2 runs", got)
	}
	if got := titles[2].(map[string]any); got["text"] != "Other" || !strings.HasSuffix(got["subtext"].(string), " 3 nodes") {
		t.Errorf("second panel title %v", got)
	}
	s := series(t, opt)
	bars := s[0]["data"].([]any)
	// Bin (0.75, 1]: nodes 0 and 3 twice, both right.
	if b := bars[3].(map[string]any); b["count"] != 4.0 || b["value"] != 1.0 {
		t.Errorf("Toy's top bin %v, want 4 nodes, accuracy 1", b)
	}
	if s[0]["itemStyle"].(map[string]any)["color"] != ModelColor("Toy") {
		t.Errorf("Toy's bars %v, want its colour", s[0]["itemStyle"])
	}
	for _, y := range opt["yAxis"].([]any) {
		if y := y.(map[string]any); y["min"] != 0.0 || y["max"] != 1.0 {
			t.Errorf("accuracy axis %v, want [0, 1] in every panel", y)
		}
	}
	if c.Width <= 560 {
		t.Errorf("width %d: two panels should be side by side", c.Width)
	}
}

func TestDecompositionOfRunsSharesAxes(t *testing.T) {
	p := testPrediction(t)
	q := secondPrediction(t)
	q.AU = []float64{0.5, 1, 1.5, 2, 2.5}
	c, opt := optionOf(t, DecompositionOfRuns(Run{Pred: p, Nodes: []int{0, 1, 4}, OOD: []int{2, 3}}, Run{Pred: q, Nodes: []int{0, 1, 2}}))
	xs, ys := opt["xAxis"].([]any), opt["yAxis"].([]any)
	if len(xs) != 2 || len(ys) != 2 {
		t.Fatalf("%d x and %d y axes, want one pair per model", len(xs), len(ys))
	}
	for k := range xs {
		x, y := xs[k].(map[string]any), ys[k].(map[string]any)
		// AU up to 1.5 (Other's nodes) → [0, 2]; EU up to 0.3 → [0, 0.3].
		if x["min"] != 0.0 || x["max"] != 2.0 || y["min"] != 0.0 || y["max"] != 0.3 {
			t.Errorf("panel %d: AU [%v, %v], EU [%v, %v]; want [0, 2] and [0, 0.3] in both", k, x["min"], x["max"], y["min"], y["max"])
		}
	}
	titles := opt["title"].([]any)
	if got := titles[1].(map[string]any); got["text"] != "Toy" || got["subtext"] != "ID accuracy 66.7% · 3 ID, 2 OOD" {
		t.Errorf("first panel %v", got)
	}
	if got := titles[2].(map[string]any); got["text"] != "Other" || got["subtext"] != "ID accuracy 100.0% · 3 nodes" {
		t.Errorf("second panel %v", got)
	}
	if c.Title != "Aleatoric vs epistemic uncertainty" {
		t.Errorf("title %q", c.Title)
	}
	first := testPrediction(t)
	first.AU, first.EU = nil, nil
	if _, err := DecompositionOfRuns(Run{Pred: first, Nodes: []int{0}}).Done(); err == nil || !strings.Contains(err.Error(), "Toy has no AU and EU") {
		t.Errorf("no AU: error %v", err)
	}
}

func TestNiceBounds(t *testing.T) {
	for _, tc := range []struct{ v, lo, hi float64 }{
		{0.437, 0.4, 0.5}, {2.5, 2, 3}, {0, 0, 0}, {-0.0213, -0.03, -0.02}, {0.3, 0.3, 0.3},
	} {
		if lo, hi := niceLow(tc.v), niceHigh(tc.v); math.Abs(lo-tc.lo) > 1e-12 || math.Abs(hi-tc.hi) > 1e-12 {
			t.Errorf("nice bounds of %v: %v, %v; want %v, %v", tc.v, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestAUROCTableOfRuns(t *testing.T) {
	p := testPrediction(t)
	q := testPrediction(t)
	// With TU 0.6, 0.2, 0.3 at ID and 0.4, 0.1 at OOD, 2 of the 6 pairs
	// are ordered right: AUROC 1/3.
	q.TU = []float64{0.6, 0.2, 0.3, 0.4, 0.1}
	r := secondPrediction(t)
	r.EUPC = nil
	id, ood := []int{0, 1, 2}, []int{3, 4}
	tab, err := AUROCTableOfRuns(Run{Pred: p, Nodes: id, OOD: ood}, Run{Pred: q, Nodes: id, OOD: ood}, Run{Pred: r, Nodes: id, OOD: ood})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tab.Header, ",") != "model,runs,TU,AU,EU,EU_PC" {
		t.Errorf("header %v", tab.Header)
	}
	// Toy's TU: 100 and 33.3: mean 66.7, SE |100 − 33.3|/2 = 33.3.
	if got := tab.Rows[0][2]; got != "66.7 ± 33.3" {
		t.Errorf("Toy's TU %q, want 66.7 ± 33.3", got)
	}
	if got := tab.Rows[1]; got[0] != "Other" || got[1] != "1" || got[2] != "100.0" || got[5] != "–" {
		t.Errorf("Other's row %v, want one run, TU 100.0 and no EU_PC", got)
	}
	if _, err := AUROCTableOfRuns(Run{Pred: p, Nodes: id}); err == nil {
		t.Error("no OOD nodes: no error")
	}
}

func TestResults(t *testing.T) {
	b := Results("Cora ML").Digits(2).
		Add("GPN", "", "accuracy", 80).Add("GPN", "", "accuracy", 82).Add("GPN", "", "accuracy", 84).
		Add("GPN", "", "ECE", 3).Add("APPNP", "", "accuracy", 85)
	tab, err := b.Done()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tab.Header, ",") != "model,runs,accuracy,ECE" {
		t.Errorf("header %v, want no setting column", tab.Header)
	}
	// 80, 82, 84: mean 82, sd 2, SE 2/√3 = 1.1547.
	want := [][]string{{"GPN", "3", "82.00 ± 1.15", "3.00 (n = 1)"}, {"APPNP", "1", "85.00", "–"}}
	for i := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %v, want %v", i, tab.Rows[i], want[i])
		}
	}
	tab, err = Results("").Add("GPN", "Cora", "AUROC", 90).Add("GPN", "Photo", "AUROC", 70).Add("APPNP", "Photo", "AUROC", 60).Done()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tab.Header, ",") != "model,setting,runs,AUROC" || len(tab.Rows) != 3 || tab.Rows[2][1] != "Photo" {
		t.Errorf("header %v, rows %v; want a setting column and the three (model, setting) rows", tab.Header, tab.Rows)
	}
	for _, tc := range []struct {
		b    *ResultsBuilder
		want string
	}{
		{Results("x"), "no values"},
		{Results("x").Add("a", "", "m", math.NaN()), "value NaN"},
		{Results("x").Add("a", "", "m", 1).Digits(-1), "-1 digits"},
	} {
		if _, err := tc.b.Done(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestModelColor(t *testing.T) {
	if ModelColor("CUQ-GAT") != ModelPalette[6] || ModelColor("APPNP") == ModelColor("GPN") {
		t.Error("preset models do not get their fixed, distinct colours")
	}
	// FNV-1a of "x" is 0x050c5d67 = 84696423; mod 12 = 3.
	if ModelColor("x") != ModelPalette[84696423%12] {
		t.Errorf("ModelColor(x) = %s, want %s", ModelColor("x"), ModelPalette[84696423%12])
	}
	for _, c := range ModelPalette {
		if err := checkColor(c); err != nil {
			t.Error(err)
		}
	}
}

func TestSetSizesOfRuns(t *testing.T) {
	p := setSizePrediction(t)
	q := setSizePrediction(t)
	q.Model = "Other"
	all := []int{0, 1, 2, 3, 4}
	aps := conformal.APS{NonRandomized: true}
	// As in TestSetSizesOf: at α = ¼ every set is the predicted class
	// alone (2 evaluation nodes a run), at α = 0.2 both classes.
	c, err := SetSizesOfRuns(Run{Pred: p, Nodes: all}, Run{Pred: q, Nodes: all}, Run{Pred: p, Nodes: all}).
		Scores(aps).Alpha(0.25).Seed(5).Done()
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	// Toy's two runs add up to 4 singleton sets of 4 evaluated nodes,
	// Other's one to 2 of 2.
	want := []struct {
		name   string
		counts []float64
	}{
		{"Toy APS (non-randomised): coverage 100.0%, mean size 1.00", []float64{0, 4, 0}},
		{"Other APS (non-randomised): coverage 100.0%, mean size 1.00", []float64{0, 2, 0}},
	}
	s := series(t, opt)
	if len(s) != 2 {
		t.Fatalf("%d series, want 2", len(s))
	}
	for k, w := range want {
		if s[k]["name"] != w.name {
			t.Errorf("series %d is %q, want %q", k, s[k]["name"], w.name)
		}
		for size, d := range s[k]["data"].([]any) {
			item := d.(map[string]any)
			if item["count"] != w.counts[size] || item["value"] != w.counts[size]/w.counts[1] {
				t.Errorf("series %d, size %d: %v, want %v nodes", k, size, item, w.counts[size])
			}
		}
	}
	if s[0]["itemStyle"].(map[string]any)["color"] != ModelColor("Toy") || s[1]["itemStyle"].(map[string]any)["color"] != ModelColor("Other") {
		t.Errorf("bar colours %v, %v; want the models'", s[0]["itemStyle"], s[1]["itemStyle"])
	}
	if _, err := SetSizesOfRuns().Done(); err == nil || err.Error() != "chart.SetSizesOfRuns: no runs" {
		t.Errorf("no runs: error %v", err)
	}
}
