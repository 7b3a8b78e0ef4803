package chart

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Run is one prediction in a comparison, under a label. Runs with the same
// label are repeats of one model or setting (other seeds or splits): the
// comparison charts and tables average them, mean ± standard error, or
// pool their nodes. Every label keeps its colour (ModelColor) in every
// chart.
type Run struct {
	// Label names the model or setting; empty takes Pred.Name().
	Label string
	Pred  Prediction
	// Nodes are the evaluated nodes: the test nodes, or the
	// in-distribution test nodes of an OOD setting.
	Nodes []int
	// OOD are the out-of-distribution nodes, for DecompositionOfRuns and
	// AUROCTableOfRuns.
	OOD []int
}

// runGroup is the runs of one label, in the order given.
type runGroup struct {
	label string
	runs  []Run
}

// groupRuns groups runs by label in the order labels first appear, or
// returns an error, prefixed with op, for no runs or a run without a
// prediction.
func groupRuns(op string, runs []Run) ([]runGroup, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", op)
	}
	var groups []runGroup
	index := map[string]int{}
	for k, r := range runs {
		if isNil(r.Pred) {
			return nil, fmt.Errorf("%s: run %d (%q) has no prediction", op, k, r.Label)
		}
		if r.Label == "" {
			r.Label = r.Pred.Name()
		}
		g, ok := index[r.Label]
		if !ok {
			g = len(groups)
			index[r.Label] = g
			groups = append(groups, runGroup{label: r.Label})
		}
		groups[g].runs = append(groups[g].runs, r)
	}
	return groups, nil
}

// meanSE returns the mean of v and its standard error s/√n, with s the
// sample standard deviation (divisor n − 1); the error is 0 for one value.
func meanSE(v []float64) (mean, se float64) {
	n := float64(len(v))
	for _, x := range v {
		mean += x
	}
	mean /= n
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += float64((x - mean) * (x - mean))
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// commonMeasures returns the measures but LC that the first run of some
// group has, in the order of uq.AllMeasures.
func commonMeasures(groups []runGroup) []uq.Measure {
	has := map[uq.Measure]bool{}
	for _, g := range groups {
		for _, m := range measuresOf(g.runs[0].Pred, nil) {
			has[m] = true
		}
	}
	var out []uq.Measure
	for _, m := range uq.AllMeasures {
		if has[m] {
			out = append(out, m)
		}
	}
	return out
}

// RunsARCChart builds the accuracy-rejection curves of several runs.
// Start it with ARCOfRuns, set options, then call Done.
type RunsARCChart struct {
	runs     []Run
	measures []uq.Measure
	cols     int
	title    string
}

// ARCOfRuns starts the accuracy-rejection curves of several models, one
// curve per label in its colour (ModelColor) and the measure's dash
// pattern (MeasureStyle): by default one panel per measure that some model
// has (LC aside), the panels of a row sharing their accuracy axis; with a
// single measure chosen by Measures, one chart of that measure across the
// models. A label's repeated runs give the mean curve with a band ± its
// standard error, over the same rejection fractions 0, 0.01, …, 0.99 (the
// last point of eval.ARC, a single node left, is dropped as in ARCOf).
func ARCOfRuns(runs ...Run) *RunsARCChart { return &RunsARCChart{runs: runs} }

// Measures chooses the measures: one panel each, or with one measure a
// single chart. A model without a measure is left out of its panel.
func (a *RunsARCChart) Measures(ms ...uq.Measure) *RunsARCChart { a.measures = ms; return a }

// Cols sets the number of panels per row, by default up to 3.
func (a *RunsARCChart) Cols(n int) *RunsARCChart { a.cols = n; return a }

// Title sets the title.
func (a *RunsARCChart) Title(t string) *RunsARCChart { a.title = t; return a }

// Done returns the chart, or an error for no runs, a measure no model has,
// or a run whose curve cannot be computed.
func (a *RunsARCChart) Done() (*Chart, error) {
	const op = "chart.ARCOfRuns"
	if a == nil {
		return nil, fmt.Errorf("%s: nil builder", op)
	}
	groups, err := groupRuns(op, a.runs)
	if err != nil {
		return nil, err
	}
	ms := a.measures
	if ms == nil {
		ms = commonMeasures(groups)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%s: no measures", op)
	}
	rejection, panels, err := a.panels(op, groups, ms)
	if err != nil {
		return nil, err
	}
	if len(ms) == 1 {
		title := a.title
		if title == "" {
			title = ms[0].String() + ": accuracy-rejection curves by model"
		}
		return ARC(title, rejection, panels[0].Curves...)
	}
	title := a.title
	if title == "" {
		title = "Accuracy-rejection curves by model and measure"
	}
	cols := a.cols
	if cols < 1 {
		cols = min(3, len(panels))
	}
	return ARCGrid(title, rejection, cols, panels)
}

// panels returns one panel per measure of ms, a curve per group that has
// the measure, and the rejection fractions of the curves; a measure chosen
// by Measures that no group has is an error.
func (a *RunsARCChart) panels(op string, groups []runGroup, ms []uq.Measure) ([]float64, []Panel, error) {
	var rejection []float64
	panels := make([]Panel, len(ms))
	for k, m := range ms {
		panels[k].Title = m.String()
		for _, g := range groups {
			if _, err := g.runs[0].Pred.Uncertainty(m); err != nil {
				continue
			}
			cv, p, err := meanARC(g, m)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: %w", op, g.label, err)
			}
			rejection = p
			panels[k].Curves = append(panels[k].Curves, cv)
		}
		if len(panels[k].Curves) == 0 && a.measures != nil {
			return nil, nil, fmt.Errorf("%s: no model has %s", op, m)
		}
	}
	return rejection, panels, nil
}

