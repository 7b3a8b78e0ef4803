package experiment

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/experiment/reftables"
)

// ReportOptions choose how the HTML report loads ECharts.
type ReportOptions struct {
	// CDN, when set, makes report.html load ECharts from this address
	// instead of inlining the copy embedded in package chart: a report
	// 1 MB smaller that draws only online.
	CDN string
}

// ARCMeasures are the measures of the columns of the accuracy-rejection
// figure, as in the paper.
var ARCMeasures = []uq.Measure{uq.TU, uq.AU, uq.EU, uq.EUPC}

// arcPoints is the number of points the figures draw: the rejection
// fractions 0, 0.01, …, 0.99. The curves' last point (a single node left,
// accuracy 0 or 1 in each run) says nothing about the measure and is not
// drawn; the CSV tables keep it.
const arcPoints = eval.ARCPoints - 1

// rejection returns the rejection fractions p_i = i/100 that the figures
// draw.
func rejection() []float64 {
	p := make([]float64, arcPoints)
	for i := range p {
		p[i] = float64(i) / float64(eval.ARCPoints-1)
	}
	return p
}

// ModelStyle returns the colour and line pattern of model m in every
// figure, interactive and static, so that a model looks the same in every
// panel and can be told apart without colour.
func ModelStyle(m Model) (color string, dash chart.Dash) {
	return chart.Palette[int(m)%len(chart.Palette)], chart.DashCycle(int(m))
}

// ARCPanels returns the panels of the accuracy-rejection figure: one per
// dataset (rows) and measure of ARCMeasures (columns), with each model's
// mean curve ± SE over the runs of the classification setting, in the
// paper's model order.
func (res *Results) ARCPanels() []chart.Panel {
	var panels []chart.Panel
	for _, ds := range res.Datasets {
		for _, m := range ARCMeasures {
			p := chart.Panel{Title: ds + ": " + m.String()}
			for _, model := range res.Models {
				c, ok := res.Curves[ds][m.String()][model]
				if !ok {
					continue
				}
				color, dash := ModelStyle(model)
				cv := chart.Curve{Name: model.String(), Mean: c.Mean[:arcPoints], Color: color, Dash: dash}
				if c.SE != nil {
					cv.SE = c.SE[:arcPoints]
				}
				p.Curves = append(p.Curves, cv)
			}
			panels = append(panels, p)
		}
	}
	return panels
}

// ARCFigure returns the paper's accuracy-rejection figure as one
// interactive chart: rows are datasets, columns the measures TU, AU, EU and
// EU_PC; a click on a model in the legend hides it in every panel.
func (res *Results) ARCFigure() (*chart.Chart, error) {
	if len(res.Datasets) == 0 {
		return nil, fmt.Errorf("experiment: ARC figure: no datasets")
	}
	return chart.ARCGrid("Accuracy-rejection curves (classification; mean ± SE over runs)", rejection(), len(ARCMeasures), res.ARCPanels())
}

// WriteARCFigure writes the accuracy-rejection figure as a static image
// in the given format ("png", "svg" or "pdf"), drawn with gonum/plot in the
// same colours and line patterns as ARCFigure.
func (res *Results) WriteARCFigure(w io.Writer, format string) error {
	if len(res.Datasets) == 0 {
		return fmt.Errorf("experiment: ARC figure: no datasets")
	}
	return chart.WriteARCGridPlot(w, format, rejection(), len(ARCMeasures), res.ARCPanels())
}

// oodColumns are the columns of an OOD table: ID accuracy, then the AUROCs
// of the paper's measures.
var oodColumns = []struct {
	label  string
	metric reftables.SettingMetric
}{
	{"ID acc", reftables.IDAcc}, {"TU", reftables.OODTotalEntropy}, {"AU", reftables.OODAleatoricEntropy},
	{"EU", reftables.OODEpistemicEntropyDiff}, {"EU_PC", reftables.OODEpistemic}, {"EU_SO", reftables.OODEpistemicEntropy},
}

// oodIndex maps an OOD setting to its index in reftables.IDOODRow.Settings.
func oodIndex(s Setting) (reftables.OODSetting, bool) {
	k := slices.Index(oodSettings[:], s)
	return reftables.OODSetting(k), k >= 0
}

