// Package kernelext is cuqgnn's face in a GoNB (Go kernel for Jupyter)
// notebook: it shows charts, tables, images and training progress inline,
// stops a cell with its error in one idiom (Must, Check, Claim), and keeps
// a trained model's results for the later cells of a kernel session
// (Train, Cache). It is the only package of the module that imports GoNB;
// everything it shows is built by package chart, which works in any Go
// program.
//
// Charts need the ECharts library in the page. GoNB runs every cell as a
// new program, and the first chart each cell program shows carries the
// library (embedded in package chart), gzip-compressed in base64: about
// 450 kB instead of 1 MB, which the browser decompresses with its
// DecompressionStream once per page; later charts of the same cell reuse
// it. So every cell's output draws on its own: offline, when the cell is
// re-run, after the notebook is saved and reopened, and in a `jupyter
// nbconvert --to html` export. UseCDN trades that for smaller outputs that
// draw only online.
package kernelext

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"strings"
	"sync"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
)

var (
	mu     sync.Mutex
	cdn    string // set by UseCDN
	loaded bool   // this cell program has sent the library
)

// UseCDN makes the charts of this cell program load ECharts from url
// (chart.DefaultEChartsURL when empty) instead of carrying the embedded
// library: outputs 1 MB smaller that draw only with network access. Call it
// in each cell that should, or in a func init() of the notebook.
func UseCDN(url string) {
	if url == "" {
		url = chart.DefaultEChartsURL
	}
	mu.Lock()
	defer mu.Unlock()
	cdn = url
}

// loader returns the ECharts loader to put before a chart: the CDN loader
// every time (it is small and does nothing once ECharts is there), the
// embedded library only in the first chart output of the cell program.
func loader() string {
	mu.Lock()
	defer mu.Unlock()
	if cdn != "" {
		return chart.LoaderHTML(chart.HTMLOptions{CDN: cdn})
	}
	if loaded {
		return ""
	}
	loaded = true
	return quietMathJax + chart.LoaderHTML(chart.HTMLOptions{Compressed: true})
}

// quietMathJax asks MathJax 2, which the HTML export of a notebook loads,
// not to show its "Loading …" badge: offline the badge never goes away.
// Jupyter's own pages ignore the element.
const quietMathJax = `<script type="text/x-mathjax-config">MathJax.Hub.Config({messageStyle: "none"});</script>` + "\n"

// forgetLoaded makes the next chart carry the library again (its output
// may not have reached the notebook).
func forgetLoaded() {
	mu.Lock()
	defer mu.Unlock()
	loaded = false
}

// errorHTML renders err as a red box in the cell output.
func errorHTML(err error) string {
	return "<pre class=\"cuq-error\" style=\"color:#a00;background:#fee;padding:6px;white-space:pre-wrap;\">" + html.EscapeString(err.Error()) + "</pre>"
}

// Chartable is what the chart builders of package chart have in common
// (chart.ARCOf, chart.DecompositionOf, chart.Simplexes, …): Show takes them
// without a call to Done.
type Chartable interface {
	Done() (*chart.Chart, error)
}

// render returns the HTML that shows x (see Show).
func render(x any) (string, error) {
	switch v := x.(type) {
	case *chart.Chart:
		if v == nil {
			return "", errors.New("kernelext.Show: nil chart")
		}
		return loader() + v.Fragment(), nil
	case Chartable:
		c, err := v.Done()
		if err != nil {
			return "", err
		}
		return render(c)
	case []*chart.Chart:
		for k, c := range v {
			if c == nil {
				return "", fmt.Errorf("kernelext.Show: chart %d of the row is nil", k)
			}
		}
		return loader() + chart.NewPage("").AddRow(v...).Fragment(), nil
	case *chart.Page:
		if v == nil {
			return "", errors.New("kernelext.Show: nil page")
		}
		head := ""
		if v.Title != "" {
			head = "<h3>" + html.EscapeString(v.Title) + "</h3>\n"
		}
		return head + loader() + v.Fragment(), nil
	case *chart.Table:
		if v == nil {
			return "", errors.New("kernelext.Show: nil table")
		}
		return v.HTML(), nil
	case *plot.Plot:
		if v == nil {
			return "", errors.New("kernelext.Show: nil plot")
		}
		var buf bytes.Buffer
		if err := chart.WritePlot(&buf, v, "png", 16*vg.Centimeter, 10*vg.Centimeter); err != nil {
			return "", fmt.Errorf("kernelext.Show: %w", err)
		}
		return pngHTML(buf.Bytes()), nil
	case image.Image:
		var buf bytes.Buffer
		if err := png.Encode(&buf, v); err != nil {
			return "", fmt.Errorf("kernelext.Show: encoding image: %w", err)
		}
		return pngHTML(buf.Bytes()), nil
	case nil:
		return "", errors.New("kernelext.Show: nothing to show (nil)")
	}
	return "", fmt.Errorf("kernelext.Show: cannot display a %T", x)
}

// Show displays x in the cell's output: a *chart.Chart or *chart.Page
// (interactive ECharts), a chart builder (Chartable, such as
// chart.ARCOf(pred, test)), a row of charts side by side ([]*chart.Chart),
// a *chart.Table (sortable table), a *plot.Plot or an image.Image (PNG).
// The optional errs let a constructor's results be passed directly, as in
// Show(chart.ARC(...)): when one of them is non-nil, Show displays and
// returns it instead. Show returns an error, also displayed, when x cannot
// be shown. To stop the cell on such an error, wrap the call in Check.
func Show(x any, errs ...error) error {
	err := errors.Join(errs...)
	var s string
	if err == nil {
		s, err = render(x)
	}
	if err != nil {
		gonbui.DisplayHTML(errorHTML(err))
		gonbui.Sync()
		return err
	}
	gonbui.DisplayHTML(s)
	if err := flush(); err != nil {
		forgetLoaded() // the library may not have reached the notebook
		return err
	}
	return nil
}