// meanARC returns the accuracy-rejection curve of measure m over the runs
// of g, without its single-node point: the mean accuracy at each rejection
// fraction and, for more than one run, its standard error; and the
// rejection fractions.
func meanARC(g runGroup, m uq.Measure) (Curve, []float64, error) {
	var rejection []float64
	var accs [][]float64
	for _, r := range g.runs {
		c, err := arcOf(r.Pred, m, r.Nodes)
		if err != nil {
			return Curve{}, nil, err
		}
		n := len(c.P) - 1 // drop the single-node point
		rejection = c.P[:n]
		accs = append(accs, c.Acc[:n])
	}
	_, dash := MeasureStyle(m)
	cv := Curve{Name: g.label, Color: ModelColor(g.label), Dash: dash, Mean: make([]float64, len(rejection))}
	if len(accs) > 1 {
		cv.SE = make([]float64, len(rejection))
	}
	for i := range rejection {
		col := make([]float64, len(accs))
		for j := range accs {
			col[j] = accs[j][i]
		}
		mean, se := meanSE(col)
		cv.Mean[i] = mean
		if cv.SE != nil {
			cv.SE[i] = se
		}
	}
	return cv, rejection, nil
}

// panelBox is the place of one panel of a multi-panel chart, in pixels.
type panelBox struct{ left, top, width, height int }

// panelLayout places n panels of the given plot size in rows of cols,
// below a header of height top, each with room for its title above and
// its axes' labels to its left and below; it returns the boxes of the
// plots and the chart's size.
func panelLayout(n, cols, plotW, plotH, top int) (boxes []panelBox, width, height int) {
	const left, titleH, axisW, axisH, gap = 10, 44, 55, 45, 15
	for k := range n {
		r, c := k/cols, k%cols
		boxes = append(boxes, panelBox{
			left:  left + axisW + c*(axisW+plotW+gap),
			top:   top + titleH + r*(titleH+plotH+axisH),
			width: plotW, height: plotH,
		})
	}
	rows := (n + cols - 1) / cols
	return boxes, left + min(n, cols)*(axisW+plotW+gap), top + rows*(titleH+plotH+axisH)
}

