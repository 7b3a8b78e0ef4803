package experiment

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// ExtendedRow aggregates the runs of one dataset, model and setting (and,
// in a sweep, severity) over splits and inits: every metric of the
// extended table, keyed as in Result.Metrics, plus "ACC" (accuracy on the
// test nodes), "ID_ACC" (on the ID test nodes) and "AUROC/<measure>".
// Each Stat is eval.Aggregate with the textbook standard error.
type ExtendedRow struct {
	Dataset  string
	Model    Model
	Setting  Setting
	Severity float64 // of a sweep's point; 0 otherwise
	Runs     int
	// Collapsed counts the runs whose training collapsed (see
	// Record.Collapsed); their results are in Stats as the others'.
	Collapsed int
	Stats     map[string]eval.Stat
}

// Extended-table keys of the accuracies, beside Metric.Key's.
const (
	accuracyKey   = "ACC"
	idAccuracyKey = "ID_ACC"
	aurocMetric   = "AUROC"
	// collapsedKey is the share of collapsed runs (Record.Collapsed), of
	// the runs whose records say.
	collapsedKey = "COLLAPSED"
)

// extendedSums holds what the extended tables add up over runs.
type extendedSums struct {
	values      map[string][]float64
	runs        int
	collapsed   int
	reliability []BinCount
	setSizes    map[string][]int
}

// extendedKey identifies a row of the extended table.
type extendedKey struct {
	ds       string
	model    Model
	setting  Setting
	severity float64
}

// aggregateExtended aggregates the results of records (sorted) that carry
// the metrics beyond the paper into res.Extended, res.Reliability and
// res.SetSizes.
func (res *Results) aggregateExtended(records []*Record) error {
	sums, keys, err := sumExtended(records)
	if err != nil {
		return err
	}
	res.sortExtendedKeys(keys)
	res.Reliability, res.SetSizes = map[string]map[Model][]BinCount{}, map[string]map[Model]map[string][]int{}
	for _, k := range keys {
		s := sums[k]
		row := ExtendedRow{Dataset: k.ds, Model: k.model, Setting: k.setting, Severity: k.severity, Runs: s.runs,
			Collapsed: s.collapsed, Stats: map[string]eval.Stat{}}
		for key, v := range s.values {
			row.Stats[key] = eval.Aggregate(v, 0)
		}
		res.Extended = append(res.Extended, row)
		if k.setting != Classification {
			continue
		}
		if res.Reliability[k.ds] == nil {
			res.Reliability[k.ds], res.SetSizes[k.ds] = map[Model][]BinCount{}, map[Model]map[string][]int{}
		}
		res.Reliability[k.ds][k.model] = s.reliability
		res.SetSizes[k.ds][k.model] = s.setSizes
	}
	return nil
}

// sumExtended adds up the results of records that carry the metrics beyond
// the paper per row of the extended table, and returns the sums and the
// rows' keys in the order the records first have them.
func sumExtended(records []*Record) (map[extendedKey]*extendedSums, []extendedKey, error) {
	sums := map[extendedKey]*extendedSums{}
	var keys []extendedKey
	add := func(k extendedKey, rec *Record, r *Result) {
		s := sums[k]
		if s == nil {
			s = &extendedSums{values: map[string][]float64{}, setSizes: map[string][]int{}}
			sums[k] = s
			keys = append(keys, k)
		}
		s.add(rec, r)
	}
	for _, r := range records {
		m, err := ParseModel(r.Model)
		if err != nil {
			return nil, nil, fmt.Errorf("experiment: %w", err)
		}
		for _, st := range knownSettings {
			result := r.Results[st.String()]
			switch {
			case result == nil:
			case st.sweep():
				for _, p := range result.Sweep {
					if len(p.Metrics) > 0 {
						add(extendedKey{r.Dataset, m, st, p.Severity}, r, p)
					}
				}
			case len(result.Metrics) > 0:
				add(extendedKey{r.Dataset, m, st, 0}, r, result)
			}
		}
	}
	return sums, keys, nil
}