// RowOption changes how ShowRow shows its charts.
type RowOption func(*rowOptions)

type rowOptions struct {
	share, shareSet bool
}

// ShareY makes ShowRow give its charts one y range (share true), so that
// they compare by height, or keep each chart's own (false). Without it,
// ShowRow shares the range when every chart's y axis has the same name
// (the same quantity: two set-size charts, two reliability diagrams, two
// risk-coverage charts). See chart.ShareY.
func ShareY(share bool) RowOption {
	return func(o *rowOptions) { o.share, o.shareSet = share, true }
}

// ShowRow displays charts side by side, each given as a *chart.Chart or a
// chart builder, followed by any RowOption. The charts share the
// notebook's width: each takes an equal part, at most its own width and
// at least the narrowest it reads at (chart.Chart.MinWidth), and follows
// the notebook when its width changes; charts that do not fit wrap to the
// next line. Charts of the same quantity share their y range (see ShareY),
// which sets it in the charts given.
func ShowRow(charts ...any) error {
	var o rowOptions
	var row []*chart.Chart
	for k, x := range charts {
		switch v := x.(type) {
		case RowOption:
			v(&o)
		case *chart.Chart:
			if v == nil {
				return Show(nil, fmt.Errorf("kernelext.ShowRow: chart %d is nil", k))
			}
			row = append(row, v)
		case Chartable:
			c, err := v.Done()
			if err != nil {
				return Show(nil, err)
			}
			row = append(row, c)
		default:
			return Show(nil, fmt.Errorf("kernelext.ShowRow: item %d is a %T, not a chart", k, x))
		}
	}
	if len(row) == 0 {
		return Show(nil, errors.New("kernelext.ShowRow: no charts"))
	}
	switch {
	case o.shareSet && o.share:
		if err := chart.ShareY(row...); err != nil {
			return Show(nil, fmt.Errorf("kernelext.ShowRow: %w", err))
		}
	case !o.shareSet && sameQuantity(row):
		_ = chart.ShareY(row...) // charts without values to share keep their own range
	}
	return Show(row)
}

// sameQuantity reports whether the charts are several, with y axes of
// one name.
func sameQuantity(row []*chart.Chart) bool {
	if len(row) < 2 || row[0].YAxisName() == "" {
		return false
	}
	for _, c := range row[1:] {
		if c.YAxisName() != row[0].YAxisName() {
			return false
		}
	}
	return true
}

var (
	cachedMu    sync.Mutex
	cachedID    string   // the display of this cell program's note on cached runs
	cachedNotes []string // the runs it lists
)

// noteCached tells that a result (a trained model's run) was taken from
// the cache, with what, a few words about it: in a notebook, one line per
// cell program that lists every cached result the cell used, updated in
// place; elsewhere one printed line per result.
func noteCached(what string) {
	if !gonbui.IsNotebook {
		fmt.Println(what + ": trained earlier in this kernel session; kernelext.Forget(\"train\") trains again")
		return
	}
	cachedMu.Lock()
	defer cachedMu.Unlock()
	if cachedID == "" {
		cachedID = "cuq-cached-" + gonbui.UniqueId()
	}
	cachedNotes = append(cachedNotes, what)
	gonbui.UpdateHTML(cachedID, "<div style=\"color:#555;font-size:90%;\">"+
		html.EscapeString(strings.Join(cachedNotes, "; "))+
		": trained earlier in this kernel session; kernelext.Forget(\"train\") trains again</div>")
}

// flush waits until GoNB has received everything sent so far. Without it a
// cell program that ends right after a large output (the inlined ECharts
// library is 1 MB) can exit before GoNB has read it, and the output is lost.
func flush() error {
	gonbui.Sync()
	return gonbui.Error()
}

// ShowTable displays a table with a caption, a header row and rows of
// cells (one per header column); a click on a column header sorts by it.
func ShowTable(caption string, header []string, rows [][]string) error {
	t, err := chart.NewTable(caption, header, rows)
	if err != nil {
		err = fmt.Errorf("kernelext.ShowTable: %w", err)
		gonbui.DisplayHTML(errorHTML(err))
		gonbui.Sync()
		return err
	}
	return Show(t)
}

// ShowImage displays an image, encoded as PNG.
func ShowImage(img image.Image) error {
	if img == nil {
		return errors.New("kernelext.ShowImage: nil image")
	}
	return Show(img)
}

// pngHTML embeds PNG bytes as an <img> with a data URL, which survives an
// HTML export of the notebook.
func pngHTML(b []byte) string {
	return `<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(b) + `"/>`
}

// ShowPNG displays PNG-encoded bytes; it checks that they decode as a PNG
// header first.
func ShowPNG(b []byte) error {
	if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("kernelext.ShowPNG: not a PNG image: %w", err)
	}
	gonbui.DisplayPng(b)
	return flush()
}

// ShowSVG displays an SVG document (it must contain an <svg element).
func ShowSVG(svg string) error {
	if !strings.Contains(svg, "<svg") {
		return errors.New("kernelext.ShowSVG: no <svg> element in the input")
	}
	gonbui.DisplaySVG(svg)
	return flush()
}
