package chart

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
)

// decodeOption parses the option of a chart without JavaScript functions.
func decodeOption(t *testing.T, c *Chart) map[string]any {
	t.Helper()
	// The option before Option turns the marked function strings into
	// code is JSON.
	c.opt.Validate()
	raw := string(c.opt.JSONNotEscaped())
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("option of %q is not JSON: %v\n%s", c.Title, err, raw)
	}
	return m
}

// optionOf builds the chart of b, failing t on an error, and returns it
// with its decoded option.
func optionOf(t *testing.T, b interface{ Done() (*Chart, error) }) (*Chart, map[string]any) {
	t.Helper()
	c, err := b.Done()
	if err != nil {
		t.Fatal(err)
	}
	return c, decodeOption(t, c)
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
	eu := Curve{Name: "EU <x>", Mean: []float64{0.5, 0.75, 0.875}, Dash: Dotted, Color: "#123456"}
	c, err := ARC("ARC", p, tu, eu)
	if err != nil {
		t.Fatal(err)
	}
	opt := c.Option()
	// TU: lower bound, band width (2·SE), mean; EU: mean only.
	for _, want := range []string{
		`"name":"TU"`, `"name":"EU <x>"`,
		`"data":[0.75,0.75,1]`,         // Mean − SE
		`"data":[0.125,0.25,0]`,        // 2·SE
		`"data":[0.8125,0.875,1]`,      // Mean
		`"data":[0.5,0.75,0.875]`,      // EU
		`"data":["0","0.5","0.99"]`,    // rejection fractions
		`"stack":"band-0"`,             // TU's band
		`"type":[1.5,2.5]`,             // EU dotted
		`"color":"#123456"`,            // EU's own colour
		`"color":"` + Palette[0] + `"`, // TU's colour by position
	} {
		if !strings.Contains(opt, want) {
			t.Errorf("ARC option lacks %s:\n%s", want, opt)
		}
	}
	s := series(t, decodeOption(t, c))
	if len(s) != 4 {
		t.Errorf("ARC has %d series, want 4 (3 for TU with its band, 1 for EU)", len(s))
	}
	// The y axis starts at the lowest band edge rounded down to 0.05.
	if !strings.Contains(opt, `"min":0.5`) || !strings.Contains(opt, `"max":1`) {
		t.Errorf("ARC y axis not [0.5, 1]:\n%s", opt)
	}
	frag := c.Fragment()
	if !strings.Contains(frag, `<div id="`+c.ID+`"`) || strings.Count(frag, "</script>") != 1 {
		t.Errorf("fragment lacks the element or has more than one script:\n%s", frag)
	}
}