// add adds result r of record rec to s.
func (s *extendedSums) add(rec *Record, r *Result) {
	s.runs++
	put := func(key string, v float64) { s.values[key] = append(s.values[key], v) }
	put(accuracyKey, r.Accuracy)
	if rec.ValChance > 0 {
		collapsed := 0.0
		if rec.Collapsed() {
			collapsed = 1
			s.collapsed++
		}
		put(collapsedKey, collapsed)
	}
	if r.IDAccuracy != nil {
		put(idAccuracyKey, *r.IDAccuracy)
	}
	for m, v := range r.AUROC {
		put(aurocMetric+"/"+m, v)
	}
	for key, v := range r.Metrics {
		put(key, v)
	}
	s.reliability = addCounts(s.reliability, r.Reliability, func(a, b BinCount) BinCount {
		return BinCount{Count: a.Count + b.Count, Correct: a.Correct + b.Correct, ConfidenceSum: a.ConfidenceSum + b.ConfidenceSum}
	})
	for score, counts := range r.SetSizes {
		s.setSizes[score] = addCounts(s.setSizes[score], counts, func(a, b int) int { return a + b })
	}
}

// sortExtendedKeys sorts the rows' keys by dataset (in the order of
// res.Datasets), setting, model and severity.
func (res *Results) sortExtendedKeys(keys []extendedKey) {
	slices.SortStableFunc(keys, func(a, b extendedKey) int {
		if c := slices.Index(res.Datasets, a.ds) - slices.Index(res.Datasets, b.ds); c != 0 {
			return c
		}
		if c := int(a.setting) - int(b.setting); c != 0 {
			return c
		}
		if c := int(a.model) - int(b.model); c != 0 {
			return c
		}
		return cmp.Compare(a.severity, b.severity)
	})
}

// addCounts adds b to a elementwise with add, extending a to b's length.
func addCounts[T any](a, b []T, add func(T, T) T) []T {
	for len(a) < len(b) {
		var zero T
		a = append(a, zero)
	}
	for i, v := range b {
		a[i] = add(a[i], v)
	}
	return a
}

// extendedColumn is a column of a Markdown table of the extended table.
type extendedColumn struct {
	title string
	key   string
	// percent formats the value in percent with one decimal, others
	// with three decimals.
	percent bool
}

// metricColumn returns the column of metric m of measure or score of.
func metricColumn(m Metric, of string) extendedColumn {
	title := m.Title()
	if of != "" {
		title += " " + of
	}
	return extendedColumn{title: title, key: m.Key(of), percent: m.percent()}
}

// percent reports whether m is a rate or a probability, shown in percent.
func (m Metric) percent() bool {
	switch m {
	case Brier, NLL, Temperature, NLLScaled, SetSize, NLLCaGCN, NLLGATS:
		return false
	}
	return true
}

// extendedMeasures are the measures of the Markdown tables' columns; the
// CSV holds every measure.
var extendedMeasures = []uq.Measure{uq.TU, uq.AU, uq.EU}

// extendedTable is one Markdown table of the extended tables: the rows of
// setting with the columns, or with grouping the ECE by group of nodes.
type extendedTable struct {
	caption  string
	setting  Setting
	columns  []extendedColumn
	grouping *nodeGrouping
}

// nodeGrouping is a table of the ECE by group of test nodes, one column
// per group: per model a row of the group's mean number of nodes per run
// (metric nodes), then a row of the ECE before calibration and after each
// calibrator (the metrics ece, in the order of calibrators).
type nodeGrouping struct {
	nodes Metric
	ece   []Metric
}

// calibrators name the rows of a nodeGrouping table: before calibration,
// after temperature scaling, CaGCN and GATS.
var calibrators = []string{"none", "TS", "CaGCN", "GATS"}

// extendedTables lists the Markdown tables per dataset.
func extendedTables() []extendedTable {
	acc := extendedColumn{title: "Acc", key: accuracyKey, percent: true}
	tables := classificationTables(acc)
	for _, s := range knownSettings[1:] {
		switch s {
		case GraphCalibration:
			tables = append(tables, graphCalibrationTables(s, acc)...)
		case GraphConformal:
			tables = append(tables, graphConformalTable(s, acc))
		default:
			tables = append(tables, oodTable(s, acc))
		}
	}
	return tables
}

