package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// MeasureStyle returns the colour and line pattern that every chart gives
// uncertainty measure m, so that TU, AU, EU, EU_PC and EU_SO look the same
// wherever they appear and differ in pattern as well as colour.
func MeasureStyle(m uq.Measure) (color string, dash Dash) {
	k := int(m)
	if k < 0 {
		k = 0
	}
	return Palette[k%len(Palette)], DashCycle(k)
}

// ARCChart builds the accuracy-rejection curves of one prediction. Start it
// with ARCOf, set options, then call Done.
type ARCChart measureCurves

// measureCurves is what the builders of one curve per uncertainty measure,
// ARCChart and RiskCoverageChart, are given.
type measureCurves struct {
	pred     Scored
	nodes    []int
	measures []uq.Measure
	title    string
}

// resolve returns the measures, by default every one the prediction has but
// LC, and the title, by default "<model>: <what>", or an error, prefixed
// with op, for a nil builder or prediction.
func (c *measureCurves) resolve(op, what string) ([]uq.Measure, string, error) {
	if c == nil {
		return nil, "", fmt.Errorf("%s: nil builder", op)
	}
	if isNil(c.pred) {
		return nil, "", fmt.Errorf("%s: nil prediction", op)
	}
	ms := measuresOf(c.pred, c.measures)
	title := c.title
	if title == "" {
		title = c.pred.Name() + ": " + what
	}
	return ms, title, nil
}

// ARCOf starts the accuracy-rejection curves of p on nodes (usually the test
// nodes): for each measure, the accuracy on the nodes left after rejecting
// the fraction r of the most uncertain ones, r = 0, 0.01, …, 0.99. The
// last point of eval.ARC (r = 1, a single node left, accuracy 0 or 1) is
// not drawn: it says nothing about the measure.
func ARCOf(p Scored, nodes []int) *ARCChart {
	return &ARCChart{pred: p, nodes: nodes}
}

// Measures chooses the measures, by default every one of TU, AU, EU,
// EU_PC and EU_SO that the prediction has.
func (a *ARCChart) Measures(ms ...uq.Measure) *ARCChart { a.measures = ms; return a }

// Title sets the title, by default "<model>: accuracy-rejection curves".
func (a *ARCChart) Title(t string) *ARCChart { a.title = t; return a }

// Done returns the chart, or an error naming a measure the prediction lacks.
func (a *ARCChart) Done() (*Chart, error) {
	ms, title, err := (*measureCurves)(a).resolve("chart.ARCOf", "accuracy-rejection curves")
	if err != nil {
		return nil, err
	}
	var rejection []float64
	var curves []Curve
	for _, m := range ms {
		c, err := arcOf(a.pred, m, a.nodes)
		if err != nil {
			return nil, fmt.Errorf("chart.ARCOf: %w", err)
		}
		n := len(c.P) - 1 // drop the single-node point
		rejection = c.P[:n]
		color, dash := MeasureStyle(m)
		curves = append(curves, Curve{Name: m.String(), Mean: c.Acc[:n], Color: color, Dash: dash})
	}
	return ARC(title, rejection, curves...)
}

// arcOf returns the accuracy-rejection curve of measure m of p on nodes
// (eval.ARC).
func arcOf(p Scored, m uq.Measure, nodes []int) (eval.Curve, error) {
	v, err := valuesAt(p, m, nodes)
	if err != nil {
		return eval.Curve{}, err
	}
	correct, err := correctness(p, m, nodes)
	if err != nil {
		return eval.Curve{}, err
	}
	return eval.ARC(v, correct)
}

// DecompositionOf starts the decomposition chart of p's in-distribution
// nodes id, each correct or wrong by p's class and the graph's label; OOD
// adds out-of-distribution nodes. The subtitle gives the accuracy on id.
func DecompositionOf(p Scored, id []int) *DecompositionChart {
	if isNil(p) {
		return &DecompositionChart{err: fmt.Errorf("chart.DecompositionOf: nil prediction")}
	}
	au, errAU := p.Uncertainty(uq.AU)
	eu, errEU := p.Uncertainty(uq.EU)
	if errAU != nil || errEU != nil {
		return &DecompositionChart{err: fmt.Errorf("chart.DecompositionOf: %s has no AU and EU (it provides %v)", p.Name(), p.Available())}
	}
	d := Decomposition(nil, nil, nil).Title(p.Name() + ": aleatoric vs epistemic uncertainty")
	correct, err := correctness(p, uq.AU, id)
	if err != nil {
		d.err = fmt.Errorf("chart.DecompositionOf: %w", err)
		return d
	}
	right := 0
	for k, ok := range correct {
		i := id[k]
		o := Wrong
		if ok {
			o, right = Correct, right+1
		}
		d.au, d.eu, d.outcome = append(d.au, au[i]), append(d.eu, eu[i]), append(d.outcome, o)
	}
	if len(id) > 0 {
		d.idAccuracy = float64(right) / float64(len(id))
	}
	d.hasAccuracy, d.idNodes = len(id) > 0, len(id)
	d.predAU, d.predEU = au, eu
	return d
}

