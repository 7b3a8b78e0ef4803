package truth

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Chart draws the sweep's table: for every model and each of its measures
// TU, AU and EU, Spearman's rank correlation with the matching ground
// truth over the grid points "h=…, s=…", in the sweep's order, mean ±
// standard error over the seeds. Each model has its colour, each measure
// its dash (TU solid, AU dashed, EU dotted). Grid points where a measure's
// correlation is undefined (NaN) on every seed are reported as an error.
func (t Table) Chart(title string) (*chart.Chart, error) {
	x, curves, err := t.curves(title)
	if err != nil {
		return nil, err
	}
	return chart.Lines(title, "generator (homophily h, feature signal s)", "Spearman ρ with the ground truth", x, curves...)
}

// curves returns the grid points and the curves of Chart.
func (t Table) curves(title string) ([]string, []chart.Curve, error) {
	type key struct {
		model   string
		measure uq.Measure
	}
	var x []string
	var keys []key
	values := map[key]map[string][]float64{}
	var models []string
	for _, r := range t {
		if r.Measure != uq.TU && r.Measure != uq.AU && r.Measure != uq.EU {
			continue
		}
		point := fmt.Sprintf("h=%g, s=%g", r.Homophily, r.Signal)
		if !slices.Contains(x, point) {
			x = append(x, point)
		}
		if !slices.Contains(models, r.Model) {
			models = append(models, r.Model)
		}
		k := key{r.Model, r.Measure}
		if values[k] == nil {
			keys = append(keys, k)
			values[k] = map[string][]float64{}
		}
		if !math.IsNaN(r.Spearman) {
			values[k][point] = append(values[k][point], r.Spearman)
		}
	}
	if len(keys) == 0 {
		return nil, nil, fmt.Errorf("truth: Table.Chart %q: no TU, AU or EU rows", title)
	}
	dash := map[uq.Measure]chart.Dash{uq.TU: chart.Solid, uq.AU: chart.Dashed, uq.EU: chart.Dotted}
	curves := make([]chart.Curve, len(keys))
	for n, k := range keys {
		c := chart.Curve{Name: k.model + " " + k.measure.String(), Mean: make([]float64, len(x)), SE: make([]float64, len(x)),
			Color: chart.Palette[slices.Index(models, k.model)%len(chart.Palette)], Dash: dash[k.measure]}
		for i, p := range x {
			v := values[k][p]
			if len(v) == 0 {
				return nil, nil, fmt.Errorf("truth: Table.Chart %q: %s has no defined Spearman correlation at %s", title, c.Name, p)
			}
			st := eval.Aggregate(v, 0)
			c.Mean[i] = st.Mean
			if len(v) > 1 {
				c.SE[i] = st.SE
			}
		}
		curves[n] = c
	}
	return x, curves, nil
}
