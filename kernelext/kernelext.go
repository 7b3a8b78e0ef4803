// Package kernelext shows cuqgnn's charts, pages, tables, images and
// training progress inline in a GoNB (Go kernel for Jupyter) notebook. It is
// the only package of the module that imports GoNB; everything it shows is
// built by package chart, which works in any Go program.
//
// Charts need the ECharts library in the page. Show inlines a local copy of
// echarts.min.js once per kernel session (the first chart output carries it,
// later ones wait for it), so notebooks draw offline and keep drawing when
// exported with `jupyter nbconvert --to html`; or it loads the library from a
// CDN. The source is, in order of preference: the last UseLocalECharts or
// UseCDN call of the cell program, the file named by $CUQ_ECHARTS, the file
// cached by scripts/setup.sh (chart.DefaultEChartsFile), the CDN.
//
// GoNB runs every cell as a new program, so a choice made in one cell is
// forgotten by the next: set it in a func init() of the notebook, or with
// `%env CUQ_ECHARTS /path/to/echarts.min.js`.
package kernelext

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
)

// EnvECharts names the environment variable holding the path of a local
// echarts.min.js.
const EnvECharts = "CUQ_ECHARTS"

var (
	mu     sync.Mutex
	source *chart.HTMLOptions // set by UseLocalECharts or UseCDN
	loaded string             // the source already loaded by this process
)

// UseLocalECharts makes charts inline ECharts from the file at path (an
// echarts.min.js of version chart.EChartsVersion), once per kernel session.
func UseLocalECharts(path string) error {
	if _, err := chart.LoaderHTML(chart.HTMLOptions{EChartsFile: path}); err != nil {
		return fmt.Errorf("kernelext.UseLocalECharts: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	source = &chart.HTMLOptions{EChartsFile: path}
	return nil
}

// UseCDN makes charts load ECharts from url, chart.DefaultEChartsURL when
// empty. Such notebooks draw only with network access.
func UseCDN(url string) {
	mu.Lock()
	defer mu.Unlock()
	source = &chart.HTMLOptions{EChartsURL: url}
}

// echartsSource returns where charts load ECharts from (see the package
// documentation for the order).
func echartsSource() chart.HTMLOptions {
	mu.Lock()
	defer mu.Unlock()
	if source != nil {
		return *source
	}
	if p := os.Getenv(EnvECharts); p != "" {
		return chart.HTMLOptions{EChartsFile: p}
	}
	if p := chart.DefaultEChartsFile(); p != "" {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return chart.HTMLOptions{EChartsFile: p}
		}
	}
	return chart.HTMLOptions{}
}

// markerFile records, in GoNB's per-kernel temporary directory, which
// ECharts source the notebook has already loaded; "" outside GoNB.
func markerFile() string {
	dir := os.Getenv(protocol.GONB_TMP_DIR_ENV)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "cuqgnn-echarts-loaded")
}

// loader returns the ECharts loader to put before a chart: the CDN loader
// every time (it is small and does nothing once ECharts is there), the
// inlined library only the first time in a kernel session.
func loader() (string, error) {
	src := echartsSource()
	if src.EChartsFile == "" {
		return chart.LoaderHTML(src)
	}
	key := "file:" + src.EChartsFile
	marker := markerFile()
	mu.Lock()
	defer mu.Unlock()
	if loaded == key {
		return "", nil
	}
	if marker != "" {
		if b, err := os.ReadFile(marker); err == nil && string(b) == key {
			loaded = key
			return "", nil
		}
	}
	s, err := chart.LoaderHTML(src)
	if err != nil {
		return "", err
	}
	loaded = key
	if marker != "" {
		if err := os.WriteFile(marker, []byte(key), 0o644); err != nil {
			return "", fmt.Errorf("kernelext: recording that ECharts is loaded: %w", err)
		}
	}
	return s, nil
}

// forgetLoaded makes the next chart carry the ECharts library again.
func forgetLoaded() {
	mu.Lock()
	defer mu.Unlock()
	loaded = ""
	if m := markerFile(); m != "" {
		_ = os.Remove(m) // absent already is fine
	}
}

// LoadECharts puts the ECharts library into the current cell's output even
// if an earlier cell did: use it after clearing the outputs of the notebook.
func LoadECharts() error {
	forgetLoaded()
	s, err := loader()
	if err != nil {
		return fmt.Errorf("kernelext.LoadECharts: %w", err)
	}
	gonbui.DisplayHTML(s)
	return flush()
}

// errorHTML renders err as a red box in the cell output.
func errorHTML(err error) string {
	return "<pre style=\"color:#a00;background:#fee;padding:6px;white-space:pre-wrap;\">" + html.EscapeString(err.Error()) + "</pre>"
}

// render returns the HTML that shows x: a *chart.Chart, *chart.Page,
// *chart.Table, *plot.Plot (as a PNG) or image.Image.
func render(x any) (string, error) {
	switch v := x.(type) {
	case *chart.Chart:
		if v == nil {
			return "", errors.New("kernelext.Show: nil chart")
		}
		l, err := loader()
		if err != nil {
			return "", fmt.Errorf("kernelext.Show: %w", err)
		}
		return l + v.Fragment(), nil
	case *chart.Page:
		if v == nil {
			return "", errors.New("kernelext.Show: nil page")
		}
		l, err := loader()
		if err != nil {
			return "", fmt.Errorf("kernelext.Show: %w", err)
		}
		return "<h3>" + html.EscapeString(v.Title) + "</h3>\n" + l + v.Fragment(), nil
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
// (interactive ECharts), a *chart.Table (sortable table), a *plot.Plot or an
// image.Image (PNG). The optional errs let a constructor's results be passed
// directly, as in Show(chart.ARC(...)): when one of them is non-nil, Show
// displays and returns it instead. Show returns an error, also displayed,
// when x cannot be shown.
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