func TestARCMarksCoincidingCurves(t *testing.T) {
	p := []float64{0, 0.5}
	c, err := ARC("a", p, Curve{Name: "EU", Mean: []float64{0.5, 0.7}}, Curve{Name: "EU_PC", Mean: []float64{0.5, 0.7}},
		Curve{Name: "TU", Mean: []float64{0.5, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	legend := decodeOption(t, c)["legend"].(map[string]any)["data"].([]any)
	if legend[0] != "EU" || legend[1] != "EU_PC (= EU)" || legend[2] != "TU" {
		t.Errorf("legend %v, want EU, EU_PC (= EU), TU", legend)
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
		{"colour", p, []Curve{{Name: "EU", Mean: []float64{1, 1}, Color: "red"}}, `colour "red" is not of the form #rrggbb`},
	} {
		_, err := ARC("x", tc.p, tc.curves...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "chart.ARC") {
			t.Errorf("%s: error %v, want chart.ARC: ...%s", tc.name, err, tc.want)
		}
	}
}

func TestARCGrid(t *testing.T) {
	p := []float64{0, 0.5}
	gpn := func(m float64) Curve { return Curve{Name: "GPN", Mean: []float64{m, 0.9}, Color: "#0072B2"} }
	c, err := ARCGrid("fig", p, 2, []Panel{
		{Title: "A: TU", Curves: []Curve{gpn(0.6), {Name: "APPNP", Mean: []float64{0.7, 0.8}, Color: "#000000"}}},
		{Title: "A: EU", Curves: []Curve{gpn(0.5)}},
		{Title: "B: TU"},
	})
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	if n := len(opt["grid"].([]any)); n != 3 {
		t.Errorf("%d grids, want 3", n)
	}
	if legend := opt["legend"].(map[string]any)["data"].([]any); len(legend) != 2 || legend[0] != "GPN" || legend[1] != "APPNP" {
		t.Errorf("legend %v, want one entry per curve name: GPN, APPNP", legend)
	}
	s := series(t, opt)
	if len(s) != 3 || s[2]["xAxisIndex"] != 1.0 || s[2]["yAxisIndex"] != 1.0 {
		t.Errorf("series %v: want three curves, the third on panel 1's axes", s)
	}
	// Panels of one row share the y range: the row's lowest mean is 0.5.
	for k, y := range opt["yAxis"].([]any)[:2] {
		if y.(map[string]any)["min"] != 0.5 {
			t.Errorf("panel %d y min %v, want 0.5", k, y.(map[string]any)["min"])
		}
	}
	if !strings.Contains(c.Option(), "no curve in this panel") {
		t.Error("the empty panel has no note")
	}
	if _, err := ARCGrid("fig", p, 0, nil); err == nil {
		t.Error("0 columns: no error")
	}
}

func TestDecompositionMergesStackedPoints(t *testing.T) {
	au := []float64{0.1, 0.1, 0.1, 0.9, 0.5}
	eu := []float64{0, 0, 0, 0.2, 0.8}
	c, err := Decomposition(au, eu, []Outcome{Correct, Correct, Correct, Wrong, OOD}).Title("dec").Done()
	if err != nil {
		t.Fatal(err)
	}
	s := series(t, decodeOption(t, c))
	if len(s) != 3 {
		t.Fatalf("%d series, want 3", len(s))
	}
	want := map[string][]any{"correct (3)": {0.1, 0.0, 3.0}, "wrong (1)": {0.9, 0.2, 1.0}, "OOD (1)": {0.5, 0.8, 1.0}}
	for _, sr := range s {
		data := sr["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("series %v has %d points, want 1 (the three correct nodes merged)", sr["name"], len(data))
		}
		got, w := data[0].([]any), want[sr["name"].(string)]
		if w == nil || math.Abs(got[0].(float64)-w[0].(float64)) > 1e-15 || got[1] != w[1] || got[2] != w[2] {
			t.Errorf("series %v: point %v, want %v", sr["name"], got, w)
		}
	}
	for _, tc := range []struct {
		d    *DecompositionChart
		want string
	}{
		{Decomposition([]float64{1}, []float64{1, 2}, []Outcome{OOD}), "1 AU, 2 EU and 1 outcomes"},
		{Decomposition([]float64{1}, []float64{1}, []Outcome{7}), "unknown outcome 7"},
		{Decomposition([]float64{math.NaN()}, []float64{1}, []Outcome{OOD}), "node 0 has AU NaN"},
		{Decomposition(nil, nil, nil), "no nodes"},
	} {
		if _, err := tc.d.Done(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestDecompositionLogEU(t *testing.T) {
	_, opt := optionOf(t, Decomposition([]float64{0.1, 0.2, 0.3}, []float64{0, 1e-3, 1}, []Outcome{Correct, Wrong, OOD}).LogEU())
	if opt["yAxis"].(map[string]any)["type"] != "log" {
		t.Errorf("y axis %v, want log", opt["yAxis"])
	}
	// EU 0 is drawn at the floor 1e-8 · max EU, and the subtitle says so.
	if got := series(t, opt)[0]["data"].([]any)[0].([]any)[1]; math.Abs(got.(float64)-1e-8) > 1e-20 {
		t.Errorf("EU 0 drawn at %v, want 1e-8", got)
	}
	if sub := opt["title"].([]any)[1].(map[string]any)["subtext"].(string); !strings.Contains(sub, "1 nodes with EU below 1.0e-08") {
		t.Errorf("subtitle %q does not say that a node was clamped", sub)
	}
}

func TestGraphChart(t *testing.T) {
	c, err := GraphChart(GraphView{Title: "g", Measure: "EU", Values: []float64{0, 0.5, -1}, Edges: [][2]int{{0, 1}, {1, 2}},
		Marked: []bool{false, true, false}, MarkLabel: "noisy"})
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
	if nodes[1].(map[string]any)["symbol"] != "triangle" || nodes[0].(map[string]any)["symbol"] != nil {
		t.Errorf("only node 1 should be a triangle: %v", nodes)
	}
	// The layout is computed in Go: every node has a position.
	if s["layout"] != "none" || nodes[0].(map[string]any)["x"] == nil {
		t.Errorf("layout %v, node 0 %v: want positions computed in Go", s["layout"], nodes[0])
	}
	links := s["links"].([]any)
	if l := links[1].(map[string]any); l["source"] != 1.0 || l["target"] != 2.0 {
		t.Errorf("link 1 = %v, want 1 → 2", l)
	}
	if sub := opt["title"].(map[string]any)["subtext"].(string); !strings.Contains(sub, "▲ noisy (1)") {
		t.Errorf("subtitle %q does not explain the marks", sub)
	}

	fixed, err := GraphChart(GraphView{Values: []float64{1, 2}, X: []float64{0, 1}, Y: []float64{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if s := series(t, decodeOption(t, fixed))[0]; s["layout"] != "none" || s["data"].([]any)[1].(map[string]any)["x"] != 1.0 {
		t.Errorf("fixed layout not kept: %v", s)
	}
	multi, err := GraphChart(GraphView{Measure: "EU", Values: []float64{1, 2}, More: []GraphLayer{{"TU", []float64{3, 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	mo := decodeOption(t, multi)
	tl := mo["baseOption"].(map[string]any)["timeline"].(map[string]any)["data"].([]any)
	if len(tl) != 2 || tl[1] != "TU" || len(mo["options"].([]any)) != 2 {
		t.Errorf("timeline %v: want a selector of EU and TU with one option each", tl)
	}
	second := mo["options"].([]any)[1].(map[string]any)["series"].([]any)[0].(map[string]any)["data"].([]any)
	if second[1].(map[string]any)["value"] != 4.0 {
		t.Errorf("the TU option colours node 1 by %v, want 4", second[1])
	}
	if _, err := GraphChart(GraphView{Values: []float64{1}, More: []GraphLayer{{"TU", nil}}}); err == nil || !strings.Contains(err.Error(), "0 values of TU") {
		t.Errorf("short layer: error %v", err)
	}
	for _, tc := range []struct {
		v    GraphView
		want string
	}{
		{GraphView{Values: []float64{1}, Edges: [][2]int{{0, 1}}}, "edge 0 (0, 1) out of range for 1 nodes"},
		{GraphView{Values: []float64{math.Inf(1)}}, "node 0 has uncertainty +Inf"},
		{GraphView{Values: []float64{1}, X: []float64{0}}, "layout has 1 x and 0 y"},
		{GraphView{Values: []float64{1}, Marked: []bool{true, false}}, "2 marks for 1 nodes"},
		{GraphView{}, "no nodes"},
	} {
		if _, err := GraphChart(tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GraphChart(%+v): error %v, want %q", tc.v, err, tc.want)
		}
	}
}

func TestGraphClassesAreQuantiles(t *testing.T) {
	// 237 of 300 nodes share the top value: they form one class, and the
	// other 63 nodes are still split into classes of their own.
	v := make([]float64, 300)
	for i := range v {
		v[i] = 0.27
		if i < 63 {
			v[i] = float64(i) / 1000
		}
	}
	b := graphClasses(v)
	if b[len(b)-1] != 0.27 || len(b) < 3 {
		t.Fatalf("class bounds %v: want several classes below the shared top value 0.27", b)
	}
	if b[len(b)-2] >= 0.063 {
		t.Errorf("class bounds %v: the second highest class should end below the shared value", b)
	}
	if one := graphClasses([]float64{2, 2, 2}); len(one) != 1 || one[0] != 2 {
		t.Errorf("equal values: classes %v, want one class [2]", one)
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

func TestEmbeddedECharts(t *testing.T) {
	sum := sha256.Sum256([]byte(echartsJS))
	if got := hex.EncodeToString(sum[:]); got != "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1" {
		t.Errorf("embedded echarts.min.js has SHA-256 %s, not npm's echarts@%s", got, EChartsVersion)
	}
	if !strings.Contains(echartsJS[:1000], "Licensed to the Apache Software Foundation") {
		t.Error("embedded library lost its license header")
	}
}

func TestEmbeddedEChartsGzip(t *testing.T) {
	r, err := gzip.NewReader(bytes.NewReader(echartsGzip))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != echartsJS {
		t.Error("echarts.min.js.gz does not decompress to echarts.min.js: run go generate")
	}
	l := LoaderHTML(HTMLOptions{Compressed: true})
	b64, _, _ := strings.Cut(l[strings.Index(l, `atob("`)+len(`atob("`):], `"`)
	if gz, err := base64.StdEncoding.DecodeString(b64); err != nil || !bytes.Equal(gz, echartsGzip) {
		t.Errorf("the compressed loader does not carry the library's gzip in base64 (%v)", err)
	}
	if len(l) > len(echartsJS)/2 || !strings.Contains(l, "DecompressionStream(\"gzip\")") || !strings.Contains(l, "Apache License 2.0") {
		t.Errorf("compressed loader of %d bytes (the library has %d) without DecompressionStream or licence", len(l), len(echartsJS))
	}
}

func TestLoaderHTML(t *testing.T) {
	l := LoaderHTML(HTMLOptions{})
	if strings.Count(l, "</script>") != 1 || strings.Contains(l, "cdn.jsdelivr") {
		t.Errorf("embedded loader should be one script element without CDN:\n%.300s", l)
	}
	// The library contains "</" sequences (in strings and regular
	// expressions) that must not close the script element early.
	if !strings.Contains(echartsJS, "</") {
		t.Fatal("test premise: the library has no </")
	}
	if !strings.Contains(l, scriptSafe(echartsJS)) || !strings.HasPrefix(l, "<script") || !strings.Contains(l, "if (!window.echarts)") {
		t.Errorf("loader does not inline the escaped library behind a guard")
	}
	cdn := LoaderHTML(HTMLOptions{CDN: "https://example.org/e.js"})
	if !strings.Contains(cdn, `"https://example.org/e.js"`) || len(cdn) > 2000 {
		t.Errorf("CDN loader does not load the given address:\n%s", cdn)
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
	var buf bytes.Buffer
	if err := NewPage("Report & more").AddCharts(a, b).AddTables(tb).WriteHTML(&buf, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	h := buf.String()
	ia, ib, it, il := strings.Index(h, a.ID), strings.Index(h, b.ID), strings.Index(h, "<table"), strings.Index(h, "Licensed to the Apache Software Foundation")
	if ia < 0 || ib < ia || it < ib || il < it {
		t.Errorf("page order wrong (chart a %d, chart b %d, table %d, loader %d)", ia, ib, it, il)
	}
	if !strings.HasPrefix(h, "<!DOCTYPE html>") || !strings.Contains(h, "<title>Report &amp; more</title>") || !strings.HasSuffix(h, "</html>\n") {
		t.Errorf("not a complete HTML document:\n%.300s", h)
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

func TestLines(t *testing.T) {
	c, err := Lines("g", "nodes", "ratio", []string{"225", "900"},
		Curve{Name: "GPN", Mean: []float64{1.2, 0.9}, SE: []float64{0.1, 0.05}}, Curve{Name: "CUQ", Mean: []float64{1.5, 2.1}, Dash: Dashed})
	if err != nil {
		t.Fatal(err)
	}
	opt := decodeOption(t, c)
	s := series(t, opt)
	if len(s) != 4 || s[3]["lineStyle"].(map[string]any)["type"] == "solid" {
		t.Fatalf("series %v: want GPN's band and line, then CUQ's dashed line", s)
	}
	// A band below zero must stack on its lower edge, not from 0.
	for _, band := range s[:2] {
		if band["stackStrategy"] != "all" {
			t.Errorf("band series %v: stackStrategy %v, want all", band["id"], band["stackStrategy"])
		}
	}
	if x := opt["xAxis"].([]any)[0].(map[string]any)["data"].([]any); x[1] != "900" {
		t.Errorf("x labels %v", x)
	}
	for _, tc := range []struct {
		x      []string
		curves []Curve
		want   string
	}{
		{nil, []Curve{{Name: "a"}}, "0 x positions"},
		{[]string{"1"}, []Curve{{Name: "a", Mean: []float64{1, 2}}}, `curve "a" has 2 means`},
		{[]string{"1"}, []Curve{{Name: "a", Mean: []float64{math.Inf(1)}}}, `curve "a" is not finite at 1`},
	} {
		if _, err := Lines("g", "x", "y", tc.x, tc.curves...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestNilBuildersAndCharts(t *testing.T) {
	for _, b := range []interface{ Done() (*Chart, error) }{
		(*ARCChart)(nil), (*RiskCoverageChart)(nil), (*DecompositionChart)(nil), (*HistoryChart)(nil), (*NeighbourhoodChart)(nil), (*SimplexChart)(nil),
	} {
		if _, err := b.Done(); err == nil || !strings.Contains(err.Error(), "nil builder") {
			t.Errorf("%T: error %v", b, err)
		}
	}
	if h := NewPage("p").AddCharts(nil).Fragment(); !strings.Contains(h, "nil chart") {
		t.Errorf("a nil chart on a page: %q", h)
	}
}
