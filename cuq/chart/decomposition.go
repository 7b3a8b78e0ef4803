package chart

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Outcome classifies a test node in the uncertainty decomposition.
type Outcome int

// The outcomes of a test node: an in-distribution node classified correctly
// or wrongly, or an out-of-distribution node.
const (
	Correct Outcome = iota
	Wrong
	OOD
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"correct", "wrong", "OOD"}

// String returns "correct", "wrong" or "OOD".
func (o Outcome) String() string { return enum.String(o, outcomeNames[:]) }

// outcomeStyle gives each outcome a colour and a symbol, so the groups can
// be told apart without colour.
var outcomeStyle = [numOutcomes]struct{ color, symbol string }{
	Correct: {"#009E73", "circle"},
	Wrong:   {"#D55E00", "triangle"},
	OOD:     {"#0072B2", "diamond"},
}

// decompositionBins is the number of cells per axis in which coinciding
// points are merged.
const decompositionBins = 120

// DecompositionChart builds the uncertainty decomposition of nodes: one
// point (AU, EU) per node, aleatoric uncertainty AU = E[H(Θ)] on the x axis
// and epistemic uncertainty EU = TU − AU on the y axis, by outcome (correct,
// wrong, OOD). Correctly classified nodes should sit near the origin, wrong
// ones at high AU, out-of-distribution ones at high EU.
//
// Nodes are often stacked on one spot (a saturated model gives hundreds of
// nodes the same α), which a plain scatter plot hides. So the points of an
// outcome that fall in the same cell of a 120 × 120 grid over the plot are
// merged into one, placed at their mean, whose area grows with their number
// (the tooltip gives it) and drawn half transparent; the legend gives each
// outcome's count. Start one with Decomposition or DecompositionOf, set
// options, then call Done.
type DecompositionChart struct {
	title        string
	au, eu       []float64
	outcome      []Outcome
	logEU        bool
	subtitle     string
	err          error
	idAccuracy   float64
	hasAccuracy  bool
	idNodes, ood int
	// predAU and predEU are the prediction's measures, kept by
	// DecompositionOf for OOD.
	predAU, predEU []float64
}

// Decomposition starts a decomposition chart of nodes with the given AU, EU
// and outcomes.
func Decomposition(au, eu []float64, outcome []Outcome) *DecompositionChart {
	d := &DecompositionChart{title: "Aleatoric vs epistemic uncertainty", au: au, eu: eu, outcome: outcome}
	if len(au) != len(eu) || len(au) != len(outcome) {
		d.err = fmt.Errorf("chart.Decomposition: %d AU, %d EU and %d outcomes, want equal lengths", len(au), len(eu), len(outcome))
	}
	return d
}

// Title sets the chart's title.
func (d *DecompositionChart) Title(t string) *DecompositionChart { d.title = t; return d }

// LogEU draws EU on a logarithmic axis, which spreads the small values
// where confident models put most nodes. Values below 10⁻⁸ of the largest
// EU (zero included) are drawn at that floor, and the chart says so.
func (d *DecompositionChart) LogEU() *DecompositionChart { d.logEU = true; return d }