// classificationTables are the tables of the Classification setting:
// calibration, selective prediction and conformal prediction sets.
func classificationTables(acc extendedColumn) []extendedTable {
	calibration := []extendedColumn{acc}
	for _, m := range []Metric{ECE, AdaptiveECE, MCE, Brier, NLL, Temperature, ECEScaled, NLLScaled} {
		calibration = append(calibration, metricColumn(m, ""))
	}
	var selective []extendedColumn
	for _, m := range []Metric{AURC, MisclassAUROC, MisclassAUPR} {
		for _, u := range extendedMeasures {
			selective = append(selective, metricColumn(m, u.String()))
		}
	}
	var sets []extendedColumn
	for _, s := range scoreNames {
		for _, m := range []Metric{Coverage, SetSize, Singletons} {
			sets = append(sets, metricColumn(m, s))
		}
	}
	return []extendedTable{
		{"calibration (test nodes; TS: after temperature scaling on the validation nodes)", Classification, calibration, nil},
		{"selective prediction and misclassification detection", Classification, selective, nil},
		{fmt.Sprintf("conformal prediction sets at α = %v (calibrated on half of the test nodes)", ConformalAlpha), Classification, sets, nil},
	}
}

// graphCalibrationTables are the tables of setting s, GraphCalibration:
// the calibrators' metrics, and the ECE by degree and by homophily.
func graphCalibrationTables(s Setting, acc extendedColumn) []extendedTable {
	return []extendedTable{
		{s.Title() + " (test nodes; each calibrator fitted on the run's split)", s,
			[]extendedColumn{acc, metricColumn(ClasswiseECE, ""), metricColumn(ECE, ""), metricColumn(NLL, ""), metricColumn(ECEScaled, ""), metricColumn(NLLScaled, ""),
				metricColumn(ECECaGCN, ""), metricColumn(NLLCaGCN, ""), metricColumn(ECEGATS, ""), metricColumn(NLLGATS, "")}, nil},
		{caption: "calibration by degree: ECE of the test nodes of each degree group (degrees 0, 1, 2, 3–4, 5–8, …) " +
			"before calibration (none) and after each calibrator", setting: s,
			grouping: &nodeGrouping{NodesByDegree, []Metric{ECEByDegree, ECEScaledByDegree, ECECaGCNByDegree, ECEGATSByDegree}}},
		{caption: "calibration by homophily: ECE of the test nodes of each group of local homophily h_i " +
			"before calibration (none) and after each calibrator", setting: s,
			grouping: &nodeGrouping{NodesByHomophily, []Metric{ECEByHomophily, ECEScaledByHomophily, ECECaGCNByHomophily, ECEGATSByHomophily}}},
	}
}

// graphConformalTable is the table of setting s, GraphConformal.
func graphConformalTable(s Setting, acc extendedColumn) extendedTable {
	cols := []extendedColumn{acc}
	for _, m := range []Metric{Coverage, SetSize, CovGap, SSCV, WorstSlab} {
		for _, name := range graphScoreNames {
			cols = append(cols, metricColumn(m, name))
		}
	}
	return extendedTable{fmt.Sprintf("%s at α = %v (calibrated on half of the test nodes)", s.Title(), ConformalAlpha), s, cols, nil}
}

// oodTable is the OOD-detection table of setting s.
func oodTable(s Setting, acc extendedColumn) extendedTable {
	cols := []extendedColumn{acc}
	if s.ownModel() {
		cols = []extendedColumn{{title: "ID Acc", key: idAccuracyKey, percent: true}}
	}
	for _, u := range extendedMeasures {
		cols = append(cols, extendedColumn{title: "AUROC " + u.String(), key: aurocMetric + "/" + u.String(), percent: true})
	}
	for _, m := range []Metric{AUPROut, AUPRIn, FPR95} {
		for _, u := range extendedMeasures {
			cols = append(cols, metricColumn(m, u.String()))
		}
	}
	return extendedTable{"OOD detection: " + s.Title(), s, cols, nil}
}