// OOD adds out-of-distribution nodes of the prediction given to
// DecompositionOf.
func (d *DecompositionChart) OOD(nodes []int) *DecompositionChart {
	if d.err != nil {
		return d
	}
	if d.predAU == nil {
		d.err = fmt.Errorf("chart.Decomposition: OOD needs a chart started with DecompositionOf")
		return d
	}
	for _, i := range nodes {
		if i < 0 || i >= len(d.predAU) {
			d.err = fmt.Errorf("chart.Decomposition: OOD node %d out of range [0, %d)", i, len(d.predAU))
			return d
		}
		d.au, d.eu, d.outcome = append(d.au, d.predAU[i]), append(d.eu, d.predEU[i]), append(d.outcome, OOD)
	}
	d.ood += len(nodes)
	return d
}

// HistoryChart builds the training curves of a training run (a
// *cuq.History). Start it with HistoryOf, set options, then call Done.
type HistoryChart struct {
	h     TrainingRecord
	title string
}

// HistoryOf starts the training curves of h: the training loss (UCE with
// its entropy regulariser, summed over the training nodes) in the upper
// panel, the validation cross entropy and accuracy of the epochs that were
// evaluated in the lower one, with the flow warm-up shaded and the restored
// best epoch marked.
func HistoryOf(h TrainingRecord) *HistoryChart { return &HistoryChart{h: h, title: "Training"} }

// Title sets the title.
func (c *HistoryChart) Title(t string) *HistoryChart { c.title = t; return c }

