package chart

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeOption parses the option of a chart without JavaScript functions.
func decodeOption(t *testing.T, c *Chart) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Option()), &m); err != nil {
		t.Fatalf("option of %q is not JSON: %v\n%s", c.Title, err, c.Option())
	}
	return m
}

func series(t *testing.T, opt map[string]any) []map[string]any {
	t.Helper()
	raw, ok := opt["series"].([]any)
	if !ok {
		t.Fatalf("option has no series: %v", opt)
	}
	out := make([]map[string]any, len(raw))
	for i, s := range raw {
		out[i] = s.(map[string]any)
	}
	return out
}

func TestARCSeriesAndBands(t *testing.T) {
	p := []float64{0, 0.5, 0.99}
	tu := Curve{Name: "TU", Mean: []float64{0.8125, 0.875, 1}, SE: []float64{0.0625, 0.125, 0}}
	eu := Curve{Name: "EU <x>", Mean: []float64{0.5, 0.75, 0.875}}
	c, err := ARC("ARC", p, tu, eu)
	if err != nil {
		t.Fatal(err)
	}
	opt := c.Option()
	// TU: lower bound, band width (2·SE), mean; EU: mean only.
	for _, want := range []string{
		`"name":"TU"`, `"name":"EU <x>"`,
		`"data":[{"value":0.75},{"value":0.75},{"value":1}]`,    // Mean − SE
		`"data":[{"value":0.125},{"value":0.25},{"value":0}]`,   // 2·SE
		`"data":[{"value":0.8125},{"value":0.875},{"value":1}]`, // Mean
		`"data":[{"value":0.5},{"value":0.75},{"value":0.875}]`,
		`"data":["0","0.5","0.99"]`,
		`"stack":"cuq-band-0"`,
	} {
		if !strings.Contains(opt, want) {
			t.Errorf("ARC option lacks %s:\n%s", want, opt)
		}
	}
	if n := strings.Count(opt, `"type":"line"`); n != 4 {
		t.Errorf("ARC has %d line series, want 4 (3 for TU with its band, 1 for EU)", n)
	}
	// The y axis starts at the lowest band edge rounded down to 0.05.
	if !strings.Contains(opt, `"min":0.5,"max":1`) {
		t.Errorf("ARC y axis not [0.5, 1]:\n%s", opt)
	}
	frag := c.Fragment()
	if !strings.Contains(frag, `<div id="`+c.ID+`"`) || !strings.Contains(frag, `"EU <x>"`) {
		t.Errorf("fragment lacks the element or the series name:\n%s", frag)
	}
	if strings.Count(frag, "</script>") != 1 {
		t.Errorf("fragment should hold exactly one closing script tag:\n%s", frag)
	}
}

func TestARCErrors(t *testing.T) {
	p := []float64{0, 0.5}
	for _, tc := range []struct {
		name   string
		p      []float64
		curves []Curve
		want   string
	}{
		{"short grid", []float64{0}, []Curve{{Name: "a", Mean: []float64{1}}}, "need at least 2"},
		{"decreasing", []float64{0.5, 0.1}, []Curve{{Name: "a", Mean: []float64{1, 1}}}, "not increasing at 1"},
		{"out of range", []float64{0, 1.5}, []Curve{{Name: "a", Mean: []float64{1, 1}}}, "not in [0, 1]"},
		{"no curves", p, nil, "no curves"},
		{"length", p, []Curve{{Name: "TU", Mean: []float64{1}}}, `curve "TU" has 1 means for 2`},
		{"se length", p, []Curve{{Name: "TU", Mean: []float64{1, 1}, SE: []float64{0}}}, `curve "TU" has 1 standard errors`},
		{"nan", p, []Curve{{Name: "EU", Mean: []float64{1, math.NaN()}}}, `curve "EU": mean 1 is NaN`},
		{"negative se", p, []Curve{{Name: "EU", Mean: []float64{1, 1}, SE: []float64{0, -1}}}, "standard error 1 is -1"},
	} {
		_, err := ARC("x", tc.p, tc.curves...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "chart.ARC:") {
			t.Errorf("%s: error %v, want chart.ARC: ...%s", tc.name, err, tc.want)
		}
	}
}