// panelTitle returns the title element of panel box b: its text and a
// line of details below.
func panelTitle(text, sub string, b panelBox) map[string]any {
	return map[string]any{"text": text, "subtext": sub, "left": b.left - 5, "top": b.top - 46, "itemGap": 6,
		"textStyle": map[string]any{"fontSize": 13}, "subtextStyle": map[string]any{"fontSize": 11}}
}

// panelFigure collects the elements of a chart of panels placed by
// panelLayout: the chart's title first, then each panel's.
type panelFigure struct {
	titles, grids, xAxes, yAxes, series []any
}

// newPanelFigure starts a figure under title.
func newPanelFigure(title string) *panelFigure {
	return &panelFigure{titles: []any{map[string]any{"text": title, "textStyle": map[string]any{"fontSize": 15}}}}
}

// add adds the panel in box b: its title text and details sub, its x
// axes, y axis and series.
func (f *panelFigure) add(b panelBox, text, sub string, xAxes []any, yAxis map[string]any, series []any) {
	f.titles = append(f.titles, panelTitle(text, sub, b))
	f.grids = append(f.grids, map[string]any{"left": b.left, "top": b.top, "width": b.width, "height": b.height})
	f.xAxes, f.yAxes = append(f.xAxes, xAxes...), append(f.yAxes, yAxis)
	f.series = append(f.series, series...)
}

// option returns the figure's option with an item tooltip of the given
// formatter and the legend.
func (f *panelFigure) option(tooltip string, legend map[string]any) rawOption {
	return rawOption{
		"animation": false,
		"title":     f.titles,
		"tooltip":   map[string]any{"trigger": "item", "formatter": jsFunc(tooltip)},
		"legend":    legend,
		"grid":      f.grids, "xAxis": f.xAxes, "yAxis": f.yAxes, "series": f.series,
	}
}

// runsNote is ", n runs" for more than one run, else empty.
func runsNote(n int) string {
	if n > 1 {
		return fmt.Sprintf(", %d runs", n)
	}
	return ""
}

// RunsReliabilityChart builds the reliability diagrams of several runs
// side by side. Start it with ReliabilityOfRuns, set options, then call
// Done.
type RunsReliabilityChart struct {
	runs  []Run
	bins  int
	cols  int
	title string
}

// ReliabilityOfRuns starts the reliability diagrams of several models, one
// panel per label on the same axes (confidence and accuracy from 0 to 1),
// the bars in the model's colour: as ReliabilityOf, with the bins of a
// label's repeated runs added up (counts summed, accuracy and confidence
// count-weighted). Each panel's title gives its ECE over the bins and its
// node count.
func ReliabilityOfRuns(runs ...Run) *RunsReliabilityChart { return &RunsReliabilityChart{runs: runs} }

// Bins sets the number of bins, by default eval.DefaultBins (10).
func (r *RunsReliabilityChart) Bins(n int) *RunsReliabilityChart { r.bins = n; return r }

// Cols sets the number of panels per row, by default up to 3.
func (r *RunsReliabilityChart) Cols(n int) *RunsReliabilityChart { r.cols = n; return r }

// Title sets the title.
func (r *RunsReliabilityChart) Title(t string) *RunsReliabilityChart { r.title = t; return r }