// formatStat formats a statistic as "mean ± se", in percent for rates.
func formatStat(st eval.Stat, percent bool) string {
	scale, prec := 1.0, 3
	if percent {
		scale, prec = 100, 1
	}
	s := strconv.FormatFloat(scale*st.Mean, 'f', prec, 64)
	if !math.IsNaN(st.SE) {
		s += " ± " + strconv.FormatFloat(scale*st.SE, 'f', prec, 64)
	}
	return s
}

// WriteExtendedTables writes the metrics beyond the paper under dir/tables:
//
//   - extended.csv: one line per dataset, model, setting, severity and
//     metric: dataset, model (Model.Key), setting (Setting.String),
//     severity (empty outside sweeps), metric (Metric.String, ACC,
//     ID_ACC, AUROC or COLLAPSED, the share of runs whose training
//     collapsed, see Record.Collapsed), of (measure or conformal score, or
//     empty), mean, se (textbook, empty with one run), n;
//   - extended.md: per dataset, Markdown tables of calibration, selective
//     prediction, conformal sets and every other setting, each cell
//     "mean ± se" over the runs (rates in percent), with a column
//     counting the collapsed runs in a table that has any; with the
//     GraphCalibration setting also the tables "calibration by degree"
//     and "calibration by homophily", a column per group of test nodes
//     and per model a row of the group's mean size and a row of its ECE
//     per calibrator (none, TS, CaGCN, GATS).
//
// It writes nothing when no record carries the metrics.
func (res *Results) WriteExtendedTables(dir string) error {
	if len(res.Extended) == 0 {
		return nil
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"dataset", "model", "setting", "severity", "metric", "of", "mean", "se", "n"})
	for _, row := range res.Extended {
		severity := ""
		if row.Setting.sweep() {
			severity = strconv.FormatFloat(row.Severity, 'g', -1, 64)
		}
		for _, key := range slices.Sorted(maps.Keys(row.Stats)) {
			st := row.Stats[key]
			metric, of, _ := strings.Cut(key, "/")
			se := ""
			if !math.IsNaN(st.SE) {
				se = strconv.FormatFloat(st.SE, 'g', -1, 64)
			}
			w.Write([]string{row.Dataset, row.Model.Key(), row.Setting.String(), severity, metric, of,
				strconv.FormatFloat(st.Mean, 'g', -1, 64), se, strconv.Itoa(st.N)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "tables", "extended.csv"), b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	res.writeExtendedMarkdown(&b)
	return writeFileAtomic(filepath.Join(dir, "tables", "extended.md"), b.Bytes())
}

// writeExtendedMarkdown writes the Markdown tables of WriteExtendedTables.
func (res *Results) writeExtendedMarkdown(b *bytes.Buffer) {
	for _, ds := range res.Datasets {
		fmt.Fprintf(b, "# %s\n", ds)
		for _, t := range extendedTables() {
			header, rows := res.extendedCells(ds, t)
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(b, "\n%s, %s (mean ± standard error over runs)\n\n", ds, t.caption)
			markdownRow(b, header)
			rule := make([]string, len(header))
			for i := range rule {
				rule[i] = "---"
			}
			markdownRow(b, rule)
			for _, cells := range rows {
				markdownRow(b, cells)
			}
		}
		b.WriteString("\n")
	}
}

// extendedCells returns the header and the rows of table t for dataset ds,
// one row per model (and severity) with runs in t's setting.
func (res *Results) extendedCells(ds string, t extendedTable) (header []string, rows [][]string) {
	if t.grouping != nil {
		return res.groupedCells(ds, t)
	}
	columns := res.withScoreColumns(ds, t)
	header = []string{"Model"}
	if t.setting.sweep() {
		header = append(header, "severity")
	}
	// A table with collapsed runs says how many beside each row's means.
	collapses := slices.ContainsFunc(res.Extended, func(r ExtendedRow) bool {
		return r.Dataset == ds && r.Setting == t.setting && r.Collapsed > 0
	})
	if collapses {
		header = append(header, "collapsed runs")
	}
	for _, c := range columns {
		header = append(header, c.title)
	}
	for _, row := range res.Extended {
		if row.Dataset != ds || row.Setting != t.setting {
			continue
		}
		cells := []string{row.Model.String()}
		if t.setting.sweep() {
			cells = append(cells, strconv.FormatFloat(row.Severity, 'g', -1, 64))
		}
		if collapses {
			cells = append(cells, fmt.Sprintf("%d of %d", row.Collapsed, row.Runs))
		}
		for _, c := range columns {
			cell := "–"
			if st, ok := row.Stats[c.key]; ok {
				cell = formatStat(st, c.percent)
			}
			cells = append(cells, cell)
		}
		rows = append(rows, cells)
	}
	return header, rows
}

// groupedCells returns the header and the rows of the nodeGrouping table t
// for dataset ds: a column per group that has test nodes in a run of ds
// in t's setting, in the order of the groups' lower bounds (see
// groupLabels), and per model a row of the groups' mean numbers of test
// nodes per run and a row per calibrator of their ECE, "mean ± se" in
// percent over the runs whose group has nodes, their number said when
// it is not every run.
func (res *Results) groupedCells(ds string, t extendedTable) (header []string, rows [][]string) {
	g := t.grouping
	labels, found := res.groupLabels(ds, t)
	if len(labels) == 0 {
		return nil, nil
	}
	header = append([]string{"Model", "calibrator"}, labels...)
	for _, row := range found {
		cells := []string{row.Model.String(), "test nodes per run"}
		for _, l := range labels {
			cell := "–"
			if st, ok := row.Stats[g.nodes.Key(l)]; ok {
				cell = strconv.FormatFloat(st.Mean, 'f', 1, 64)
			}
			cells = append(cells, cell)
		}
		rows = append(rows, cells)
		for k, m := range g.ece {
			cells := []string{row.Model.String(), calibrators[k]}
			for _, l := range labels {
				cell := "–"
				if st, ok := row.Stats[m.Key(l)]; ok {
					cell = formatStat(st, true)
					if st.N < row.Runs {
						cell += fmt.Sprintf(" (%d of %d runs)", st.N, row.Runs)
					}
				}
				cells = append(cells, cell)
			}
			rows = append(rows, cells)
		}
	}
	return header, rows
}

// groupLabels returns the groups of the nodeGrouping table t for dataset
// ds that have test nodes in a run, in the order of their lower bounds,
// and the rows of ds in t's setting.
func (res *Results) groupLabels(ds string, t extendedTable) (labels []string, rows []ExtendedRow) {
	for _, row := range res.Extended {
		if row.Dataset != ds || row.Setting != t.setting {
			continue
		}
		rows = append(rows, row)
		for key, st := range row.Stats {
			if m, of, err := parseMetricKey(key); err == nil && m == t.grouping.nodes && st.Mean > 0 && !slices.Contains(labels, of) {
				labels = append(labels, of)
			}
		}
	}
	slices.SortFunc(labels, func(a, b string) int { return cmp.Compare(groupLow(a), groupLow(b)) })
	return labels, rows
}

// groupLow returns the lower bound of a group label ("deg=3-4": 3,
// "h=0.2-0.4": 0.2), NaN if it has none.
func groupLow(label string) float64 {
	_, bounds, _ := strings.Cut(label, "=")
	lo, _, _ := strings.Cut(bounds, "-")
	v, err := strconv.ParseFloat(lo, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// withScoreColumns returns t's columns and, for an OOD setting, an AUROC
// column for each of the post-hoc scores (uq.PostHocMeasures) that a run
// of dataset ds in the setting has: the scores of the energy baselines
// beside TU, AU and EU. Grids without those baselines get t's columns.
func (res *Results) withScoreColumns(ds string, t extendedTable) []extendedColumn {
	if t.setting == Classification {
		return t.columns
	}
	columns := t.columns
	for _, m := range uq.PostHocMeasures {
		key := aurocMetric + "/" + m.String()
		if slices.ContainsFunc(res.Extended, func(r ExtendedRow) bool {
			_, ok := r.Stats[key]
			return r.Dataset == ds && r.Setting == t.setting && ok
		}) {
			columns = append(slices.Clip(columns), extendedColumn{title: "AUROC " + m.String(), key: key, percent: true})
		}
	}
	return columns
}

func markdownRow(b *bytes.Buffer, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}