// Done returns the chart, or an error for an empty or non-finite history.
func (c *HistoryChart) Done() (*Chart, error) {
	if c == nil {
		return nil, fmt.Errorf("chart.HistoryOf: nil builder")
	}
	d, err := c.data()
	if err != nil {
		return nil, err
	}
	opt := rawOption{
		"animation":   false,
		"title":       map[string]any{"text": c.title, "subtext": d.stopped, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":     map[string]any{"trigger": "axis"},
		"axisPointer": map[string]any{"link": []any{map[string]any{"xAxisIndex": "all"}}},
		"legend":      map[string]any{"top": 50},
		"grid": []any{
			map[string]any{"top": 90, "height": 140, "left": 70, "right": 70},
			map[string]any{"top": 280, "height": 140, "left": 70, "right": 70},
		},
		"xAxis": []any{d.epochAxis(0, false), d.epochAxis(1, true)},
		"yAxis": []any{historyAxis(0, "training loss"), historyAxis(1, "validation CE"), map[string]any{
			"type": "value", "gridIndex": 1, "name": "validation accuracy", "min": 0, "max": 1, "position": "right",
			"splitLine": map[string]any{"show": false}}},
		"series": []any{
			d.line("training loss", d.loss, 0, 0, Palette[0], Solid),
			d.line("validation CE", d.ce, 1, 1, Palette[1], Dashed),
			d.line("validation accuracy", d.acc, 1, 2, Palette[2], Solid),
		},
	}
	return newChart(c.title, 760, 470, opt), nil
}

// historyData is what HistoryChart draws: the epochs' labels, the data of
// the three curves ("-" where an epoch was not evaluated) and the record's
// milestones (see TrainingRecord).
type historyData struct {
	x             []string
	loss, ce, acc []any
	warmup, best  int
	stopped       string
}

// data reads the training record, or returns an error for no epochs,
// curves of different lengths or a non-finite loss.
func (c *HistoryChart) data() (historyData, error) {
	var lossValues, ceValues, accValues []float64
	if !isNil(c.h) {
		lossValues, ceValues, accValues = c.h.TrainingCurves()
	}
	n := len(lossValues)
	if n == 0 {
		return historyData{}, fmt.Errorf("chart.HistoryOf %q: no epochs", c.title)
	}
	if len(ceValues) != n || len(accValues) != n {
		return historyData{}, fmt.Errorf("chart.HistoryOf %q: %d losses, %d validation CEs and %d accuracies", c.title, n, len(ceValues), len(accValues))
	}
	d := historyData{x: make([]string, n), loss: make([]any, n), ce: make([]any, n), acc: make([]any, n)}
	d.warmup, d.best, d.stopped = c.h.Milestones()
	for k, l := range lossValues {
		// Epochs numbered as cuq.History numbers them: warm-up w1…wW, then
		// the main epochs from 1.
		d.x[k] = strconv.Itoa(k + 1 - d.warmup)
		if k < d.warmup {
			d.x[k] = "w" + strconv.Itoa(k+1)
		}
		if math.IsInf(l, 0) || math.IsNaN(l) {
			return historyData{}, fmt.Errorf("chart.HistoryOf %q: loss %v at epoch %d", c.title, l, k+1)
		}
		d.loss[k], d.ce[k], d.acc[k] = l, "-", "-"
		if v := ceValues[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			d.ce[k], d.acc[k] = v, accValues[k]
		}
	}
	return d, nil
}

// line returns the series of one curve on grid axis and y axis yAxis; the
// curves on the first two y axes mark the best epoch and shade the
// warm-up.
func (d historyData) line(name string, data []any, axis, yAxis int, color string, dash Dash) map[string]any {
	s := map[string]any{"type": "line", "name": name, "data": data, "showSymbol": false, "connectNulls": true,
		"xAxisIndex": axis, "yAxisIndex": yAxis, "color": color,
		"lineStyle": map[string]any{"color": color, "type": dash.echarts(), "width": 2}}
	if d.best > 0 && yAxis < 2 {
		marks := []any{map[string]any{"xAxis": d.best - 1, "label": map[string]any{"formatter": "best (restored)"}}}
		s["markLine"] = map[string]any{"symbol": "none", "silent": true, "data": marks,
			"lineStyle": map[string]any{"color": "#888", "type": "dashed"}}
	}
	if d.warmup > 0 && yAxis < 2 {
		s["markArea"] = map[string]any{"silent": true, "itemStyle": map[string]any{"color": "rgba(0,0,0,0.05)"},
			"label": map[string]any{"position": "insideBottom", "color": "#888"},
			"data":  []any{[]any{map[string]any{"xAxis": 0, "name": "warm-up"}, map[string]any{"xAxis": d.warmup - 1}}}}
	}
	return s
}

// epochAxis returns the epoch axis of grid k, named when name is set.
func (d historyData) epochAxis(k int, name bool) map[string]any {
	m := map[string]any{"type": "category", "data": d.x, "gridIndex": k, "boundaryGap": false}
	if name {
		m["name"], m["nameLocation"], m["nameGap"] = "epoch (warm-up w1, w2, … first)", "middle", 28
	}
	return m
}

// historyAxis returns the scaled value axis of grid k, named name, on the
// left.
func historyAxis(k int, name string) map[string]any {
	return map[string]any{"type": "value", "gridIndex": k, "name": name, "scale": true, "position": "left",
		"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
}

// AUROCTable tabulates how well each uncertainty measure of p separates
// the out-of-distribution nodes ood (positive) from the in-distribution
// nodes id: the area under the ROC curve in percent, ties counted one half
// (50 is chance, 100 a perfect separation).
func AUROCTable(p Scored, id, ood []int) (*Table, error) {
	if isNil(p) {
		return nil, fmt.Errorf("chart.AUROCTable: nil prediction")
	}
	var rows [][]string
	for _, m := range measuresOf(p, nil) {
		a, err := aurocOf(p, m, id, ood)
		if err != nil {
			return nil, fmt.Errorf("chart.AUROCTable: %w", err)
		}
		rows = append(rows, []string{m.String(), fmt.Sprintf("%.1f", 100*a)})
	}
	return NewTable(fmt.Sprintf("%s: OOD-detection AUROC (%%), %d ID and %d OOD nodes", p.Name(), len(id), len(ood)),
		[]string{"measure", "AUROC"}, rows)
}

// aurocOf returns how well measure m of p separates the nodes ood
// (positive) from id: the area under the ROC curve, ties counted one half
// (eval.AUROC).
func aurocOf(p Scored, m uq.Measure, id, ood []int) (float64, error) {
	vID, err := valuesAt(p, m, id)
	if err != nil {
		return 0, err
	}
	vOOD, err := valuesAt(p, m, ood)
	if err != nil {
		return 0, err
	}
	return eval.AUROC(vID, vOOD)
}
