// Package chart draws the figures of cuqgnn from plain slices: interactive
// ECharts charts built with go-echarts (accuracy-rejection curves with
// standard-error bands, the aleatoric/epistemic decomposition, graph views
// coloured by an uncertainty measure, Dirichlet densities on the 3-class
// simplex, training curves, reliability diagrams and risk-coverage curves),
// self-contained HTML pages composing them with tables, and static
// accuracy-rejection figures with gonum/plot (PNG, SVG, PDF).
//
// The package knows nothing about notebooks: kernelext displays its charts
// in GoNB, cmd writes its pages to files. Its inputs are slices so that any
// model or evaluation code can fill them.
package chart

import (
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"regexp"
	"strings"
	"sync"
)

// EChartsVersion is the version of the ECharts library the charts are
// written for and that the package embeds (echarts/echarts.min.js).
const EChartsVersion = "5.6.0"

// DefaultEChartsURL is a CDN address of the embedded ECharts version, for
// pages that choose to load the library at view time (HTMLOptions.CDN).
const DefaultEChartsURL = "https://cdn.jsdelivr.net/npm/echarts@" + EChartsVersion + "/dist/echarts.min.js"

// echartsJS is Apache ECharts' echarts.min.js, with its license header (see
// echarts/README.md).
//
//go:embed echarts/echarts.min.js
var echartsJS string

// echartsGzip is echartsJS compressed by gzip -9 -n (a third of its size),
// which the compressed loader carries; TestEmbeddedEChartsGzip checks that
// it decompresses to echartsJS.
//
//go:generate sh -c "gzip -9 -n -c echarts/echarts.min.js > echarts/echarts.min.js.gz"
//go:embed echarts/echarts.min.js.gz
var echartsGzip []byte

// echartsGzipBase64 returns echartsGzip in base64, computed once.
var echartsGzipBase64 = sync.OnceValue(func() string { return base64.StdEncoding.EncodeToString(echartsGzip) })

// optioner is what every go-echarts chart provides: Validate fills the
// defaults, JSONNotEscaped encodes the ECharts option.
type optioner interface {
	Validate()
	JSONNotEscaped() template.HTML
}

// Chart is one interactive chart: an ECharts option and the size of the
// element that shows it.
type Chart struct {
	// ID is the id of the chart's HTML element, unique per chart.
	ID string
	// Title is the chart's title, also used as the page heading.
	Title string
	// Width and Height are the element's size in CSS pixels.
	Width, Height int

	opt optioner
	// patch holds ECharts options that go-echarts cannot express; Fragment
	// merges them with a second setOption call, so they follow ECharts'
	// merge rules (series are matched by index).
	patch map[string]any
}

func newChart(title string, width, height int, opt optioner) *Chart {
	return &Chart{ID: newID(), Title: title, Width: width, Height: height, opt: opt}
}

// newID returns "cuq-chart-" followed by 12 random hexadecimal digits.
func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error.
	return "cuq-chart-" + hex.EncodeToString(b[:])
}

// funcMarker matches the markers go-echarts puts around embedded JavaScript
// functions (types.FuncStr) so that they are written as code, not strings.
var funcMarker = regexp.MustCompile(`(__f__")|("__f__)|(__f__)`)

// Option returns the chart's ECharts option as a JavaScript object literal:
// JSON, except for the embedded formatter and renderItem functions.
func (c *Chart) Option() string {
	if c.opt == nil { // a Chart not made by this package's constructors
		return "{}"
	}
	c.opt.Validate()
	js := strings.TrimSpace(string(c.opt.JSONNotEscaped()))
	return funcMarker.ReplaceAllString(js, "")
}

// scriptSafe makes JavaScript source safe inside an HTML <script> element:
// "</" becomes "<\/", which means the same in JavaScript strings, regular
// expressions and comments but cannot close the element.
func scriptSafe(js string) string {
	return strings.ReplaceAll(js, "</", `<\/`)
}

// queue is the global array where charts wait for ECharts to load.
const queue = "__cuqEChartsQueue"

// Fragment returns the HTML that shows the chart: a <div> of the chart's
// size and a script that draws into it as soon as window.echarts exists.
// Until then the drawing is queued; the script written by LoaderHTML runs the
// queue once ECharts is loaded, so fragments and the loader may come in
// either order.
func (c *Chart) Fragment() string {
	if c == nil {
		return "<p class=\"cuq-error\">chart: nil chart</p>\n"
	}
	return c.fragment(fmt.Sprintf("%dpx", c.Width))
}

