package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// ReliabilityChart builds the reliability diagram of one prediction. Start
// it with ReliabilityOf, set options, then call Done.
type ReliabilityChart struct {
	pred  Calibrated
	nodes []int
	bins  int
	title string
	// given are the bins of ReliabilityOfBins.
	given []eval.Bin
}

// ReliabilityOf starts the reliability diagram of p on nodes (usually the
// test nodes): the nodes are grouped by their confidence max_c p̄_c into
// equal-width bins over [0, 1], and a bar per bin shows the fraction
// predicted correctly, a mark the bin's mean confidence. A calibrated
// model's bars reach the diagonal; bars below it are overconfident. The
// tooltip gives each bin's range, count, accuracy and mean confidence,
// the subtitle the ECE and MCE of the bins, the accuracy and the mean
// confidence (see eval.CalibrationOf). Empty bins have no bar.
func ReliabilityOf(p Calibrated, nodes []int) *ReliabilityChart {
	return &ReliabilityChart{pred: p, nodes: nodes}
}

// ReliabilityOfBins starts the reliability diagram of equal-width bins
// computed elsewhere, such as the bins of several runs added up (see
// eval.EqualWidthBins for their meaning; an empty bin has Count 0). The
// subtitle's ECE and MCE are eval.ECE and eval.MCE of the bins, its
// accuracy and mean confidence their count-weighted means. Bins has no
// effect on it.
func ReliabilityOfBins(bins []eval.Bin) *ReliabilityChart {
	return &ReliabilityChart{given: bins}
}

// Bins sets the number of bins, by default eval.DefaultBins (10).
func (r *ReliabilityChart) Bins(n int) *ReliabilityChart { r.bins = n; return r }

// Title sets the title, by default "<model>: reliability diagram".
func (r *ReliabilityChart) Title(t string) *ReliabilityChart { r.title = t; return r }

// reliabilityTooltip describes one bin from the fields of its data item.
const reliabilityTooltip = `function (p) {
var d = p.data;
if (!d || d.count === undefined) { return ''; }
return 'confidence ' + d.range + '<br/>' + d.count + (d.count === 1 ? ' node' : ' nodes') +
'<br/>accuracy ' + d.acc.toFixed(3) + '<br/>mean confidence ' + d.conf.toFixed(3);
}`

// Done returns the chart, or an error for a nil prediction, a bad number of
// bins or the errors of cuq.Prediction.Calibration.
func (r *ReliabilityChart) Done() (*Chart, error) {
	c, err := r.calibration()
	if err != nil {
		return nil, err
	}
	title := titleOf(r.title, nameOf(r.pred), "reliability diagram")
	n := len(c.Bins)
	categories := make([]string, n)
	for b := range categories {
		categories[b] = strconv.Itoa(b)
	}
	sub := fmt.Sprintf("ECE %.2f%% · MCE %.2f%% over %d equal-width bins\n%d nodes · accuracy %.1f%% · mean confidence %.1f%%",
		100*c.ECE, 100*c.MCE, n, c.Nodes, 100*c.Accuracy, 100*c.Confidence)
	axisLine := map[string]any{"lineStyle": map[string]any{"color": "#eee"}}
	opt := rawOption{
		"animation": false,
		"title": map[string]any{"text": title, "subtext": sub, "textStyle": map[string]any{"fontSize": 15},
			"subtextStyle": map[string]any{"lineHeight": 16}},
		"tooltip": map[string]any{"trigger": "item", "formatter": jsFunc(reliabilityTooltip)},
		"legend":  map[string]any{"data": []string{"accuracy", "mean confidence", "perfect calibration"}, "top": 66},
		"grid":    map[string]any{"top": 105, "left": 60, "right": 30, "bottom": 50},
		// The bins are the bands of a hidden category axis; a value axis
		// over the same width carries the confidence scale and the
		// diagonal.
		"xAxis": []any{
			map[string]any{"type": "category", "data": categories, "show": false},
			map[string]any{"type": "value", "min": 0, "max": 1, "interval": 0.2, "position": "bottom",
				"name": "confidence", "nameLocation": "middle", "nameGap": 28, "splitLine": axisLine},
		},
		"yAxis": map[string]any{"type": "value", "min": 0, "max": 1, "interval": 0.2,
			"name": "accuracy", "nameLocation": "middle", "nameGap": 40, "splitLine": axisLine},
		"series": reliabilitySeries(c.Bins),
	}
	return newChart(title, 560, 480, opt), nil
}

