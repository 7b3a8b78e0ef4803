package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
)

// bins returns the equal-width bins over [0, 1] of the counts: the bin's
// mean confidence and accuracy, NaN where it is empty (see eval.Bin).
func bins(counts []BinCount) []eval.Bin {
	out := make([]eval.Bin, len(counts))
	for k, c := range counts {
		b := eval.Bin{Lo: float64(k) / float64(len(counts)), Hi: float64(k+1) / float64(len(counts)), Count: c.Count,
			Confidence: math.NaN(), Accuracy: math.NaN()}
		if c.Count > 0 {
			b.Confidence = c.ConfidenceSum / float64(c.Count)
			b.Accuracy = float64(c.Correct) / float64(c.Count)
		}
		out[k] = b
	}
	return out
}

// modelsOf returns the models of m's keys in the order of the Model enum.
func modelsOf[V any](m map[Model]V) []Model {
	var out []Model
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ReliabilityDiagrams returns the reliability diagram of every model on
// dataset ds, over the test nodes of all its classification runs (their
// bins added up), in the order of the models.
func (res *Results) ReliabilityDiagrams(ds string) ([]*chart.Chart, error) {
	var out []*chart.Chart
	for _, m := range modelsOf(res.Reliability[ds]) {
		c, err := chart.ReliabilityOfBins(bins(res.Reliability[ds][m])).Title(m.String() + " on " + ds).Done()
		if err != nil {
			return nil, fmt.Errorf("experiment: %s %s: %w", ds, m, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// SetSizeChart returns the distribution of the conformal set sizes of
// score (APS, RAPS or DAPS) of every model on dataset ds, over the
// evaluated test nodes of all its classification runs, with the mean
// coverage and set size over the runs; nil when no run has them.
func (res *Results) SetSizeChart(ds, score string) (*chart.Chart, error) {
	var dists []chart.SetSizeCounts
	for _, row := range res.Extended {
		counts := res.SetSizes[ds][row.Model][score]
		if row.Dataset != ds || row.Setting != Classification || counts == nil {
			continue
		}
		dists = append(dists, chart.SetSizeCounts{Label: row.Model.String(), Counts: counts,
			Coverage: row.Stats[Coverage.Key(score)].Mean, MeanSize: row.Stats[SetSize.Key(score)].Mean})
	}
	if len(dists) == 0 {
		return nil, nil
	}
	return chart.SetSizesOfCounts(ConformalAlpha, dists...).Title(ds + ": " + score + " set sizes").Done()
}

// GroupCalibrationChart returns the mean ECE (in percent) over the runs
// of dataset ds in the GraphCalibration setting of the test nodes grouped
// by degree (byHomophily false) or by local homophily (true): a curve per
// model (its colour) and calibrator (its line pattern: none, TS, CaGCN,
// GATS) ± its standard error. A group is drawn when every curve has its
// ECE from two runs or more, so with a standard error; in a grid of one
// run, when every curve has its ECE, and the curves have no bands. The
// chart is nil when fewer than two groups are drawn; the tables
// "calibration by degree" and "calibration by homophily" of
// WriteExtendedTables hold every group.
func (res *Results) GroupCalibrationChart(ds string, byHomophily bool) (*chart.Chart, error) {
	nodes, by := NodesByDegree, "degree"
	if byHomophily {
		nodes, by = NodesByHomophily, "local homophily"
	}
	var t extendedTable
	for _, tb := range extendedTables() {
		if tb.grouping != nil && tb.grouping.nodes == nodes {
			t = tb
		}
	}
	labels, rows := res.groupLabels(ds, t)
	type curve struct {
		row    ExtendedRow
		metric Metric
		k      int // calibrator
	}
	var curves []curve
	for _, row := range rows {
		for k, m := range t.grouping.ece {
			if slices.ContainsFunc(labels, func(l string) bool { _, ok := row.Stats[m.Key(l)]; return ok }) {
				curves = append(curves, curve{row, m, k})
			}
		}
	}
	// A group's ECE from one run has no standard error: such groups are
	// drawn only in a grid of one run.
	single := !slices.ContainsFunc(rows, func(r ExtendedRow) bool { return r.Runs > 1 })
	x := slices.DeleteFunc(slices.Clone(labels), func(l string) bool {
		return slices.ContainsFunc(curves, func(c curve) bool {
			st, ok := c.row.Stats[c.metric.Key(l)]
			return !ok || (math.IsNaN(st.SE) && !single)
		})
	})
	if len(x) < 2 {
		return nil, nil
	}
	var lines []chart.Curve
	for _, c := range curves {
		line := chart.Curve{Name: c.row.Model.String() + ", " + calibrators[c.k], Color: chart.ModelColor(c.row.Model.String()),
			Dash: chart.DashCycle(c.k)}
		for _, l := range x {
			st := c.row.Stats[c.metric.Key(l)]
			line.Mean, line.SE = append(line.Mean, 100*st.Mean), append(line.SE, 100*st.SE)
		}
		if slices.ContainsFunc(line.SE, math.IsNaN) {
			line.SE = nil
		}
		lines = append(lines, line)
	}
	c, err := chart.Lines(ds+": ECE by "+by+" of the test nodes", by, "ECE (%)", x, lines...)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", ds, err)
	}
	return c, nil
}

// extendedTable returns table t of the extended tables (see
// WriteExtendedTables) for dataset ds, or nil when no run has its numbers.
func (res *Results) extendedTable(ds string, t extendedTable) (*chart.Table, error) {
	header, rows := res.extendedCells(ds, t)
	if len(rows) == 0 {
		return nil, nil
	}
	return chart.NewTable(ds+": "+t.caption, header, rows)
}

// addExtendedSections adds to p the sections of the metrics beyond the
// paper: calibration (the reliability diagrams and the calibration table),
// selective prediction, conformal prediction sets and the extended OOD
// settings, for the datasets whose records carry them.
func (res *Results) addExtendedSections(p *chart.Page) error {
	if len(res.Extended) == 0 {
		return nil
	}
	tables := extendedTables()
	// The graph-aware calibration tables join the calibration section,
	// the other settings' tables the OOD one.
	graphCalibration := slices.DeleteFunc(slices.Clone(tables[3:]), func(t extendedTable) bool { return t.setting != GraphCalibration })
	ood := slices.DeleteFunc(slices.Clone(tables[3:]), func(t extendedTable) bool { return t.setting == GraphCalibration })
	if err := res.addCalibrationSection(p, append(slices.Clip(tables[:2]), graphCalibration...)); err != nil {
		return err
	}
	if err := res.addConformalSection(p, tables[2:3]); err != nil {
		return err
	}
	if err := res.addWinnerSection(p); err != nil {
		return err
	}
	p.AddSection("OOD detection, all metrics", "AUROC, AUPR with OOD (Out) and ID (In) as positives, and the "+
		"false-positive rate at 95% true-positive rate, of the measures TU, AU and EU, for every OOD setting run, "+
		"including the structure perturbations and the feature-noise severity sweeps.")
	for _, ds := range res.Datasets {
		if err := res.addTables(p, ds, ood); err != nil {
			return err
		}
	}
	return nil
}

// addCalibrationSection adds to p the calibration section: per dataset
// the reliability diagrams, the calibration tables ts and the charts of
// the ECE by group of test nodes.
func (res *Results) addCalibrationSection(p *chart.Page, ts []extendedTable) error {
	p.AddSection("Calibration", fmt.Sprintf("Reliability diagrams of the test nodes of all classification runs, "+
		"in %d equal-width confidence bins: a bar's height is the bin's accuracy, its mark the bin's mean confidence; "+
		"bars below the diagonal are overconfident. The table gives the calibration metrics before and after "+
		"temperature scaling (TS), fitted on the validation nodes of each run. Grids with the graph_calibration "+
		"setting add the ECE after the graph-aware calibrators CaGCN and GATS, and the ECE of the test nodes grouped "+
		"by degree (0, 1, 2, 3–4, 5–8, …) and by local homophily h_i (the fraction of a node's neighbours sharing "+
		"its label, %d equal-width bins) before and after each calibrator, with the groups' mean sizes: "+
		"a group of few nodes has a noisy, upward-biased ECE. The charts draw those ECEs over the groups that every "+
		"model and calibrator has.", eval.DefaultBins, eval.DefaultHomophilyBins))
	for _, ds := range res.Datasets {
		diagrams, err := res.ReliabilityDiagrams(ds)
		if err != nil {
			return err
		}
		if len(diagrams) > 0 {
			p.AddRow(diagrams...)
		}
		if err := res.addTables(p, ds, ts); err != nil {
			return err
		}
		var charts []*chart.Chart
		for _, byHomophily := range []bool{false, true} {
			c, err := res.GroupCalibrationChart(ds, byHomophily)
			if err != nil {
				return err
			}
			if c != nil {
				charts = append(charts, c)
			}
		}
		if len(charts) > 0 {
			p.AddRow(charts...)
		}
	}
	return nil
}

// addConformalSection adds to p the section of the conformal prediction
// sets: per dataset the chart of the DAPS set sizes and the tables ts.
func (res *Results) addConformalSection(p *chart.Page, ts []extendedTable) error {
	p.AddSection("Conformal prediction sets", fmt.Sprintf("Split-conformal prediction sets at level α = %v: "+
		"each run calibrates the APS, RAPS and DAPS scores on half of its test nodes and evaluates the sets on the "+
		"other half. Coverage should be at least %v%%; smaller sets are more informative. The chart shows, per dataset, "+
		"how the DAPS sets of all runs split by size for each model.", ConformalAlpha, 100*(1-ConformalAlpha)))
	for _, ds := range res.Datasets {
		c, err := res.SetSizeChart(ds, "DAPS")
		if err != nil {
			return err
		}
		if c != nil {
			p.AddCharts(c)
		}
		if err := res.addTables(p, ds, ts); err != nil {
			return err
		}
	}
	return nil
}

// addWinnerSection adds to p, when the grid ran shifts beyond the paper's,
// the section of each dataset's WinnerTable.
func (res *Results) addWinnerSection(p *chart.Page) error {
	if !res.beyondPaperShifts() {
		return nil
	}
	p.AddSection("Which uncertainty detects which shift", "For every OOD setting run, the model and measure "+
		"with the best mean AUROC, AUPR-Out and FPR@95 over the runs, among every model of the grid and every "+
		"measure it has; the tables below give every model's TU, AU and EU.")
	for _, ds := range res.Datasets {
		t, err := res.WinnerTable(ds)
		if err != nil {
			return err
		}
		if t != nil {
			p.AddTables(t)
		}
	}
	return nil
}

// addTables adds the extended tables ts of dataset ds that have rows.
func (res *Results) addTables(p *chart.Page, ds string, ts []extendedTable) error {
	for _, t := range ts {
		table, err := res.extendedTable(ds, t)
		if err != nil {
			return err
		}
		if table != nil {
			p.AddTables(table)
		}
	}
	return nil
}