// Done returns the chart, or an error for no runs, a bad number of bins
// or the errors of the runs' Calibration.
func (r *RunsReliabilityChart) Done() (*Chart, error) {
	const op = "chart.ReliabilityOfRuns"
	if r == nil {
		return nil, fmt.Errorf("%s: nil builder", op)
	}
	groups, err := groupRuns(op, r.runs)
	if err != nil {
		return nil, err
	}
	if r.bins < 0 {
		return nil, fmt.Errorf("%s: %d bins", op, r.bins)
	}
	cols := r.cols
	if cols < 1 {
		cols = min(3, len(groups))
	}
	legend := make([]string, 0, len(groups)+2)
	for _, g := range groups {
		legend = append(legend, g.label)
	}
	legend = append(legend, "mean confidence", "perfect calibration")
	// The panels start below the legend, however many rows it wraps to.
	_, width, _ := panelLayout(len(groups), cols, 240, 220, 0)
	top := max(60, 28+legendHeight(legendRows(legend, width-10))+6)
	boxes, width, height := panelLayout(len(groups), cols, 240, 220, top)
	title := r.title
	if title == "" {
		title = "Reliability diagrams"
	}
	f := newPanelFigure(title)
	for k, g := range groups {
		bins, c, err := r.pooledBins(op, g)
		if err != nil {
			return nil, err
		}
		xCat, xVal, yVal := reliabilityPanelAxes(k, len(bins), k == len(groups)-1 || k+cols >= len(groups), k%cols == 0)
		f.add(boxes[k], g.label, fmt.Sprintf("ECE %.2f%% · %d nodes%s", 100*c.ECE, c.Nodes, runsNote(len(g.runs))),
			[]any{xCat, xVal}, yVal, reliabilityPanelSeries(k, g.label, bins))
	}
	opt := f.option(reliabilityTooltip, map[string]any{"data": legend, "top": 28, "left": 10})
	return newChart(title, width, height, opt), nil
}

// pooledBins returns the bins of the runs of g added up and their
// calibration summary.
func (r *RunsReliabilityChart) pooledBins(op string, g runGroup) ([]eval.Bin, eval.Calibration, error) {
	var bins []eval.Bin
	for _, run := range g.runs {
		c, err := run.Pred.Calibration(run.Nodes, eval.CalibrationOptions{Bins: r.bins})
		if err != nil {
			return nil, eval.Calibration{}, fmt.Errorf("%s: %s: %w", op, g.label, err)
		}
		bins = addBins(bins, c.Bins)
	}
	rc := &ReliabilityChart{given: bins}
	c, err := rc.calibration()
	if err != nil {
		return nil, eval.Calibration{}, fmt.Errorf("%s: %s: %w", op, g.label, err)
	}
	return bins, c, nil
}

// reliabilityPanelAxes returns the axes of panel k of n bins: the hidden
// category axis of the bins, the confidence axis over the same width
// (named under the bottom row, xName) and the accuracy axis (named on the
// first column, yName).
func reliabilityPanelAxes(k, n int, xName, yName bool) (xCat, xVal, yVal map[string]any) {
	categories := make([]string, n)
	for j := range categories {
		categories[j] = fmt.Sprint(j)
	}
	axisLine := map[string]any{"lineStyle": map[string]any{"color": "#eee"}}
	xCat = map[string]any{"type": "category", "data": categories, "show": false, "gridIndex": k}
	xVal = map[string]any{"type": "value", "min": 0, "max": 1, "interval": 0.2, "gridIndex": k, "position": "bottom", "splitLine": axisLine}
	yVal = map[string]any{"type": "value", "min": 0, "max": 1, "interval": 0.2, "gridIndex": k, "splitLine": axisLine}
	if xName {
		xVal["name"], xVal["nameLocation"], xVal["nameGap"] = "confidence", "middle", 26
	}
	if yName {
		yVal["name"], yVal["nameLocation"], yVal["nameGap"] = "accuracy", "middle", 36
	}
	return xCat, xVal, yVal
}

