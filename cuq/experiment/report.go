package experiment

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// ReportOptions choose where the HTML report loads ECharts from.
type ReportOptions struct {
	// EChartsFile, when set, is a local echarts.min.js inlined into the
	// report, which then works offline.
	EChartsFile string
	// EChartsURL is the script address used otherwise (default
	// chart.DefaultEChartsURL).
	EChartsURL string
}

// ARCMeasures are the measures of the columns of the accuracy-rejection
// figure, as in the paper.
var ARCMeasures = []uq.Measure{uq.TU, uq.AU, uq.EU, uq.EUPC}

// rejection returns the rejection fractions p_i = i/100 of the curves.
func rejection() []float64 {
	p := make([]float64, eval.ARCPoints)
	for i := range p {
		p[i] = float64(i) / float64(eval.ARCPoints-1)
	}
	return p
}

// panelCurve is one model's curve in a panel of the figure.
type panelCurve struct {
	model Model
	stat  eval.CurveStat
}

// panelCurves returns the curves of one panel of the figure: one per model
// that has measure m on ds, in the paper's model order.
func (res *Results) panelCurves(ds string, m uq.Measure) []panelCurve {
	var curves []panelCurve
	for _, model := range res.Models {
		if c, ok := res.Curves[ds][m.String()][model]; ok {
			curves = append(curves, panelCurve{model, c})
		}
	}
	return curves
}

// modelColor is the colour of a model in every panel, so that a model
// keeps its colour where another lacks a measure (chart.ARC and
// chart.ARCPlot colour curves by position instead).
func modelColor(m Model) string { return chart.Palette[int(m)%len(chart.Palette)] }

// WriteReport writes dir/report.html, a self-contained page with the
// accuracy-rejection figure (one panel per dataset and measure: rows are
// datasets, columns TU, AU, EU and EU_PC; curves are means over runs with
// ± SE bands), the OOD detection table with the paper's numbers next to
// ours for CoraML and CiteSeer, and the runs' training statistics. It also
// writes the figure as static images dir/figures/arc.png and arc.svg
// (gonum/plot).
func (res *Results) WriteReport(dir string, o ReportOptions) error {
	for _, format := range []string{"png", "svg"} {
		var b bytes.Buffer
		if err := res.writeFigure(&b, format); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dir, "figures", "arc."+format), b.Bytes()); err != nil {
			return err
		}
	}
	page, err := res.reportHTML(o)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "report.html"), []byte(page))
}

// writeFigure draws the accuracy-rejection figure with gonum/plot in the
// given format ("png" or "svg").
func (res *Results) writeFigure(w io.Writer, format string) error {
	rows, cols := len(res.Datasets), len(ARCMeasures)
	if rows == 0 {
		return fmt.Errorf("experiment: figure: no datasets")
	}
	plots := make([][]*plot.Plot, rows)
	for r, ds := range res.Datasets {
		plots[r] = make([]*plot.Plot, cols)
		for c, m := range ARCMeasures {
			p, err := arcPlot(ds+": "+m.String(), res.panelCurves(ds, m), c == 0)
			if err != nil {
				return err
			}
			plots[r][c] = p
		}
	}
	width, height := vg.Length(cols)*9*vg.Centimeter, vg.Length(rows)*8*vg.Centimeter
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Centimeter, PadY: vg.Centimeter,
		PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	case "svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("experiment: figure: unknown format %q", format)
	}
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	aligned := plot.Align(plots, tiles, dc)
	for r := range plots {
		for c := range plots[r] {
			plots[r][c].Draw(aligned[r][c])
		}
	}
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("experiment: figure: %w", err)
	}
	return nil
}