// OODTable returns the OOD-detection table of dataset ds in setting s (an
// OOD setting): per model the test accuracy (classification), the accuracy
// on the ID test nodes and the AUROC of each measure for detecting the OOD
// test nodes, in percent, mean ± SE over runs; below each of our rows, the
// paper's row where the paper publishes one (CoraML and CiteSeer,
// leave-out classes and Gaussian noise).
func (res *Results) OODTable(ds string, s Setting) (*chart.Table, error) {
	k, ok := oodIndex(s)
	if !ok {
		return nil, fmt.Errorf("experiment: OODTable: %v is not an OOD setting", s)
	}
	header := []string{"model", "source", "Acc"}
	for _, c := range oodColumns {
		header = append(header, c.label)
	}
	var rows [][]string
	for _, r := range res.Rows {
		if r.Dataset != tableName(ds) {
			continue
		}
		ours := []string{r.Model, "cuqgnn", percent(r.Acc)}
		for _, c := range oodColumns {
			ours = append(ours, percent(r.Settings[k].Metrics[c.metric]))
		}
		rows = append(rows, ours)
		if k == reftables.OODBer { // the paper has no Bernoulli columns
			continue
		}
		paper, has := []string{r.Model, "paper", published(ds, r.Model, 0)}, false
		for ci := range oodColumns {
			v := published(ds, r.Model, 1+6*int(k)+ci)
			paper, has = append(paper, v), has || v != "–"
		}
		if has {
			rows = append(rows, paper)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("experiment: OODTable: no results for dataset %q", ds)
	}
	title := s.Title()
	if s == BernoulliNoise {
		title += " (not in the paper)"
	}
	return chart.NewTable(ds+": "+title+" (%)", header, rows)
}

// published formats the paper's number of a dataset, model and column
// (percent), "–" when there is none.
func published(ds, model string, column int) string {
	v, ok := paperValue(ds, model, column)
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

// percent formats a metric as "84.35 ±0.12" (percent), "–" when absent.
func percent(m reftables.Metric) string {
	if !m.Value.Valid || math.IsNaN(m.Value.Value) {
		return "–"
	}
	s := fmt.Sprintf("%.2f", 100*m.Value.Value)
	if m.SE.Valid && !math.IsNaN(m.SE.Value) && m.SE.Value > 0 {
		s += fmt.Sprintf(" ±%.2f", 100*m.SE.Value)
	}
	return s
}

// RunTable summarises the training runs per dataset, model and graph
// (clean or leave-out classes): runs, the runs whose training collapsed
// (Record.Collapsed; "–" when the records predate it), mean epochs, mean
// and total training seconds, and, when some job took a training from
// another (Record.SharedTrainings), how many trainings were taken: their
// jobs' seconds are the time the jobs themselves took.
func (res *Results) RunTable() (*chart.Table, error) {
	type agg struct {
		runs, known, shared int
		collapsed           []string
		epochs, train       float64
	}
	type key struct {
		ds      string
		model   string
		trained Setting
	}
	stats := map[key]*agg{}
	for _, r := range res.Records {
		trained, err := r.trainedFor()
		if err != nil {
			return nil, err
		}
		k := key{r.Dataset, r.Model, trained}
		if stats[k] == nil {
			stats[k] = &agg{}
		}
		a := stats[k]
		a.runs++
		a.epochs += float64(r.Epochs)
		a.train += r.TrainSeconds
		a.shared += r.SharedTrainings
		if r.ValChance > 0 {
			a.known++
		}
		if r.Collapsed() {
			a.collapsed = append(a.collapsed, fmt.Sprintf("split %d init %d (validation %.1f%%, chance %.1f%%)", r.Split, r.Init, 100*r.ValAccuracy, 100*r.ValChance))
		}
	}
	header := []string{"Dataset", "Model", "Graph", "Runs", "Collapsed", "Mean epochs", "Mean train s", "Total train s"}
	shared := res.sharedTrainings()
	if shared {
		header = append(header, "Shared trainings")
	}
	var rows [][]string
	for _, ds := range res.Datasets {
		for m := range numModels {
			for _, trained := range knownSettings {
				a, ok := stats[key{ds, m.Key(), trained}]
				if !ok {
					continue
				}
				graph := "clean"
				if trained != Classification {
					graph = trained.Title()
				}
				collapsed := "–"
				if a.known > 0 {
					collapsed = strconv.Itoa(len(a.collapsed))
				}
				if len(a.collapsed) > 0 {
					collapsed += ": " + strings.Join(a.collapsed, ", ")
				}
				row := []string{ds, m.String(), graph, strconv.Itoa(a.runs), collapsed,
					fmt.Sprintf("%.1f", a.epochs/float64(a.runs)), fmt.Sprintf("%.2f", a.train/float64(a.runs)), fmt.Sprintf("%.1f", a.train)}
				if shared {
					row = append(row, strconv.Itoa(a.shared))
				}
				rows = append(rows, row)
			}
		}
	}
	return chart.NewTable("Training runs", header, rows)
}

// sharedTrainings reports whether some job took a training from another.
func (res *Results) sharedTrainings() bool {
	return slices.ContainsFunc(res.Records, func(r *Record) bool { return r.SharedTrainings > 0 })
}

// Report returns the grid's report as a page: the accuracy-rejection
// figure, the OOD-detection tables of every dataset and setting with the
// paper's numbers beside ours, and the training runs.
func (res *Results) Report() (*chart.Page, error) {
	names := make([]string, len(res.Present))
	for i, m := range res.Present {
		names[i] = m.String()
	}
	p := chart.NewPage("CUQ-GNN experiment grid")
	intro := fmt.Sprintf("%d runs of %s on %s. Numbers are means over splits and initialisations in percent; "+
		"± is the standard error sqrt(var/n) over the n runs (for GKDE, which is not trained, n is the number of splits). "+
		"The tables are in tables/, the static figure in figures/arc.png and figures/arc.svg.",
		len(res.Records), strings.Join(names, ", "), strings.Join(res.Datasets, ", "))
	if n := countFunc(res.Records, (*Record).Collapsed); n > 0 {
		intro += fmt.Sprintf(" %d of the runs collapsed: their training stopped with a validation accuracy near chance (Runs "+
			"lists them). The means include them, as the reference's do.", n)
	}
	p.AddSection("", intro)
	fig, err := res.ARCFigure()
	if err != nil {
		return nil, err
	}
	p.AddSection("Accuracy-rejection curves", "Test accuracy after rejecting the fraction p of the test nodes with "+
		"the highest uncertainty, classification setting; rows are datasets, columns the measures TU, AU, EU and EU_PC; "+
		"bands are ± one standard error. A click on a model in the legend hides it in every panel.")
	p.AddCharts(fig)
	p.AddSection("OOD detection", "Acc: test accuracy (classification). For each OOD setting: the accuracy on the ID "+
		"test nodes and the AUROC of each uncertainty measure for detecting the OOD test nodes. Rows marked paper give "+
		"the published numbers (the paper's \"Noise\" columns are Gaussian noise).")
	for _, ds := range res.Datasets {
		if !slices.ContainsFunc(res.Rows, func(r reftables.IDOODRow) bool { return r.Dataset == tableName(ds) }) {
			continue // none of the paper's models ran on ds
		}
		for _, s := range []Setting{LeaveOutClasses, GaussianNoise, BernoulliNoise} {
			t, err := res.OODTable(ds, s)
			if err != nil {
				return nil, err
			}
			p.AddTables(t)
		}
	}
	if err := res.addExtendedSections(p); err != nil {
		return nil, err
	}
	t, err := res.RunTable()
	if err != nil {
		return nil, err
	}
	runs := fmt.Sprintf("Collapsed: the runs whose trained model's validation accuracy is below "+
		"chance + %g·(100%% − chance), chance being the share of the most frequent class among the validation nodes.", eval.CollapseMargin)
	if res.sharedTrainings() {
		runs += " Shared trainings: the trainings a job took from another job of the grid that trained the same network " +
			"(the GCN of MC dropout, of the energy scores and of an ensemble's first member), bit for bit what it would have trained; " +
			"those jobs' seconds are their own, without the training."
	}
	p.AddSection("Runs", runs)
	p.AddTables(t)
	return p, nil
}

// WriteReport writes dir/report.html, the page of Report, self-contained
// (it draws offline) unless o.CDN is set, and the accuracy-rejection figure
// as static images dir/figures/arc.png and arc.svg.
func (res *Results) WriteReport(dir string, o ReportOptions) error {
	for _, format := range []string{"png", "svg"} {
		var b bytes.Buffer
		if err := res.WriteARCFigure(&b, format); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dir, "figures", "arc."+format), b.Bytes()); err != nil {
			return err
		}
	}
	page, err := res.Report()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.WriteHTML(&b, chart.HTMLOptions{CDN: o.CDN}); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "report.html"), b.Bytes())
}