func TestDecomposition(t *testing.T) {
	c, err := Decomposition("dec", []float64{0.1, 0.9, 0.5}, []float64{0, 0.2, 0.8}, []Outcome{Correct, Wrong, OOD})
	if err != nil {
		t.Fatal(err)
	}
	s := series(t, decodeOption(t, c))
	if len(s) != 3 {
		t.Fatalf("%d series, want 3", len(s))
	}
	want := map[string][]any{"correct": {0.1, 0.0}, "wrong": {0.9, 0.2}, "OOD": {0.5, 0.8}}
	for _, sr := range s {
		data := sr["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("series %v has %d points, want 1", sr["name"], len(data))
		}
		got := data[0].(map[string]any)["value"].([]any)
		w := want[sr["name"].(string)]
		if got[0] != w[0] || got[1] != w[1] {
			t.Errorf("series %v: point %v, want %v", sr["name"], got, w)
		}
	}
	if _, err := Decomposition("dec", []float64{1}, []float64{1, 2}, []Outcome{OOD}); err == nil || !strings.Contains(err.Error(), "1 AU, 2 EU and 1 outcomes") {
		t.Errorf("length mismatch: error %v", err)
	}
	if _, err := Decomposition("dec", []float64{1}, []float64{1}, []Outcome{7}); err == nil || !strings.Contains(err.Error(), "unknown outcome 7") {
		t.Errorf("bad outcome: error %v", err)
	}
}

