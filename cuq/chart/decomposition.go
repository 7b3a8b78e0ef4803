package chart

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Outcome classifies a test node in the uncertainty decomposition.
type Outcome int

// The outcomes of a test node: an in-distribution node classified correctly
// or wrongly, or an out-of-distribution node.
const (
	Correct Outcome = iota
	Wrong
	OOD
)

// String returns "correct", "wrong" or "OOD".
func (o Outcome) String() string {
	switch o {
	case Correct:
		return "correct"
	case Wrong:
		return "wrong"
	case OOD:
		return "OOD"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

var outcomeColors = [...]string{Correct: "#3ba272", Wrong: "#ee6666", OOD: "#5470c6"}

// Decomposition draws the uncertainty decomposition of the test nodes: one
// point (AU[i], EU[i]) per node, with aleatoric uncertainty AU = E_Q[H(Θ)]
// on the x axis and epistemic uncertainty EU = TU − AU on the y axis,
// coloured by outcome[i]. Correctly classified nodes should sit near the
// origin, wrong ones at high AU, out-of-distribution ones at high EU.
func Decomposition(title string, au, eu []float64, outcome []Outcome) (*Chart, error) {
	if len(au) != len(eu) || len(au) != len(outcome) {
		return nil, fmt.Errorf("chart.Decomposition: %d AU, %d EU and %d outcomes, want equal lengths", len(au), len(eu), len(outcome))
	}
	if len(au) == 0 {
		return nil, fmt.Errorf("chart.Decomposition: no nodes")
	}
	groups := make([][]opts.ScatterData, len(outcomeColors))
	for i := range au {
		if math.IsNaN(au[i]) || math.IsInf(au[i], 0) || math.IsNaN(eu[i]) || math.IsInf(eu[i], 0) {
			return nil, fmt.Errorf("chart.Decomposition: node %d has AU %v, EU %v", i, au[i], eu[i])
		}
		o := outcome[i]
		if o < Correct || o > OOD {
			return nil, fmt.Errorf("chart.Decomposition: node %d has unknown outcome %d", i, int(o))
		}
		groups[o] = append(groups[o], opts.ScatterData{Value: [2]float64{au[i], eu[i]}})
	}
	sc := charts.NewScatter()
	sc.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "30"}),
		charts.WithGridOpts(opts.Grid{Top: "70", Left: "60", Right: "30", Bottom: "50"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "AU (aleatoric)", NameLocation: "middle", NameGap: 30, Type: "value"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "EU (epistemic)", Type: "value"}),
	)
	for o, pts := range groups {
		if len(pts) == 0 {
			continue
		}
		sc.AddSeries(Outcome(o).String(), pts,
			charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 6}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: outcomeColors[o], Opacity: opts.Float(0.7)}),
		)
	}
	return newChart(title, 640, 520, sc), nil
}
