package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// degreeGroupOf returns the label of degree d on the doubling scale
// 0, 1, 2, 3–4, 5–8, …, worked out by doubling the upper bound.
func degreeGroupOf(d int) string {
	if d <= 2 {
		return fmt.Sprintf("deg=%d", d)
	}
	lo, hi := 3, 4
	for d > hi {
		lo, hi = hi+1, 2*hi
	}
	return fmt.Sprintf("deg=%d-%d", lo, hi)
}

// handGroups groups the given nodes of g by degree and by local homophily
// (five bins, the first one closed) from the adjacency's entries, in
// integer arithmetic: h = s/a lies in bin b when b·a < 5s ≤ (b+1)·a.
func handGroups(g *graph.Graph, nodes []int) (byDegree, byHomophily map[string][]int, maxDegree int) {
	byDegree, byHomophily = map[string][]int{}, map[string][]int{}
	adj := g.Adj
	for i := range len(g.Labels) {
		d, same := 0, 0
		for _, j := range adj.Ind[adj.Ptr[i]:adj.Ptr[i+1]] {
			if j != i {
				d++
				if g.Labels[j] == g.Labels[i] {
					same++
				}
			}
		}
		maxDegree = max(maxDegree, d)
		if !slices.Contains(nodes, i) {
			continue
		}
		byDegree[degreeGroupOf(d)] = append(byDegree[degreeGroupOf(d)], i)
		if d == 0 {
			continue
		}
		b := max((5*same+d-1)/d-1, 0)
		label := fmt.Sprintf("h=%.1f-%.1f", float64(b)/5, float64(b+1)/5)
		byHomophily[label] = append(byHomophily[label], i)
	}
	return byDegree, byHomophily, maxDegree
}