// ARCAreaTable tabulates the area under each mean accuracy-rejection curve
// of the figure (AUARC, in percent): the mean accuracy over the rejection
// fractions 0, 0.01, …, 0.99. One row per model, one column per dataset and
// measure of ARCMeasures; "–" where the model lacks the measure. A larger
// area means the measure rejects the wrong nodes earlier.
func (res *Results) ARCAreaTable() (*chart.Table, error) {
	header := []string{"model"}
	for _, ds := range res.Datasets {
		for _, m := range ARCMeasures {
			header = append(header, ds+" "+m.String())
		}
	}
	var rows [][]string
	for _, model := range res.Models {
		row := []string{model.String()}
		for _, ds := range res.Datasets {
			for _, m := range ARCMeasures {
				c, ok := res.Curves[ds][m.String()][model]
				if !ok {
					row = append(row, "–")
					continue
				}
				s := 0.0
				for _, v := range c.Mean[:arcPoints] {
					s += v
				}
				row = append(row, fmt.Sprintf("%.2f", 100*s/arcPoints))
			}
		}
		rows = append(rows, row)
	}
	return chart.NewTable("Area under the mean accuracy-rejection curve (%)", header, rows)
}

// countFunc returns the number of elements of s satisfying f.
func countFunc[E any](s []E, f func(E) bool) int {
	n := 0
	for _, e := range s {
		if f(e) {
			n++
		}
	}
	return n
}