// MinWidth returns the narrowest width in CSS pixels at which the chart
// still reads: its Width for a chart of panels placed in pixels (ARCGrid,
// the comparison charts, Simplexes), else 360 or its Width if smaller.
// Plots of other charts follow their element's width.
func (c *Chart) MinWidth() int {
	if c == nil {
		return 0
	}
	if o, ok := c.opt.(rawOption); ok {
		grids := o["grid"]
		if base, ok := o["baseOption"].(map[string]any); ok {
			grids = base["grid"]
		}
		if list, ok := grids.([]any); ok {
			for _, g := range list {
				if m, ok := g.(map[string]any); ok && m["width"] != nil {
					return c.Width
				}
			}
		}
	}
	return min(c.Width, 360)
}

// fragment is Fragment with the element's CSS width.
func (c *Chart) fragment(width string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<div id=%q class=\"cuq-chart\" style=\"width:%s;height:%dpx;\"></div>\n", c.ID, width, c.Height)
	b.WriteString("<script type=\"text/javascript\">\n(function () {\n")
	fmt.Fprintf(&b, "  var draw = function () {\n    var el = document.getElementById(%q);\n    if (!el) { return; }\n", c.ID)
	b.WriteString("    var chart = echarts.init(el, null, {renderer: \"canvas\"});\n")
	b.WriteString("    chart.setOption(" + scriptSafe(c.Option()) + ");\n")
	if c.patch != nil {
		p, _ := json.Marshal(c.patch) // patches are built from maps, slices and numbers.
		b.WriteString("    chart.setOption(" + scriptSafe(string(p)) + ");\n")
	}
	b.WriteString("    var resize = function () { chart.resize(); };\n")
	b.WriteString("    if (window.ResizeObserver) { new ResizeObserver(resize).observe(el); } else { window.addEventListener(\"resize\", resize); }\n  };\n")
	b.WriteString("  if (window.echarts) { draw(); } else { (window." + queue + " = window." + queue + " || []).push(draw); }\n")
	b.WriteString("})();\n</script>\n")
	return b.String()
}

// HTMLOptions chooses where a page's ECharts library comes from. The zero
// value inlines the embedded copy, so the page draws offline.
type HTMLOptions struct {
	// CDN, when set, is the address of echarts.min.js that the page loads
	// at view time instead of inlining the library: a page 1 MB smaller
	// that draws only with network access.
	CDN string
	// Compressed inlines the library gzip-compressed and in base64 (450
	// kB instead of 1 MB), which the page decompresses with the browser's
	// DecompressionStream (Chrome and Edge 80, Firefox 113, Safari 16.4
	// and later) before it draws: still offline.
	Compressed bool
}

// drainQueue runs the charts queued by Fragment.
const drainQueue = "(window." + queue + " || []).splice(0).forEach(function (f) { f(); });"

// loading is the global promise of the library being decompressed, which
// the loaders of later outputs wait for instead of decompressing it again.
const loading = "__cuqEChartsLoading"

// compressedLoader decompresses the library (GZIP: its gzip in base64),
// evaluates it in a script element, hiding an AMD define as LoaderHTML's
// inlined library does, then draws the queued charts.
const compressedLoader = `<script type="text/javascript">
/* Apache ECharts ` + EChartsVersion + `, licensed under the Apache License 2.0
   (http://www.apache.org/licenses/LICENSE-2.0), gzip-compressed below. */
(function () {
  var drain = function () { ` + drainQueue + ` };
  if (window.echarts) { drain(); return; }
  if (window.` + loading + `) { window.` + loading + `.then(drain); return; }
  var gz = Uint8Array.from(atob("GZIP"), function (c) { return c.charCodeAt(0); });
  var stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
  window.` + loading + ` = new Response(stream).text().then(function (src) {
    if (!window.echarts) {
      var s = document.createElement("script");
      s.text = "(function (define, module, exports) {\n" + src + "\n}).call(window);";
      document.head.appendChild(s);
    }
    drain();
  }, function (e) {
    window.` + loading + ` = null;
    console.error("cuqgnn: cannot decompress ECharts: " + e);
  });
})();
</script>
`

