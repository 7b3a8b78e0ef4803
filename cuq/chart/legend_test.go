package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// helvetica holds Helvetica's advance widths (AFM, per 1000 em) of the
// characters in the legends, the metrics of the browsers' default
// sans-serif font; other characters count a full em.
var helvetica = func() map[rune]float64 {
	m := map[rune]float64{' ': 278, '(': 333, ')': 333, '=': 584, '_': 556, '-': 333, '.': 278, ',': 278,
		':': 278, '%': 889, '>': 584, '<': 584, '–': 556, '·': 278, '/': 278, '+': 584}
	for i, w := range []float64{667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611} {
		m[rune('A'+i)] = w
	}
	for i, w := range []float64{556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500} {
		m[rune('a'+i)] = w
	}
	for r := '0'; r <= '9'; r++ {
		m[r] = 556
	}
	return m
}()

// helveticaWidth is the width of s in 12 px Helvetica.
func helveticaWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if v, ok := helvetica[r]; ok {
			w += v
		} else {
			w += 1000
		}
	}
	return w * 12 / 1000
}

type rect struct{ x0, y0, x1, y1 float64 }

func (a rect) overlaps(b rect) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// place returns a position value of an option in pixels: a number, a
// string of a number or a percentage of total; ok is false when absent.
func place(v any, total float64) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		if p, ok := strings.CutSuffix(x, "%"); ok {
			f, err := strconv.ParseFloat(p, 64)
			return f / 100 * total, err == nil
		}
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// span returns the start and end of a box along one dimension of size
// total from its near, far and size settings (ECharts' left, right,
// width), with the defaults near0 and far0 where both are absent.
func span(m map[string]any, nearKey, farKey, sizeKey string, total, near0, far0 float64) (float64, float64) {
	near, hasNear := place(m[nearKey], total)
	far, hasFar := place(m[farKey], total)
	size, hasSize := place(m[sizeKey], total)
	switch {
	case hasNear && hasSize:
		return near, near + size
	case hasFar && hasSize:
		return total - far - size, total - far
	}
	if !hasNear {
		near = near0
	}
	if !hasFar {
		far = far0
	}
	return near, total - far
}

// legendRect estimates the box of legend (an ECharts legend option) of
// names in a chart of the given size, with Helvetica's widths.
func legendRect(legend map[string]any, names []string, w, h float64) rect {
	item := func(s string) float64 { return 25 + 5 + helveticaWidth(s) }
	var bw, bh float64
	if legend["orient"] == "vertical" {
		for _, s := range names {
			bw = math.Max(bw, item(s))
		}
		n := float64(len(names))
		bw, bh = bw+10, n*14+(n-1)*10+10
		if top, ok := place(legend["top"], h); ok && legend["type"] == "scroll" {
			bh = math.Min(bh, h-top)
		}
	} else {
		avail := w - 10
		if l, ok := place(legend["left"], w); ok {
			avail -= l
		}
		if r, ok := place(legend["right"], w); ok {
			avail -= r
		}
		rows, x := 1.0, 0.0
		for k, s := range names {
			iw := item(s)
			if k > 0 && x+10+iw > avail {
				rows, x = rows+1, iw
				continue
			}
			if k > 0 {
				x += 10
			}
			x += iw
			bw = math.Max(bw, x)
		}
		bw, bh = bw+10, rows*14+(rows-1)*10+10
	}
	var r rect
	if l, ok := place(legend["left"], w); ok {
		r.x0 = l
	} else if rt, ok := place(legend["right"], w); ok {
		r.x0 = w - rt - bw
	} else {
		r.x0 = (w - bw) / 2
	}
	if t, ok := place(legend["top"], h); ok {
		r.y0 = t
	} else if b, ok := place(legend["bottom"], h); ok {
		r.y0 = h - b - bh
	}
	r.x1, r.y1 = r.x0+bw, r.y0+bh
	return r
}