// Done returns the chart, or the first error met while building it.
func (d *DecompositionChart) Done() (*Chart, error) {
	ext, err := d.extent()
	if err != nil {
		return nil, err
	}
	series, legend, clamped, floor := d.series(ext, d.logEU, -1)
	sub := "a mark's area grows with the number of nodes on its spot"
	if d.hasAccuracy {
		nodes := fmt.Sprintf("%d nodes", d.idNodes)
		if d.ood > 0 {
			nodes = fmt.Sprintf("%d ID, %d OOD nodes", d.idNodes, d.ood)
		}
		sub = fmt.Sprintf("ID accuracy %.1f%% (%s) · ", 100*d.idAccuracy, nodes) + sub
	}
	titles := []any{map[string]any{"text": d.title, "subtext": sub, "textStyle": map[string]any{"fontSize": 15}}}
	if clamped > 0 {
		titles = append(titles, map[string]any{"subtext": fmt.Sprintf("%d nodes with EU below %.1e are drawn at it", clamped, floor),
			"bottom": 0, "left": "center"})
	}
	yAxis := map[string]any{"name": "EU (epistemic)", "type": "value", "nameLocation": "middle", "nameGap": 48,
		"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
	if d.logEU {
		yAxis["type"], yAxis["name"] = "log", "EU (epistemic, log scale)"
	}
	opt := rawOption{
		"animation": false,
		"title":     titles,
		"tooltip": map[string]any{"trigger": "item", "formatter": jsFunc(`function (p) {
var v = p.value;
return p.marker + v[2] + ' ' + p.seriesName.replace(/ [(].*/, '') + (v[2] > 1 ? ' nodes' : ' node') + '<br/>AU ' + v[0].toPrecision(3) + ', EU ' + v[1].toPrecision(3);
}`)},
		"legend": map[string]any{"data": legend, "top": 56},
		"grid":   map[string]any{"top": 95, "left": 75, "right": 30, "bottom": 60},
		"xAxis": map[string]any{"name": "AU (aleatoric)", "type": "value", "nameLocation": "middle", "nameGap": 30,
			"splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}},
		"yAxis":  yAxis,
		"series": series,
	}
	return newChart(d.title, 640, 540, opt), nil
}

// extent is the range of a decomposition's points: AU in [xlo, xhi], EU
// in [ylo, yhi].
type extent struct{ xlo, xhi, ylo, yhi float64 }

// union returns the smallest extent holding e and f.
func (e extent) union(f extent) extent {
	return extent{min(e.xlo, f.xlo), max(e.xhi, f.xhi), min(e.ylo, f.ylo), max(e.yhi, f.yhi)}
}

// extent checks the builder's nodes and returns their range.
func (d *DecompositionChart) extent() (extent, error) {
	if d == nil {
		return extent{}, fmt.Errorf("chart.Decomposition: nil builder")
	}
	if d.err != nil {
		return extent{}, d.err
	}
	if len(d.au) == 0 {
		return extent{}, fmt.Errorf("chart.Decomposition %q: no nodes", d.title)
	}
	e := extent{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	for i := range d.au {
		a, u, o := d.au[i], d.eu[i], d.outcome[i]
		if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(u) || math.IsInf(u, 0) {
			return extent{}, fmt.Errorf("chart.Decomposition %q: node %d has AU %v, EU %v", d.title, i, a, u)
		}
		if o < Correct || o >= numOutcomes {
			return extent{}, fmt.Errorf("chart.Decomposition %q: node %d has unknown outcome %d", d.title, i, int(o))
		}
		e = e.union(extent{a, a, u, u})
	}
	return e, nil
}

// series returns the scatter series of the nodes, merged in the cells of
// a grid over ext (EU on a log scale when logEU, where values below the
// floor 10⁻⁸·max EU are drawn at it, clamped counting them), with their
// legend names; axis ≥ 0 puts them on that grid's axes.
func (d *DecompositionChart) series(ext extent, logEU bool, axis int) (series []any, legend []string, clamped int, floor float64) {
	y := d.eu
	if logEU {
		floor = max(1e-8*ext.yhi, math.SmallestNonzeroFloat64)
		y = make([]float64, len(d.eu))
		for i, e := range d.eu {
			if e < floor {
				e, clamped = floor, clamped+1
			}
			y[i] = math.Log10(e)
		}
		ext.ylo, ext.yhi = math.Log10(max(ext.ylo, floor)), math.Log10(max(ext.yhi, floor))
	}
	for o := range numOutcomes {
		data, total := d.merged(o, y, ext, logEU)
		if total == 0 {
			continue
		}
		name := fmt.Sprintf("%s (%d)", o, total)
		if axis >= 0 {
			name = o.String() // panels share the legend; their titles give the counts
		}
		legend = append(legend, name)
		st := outcomeStyle[o]
		s := map[string]any{
			"type": "scatter", "name": name, "data": data, "symbol": st.symbol,
			"symbolSize": jsFunc(`function (v) { return Math.min(44, 5 + 3 * Math.sqrt(v[2] - 1)); }`),
			"itemStyle":  map[string]any{"color": st.color, "opacity": 0.55, "borderColor": st.color, "borderWidth": 0.5},
		}
		if axis >= 0 {
			s["xAxisIndex"], s["yAxisIndex"] = axis, axis
		}
		series = append(series, s)
	}
	return series, legend, clamped, floor
}

// merged returns the points (AU, EU, count) of the nodes of outcome o, at
// (AU, y), merged in the cells of the grid over ext: one point per cell,
// at the cell's mean (EU from the mean of y through 10^y when logEU), in
// the order the cells are first met; and the number of nodes.
func (d *DecompositionChart) merged(o Outcome, y []float64, ext extent, logEU bool) (data []any, total int) {
	type bin struct {
		sumAU, sumY float64
		n           int
	}
	bins := map[[2]int]*bin{}
	var order [][2]int
	for i := range d.au {
		if d.outcome[i] != o {
			continue
		}
		total++
		k := [2]int{decompositionCell(d.au[i], ext.xlo, ext.xhi), decompositionCell(y[i], ext.ylo, ext.yhi)}
		b := bins[k]
		if b == nil {
			b = &bin{}
			bins[k] = b
			order = append(order, k)
		}
		b.sumAU, b.sumY, b.n = b.sumAU+d.au[i], b.sumY+y[i], b.n+1
	}
	data = make([]any, len(order))
	for j, k := range order {
		b := bins[k]
		ym := b.sumY / float64(b.n)
		if logEU {
			ym = math.Pow(10, ym)
		}
		data[j] = []float64{b.sumAU / float64(b.n), ym, float64(b.n)}
	}
	return data, total
}

// decompositionCell returns the cell of v among decompositionBins equal
// cells over [lo, hi], 0 when the range is empty.
func decompositionCell(v, lo, hi float64) int {
	if hi <= lo {
		return 0
	}
	return min(decompositionBins-1, int((v-lo)/(hi-lo)*decompositionBins))
}
