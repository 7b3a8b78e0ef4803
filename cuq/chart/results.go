package chart

import (
	"fmt"
	"math"
	"strconv"
)

// AUROCTableOfRuns tabulates the OOD-detection AUROC (%) of several
// models, one row per label and one column per measure that some model
// has (LC aside): the AUROC of the run's OOD nodes (positive) against its
// Nodes, ties counted one half, as AUROCTable; "mean ± SE" over a label's
// repeated runs, "–" where the model lacks the measure.
func AUROCTableOfRuns(runs ...Run) (*Table, error) {
	const op = "chart.AUROCTableOfRuns"
	groups, err := groupRuns(op, runs)
	if err != nil {
		return nil, err
	}
	ms := commonMeasures(groups)
	header := []string{"model", "runs"}
	for _, m := range ms {
		header = append(header, m.String())
	}
	var rows [][]string
	for _, g := range groups {
		row := []string{g.label, strconv.Itoa(len(g.runs))}
		for _, m := range ms {
			if _, err := g.runs[0].Pred.Uncertainty(m); err != nil {
				row = append(row, "–")
				continue
			}
			var v []float64
			for _, r := range g.runs {
				a, err := aurocOf(r.Pred, m, r.Nodes, r.OOD)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", op, g.label, err)
				}
				v = append(v, 100*a)
			}
			row = append(row, formatMeanSE(v, 1))
		}
		rows = append(rows, row)
	}
	return NewTable("OOD-detection AUROC (%), mean ± standard error over a model's runs", header, rows)
}

// formatMeanSE writes the mean of v with the given digits after the
// point, followed by " ± SE" when v holds several values.
func formatMeanSE(v []float64, digits int) string {
	mean, se := meanSE(v)
	s := strconv.FormatFloat(mean, 'f', digits, 64)
	if len(v) > 1 {
		s += " ± " + strconv.FormatFloat(se, 'f', digits, 64)
	}
	return s
}

// ResultsBuilder collects the results of models under settings by metric
// and tabulates them. Start it with Results, add values, then call Done.
type ResultsBuilder struct {
	caption  string
	digits   int
	models   []string
	settings []string
	metrics  []string
	values   map[[3]string][]float64
	err      error
}

// Results starts a results table with the given caption: one row per
// model and setting, one column per metric, each cell the mean ± standard
// error (sample standard deviation over √n) of the values added for it,
// so repeated runs with the same model and setting are averaged. Models,
// settings and metrics keep the order in which they first appear.
func Results(caption string) *ResultsBuilder {
	return &ResultsBuilder{caption: caption, digits: 1, values: map[[3]string][]float64{}}
}

// Add records one value of metric for model under setting (a dataset, an
// OOD shift; empty when there is one) and returns the builder.
func (b *ResultsBuilder) Add(model, setting, metric string, value float64) *ResultsBuilder {
	if b.err != nil {
		return b
	}
	if math.IsNaN(value) || math.IsInf(value, 0) {
		b.err = fmt.Errorf("chart.Results %q: %s, %s, %s: value %v", b.caption, model, setting, metric, value)
		return b
	}
	k := [3]string{model, setting, metric}
	if _, ok := b.values[k]; !ok {
		b.models = appendNew(b.models, model)
		b.settings = appendNew(b.settings, setting)
		b.metrics = appendNew(b.metrics, metric)
	}
	b.values[k] = append(b.values[k], value)
	return b
}

// Digits sets the number of digits after the point, 1 by default.
func (b *ResultsBuilder) Digits(n int) *ResultsBuilder { b.digits = n; return b }

// appendNew appends s to list unless it is there.
func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Done returns the table: columns model, setting (when any setting is
// named), runs (the most values of a cell of the row), then the metrics;
// a cell whose count differs from the row's says "(n = k)", a missing one
// is "–". It returns an error for no values, a non-finite value or a bad
// number of digits.
func (b *ResultsBuilder) Done() (*Table, error) {
	if b == nil {
		return nil, fmt.Errorf("chart.Results: nil builder")
	}
	if b.err != nil {
		return nil, b.err
	}
	if len(b.values) == 0 {
		return nil, fmt.Errorf("chart.Results %q: no values", b.caption)
	}
	if b.digits < 0 || b.digits > 10 {
		return nil, fmt.Errorf("chart.Results %q: %d digits", b.caption, b.digits)
	}
	withSetting := len(b.settings) > 1 || b.settings[0] != ""
	header := []string{"model"}
	if withSetting {
		header = append(header, "setting")
	}
	header = append(header, "runs")
	header = append(header, b.metrics...)
	var rows [][]string
	for _, model := range b.models {
		for _, setting := range b.settings {
			runs := 0
			for _, metric := range b.metrics {
				runs = max(runs, len(b.values[[3]string{model, setting, metric}]))
			}
			if runs == 0 {
				continue
			}
			row := []string{model}
			if withSetting {
				row = append(row, setting)
			}
			row = append(row, strconv.Itoa(runs))
			for _, metric := range b.metrics {
				v := b.values[[3]string{model, setting, metric}]
				switch {
				case len(v) == 0:
					row = append(row, "–")
				case len(v) != runs:
					row = append(row, fmt.Sprintf("%s (n = %d)", formatMeanSE(v, b.digits), len(v)))
				default:
					row = append(row, formatMeanSE(v, b.digits))
				}
			}
			rows = append(rows, row)
		}
	}
	caption := b.caption
	if caption != "" {
		caption += " · "
	}
	return NewTable(caption+"mean ± standard error over runs", header, rows)
}