// reportHTML renders the report page.
func (res *Results) reportHTML(o ReportOptions) (string, error) {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>CUQ-GNN experiment grid</title>\n")
	b.WriteString(`<style>
body{font-family:sans-serif;margin:2em;color:#222;}
.arc-grid{display:grid;grid-template-columns:repeat(4,320px);gap:8px;}
.arc-panel{width:320px;height:300px;}
.arc-empty{width:320px;height:300px;display:flex;align-items:center;justify-content:center;color:#888;border:1px dashed #ccc;}
.legend span{margin-right:1.2em;white-space:nowrap;}
.legend i{display:inline-block;width:24px;height:4px;margin:0 6px 3px 0;vertical-align:middle;}
.scroll{overflow-x:auto;margin-bottom:1.5em;}
.note{color:#555;max-width:60em;}
</style>
</head>
<body>
<h1>CUQ-GNN experiment grid</h1>
`)
	fmt.Fprintf(&b, "<p class=\"note\">%d runs of %s on %s. Numbers are means over splits and initialisations in percent; ± is the standard error sqrt(var/n) over the n runs (for GKDE n is the number of splits; the reference divides by splits·inits, REFERENCE.md §9.2). The tables are in tables/, the static figure in figures/arc.png and figures/arc.svg.</p>\n",
		len(res.Records), html.EscapeString(joinModels(res.Models)), html.EscapeString(strings.Join(res.Datasets, ", ")))

	panels := 0
	b.WriteString("<h2>Accuracy-rejection curves</h2>\n<p class=\"note\">Test accuracy after rejecting the fraction p of the test nodes with the highest uncertainty, classification setting; rows are datasets, columns the measures TU, AU, EU and EU_PC; bands are ± one standard error.</p>\n")
	b.WriteString("<div class=\"legend\">")
	for _, m := range res.Models {
		fmt.Fprintf(&b, "<span><i style=\"background:%s\"></i>%s</span>", modelColor(m), html.EscapeString(m.String()))
	}
	b.WriteString("</div>\n<div class=\"arc-grid\">\n")
	var draw strings.Builder
	for _, ds := range res.Datasets {
		for _, m := range ARCMeasures {
			title := ds + ": " + m.String()
			curves := res.panelCurves(ds, m)
			if len(curves) == 0 {
				fmt.Fprintf(&b, "<div class=\"arc-empty\">%s: no model has this measure</div>\n", html.EscapeString(title))
				continue
			}
			id := fmt.Sprintf("arc-%d", panels)
			panels++
			fmt.Fprintf(&b, "<div id=%q class=\"arc-panel\"></div>\n", id)
			fmt.Fprintf(&draw, "echarts.init(document.getElementById(%q)).setOption(%s);\n", id, arcOption(title, curves))
		}
	}
	b.WriteString("</div>\n")
	script, err := echartsScript(o)
	if err != nil {
		return "", err
	}
	b.WriteString(script)
	b.WriteString("<script type=\"text/javascript\">\n" + strings.ReplaceAll(draw.String(), "</", `<\/`) + "</script>\n")

	b.WriteString("<h2>OOD detection</h2>\n<p class=\"note\">Acc: test accuracy (classification). For each OOD setting (leave-out classes, Gaussian noise, Bernoulli noise): the accuracy on ID test nodes and the AUROC of each uncertainty measure for detecting the OOD test nodes. Rows marked (paper) give the published numbers (the paper's \"Noise\" is Gaussian noise).</p>\n")
	for _, ds := range res.Datasets {
		t, err := res.oodTable(ds)
		if err != nil {
			return "", err
		}
		b.WriteString("<div class=\"scroll\">\n" + t.HTML() + "</div>\n")
	}

	b.WriteString("<h2>Runs</h2>\n")
	t, err := res.runTable()
	if err != nil {
		return "", err
	}
	b.WriteString("<div class=\"scroll\">\n" + t.HTML() + "</div>\n")
	b.WriteString("</body>\n</html>\n")
	return b.String(), nil
}

func joinModels(ms []Model) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.String()
	}
	return strings.Join(names, ", ")
}

// oodColumns are the columns of the report's OOD table per setting: ID
// accuracy, then the AUROCs of the paper's measures.
var oodColumns = []struct {
	label  string
	metric eval.SettingMetric
}{
	{"ID acc", eval.IDAcc}, {"TU", eval.OODTotalEntropy}, {"AU", eval.OODAleatoricEntropy},
	{"EU", eval.OODEpistemicEntropyDiff}, {"EU_PC", eval.OODEpistemic}, {"EU_SO", eval.OODEpistemicEntropy},
}