// reliabilityPanelSeries returns the series of panel k, the bins of the
// model label: its accuracy bars in the model's colour, the mean
// confidence marks and the diagonal.
func reliabilityPanelSeries(k int, label string, bins []eval.Bin) []any {
	accuracy := make([]any, len(bins))
	confidence := make([]any, len(bins))
	for j, bin := range bins {
		accuracy[j], confidence[j] = "-", "-"
		if bin.Count > 0 {
			item := func(v float64) map[string]any {
				return map[string]any{"value": v, "count": bin.Count, "acc": bin.Accuracy, "conf": bin.Confidence,
					"range": fmt.Sprintf("%.3g–%.3g", bin.Lo, bin.Hi)}
			}
			accuracy[j], confidence[j] = item(bin.Accuracy), item(bin.Confidence)
		}
	}
	return []any{
		map[string]any{"type": "bar", "name": label, "data": accuracy, "xAxisIndex": 2 * k, "yAxisIndex": k,
			"barCategoryGap": "8%", "itemStyle": map[string]any{"color": ModelColor(label), "opacity": 0.8}},
		map[string]any{"type": "scatter", "name": "mean confidence", "data": confidence, "xAxisIndex": 2 * k, "yAxisIndex": k,
			"symbol": "rect", "symbolSize": []int{14, 3}, "itemStyle": map[string]any{"color": "#333333"}},
		map[string]any{"type": "line", "name": "perfect calibration", "data": [][2]float64{{0, 0}, {1, 1}},
			"xAxisIndex": 2*k + 1, "yAxisIndex": k, "showSymbol": false, "silent": true, "color": "#888",
			"lineStyle": map[string]any{"color": "#888", "type": Dashed.echarts(), "width": 1}},
	}
}

// addBins adds the bins b to the sums a (nil: none yet): counts add up,
// accuracy and confidence are count-weighted means.
func addBins(a, b []eval.Bin) []eval.Bin {
	if a == nil {
		return slices.Clone(b)
	}
	for j := range min(len(a), len(b)) {
		switch n := a[j].Count + b[j].Count; {
		case b[j].Count == 0: // an empty bin's means may be NaN
		case a[j].Count == 0:
			a[j].Count, a[j].Accuracy, a[j].Confidence = n, b[j].Accuracy, b[j].Confidence
		default:
			w := float64(b[j].Count) / float64(n)
			a[j].Accuracy += float64(w * (b[j].Accuracy - a[j].Accuracy))
			a[j].Confidence += float64(w * (b[j].Confidence - a[j].Confidence))
			a[j].Count = n
		}
	}
	return a
}

// RunsDecompositionChart builds the uncertainty decompositions of several
// runs side by side. Start it with DecompositionOfRuns, set options, then
// call Done.
type RunsDecompositionChart struct {
	runs  []Run
	logEU bool
	cols  int
	title string
}

// DecompositionOfRuns starts the decomposition charts of several models,
// one panel per label, all on the same AU and EU axes so that their
// spreads compare at a glance: as DecompositionOf on each run's Nodes
// (correct or wrong) and OOD nodes, with the nodes of a label's repeated
// runs pooled. Each panel's title gives its ID accuracy and node counts.
func DecompositionOfRuns(runs ...Run) *RunsDecompositionChart {
	return &RunsDecompositionChart{runs: runs}
}

// LogEU draws EU on a logarithmic axis (see DecompositionChart.LogEU),
// with one floor for all panels.
func (d *RunsDecompositionChart) LogEU() *RunsDecompositionChart { d.logEU = true; return d }

// Cols sets the number of panels per row, by default up to 3.
func (d *RunsDecompositionChart) Cols(n int) *RunsDecompositionChart { d.cols = n; return d }

// Title sets the title.
func (d *RunsDecompositionChart) Title(t string) *RunsDecompositionChart { d.title = t; return d }

// decompositionRunsTooltip gives a mark's node count, outcome, AU and EU.
const decompositionRunsTooltip = `function (p) {
var v = p.value;
return p.marker + v[2] + ' ' + p.seriesName + (v[2] > 1 ? ' nodes' : ' node') + '<br/>AU ' + v[0].toPrecision(3) + ', EU ' + v[1].toPrecision(3);
}`