// reliabilitySeries returns the series of a reliability diagram of bins:
// the bars of their accuracy, the marks of their mean confidence (both
// "-" for an empty bin, else items that carry the bin's count, accuracy,
// confidence and range for the tooltip) and the diagonal.
func reliabilitySeries(bins []eval.Bin) []any {
	accuracy := make([]any, len(bins))
	confidence := make([]any, len(bins))
	for b, bin := range bins {
		accuracy[b], confidence[b] = "-", "-"
		if bin.Count == 0 {
			continue
		}
		open := "("
		if b == 0 {
			open = "["
		}
		item := map[string]any{
			"count": bin.Count, "acc": bin.Accuracy, "conf": bin.Confidence,
			"range": open + strconv.FormatFloat(bin.Lo, 'g', 4, 64) + ", " + strconv.FormatFloat(bin.Hi, 'g', 4, 64) + "]",
		}
		bar := map[string]any{"value": bin.Accuracy}
		mark := map[string]any{"value": bin.Confidence}
		for k, v := range item {
			bar[k], mark[k] = v, v
		}
		accuracy[b], confidence[b] = bar, mark
	}
	return []any{
		map[string]any{"type": "bar", "name": "accuracy", "data": accuracy, "xAxisIndex": 0,
			"barCategoryGap": "8%", "itemStyle": map[string]any{"color": Palette[0], "opacity": 0.8}},
		map[string]any{"type": "scatter", "name": "mean confidence", "data": confidence, "xAxisIndex": 0,
			"symbol": "rect", "symbolSize": []int{18, 3}, "itemStyle": map[string]any{"color": Palette[1]}},
		map[string]any{"type": "line", "name": "perfect calibration", "data": [][2]float64{{0, 0}, {1, 1}},
			"xAxisIndex": 1, "showSymbol": false, "silent": true, "color": "#888",
			"lineStyle": map[string]any{"color": "#888", "type": Dashed.echarts(), "width": 1}},
	}
}

// calibration returns the summary the diagram shows: the prediction's
// calibration, or the given bins' with their totals.
func (r *ReliabilityChart) calibration() (eval.Calibration, error) {
	if r.given != nil {
		c := eval.Calibration{Bins: r.given, ECE: eval.ECE(r.given), MCE: eval.MCE(r.given)}
		for _, b := range r.given {
			if b.Count < 0 {
				return c, fmt.Errorf("chart.ReliabilityOfBins: bin of %d nodes", b.Count)
			}
			if b.Count > 0 {
				c.Nodes += b.Count
				c.Accuracy += float64(float64(b.Count) * b.Accuracy)
				c.Confidence += float64(float64(b.Count) * b.Confidence)
			}
		}
		if c.Nodes == 0 {
			return c, fmt.Errorf("chart.ReliabilityOfBins: no nodes in %d bins", len(r.given))
		}
		c.Accuracy /= float64(c.Nodes)
		c.Confidence /= float64(c.Nodes)
		return c, nil
	}
	if isNil(r.pred) {
		return eval.Calibration{}, fmt.Errorf("chart.ReliabilityOf: nil prediction")
	}
	if r.bins < 0 {
		return eval.Calibration{}, fmt.Errorf("chart.ReliabilityOf: %d bins", r.bins)
	}
	c, err := r.pred.Calibration(r.nodes, eval.CalibrationOptions{Bins: r.bins})
	if err != nil {
		return eval.Calibration{}, fmt.Errorf("chart.ReliabilityOf: %w", err)
	}
	return c, nil
}

// RiskCoverageChart builds the risk-coverage curves of one prediction.
// Start it with RiskCoverageOf, set options, then call Done.
type RiskCoverageChart measureCurves

// RiskCoverageOf starts the risk-coverage curves of p on nodes (usually
// the test nodes): for each measure, the error rate among the fraction c
// of the nodes that it finds least uncertain, for every c = k/n (see
// eval.RiskCoverageOf), with the AURC, the mean risk, in the legend (lower
// is better). A grey dotted line shows the best any measure can do, all
// wrong predictions last. At full coverage every curve ends at the error
// rate. A curve equal to an earlier one is named so in the legend
// ("EU_PC, AURC 0.1916 (= EU, AURC 0.1916)").
func RiskCoverageOf(p Scored, nodes []int) *RiskCoverageChart {
	return &RiskCoverageChart{pred: p, nodes: nodes}
}

// Measures chooses the measures, by default every one of TU, AU, EU,
// EU_PC and EU_SO that the prediction has, as ARCOf.
func (r *RiskCoverageChart) Measures(ms ...uq.Measure) *RiskCoverageChart {
	r.measures = ms
	return r
}

// Title sets the title, by default "<model>: risk-coverage curves".
func (r *RiskCoverageChart) Title(t string) *RiskCoverageChart { r.title = t; return r }