func TestGraphChartKeepsZeroValues(t *testing.T) {
	c, err := GraphChart(GraphView{Title: "g", Measure: "EU", Values: []float64{0, 0.5, -1}, Edges: [][2]int{{0, 1}, {1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	s := series(t, opt)[0]
	nodes := s["data"].([]any)
	for i, want := range []float64{0, 0.5, -1} {
		n := nodes[i].(map[string]any)
		if v, ok := n["value"].(float64); !ok || v != want {
			t.Errorf("node %d value %v, want %v", i, n["value"], want)
		}
	}
	if s["layout"] != "force" {
		t.Errorf("layout %v, want force", s["layout"])
	}
	links := s["links"].([]any)
	if l := links[1].(map[string]any); l["source"] != 1.0 || l["target"] != 2.0 {
		t.Errorf("link 1 = %v, want 1 → 2", l)
	}
	vm := opt["visualMap"].([]any)[0].(map[string]any)
	if vm["min"] != -1.0 || vm["max"] != 0.5 {
		t.Errorf("visual map range [%v, %v], want [-1, 0.5]", vm["min"], vm["max"])
	}
	if vm["precision"] != 3.0 {
		t.Errorf("visual map precision %v, want 3 decimals", vm["precision"])
	}

	fixed, err := GraphChart(GraphView{Values: []float64{1, 2}, X: []float64{0, 1}, Y: []float64{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if s := series(t, decodeOption(t, fixed))[0]; s["layout"] != "none" || s["data"].([]any)[0].(map[string]any)["x"] != 0.0 {
		t.Errorf("fixed layout not kept: %v", s)
	}
	for _, tc := range []struct {
		v    GraphView
		want string
	}{
		{GraphView{Values: []float64{1}, Edges: [][2]int{{0, 1}}}, "edge 0 (0, 1) out of range for 1 nodes"},
		{GraphView{Values: []float64{math.Inf(1)}}, "node 0 has value +Inf"},
		{GraphView{Values: []float64{1}, X: []float64{0}}, "layout has 1 x and 0 y"},
		{GraphView{}, "no nodes"},
	} {
		if _, err := GraphChart(tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GraphChart(%+v): error %v, want %q", tc.v, err, tc.want)
		}
	}
}

func TestVisualRangeZeroMax(t *testing.T) {
	// go-echarts drops a zero max; the range must still end at (about) 0.
	lo, hi := visualRange(-3, 0)
	if lo != -3 || hi <= 0 || hi > 1e-30 {
		t.Errorf("visualRange(-3, 0) = %v, %v", lo, hi)
	}
	if lo, hi := visualRange(2, 2); lo != 1.5 || hi != 2.5 {
		t.Errorf("visualRange(2, 2) = %v, %v, want 1.5, 2.5", lo, hi)
	}
}

func TestTraining(t *testing.T) {
	c, err := Training("t", []Series{{Name: "loss", Values: []float64{2, 1, 0.5}}}, []Series{{Name: "val acc", Values: []float64{math.NaN(), 0.7, 0.8}}})
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	s := series(t, opt)
	if len(s) != 2 || s[0]["name"] != "loss" || s[1]["name"] != "val acc" {
		t.Fatalf("series %v", s)
	}
	if _, ok := s[0]["yAxisIndex"]; ok {
		t.Errorf("loss should use y axis 0: %v", s[0])
	}
	if s[1]["yAxisIndex"] != 1.0 {
		t.Errorf("metric on y axis %v, want 1", s[1]["yAxisIndex"])
	}
	if got := s[1]["data"].([]any)[0].(map[string]any)["value"]; got != "-" {
		t.Errorf("NaN encoded as %v, want ECharts' missing value \"-\"", got)
	}
	if x := opt["xAxis"].([]any)[0].(map[string]any)["data"].([]any); len(x) != 3 || x[2] != "3" {
		t.Errorf("epochs %v, want 1..3", x)
	}
	if _, err := Training("t", []Series{{Name: "loss", Values: []float64{math.Inf(1)}}}, nil); err == nil || !strings.Contains(err.Error(), `series "loss" is +Inf at epoch 1`) {
		t.Errorf("Inf loss: error %v", err)
	}
	if _, err := Training("t", nil, nil); err == nil {
		t.Error("no series: no error")
	}
}

func TestTable(t *testing.T) {
	tb, err := NewTable("Results <1>", []string{"model", "acc"}, [][]string{{"GPN", "80.3"}, {"<script>", "1"}})
	if err != nil {
		t.Fatal(err)
	}
	h := tb.HTML()
	for _, want := range []string{"<caption", "Results &lt;1&gt;", "<th onclick=\"cuqSortTable(this)\"", ">model</th>", "<td", ">80.3</td>", "&lt;script&gt;"} {
		if !strings.Contains(h, want) {
			t.Errorf("table HTML lacks %q:\n%s", want, h)
		}
	}
	if _, err := NewTable("r", []string{"a", "b"}, [][]string{{"1"}}); err == nil || !strings.Contains(err.Error(), "row 0 has 1 cells for 2 columns") {
		t.Errorf("short row: error %v", err)
	}
}

func TestLoaderInlinesLocalFile(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "echarts.min.js")
	code := `window.echarts = {version: "test"}; var s = "</script>";`
	if err := os.WriteFile(lib, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoaderHTML(HTMLOptions{EChartsFile: lib})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l, `window.echarts = {version: "test"}; var s = "<\/script>";`) {
		t.Errorf("loader does not inline the file (with </ escaped):\n%s", l)
	}
	if strings.Count(l, "</script>") != 1 || strings.Contains(l, "cdn.jsdelivr") {
		t.Errorf("inlined loader should be one script element without CDN:\n%s", l)
	}

	cdn, err := LoaderHTML(HTMLOptions{})
	if err != nil || !strings.Contains(cdn, `"`+DefaultEChartsURL+`"`) {
		t.Errorf("default loader (err %v) does not use %s:\n%s", err, DefaultEChartsURL, cdn)
	}
	if custom, _ := LoaderHTML(HTMLOptions{EChartsURL: "https://example.org/e.js"}); !strings.Contains(custom, `"https://example.org/e.js"`) {
		t.Errorf("custom URL not used:\n%s", custom)
	}

	if _, err := LoaderHTML(HTMLOptions{EChartsFile: filepath.Join(dir, "missing.js")}); err == nil || !strings.Contains(err.Error(), "missing.js") {
		t.Errorf("missing file: error %v", err)
	}
	other := filepath.Join(dir, "other.js")
	if err := os.WriteFile(other, []byte("var x = 1;"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoaderHTML(HTMLOptions{EChartsFile: other}); err == nil || !strings.Contains(err.Error(), "does not look like echarts.min.js") {
		t.Errorf("non-echarts file: error %v", err)
	}
}

func TestPageWriteHTML(t *testing.T) {
	p := []float64{0, 1}
	a, err := ARC("first", p, Curve{Name: "TU", Mean: []float64{0.5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Training("second", []Series{{Name: "loss", Values: []float64{1, 0.5}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable("tab", []string{"k"}, [][]string{{"v"}})
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(lib, []byte("/* echarts stand-in */"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := NewPage("Report & more").AddCharts(a, b).AddTables(tb).WriteHTML(&buf, HTMLOptions{EChartsFile: lib}); err != nil {
		t.Fatal(err)
	}
	h := buf.String()
	ia, ib, it, il := strings.Index(h, a.ID), strings.Index(h, b.ID), strings.Index(h, "<table"), strings.Index(h, "echarts stand-in")
	if ia < 0 || ib < ia || it < ib || il < it {
		t.Errorf("page order wrong (chart a %d, chart b %d, table %d, loader %d)", ia, ib, it, il)
	}
	if !strings.HasPrefix(h, "<!DOCTYPE html>") || !strings.Contains(h, "<title>Report &amp; more</title>") || !strings.HasSuffix(h, "</html>\n") {
		t.Errorf("not a complete HTML document:\n%.300s", h)
	}
	err = NewPage("p").WriteHTML(&buf, HTMLOptions{EChartsFile: "/nonexistent/echarts.min.js"})
	if err == nil || !strings.Contains(err.Error(), `writing page "p"`) {
		t.Errorf("missing library: error %v", err)
	}
}

func TestZeroChart(t *testing.T) {
	var c Chart
	if got := c.Option(); got != "{}" {
		t.Errorf("zero Chart option %q, want {}", got)
	}
	if !strings.Contains(c.Fragment(), "chart.setOption({});") {
		t.Errorf("zero Chart fragment does not draw an empty chart:\n%s", c.Fragment())
	}
}