// oodTable builds the report's OOD table of one dataset.
func (res *Results) oodTable(ds string) (*chart.Table, error) {
	header := []string{"Model", "Acc"}
	for _, s := range []string{"LOC", "Gauss", "Bern"} {
		for _, c := range oodColumns {
			header = append(header, s+" "+c.label)
		}
	}
	var rows [][]string
	for _, r := range res.Rows {
		if r.Dataset != inlineName(ds) {
			continue
		}
		cells := []string{r.Model, percent(r.Acc)}
		paper := []string{r.Model + " (paper)", ""}
		hasPaper := false
		if v, ok := paperValue(ds, r.Model, 0); ok {
			paper[1], hasPaper = fmt.Sprintf("%.2f", v), true
		}
		for k := range eval.NumOODSettings {
			for ci, c := range oodColumns {
				cells = append(cells, percent(r.Settings[k].Metrics[c.metric]))
				cell := ""
				if k < 2 { // the paper reports leave-out classes and Gaussian noise
					if v, ok := paperValue(ds, r.Model, 1+6*k+ci); ok {
						cell, hasPaper = fmt.Sprintf("%.2f", v), true
					}
				}
				paper = append(paper, cell)
			}
		}
		rows = append(rows, cells)
		if hasPaper {
			rows = append(rows, paper)
		}
	}
	return chart.NewTable(ds, header, rows)
}

// percent formats a metric as "84.35 ±0.12" (percent), "" when absent.
func percent(m eval.Metric) string {
	if !m.Value.Valid || math.IsNaN(m.Value.Value) {
		return ""
	}
	s := fmt.Sprintf("%.2f", 100*m.Value.Value)
	if m.SE.Valid && !math.IsNaN(m.SE.Value) {
		s += fmt.Sprintf(" ±%.2f", 100*m.SE.Value)
	}
	return s
}

// runTable summarises the training runs per dataset, model and graph
// (clean or leave-out classes).
func (res *Results) runTable() (*chart.Table, error) {
	type agg struct {
		runs          int
		epochs, train float64
	}
	type key struct {
		ds    string
		model string
		loc   bool
	}
	stats := map[key]*agg{}
	for _, r := range res.Records {
		k := key{r.Dataset, r.Model, r.LOC}
		if stats[k] == nil {
			stats[k] = &agg{}
		}
		a := stats[k]
		a.runs++
		a.epochs += float64(r.Epochs)
		a.train += r.TrainSeconds
	}
	var rows [][]string
	for _, ds := range res.Datasets {
		for _, m := range res.Models {
			for _, loc := range []bool{false, true} {
				a, ok := stats[key{ds, m.Key(), loc}]
				if !ok {
					continue
				}
				graph := "clean"
				if loc {
					graph = "leave-out classes"
				}
				rows = append(rows, []string{ds, m.String(), graph, strconv.Itoa(a.runs),
					fmt.Sprintf("%.1f", a.epochs/float64(a.runs)), fmt.Sprintf("%.2f", a.train/float64(a.runs)), fmt.Sprintf("%.1f", a.train)})
			}
		}
	}
	return chart.NewTable("Training runs", []string{"Dataset", "Model", "Graph", "Runs", "Mean epochs", "Mean train s", "Total train s"}, rows)
}