// Done returns the chart, or an error for no runs, a model without AU and
// EU or a node out of range.
func (d *RunsDecompositionChart) Done() (*Chart, error) {
	const op = "chart.DecompositionOfRuns"
	if d == nil {
		return nil, fmt.Errorf("%s: nil builder", op)
	}
	groups, err := groupRuns(op, d.runs)
	if err != nil {
		return nil, err
	}
	// The panels share ext: the floor of a log axis is set by the largest
	// EU of all.
	pooled, ext, err := poolDecompositions(op, groups)
	if err != nil {
		return nil, err
	}
	cols := d.cols
	if cols < 1 {
		cols = min(3, len(groups))
	}
	const top = 60
	boxes, width, height := panelLayout(len(groups), cols, 260, 240, top)
	title := d.title
	if title == "" {
		title = "Aleatoric vs epistemic uncertainty"
	}
	f := newPanelFigure(title)
	var legend []string
	clamped := 0
	floor := 0.0
	for k, p := range pooled {
		s, names, c, fl := p.series(ext, d.logEU, k)
		clamped, floor = clamped+c, fl
		for _, n := range names {
			legend = appendNew(legend, n)
		}
		xa, ya := d.panelAxes(k, ext, floor, k+cols >= len(groups), k%cols == 0)
		f.add(boxes[k], groups[k].label, decompositionPanelSubtitle(p, len(groups[k].runs)), []any{xa}, ya, s)
	}
	sub := "panels share their axes · a mark's area grows with the number of nodes on its spot"
	if clamped > 0 {
		sub += fmt.Sprintf(" · %d nodes with EU below %.1e are drawn at it", clamped, floor)
	}
	f.titles[0].(map[string]any)["subtext"] = sub
	opt := f.option(decompositionRunsTooltip, map[string]any{"data": legend, "top": 8, "right": 10})
	return newChart(title, max(width, 520), height, opt), nil
}

// poolDecompositions returns, for each group, the decomposition of the
// nodes of all its runs, titled by its label, with its ID accuracy over
// them; and the extent of all the groups' points.
func poolDecompositions(op string, groups []runGroup) ([]*DecompositionChart, extent, error) {
	pooled := make([]*DecompositionChart, len(groups))
	var ext extent
	for k, g := range groups {
		p := Decomposition(nil, nil, nil)
		right := 0.0
		for _, r := range g.runs {
			one := DecompositionOf(r.Pred, r.Nodes).OOD(r.OOD)
			if one.err != nil {
				return nil, extent{}, fmt.Errorf("%s: %s: %w", op, g.label, one.err)
			}
			p.au, p.eu, p.outcome = append(p.au, one.au...), append(p.eu, one.eu...), append(p.outcome, one.outcome...)
			p.idNodes, p.ood = p.idNodes+one.idNodes, p.ood+one.ood
			right += float64(one.idAccuracy * float64(one.idNodes))
		}
		if p.idNodes > 0 {
			p.idAccuracy = right / float64(p.idNodes)
		}
		p.title = g.label
		e, err := p.extent()
		if err != nil {
			return nil, extent{}, fmt.Errorf("%s: %w", op, err)
		}
		if k == 0 {
			ext = e
		}
		ext = ext.union(e)
		pooled[k] = p
	}
	return pooled, ext, nil
}

// decompositionPanelSubtitle gives the ID accuracy and node counts of the
// pooled decomposition p of runs runs.
func decompositionPanelSubtitle(p *DecompositionChart, runs int) string {
	counts := fmt.Sprintf("%d nodes", p.idNodes)
	if p.ood > 0 {
		counts = fmt.Sprintf("%d ID, %d OOD", p.idNodes, p.ood)
	}
	return fmt.Sprintf("ID accuracy %.1f%% · %s%s", 100*p.idAccuracy, counts, runsNote(runs))
}