// LoaderHTML returns the <script> elements that load ECharts and then draw
// every chart queued by Fragment: the embedded library inlined (about 1 MB,
// evaluated only when the page does not have ECharts yet), or a loader of
// opts.CDN. The inlined library is wrapped so that it always defines
// window.echarts, even where an AMD loader (RequireJS in the classic Jupyter
// notebook) would otherwise capture it.
func LoaderHTML(opts HTMLOptions) string {
	if opts.CDN == "" && opts.Compressed {
		return strings.Replace(compressedLoader, "GZIP", echartsGzipBase64(), 1)
	}
	if opts.CDN == "" {
		return "<script type=\"text/javascript\">\nif (!window.echarts) {\n(function (define, module, exports) {\n" +
			scriptSafe(echartsJS) + "\n}).call(window);\n}\n" + drainQueue + "\n</script>\n"
	}
	// The AMD define is hidden while the library loads, for the same reason.
	return fmt.Sprintf(`<script type="text/javascript">
(function () {
  if (window.echarts) { %s return; }
  var s = document.createElement("script"), amd = window.define;
  window.define = undefined;
  s.src = %q;
  s.onload = function () { window.define = amd; %s };
  s.onerror = function () { window.define = amd; console.error("cuqgnn: cannot load ECharts from " + s.src); };
  document.head.appendChild(s);
})();
</script>
`, drainQueue, opts.CDN, drainQueue)
}

// Page is a self-contained HTML document of charts, tables and text, in
// order.
type Page struct {
	Title string
	items []string // HTML fragments, the ECharts loader excluded
}

// NewPage returns an empty page with the given title.
func NewPage(title string) *Page { return &Page{Title: title} }

// AddCharts appends charts to the page, one below the other, and returns
// the page.
func (p *Page) AddCharts(charts ...*Chart) *Page {
	for _, c := range charts {
		p.items = append(p.items, c.Fragment())
	}
	return p
}

// AddRow appends charts side by side, sharing the page's width: each takes
// an equal part of it, at most its Width and at least its MinWidth, and
// follows the page's width when it changes; charts that do not fit wrap to
// the next line. It returns the page.
func (p *Page) AddRow(charts ...*Chart) *Page {
	var b strings.Builder
	b.WriteString("<div class=\"cuq-row\" style=\"display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start;width:100%;\">\n")
	for _, c := range charts {
		if c == nil {
			b.WriteString(c.Fragment())
			continue
		}
		fmt.Fprintf(&b, "<div style=\"flex:1 1 0;min-width:%dpx;max-width:%dpx;\">\n", c.MinWidth(), c.Width)
		b.WriteString(c.fragment("100%"))
		b.WriteString("</div>\n")
	}
	b.WriteString("</div>\n")
	p.items = append(p.items, b.String())
	return p
}

// AddTables appends tables to the page and returns the page.
func (p *Page) AddTables(tables ...*Table) *Page {
	for _, t := range tables {
		p.items = append(p.items, "<div style=\"overflow-x:auto;margin:1em 0;\">\n"+t.HTML()+"</div>\n")
	}
	return p
}

// AddSection appends a heading and a paragraph of text (either may be
// empty; both are escaped) and returns the page.
func (p *Page) AddSection(heading, text string) *Page {
	var b strings.Builder
	if heading != "" {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(heading))
	}
	if text != "" {
		fmt.Fprintf(&b, "<p style=\"max-width:60em;color:#444;\">%s</p>\n", html.EscapeString(text))
	}
	p.items = append(p.items, b.String())
	return p
}

// Fragment returns the page's items as one HTML fragment, without the
// ECharts loader (see LoaderHTML).
func (p *Page) Fragment() string { return strings.Join(p.items, "") }

// WriteHTML writes the page as one HTML document: the charts and tables in
// the order they were added, then the ECharts loader chosen by opts.
func (p *Page) WriteHTML(w io.Writer, opts HTMLOptions) error {
	loader := LoaderHTML(opts)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(p.Title))
	b.WriteString("<style>body{font-family:sans-serif;margin:2em;} .cuq-chart{margin:1em 0;}</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(p.Title))
	b.WriteString(p.Fragment())
	b.WriteString(loader)
	b.WriteString("</body>\n</html>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("chart: writing page %q: %w", p.Title, err)
	}
	return nil
}