// TestGraphCalibrationGroups checks the ECE by degree and by homophily
// that the GraphCalibration setting records for a GPN on the tiny graph:
// every group's ECE, before calibration and after temperature scaling and
// CaGCN, is eval.CalibrationOf's ECE on exactly the test nodes of that
// group, grouped here by hand; the group sizes are recorded, 0 for the
// degree groups without test nodes up to the graph's largest degree, and
// an empty group has no ECE.
func TestGraphCalibrationGroups(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	split, err := d.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := GPN.Classifier(d, d.Graph, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fit(split, cuq.MaxEpochs(5)); err != nil {
		t.Fatal(err)
	}
	pred, err := c.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := graphCalibration(pred, split)
	if err != nil {
		t.Fatal(err)
	}
	byDegree, byHomophily, maxDegree := handGroups(d.Graph, split.Test)
	scaled, _, err := pred.TemperatureScaled(split.Val)
	if err != nil {
		t.Fatal(err)
	}
	cagcn, _, err := cuq.CaGCN().Done().Calibrate(pred, split)
	if err != nil {
		t.Fatal(err)
	}
	stages := []struct {
		p                     *cuq.Prediction
		byDegree, byHomophily Metric
	}{{pred, ECEByDegree, ECEByHomophily}, {scaled, ECEScaledByDegree, ECEScaledByHomophily}, {cagcn, ECECaGCNByDegree, ECECaGCNByHomophily}}
	for _, s := range stages {
		for _, grouping := range []struct {
			groups map[string][]int
			m      Metric
		}{{byDegree, s.byDegree}, {byHomophily, s.byHomophily}} {
			for label, nodes := range grouping.groups {
				want, err := eval.CalibrationOf(s.p.Prob.Data, s.p.Classes, d.Graph.Labels, nodes, eval.CalibrationOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got, ok := res.Metrics[grouping.m.Key(label)]
				if !ok || math.Abs(got-want.ECE) > 1e-12 {
					t.Errorf("%v %s (%d nodes): %v (recorded %v), want %v", grouping.m, label, len(nodes), got, ok, want.ECE)
				}
			}
		}
	}
	// The labels of every recorded group, its size and no ECE of others.
	if len(byHomophily) < 3 || len(byDegree) < 3 {
		t.Fatalf("test nodes in %d degree and %d homophily groups: too few to test", len(byDegree), len(byHomophily))
	}
	degreeLabels := 0
	for d := 0; d <= maxDegree; d++ {
		label := degreeGroupOf(d)
		if d > 0 && label == degreeGroupOf(d-1) {
			continue
		}
		degreeLabels++
		if got, ok := res.Metrics[NodesByDegree.Key(label)]; !ok || got != float64(len(byDegree[label])) {
			t.Errorf("%s: %v nodes (recorded %v), want %d", label, got, ok, len(byDegree[label]))
		}
		if _, ok := res.Metrics[ECEByDegree.Key(label)]; ok != (len(byDegree[label]) > 0) {
			t.Errorf("%s of %d nodes: ECE recorded %v", label, len(byDegree[label]), ok)
		}
	}
	for b := range 5 {
		label := fmt.Sprintf("h=%.1f-%.1f", float64(b)/5, float64(b+1)/5)
		if got, ok := res.Metrics[NodesByHomophily.Key(label)]; !ok || got != float64(len(byHomophily[label])) {
			t.Errorf("%s: %v nodes (recorded %v), want %d", label, got, ok, len(byHomophily[label]))
		}
	}
	counts := 0
	for key := range res.Metrics {
		if m, _, err := parseMetricKey(key); err != nil {
			t.Errorf("key %q: %v", key, err)
		} else if m == NodesByDegree || m == NodesByHomophily {
			counts++
		}
	}
	if counts != degreeLabels+5 {
		t.Errorf("%d group sizes recorded, want %d degree and 5 homophily groups", counts, degreeLabels)
	}
}

// TestGraphCalibrationGroupTables runs a grid of two splits with the
// GraphCalibration setting and checks that the group ECEs aggregate by
// label over the splits: each cell of extended.csv and of the tables
// "calibration by degree" and "calibration by homophily" in extended.md
// is the mean ± standard error of the two records' values of its group,
// the columns are the groups in order and each model has a row of group
// sizes and one per calibrator; the report's calibration section shows
// the tables.
func TestGraphCalibrationGroupTables(t *testing.T) {
	out := t.TempDir()
	models := []Model{APPNP, GPN}
	sum, err := tinyGrid(t, out, models...).Settings(Classification, GraphCalibration).Run(context.Background())
	if err != nil || !sum.Complete {
		t.Fatalf("%+v, %v", sum, err)
	}
	var records []*Record
	for _, m := range models {
		for split := 1; split <= 2; split++ {
			j := Job{Dataset: "Tiny", Model: m, Split: split, Init: 1, Settings: []Setting{Classification, GraphCalibration}}
			r, err := ReadRecord(filepath.Join(out, j.Path()))
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, r)
		}
	}
	tables := readTables(t, out)
	csvLines := extendedCSV(t, tables)
	md := tables["extended.md"]
	for _, g := range []struct {
		caption string
		nodes   Metric
		ece     []Metric
		first   string
		order   []string // every group in order
	}{
		{"Tiny, calibration by degree", NodesByDegree, []Metric{ECEByDegree, ECEScaledByDegree, ECECaGCNByDegree, ECEGATSByDegree}, "deg=0",
			[]string{"deg=0", "deg=1", "deg=2", "deg=3-4", "deg=5-8", "deg=9-16", "deg=17-32", "deg=33-64", "deg=65-128"}},
		{"Tiny, calibration by homophily", NodesByHomophily, []Metric{ECEByHomophily, ECEScaledByHomophily, ECECaGCNByHomophily, ECEGATSByHomophily}, "h=0.0-0.2",
			[]string{"h=0.0-0.2", "h=0.2-0.4", "h=0.4-0.6", "h=0.6-0.8", "h=0.8-1.0"}},
	} {
		// The labels of the records' groups, in order, the same in every
		// record, since the groups are fixed by the graph; the table's
		// columns are those with test nodes in a record.
		var all, labels []string
		for _, rec := range records {
			var these []string
			for key, v := range rec.Results["graph_calibration"].Metrics {
				if m, of, _ := parseMetricKey(key); m == g.nodes {
					these = append(these, of)
					if v > 0 && !slices.Contains(labels, of) {
						labels = append(labels, of)
					}
				}
			}
			slices.Sort(these)
			if all == nil {
				all = these
			} else if !slices.Equal(all, these) {
				t.Errorf("%s: groups %v in one record, %v in another", g.caption, all, these)
			}
		}
		slices.SortFunc(labels, func(a, b string) int { return cmp.Compare(slices.Index(g.order, a), slices.Index(g.order, b)) })
		if len(labels) < 3 || !slices.Contains(all, g.first) ||
			slices.ContainsFunc(all, func(l string) bool { return !slices.Contains(g.order, l) }) {
			t.Fatalf("%s: groups %v of %v", g.caption, labels, all)
		}
		header, rows := markdownTable(t, md, g.caption)
		if want := append([]string{"Model", "calibrator"}, labels...); !slices.Equal(header, want) {
			t.Errorf("%s: header %v, want %v", g.caption, header, want)
		}
		if len(rows) != len(models)*(1+len(calibrators)) {
			t.Fatalf("%s: %d rows, want %d", g.caption, len(rows), len(models)*(1+len(calibrators)))
		}
		for k, m := range models {
			recs := records[2*k : 2*k+2]
			for r, metric := range append([]Metric{g.nodes}, g.ece...) {
				row := rows[k*(1+len(calibrators))+r]
				calibrator := "test nodes per run"
				if r > 0 {
					calibrator = calibrators[r-1]
				}
				if row[0] != m.String() || row[1] != calibrator {
					t.Errorf("%s: row %v, want %v %s", g.caption, row[:2], m, calibrator)
					continue
				}
				for c, label := range labels {
					var values []float64
					for _, rec := range recs {
						if v, ok := rec.Results["graph_calibration"].Metrics[metric.Key(label)]; ok {
							values = append(values, v)
						}
					}
					want := "–"
					if len(values) > 0 {
						st := eval.Aggregate(values, 0)
						if metric == g.nodes {
							want = fmt.Sprintf("%.1f", st.Mean)
						} else {
							want = formatStat(st, true)
							if len(values) < 2 {
								want += " (1 of 2 runs)"
							}
							csvWant := []string{"Tiny", m.Key(), "graph_calibration", "", metric.String(), label,
								fmt.Sprint(st.Mean), csvSE(st), fmt.Sprint(len(values))}
							if !slices.ContainsFunc(csvLines, func(l []string) bool { return slices.Equal(l, csvWant) }) {
								t.Errorf("extended.csv lacks %v", csvWant)
							}
						}
					}
					if row[2+c] != want {
						t.Errorf("%s %v %s %s: %q, want %q from %v", g.caption, m, calibrator, label, row[2+c], want, values)
					}
				}
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	calibration, rest, _ := strings.Cut(string(html), "Conformal prediction sets")
	for _, want := range []string{"Tiny: calibration by degree", "Tiny: calibration by homophily", "Tiny: calibration that uses the graph"} {
		if !strings.Contains(calibration, want) || strings.Contains(rest, want) {
			t.Errorf("report.html: %q not in the calibration section alone", want)
		}
	}
}

// csvSE formats a standard error as extended.csv does.
func csvSE(st eval.Stat) string {
	if math.IsNaN(st.SE) {
		return ""
	}
	return fmt.Sprint(st.SE)
}

// markdownTable returns the header and the rows of the Markdown table
// below the caption line that starts with caption.
func markdownTable(t *testing.T, md, caption string) (header []string, rows [][]string) {
	t.Helper()
	_, after, ok := strings.Cut(md, "\n"+caption)
	if !ok {
		t.Fatalf("no table %q in:\n%s", caption, md)
	}
	lines := strings.Split(after, "\n")
	var table [][]string
	for _, l := range lines[2:] { // the caption's end and a blank line
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		table = append(table, cells)
	}
	if len(table) < 2 {
		t.Fatalf("table %q has no rows", caption)
	}
	return table[0], table[2:]
}

// TestGroupedCells checks a grouped table on hand-made statistics: the
// columns are the groups with nodes, ordered by their lower bounds (not
// as text: 2 before 17–32), a group without nodes in any run is left
// out, and a cell aggregated over fewer runs than the row's says so.
func TestGroupedCells(t *testing.T) {
	stat := func(mean, se float64, n int) eval.Stat { return eval.Stat{Mean: mean, SE: se, N: n} }
	res := &Results{Extended: []ExtendedRow{{Dataset: "D", Model: GPN, Setting: GraphCalibration, Runs: 2, Stats: map[string]eval.Stat{
		NodesByDegree.Key("deg=0"):            stat(0, 0, 2),
		NodesByDegree.Key("deg=17-32"):        stat(1.5, 0.5, 2),
		NodesByDegree.Key("deg=2"):            stat(40, 2, 2),
		ECEByDegree.Key("deg=17-32"):          stat(0.25, math.NaN(), 1),
		ECEByDegree.Key("deg=2"):              stat(0.1, 0.02, 2),
		ECEScaledByDegree.Key("deg=2"):        stat(0.05, 0.01, 2),
		NodesByDegree.Key("deg=3-4"):          stat(20, 1, 2),
		ECEByDegree.Key("deg=3-4"):            stat(0.125, 0.025, 2),
		ECEScaledByDegree.Key("deg=3-4"):      stat(0.0625, 0.0125, 2),
		NodesByHomophily.Key("h=0.0-0.2"):     stat(3, 0, 2),
		ECEByHomophily.Key("h=0.0-0.2"):       stat(0.3, 0.1, 2),
		ECEScaledByHomophily.Key("h=0.0-0.2"): stat(0.2, 0.1, 2),
	}}}}
	var table extendedTable
	for _, tb := range extendedTables() {
		if tb.grouping != nil && tb.grouping.nodes == NodesByDegree {
			table = tb
		}
	}
	if table.grouping == nil {
		t.Fatal("no table by degree")
	}
	header, rows := res.extendedCells("D", table)
	want := [][]string{
		{"Model", "calibrator", "deg=2", "deg=3-4", "deg=17-32"},
		{"GPN", "test nodes per run", "40.0", "20.0", "1.5"},
		{"GPN", "none", "10.0 ± 2.0", "12.5 ± 2.5", "25.0 (1 of 2 runs)"},
		{"GPN", "TS", "5.0 ± 1.0", "6.2 ± 1.2", "–"},
		{"GPN", "CaGCN", "–", "–", "–"},
		{"GPN", "GATS", "–", "–", "–"},
	}
	if got := append([][]string{header}, rows...); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("cells\n%q\nwant\n%q", got, want)
	}
	// The chart draws the groups whose ECE has a standard error in every
	// curve, deg=2 and deg=3-4, a curve per calibrator with values.
	c, err := res.GroupCalibrationChart("D", false)
	if err != nil || c == nil {
		t.Fatalf("chart %v, %v", c, err)
	}
	opt := c.Option()
	for _, want := range []string{`"data":["deg=2","deg=3-4"]`, `"GPN, none"`, `"GPN, TS"`, "[10,12.5]", "[5,6.25]"} {
		if !strings.Contains(opt, want) {
			t.Errorf("chart lacks %s:\n%s", want, opt)
		}
	}
	for _, no := range []string{"deg=17-32", "CaGCN", "GATS"} {
		if strings.Contains(opt, no) {
			t.Errorf("chart has %s", no)
		}
	}
	if c, err := res.GroupCalibrationChart("D", true); c != nil || err != nil {
		t.Errorf("chart of one homophily group: %v, %v", c, err)
	}
}