// panelAxes returns the AU and EU axes of panel k over ext, rounded
// outwards (EU to powers of ten above floor on a log axis), the AU axis
// named under the bottom row (xName), the EU axis on the first column
// (yName).
func (d *RunsDecompositionChart) panelAxes(k int, ext extent, floor float64, xName, yName bool) (xa, ya map[string]any) {
	xa = map[string]any{"type": "value", "gridIndex": k, "min": min(0, niceLow(ext.xlo)), "max": niceHigh(ext.xhi),
		"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
	ya = map[string]any{"type": "value", "gridIndex": k, "min": min(0, niceLow(ext.ylo)), "max": niceHigh(ext.yhi),
		"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
	if d.logEU {
		ya["type"] = "log"
		ya["min"] = math.Pow(10, math.Floor(math.Log10(max(ext.ylo, floor))))
		ya["max"] = math.Pow(10, math.Ceil(math.Log10(max(ext.yhi, floor))))
	}
	if xName {
		xa["name"], xa["nameLocation"], xa["nameGap"] = "AU (aleatoric)", "middle", 26
	}
	if yName {
		ya["name"], ya["nameLocation"], ya["nameGap"] = "EU (epistemic)", "middle", 40
	}
	return xa, ya
}

// niceLow rounds v down to a multiple of a power of ten a tenth of v's
// magnitude (0.437 → 0.4, −0.0213 → −0.03); 0 stays 0.
func niceLow(v float64) float64 {
	if v == 0 {
		return 0
	}
	e := math.Floor(math.Log10(math.Abs(v)))
	if e < 0 { // divide by 10^−e, exact, rather than multiply by 10^e
		f := math.Pow(10, -e)
		return math.Floor(float64(v*f)+1e-9) / f
	}
	f := math.Pow(10, e)
	return math.Floor(v/f+1e-9) * f
}

// niceHigh rounds v up as niceLow rounds down (0.437 → 0.5).
func niceHigh(v float64) float64 { return -niceLow(-v) }

// SetSizesOfRuns starts the set-size chart of several models: one bar
// series per label, in the model's colour, of the conformal sets of one
// score (APS by default; see SetSizesChart.Scores, whose first score
// counts) on each run's Nodes, split as SetSizesOf splits them, with the
// counts of a label's repeated runs added up and its coverage and mean set
// size taken over all their evaluation nodes. SetSizesChart's Alpha,
// CalibrationFraction, Seed and Title apply.
func SetSizesOfRuns(runs ...Run) *SetSizesChart {
	return &SetSizesChart{runs: append([]Run{}, runs...), counted: true}
}

// runDistributions returns the set-size distributions of the runs of a
// chart started with SetSizesOfRuns, their colours and the subtitle.
func (s *SetSizesChart) runDistributions() ([]SetSizeCounts, []string, string, error) {
	const op = "chart.SetSizesOfRuns"
	groups, err := groupRuns(op, s.runs)
	if err != nil {
		return nil, nil, "", err
	}
	opts := s.opts
	if len(opts.Scores) == 0 {
		opts.Scores = []conformal.Score{conformal.APS{}}
	}
	opts.Scores = opts.Scores[:1]
	dists := make([]SetSizeCounts, len(groups))
	colors := make([]string, len(groups))
	for k, g := range groups {
		d := SetSizeCounts{Label: g.label}
		covered, size, n := 0.0, 0.0, 0
		for _, r := range g.runs {
			res, err := r.Pred.Conformal(r.Nodes, opts)
			if err != nil {
				return nil, nil, "", fmt.Errorf("%s: %s: %w", op, g.label, err)
			}
			d.Label = g.label + " " + res[0].Score
			for c, count := range res[0].SizeCounts() {
				for len(d.Counts) <= c {
					d.Counts = append(d.Counts, 0)
				}
				d.Counts[c] += count
			}
			m := len(res[0].Nodes)
			covered, size, n = covered+float64(res[0].Coverage*float64(m)), size+float64(res[0].MeanSize*float64(m)), n+m
		}
		if n > 0 {
			d.Coverage, d.MeanSize = covered/float64(n), size/float64(n)
		}
		dists[k], colors[k] = d, ModelColor(g.label)
	}
	alpha := s.opts.Alpha
	if alpha == 0 {
		alpha = conformal.DefaultAlpha
	}
	sub := fmt.Sprintf("α = %g: each set holds the label with probability ≥ %g%% · a model's runs added up", alpha, 100*(1-alpha))
	return dists, colors, sub, nil
}