// arcOption returns the ECharts option of one panel: per model a line of
// the mean accuracy and a band mean ± SE (two stacked helper series, the
// lower bound and the filled width), in the model's colour, no legend (the
// page has one for all panels).
func arcOption(title string, curves []panelCurve) string {
	x := make([]string, eval.ARCPoints)
	for i, p := range rejection() {
		x[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	lo := 1.0
	for _, c := range curves {
		for i, m := range c.stat.Mean {
			if c.stat.SE != nil {
				m -= c.stat.SE[i]
			}
			lo = min(lo, m)
		}
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: title, TitleStyle: &opts.TextStyle{FontSize: 14}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithGridOpts(opts.Grid{Top: "40", Left: "45", Right: "15", Bottom: "45"}),
		charts.WithXAxisOpts(opts.XAxis{Name: "rejected fraction", NameLocation: "middle", NameGap: 28, Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "accuracy", Type: "value", Min: math.Floor(lo*20) / 20, Max: 1}),
	)
	line.SetXAxis(x)
	for _, c := range curves {
		color, name := modelColor(c.model), c.model.String()
		if se := c.stat.SE; se != nil {
			lower := make([]opts.LineData, len(se))
			width := make([]opts.LineData, len(se))
			for i := range se {
				lower[i] = opts.LineData{Value: c.stat.Mean[i] - se[i]}
				width[i] = opts.LineData{Value: 2 * se[i]}
			}
			stack := "band-" + c.model.Key()
			line.AddSeries(name+" −SE", lower,
				charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0), Color: color}))
			line.AddSeries(name+" ±SE", width,
				charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0), Color: color}),
				charts.WithAreaStyleOpts(opts.AreaStyle{Color: color, Opacity: opts.Float(0.2)}))
		}
		mean := make([]opts.LineData, len(c.stat.Mean))
		for i, m := range c.stat.Mean {
			mean[i] = opts.LineData{Value: m}
		}
		line.AddSeries(name, mean,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 2, Color: color}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))
	}
	line.Validate()
	return strings.TrimSpace(string(line.JSONNotEscaped()))
}

// echartsScript returns the <script> element loading ECharts: the local
// file inlined, or a script tag for the URL (chart.DefaultEChartsURL by
// default).
func echartsScript(o ReportOptions) (string, error) {
	if o.EChartsFile == "" {
		url := o.EChartsURL
		if url == "" {
			url = chart.DefaultEChartsURL
		}
		return fmt.Sprintf("<script type=\"text/javascript\" src=\"%s\"></script>\n", html.EscapeString(url)), nil
	}
	code, err := os.ReadFile(o.EChartsFile)
	if err != nil {
		return "", fmt.Errorf("experiment: report: reading ECharts: %w", err)
	}
	if !bytes.Contains(code, []byte("echarts")) {
		return "", fmt.Errorf("experiment: report: %s does not look like echarts.min.js", o.EChartsFile)
	}
	return "<script type=\"text/javascript\">\n" + strings.ReplaceAll(string(code), "</", `<\/`) + "\n</script>\n", nil
}

// arcPlot draws one panel of the static figure: per model the mean curve
// and a band mean ± SE in the model's colour; legend when asked.
func arcPlot(title string, curves []panelCurve, legend bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "rejected fraction"
	p.Y.Label.Text = "accuracy"
	p.X.Min, p.X.Max, p.Y.Max = 0, 1, 1
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	if len(curves) == 0 {
		p.Title.Text += " (no model)"
		return p, nil
	}
	ps := rejection()
	for _, c := range curves {
		rgb := mustHex(modelColor(c.model))
		if se := c.stat.SE; se != nil {
			band := make(plotter.XYs, 0, 2*len(ps))
			for i, x := range ps {
				band = append(band, plotter.XY{X: x, Y: c.stat.Mean[i] + se[i]})
			}
			for i := len(ps) - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: ps[i], Y: c.stat.Mean[i] - se[i]})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, fmt.Errorf("experiment: figure %s: %w", title, err)
			}
			poly.Color = color.NRGBA{R: rgb.R, G: rgb.G, B: rgb.B, A: 60}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(ps))
		for i, x := range ps {
			pts[i] = plotter.XY{X: x, Y: c.stat.Mean[i]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("experiment: figure %s: %w", title, err)
		}
		l.Color = rgb
		l.Width = vg.Points(1.5)
		p.Add(l)
		if legend {
			p.Legend.Add(c.model.String(), l)
		}
	}
	return p, nil
}

// mustHex parses a "#rrggbb" palette colour.
func mustHex(s string) color.NRGBA {
	v, _ := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32) // chart.Palette entries are valid
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}