// riskCoverageTooltip lists the risks of the curves at one coverage.
const riskCoverageTooltip = `function (ps) {
var s = 'coverage ' + Number(ps[0].value[0]).toFixed(3);
ps.forEach(function (p) { s += '<br/>' + p.marker + p.seriesName + ': risk ' + Number(p.value[1]).toFixed(3); });
return s;
}`

// Done returns the chart, or an error naming a measure the prediction
// lacks, or the other errors of cuq.Prediction.RiskCoverage.
func (r *RiskCoverageChart) Done() (*Chart, error) {
	ms, title, err := (*measureCurves)(r).resolve("chart.RiskCoverageOf", "risk-coverage curves")
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("chart.RiskCoverageOf: no measures")
	}
	correct, err := correctness(r.pred, ms[0], r.nodes)
	if err != nil {
		return nil, fmt.Errorf("chart.RiskCoverageOf: %w", err)
	}
	var curves riskCurves
	for _, m := range ms {
		v, err := valuesAt(r.pred, m, r.nodes)
		if err != nil {
			return nil, fmt.Errorf("chart.RiskCoverageOf: %w", err)
		}
		rc, err := eval.RiskCoverageOf(v, correct)
		if err != nil {
			return nil, fmt.Errorf("chart.RiskCoverageOf: %s: %w", r.pred.Name(), err)
		}
		color, dash := MeasureStyle(m)
		curves.add(fmt.Sprintf("%s, AURC %.4f", m, rc.AURC()), rc, color, dash, 2)
	}
	// The oracle ranks every wrong prediction above every right one.
	oracle := make([]float64, len(correct))
	wrong := 0
	for k, ok := range correct {
		if !ok {
			oracle[k], wrong = 1, wrong+1
		}
	}
	best, err := eval.RiskCoverageOf(oracle, correct)
	if err != nil {
		return nil, fmt.Errorf("chart.RiskCoverageOf: %w", err)
	}
	curves.add(fmt.Sprintf("best possible, AURC %.4f", best.AURC()), best, "#888888", Dotted, 1.5)
	sub := fmt.Sprintf("%d nodes, %d wrong (error rate %.1f%%) · AURC: mean risk over coverages, lower is better",
		len(correct), wrong, 100*float64(wrong)/float64(len(correct)))
	return curves.chart(title, sub), nil
}

// riskCurves collects the curves of a risk-coverage chart.
type riskCurves struct {
	series []any
	names  []string
	risks  [][]float64
}

// add adds the curve rc named name, in its colour, dash and width; a
// curve equal to an earlier one is named so.
func (c *riskCurves) add(name string, rc eval.RiskCoverage, color string, dash Dash, width float64) {
	for k, r := range c.risks {
		if sameValues(r, rc.Risk) {
			name += " (= " + c.names[k] + ")"
			break
		}
	}
	c.risks = append(c.risks, rc.Risk)
	data := make([][2]float64, len(rc.Risk))
	for k := range rc.Risk {
		data[k] = [2]float64{rc.Coverage[k], rc.Risk[k]}
	}
	c.series = append(c.series, map[string]any{"type": "line", "name": name, "data": data, "showSymbol": false,
		"color": color, "lineStyle": map[string]any{"width": width, "color": color, "type": dash.echarts()}})
	c.names = append(c.names, name)
}

// chart returns the chart of the curves under title and subtitle sub.
func (c *riskCurves) chart(title, sub string) *Chart {
	// The risk axis ends at the largest risk rounded up to 0.05.
	top := 0.05
	for _, risk := range c.risks {
		for _, r := range risk {
			top = math.Max(top, math.Ceil(float64(20*r)-1e-9)/20)
		}
	}
	grid := map[string]any{"lineStyle": map[string]any{"color": "#eee"}}
	right := rightLegendMargin(c.names, 8, 210)
	opt := rawOption{
		"animation": false,
		"title":     map[string]any{"text": title, "subtext": sub, "textStyle": map[string]any{"fontSize": 15}},
		"tooltip":   map[string]any{"trigger": "axis", "formatter": jsFunc(riskCoverageTooltip)},
		"legend":    map[string]any{"data": c.names, "orient": "vertical", "right": 8, "top": 60, "type": "scroll"},
		"grid":      map[string]any{"top": 70, "left": 60, "right": right, "bottom": 50},
		"xAxis": map[string]any{"type": "value", "min": 0, "max": 1, "interval": 0.2, "name": "coverage",
			"nameLocation": "middle", "nameGap": 28, "splitLine": grid},
		"yAxis": map[string]any{"type": "value", "min": 0, "max": top, "name": "risk (error rate among kept nodes)",
			"nameLocation": "middle", "nameGap": 42, "splitLine": grid},
		"series": c.series,
	}
	return newChart(title, 800+right-210, 420, opt)
}
