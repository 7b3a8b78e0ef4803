package truth

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
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
	for _, r := range t {
		if r.Measure != uq.TU && r.Measure != uq.AU && r.Measure != uq.EU {
			continue
		}
		point := fmt.Sprintf("h=%g, s=%g", r.Homophily, r.Signal)
		if !slices.Contains(x, point) {
			x = append(x, point)
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
			Color: chart.ModelColor(k.model), Dash: dash[k.measure]}
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

// Scatter draws, for each prediction on p's graph, measure m of every test
// node against the matching ground truth TruthOf(m), both as fractional
// ranks (r − 1)/(n − 1) over the n test nodes (0 the smallest, 1 the
// largest, ties at their average rank), so that the picture shows what
// Spearman's ρ, given in each model's panel title, measures: a
// measure that ranks nodes like the truth lies along the diagonal, one
// unrelated to it fills the square, one reversed lies along the other
// diagonal. Ranks also spread the many nodes whose ground truth is close
// to 0. Each model has a panel, up to four in a row, in its colour
// (chart.ModelColor).
func (p *Point) Scatter(m uq.Measure, preds ...*cuq.Prediction) (*chart.Chart, error) {
	if len(preds) == 0 {
		return nil, fmt.Errorf("truth: Point.Scatter: no predictions")
	}
	series := make([]chart.Points, len(preds))
	for k, pred := range preds {
		score, truth, err := p.compare(pred, m)
		if err != nil {
			return nil, fmt.Errorf("truth: Point.Scatter: %w", err)
		}
		if slices.ContainsFunc(score, math.IsNaN) {
			return nil, fmt.Errorf("truth: Point.Scatter: %s's %v is NaN at a test node", pred.Name(), m)
		}
		rho, _ := eval.Spearman(score, truth)
		series[k] = chart.Points{Name: fmt.Sprintf("%s (ρ = %.2f)", pred.Name(), rho), X: fractionalRanks(truth),
			Y: fractionalRanks(score), Color: chart.ModelColor(pred.Name())}
	}
	kind := TruthOf(m)
	title := fmt.Sprintf("%v against the %v ground truth, ranked (h = %g, s = %g, seed %d)", m, kind, p.Homophily, p.Signal, p.Seed)
	return chart.ScatterPanels(title, fmt.Sprintf("rank by %s", kind.Definition()), fmt.Sprintf("rank by the model's %v", m), min(len(series), 4), series...)
}

// fractionalRanks returns (r − 1)/(n − 1) for the ranks r of x
// (eval.Ranks), 0 for a single value.
func fractionalRanks(x []float64) []float64 {
	r := eval.Ranks(x)
	for i := range r {
		r[i] = (r[i] - 1) / float64(max(len(r)-1, 1))
	}
	return r
}