// asList returns v as a list of maps (a single map or a list).
func asList(v any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return []map[string]any{x}
	case []any:
		var out []map[string]any
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// checkLegend fails t when the legend of opt may cover a plot area of the
// chart: a grid, or a graph series' box.
func checkLegend(t *testing.T, name string, c *Chart, opt map[string]any) {
	t.Helper()
	w, h := float64(c.Width), float64(c.Height)
	var plots []rect
	for _, g := range asList(opt["grid"]) {
		x0, x1 := span(g, "left", "right", "width", w, 0.1*w, 0.1*w)
		y0, y1 := span(g, "top", "bottom", "height", h, 60, 70)
		plots = append(plots, rect{x0, y0, x1, y1})
	}
	for _, s := range asList(opt["series"]) {
		if s["type"] == "graph" {
			x0, x1 := span(s, "left", "right", "width", w, 0.1*w, 0.1*w)
			y0, y1 := span(s, "top", "bottom", "height", h, 60, 70)
			plots = append(plots, rect{x0, y0, x1, y1})
		}
	}
	if len(plots) == 0 {
		t.Fatalf("%s: no plot area in the option", name)
	}
	for _, legend := range asList(opt["legend"]) {
		var names []string
		for _, n := range asListAny(legend["data"]) {
			names = append(names, fmt.Sprint(n))
		}
		if names == nil { // a legend of every series
			for _, s := range asList(opt["series"]) {
				names = append(names, fmt.Sprint(s["name"]))
			}
		}
		lr := legendRect(legend, names, w, h)
		if lr.x0 < 0 || lr.x1 > w {
			t.Errorf("%s: legend from x = %.0f to %.0f leaves the %g px wide chart", name, lr.x0, lr.x1, w)
		}
		for k, p := range plots {
			if lr.overlaps(p) {
				t.Errorf("%s: legend %+v covers plot %d %+v (legend %q)", name, lr, k, p, names)
			}
		}
	}
}

func asListAny(v any) []any {
	if x, ok := v.([]any); ok {
		return x
	}
	return nil
}

// presetModels are the names of cuqgnn's preset models (cuq's builders and
// committees).
var presetModels = []string{"APPNP", "GKDE", "GPN", "LOP-GPN", "CUQ-PPR", "CUQ-GCN", "CUQ-GAT", "GCN",
	"Ensemble-GCN", "Ensemble-APPNP", "MC-Dropout-GCN", "DropEdge-GCN"}

// longPrediction is testPrediction under the longest preset name, with
// every measure, EU_SO equal to EU_PC, so that the legends say so.
func longPrediction(t *testing.T, model string) *cuq.Prediction {
	p := testPrediction(t)
	p.Model = model
	p.EUSO = append([]float64(nil), p.EUPC...)
	p.Prob = calibrationPrediction(t).Prob
	return p
}

// TestLegendsCoverNoData renders every chart with the longest names there
// are and checks, from the ECharts option, that the legend's box (its
// position and a size estimated from Helvetica's text widths and the item
// count) does not meet a plot area.
func TestLegendsCoverNoData(t *testing.T) {
	all := []int{0, 1, 2, 3, 4}
	long := longPrediction(t, "MC-Dropout-GCN")
	var runs []Run
	for _, m := range presetModels {
		runs = append(runs, Run{Pred: longPrediction(t, m), Nodes: all, OOD: []int{3, 4}})
	}
	rejection, curves := testCurves()
	var composed []Curve
	for _, c := range curves {
		for _, m := range []string{"CUQ-GAT", "Ensemble-APPNP"} {
			composed = append(composed, Curve{Name: m + " " + c.Name, Mean: c.Mean, SE: c.SE})
		}
	}
	composed = append(composed, Curve{Name: "CUQ-GAT AU", Mean: composed[0].Mean})
	measures := []string{"TU", "AU", "EU", "EU_PC", "EU_SO", "LC"}
	var panels []Panel
	for _, m := range measures {
		panels = append(panels, Panel{Title: m, Curves: composed})
	}
	x := []string{"100", "1000", "10000"}
	var lines []Curve
	for _, m := range presetModels {
		lines = append(lines, Curve{Name: m + " EU_PC", Mean: []float64{1, 2, 3}})
	}
	values := []float64{0.123456, 0.234567, 0.345678, 0.456789, 0.567891, 0.678912, 0.789123, 0.891234}
	view := GraphView{Title: "g", Measure: "EU_PC", Values: values, More: []GraphLayer{{Measure: "EU_SO", Values: values}},
		Edges: [][2]int{{0, 1}, {1, 2}}, Marked: make([]bool, 8), MarkLabel: "OOD"}
	var counts []SetSizeCounts
	for _, m := range presetModels[:6] {
		counts = append(counts, SetSizeCounts{Label: m + " RAPS", Counts: []int{1, 100, 30, 3}, Coverage: 0.9, MeanSize: 1.3})
	}
	var training []Series
	for _, n := range []string{"training loss", "validation CE", "validation accuracy", "validation AUROC of EU_PC"} {
		training = append(training, Series{Name: n, Values: []float64{1, 2, 3}})
	}
	build := map[string]func() (*Chart, error){
		"ARCOf":              ARCOf(long, all).Done,
		"ARCOfRuns one":      ARCOfRuns(runs...).Measures(uq.EU).Done,
		"ARCOfRuns panels":   ARCOfRuns(runs...).Done,
		"ARCOfRuns narrow":   ARCOfRuns(runs...).Cols(1).Done,
		"Reliability narrow": ReliabilityOfRuns(runs...).Cols(1).Done,
		"ARC composed":       func() (*Chart, error) { return ARC("t", rejection, composed...) },
		"ARCGrid":            func() (*Chart, error) { return ARCGrid("t", rejection, 3, panels) },
		"Lines":              func() (*Chart, error) { return Lines("t", "nodes", "seconds", x, lines...) },
		"RiskCoverageOf":     RiskCoverageOf(long, all).Done,
		"ReliabilityOf":      ReliabilityOf(long, all).Done,
		"ReliabilityOfRuns":  ReliabilityOfRuns(runs...).Done,
		"DecompositionOf":    DecompositionOf(long, []int{0, 1, 4}).OOD([]int{2, 3}).Done,
		"DecompositionRuns":  DecompositionOfRuns(runs...).Done,
		"SetSizesOf":         SetSizesOf(long, all).Scores(conformal.APS{}, conformal.RAPS{}, conformal.DAPS{}).Done,
		"SetSizesOfCounts":   SetSizesOfCounts(0.1, counts...).Done,
		"SetSizesOfRuns":     SetSizesOfRuns(runs...).Done,
		"GraphChart":         func() (*Chart, error) { return GraphChart(view) },
		"NeighbourhoodOf":    NeighbourhoodOf(long, 2).Measures(uq.EUPC, uq.EUSO).Done,
		"HistoryOf":          HistoryOf(testHistory()).Done,
		"Training":           func() (*Chart, error) { return Training("t", training[:1], training[1:]) },
	}
	for name, b := range build {
		c, err := b()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		opt := decodeOption(t, c)
		if base, ok := opt["baseOption"].(map[string]any); ok { // a timeline: the base, then each option's legend
			checkLegend(t, name, c, base)
			for k, o := range asList(opt["options"]) {
				o["grid"], o["series"] = base["grid"], base["series"]
				checkLegend(t, fmt.Sprintf("%s option %d", name, k), c, o)
			}
			continue
		}
		checkLegend(t, name, c, opt)
	}
}

func TestLegendRectCatchesOverlap(t *testing.T) {
	// A right legend 8 px from the edge of a 400 px chart whose grid ends
	// 60 px from it: the legend of "EU_PC (= EU)" (30 + 79 + 10 = 119 px)
	// reaches into the grid.
	legend := map[string]any{"orient": "vertical", "right": 8.0, "top": 50.0}
	r := legendRect(legend, []string{"EU_PC (= EU)"}, 400, 300)
	if math.Abs(r.x1-r.x0-(30+helveticaWidth("EU_PC (= EU)")+10)) > 1e-9 || r.x1 != 392 {
		t.Errorf("legend box %+v", r)
	}
	if !r.overlaps(rect{40, 50, 340, 250}) {
		t.Error("the legend does not overlap the grid")
	}
	if r.overlaps(rect{40, 50, 250, 250}) {
		t.Error("the legend overlaps a grid that ends before it")
	}
}

func testHistory() *cuq.History {
	nan := math.NaN()
	return &cuq.History{
		Epochs: []cuq.EpochStats{
			{Phase: cuq.WarmupPhase, Epoch: 1, Loss: 5, ValCE: nan},
			{Phase: cuq.TrainPhase, Epoch: 1, Loss: 3, ValCE: 1.2, ValAcc: 0.5},
			{Phase: cuq.TrainPhase, Epoch: 2, Loss: 2, ValCE: 0.9, ValAcc: 0.7},
		},
		BestEpoch: 2, Stopped: "early stopping",
	}
}
