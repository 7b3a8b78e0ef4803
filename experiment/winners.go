package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Winner is the model and measure that detect one setting's OOD nodes best
// by one metric, with its mean and standard error over the runs.
type Winner struct {
	Model   Model
	Measure string // a uq measure name
	Stat    eval.Stat
}

// detectionMetrics are the winner table's metrics: the Extended row key
// of each (AUROC, or a Metric of a measure), whether larger is better,
// and its column title.
var detectionMetrics = []struct {
	key    func(measure string) string
	larger bool
	title  string
}{
	{func(m string) string { return aurocMetric + "/" + m }, true, "AUROC"},
	{AUPROut.Key, true, "AUPR-Out"},
	{FPR95.Key, false, "FPR@95"},
}

// Winners returns, for dataset ds and every OOD setting run on it (the
// severity sweeps, which have one result per severity, left out), the
// model and measure with the best mean of each of AUROC, AUPR-Out (both
// larger is better) and FPR@95 (smaller is better), over every model and
// every measure it has (uq's names, as the records keep them). Ties go to
// the earlier model in the catalogue, then the earlier measure of
// uq.ParseMeasure's order. The settings come in the catalogue's order;
// winners[k][m] is setting k's winner by metric m.
func (res *Results) Winners(ds string) (settings []Setting, winners [][]Winner) {
	for _, s := range knownSettings {
		if s == Classification || s.sweep() || s.record().metricsOnly {
			continue
		}
		best := make([]Winner, len(detectionMetrics))
		found := false
		for _, row := range res.Extended {
			if row.Dataset != ds || row.Setting != s {
				continue
			}
			for _, m := range measuresOf(row) {
				for k, dm := range detectionMetrics {
					st, ok := row.Stats[dm.key(m)]
					if !ok || math.IsNaN(st.Mean) {
						continue
					}
					b := &best[k]
					better := dm.larger && st.Mean > b.Stat.Mean || !dm.larger && st.Mean < b.Stat.Mean
					tie := st.Mean == b.Stat.Mean && (row.Model < b.Model || row.Model == b.Model && measureOrder(m) < measureOrder(b.Measure))
					if b.Measure == "" || better || tie {
						*b = Winner{Model: row.Model, Measure: m, Stat: st}
						found = true
					}
				}
			}
		}
		if found {
			settings, winners = append(settings, s), append(winners, best)
		}
	}
	return settings, winners
}

// measuresOf returns the measures with an AUROC in row, in the order of
// uq's measures.
func measuresOf(row ExtendedRow) []string {
	var out []string
	for key := range row.Stats {
		if m, ok := strings.CutPrefix(key, aurocMetric+"/"); ok {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := measureOrder(a) - measureOrder(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// measureOrder is the position of the measure named m among uq's
// measures, after all of them for a name uq does not know.
func measureOrder(m string) int {
	u, err := uq.ParseMeasure(m)
	if err != nil {
		return math.MaxInt
	}
	return int(u)
}

// WinnerTable is Winners as a table: one row per setting, for each metric
// the winning model and measure and its mean ± standard error (percent).
// It is nil when no OOD setting ran on ds.
func (res *Results) WinnerTable(ds string) (*chart.Table, error) {
	settings, winners := res.Winners(ds)
	if len(settings) == 0 {
		return nil, nil
	}
	header := []string{"Setting"}
	for _, dm := range detectionMetrics {
		header = append(header, dm.title+": best", dm.title)
	}
	rows := make([][]string, len(settings))
	for k, s := range settings {
		row := []string{s.Title()}
		for _, w := range winners[k] {
			if w.Measure == "" {
				row = append(row, "–", "–")
				continue
			}
			row = append(row, fmt.Sprintf("%v %s", w.Model, w.Measure), formatStat(w.Stat, true))
		}
		rows[k] = row
	}
	return chart.NewTable(ds+": which model and measure detect each shift best (mean ± standard error over runs)", header, rows)
}

// beyondPaperShifts reports whether res holds an OOD setting beyond the
// paper's, for which the report shows the winner tables.
func (res *Results) beyondPaperShifts() bool {
	return slices.ContainsFunc(res.Extended, func(r ExtendedRow) bool {
		return r.Setting != Classification && !r.Setting.record().metricsOnly && !slices.Contains(AllSettings, r.Setting)
	})
}
