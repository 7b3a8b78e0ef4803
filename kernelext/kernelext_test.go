package kernelext

import (
	"bytes"
	"encoding/base64"
	"encoding/gob"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// messages receives what the package sends to the (fake) GoNB kernel;
// syncs counts the sync requests it acknowledged.
var (
	messages = make(chan *protocol.DisplayData, 100)
	syncs    atomic.Int64
)

// TestMain plays the kernel's side of GoNB's protocol: two named pipes,
// gob-encoded protocol.DisplayData from the program, and acknowledgements of
// its sync requests (protocol.CommValue) back.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kernelext-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	toKernel, fromKernel := filepath.Join(dir, "pipe"), filepath.Join(dir, "back")
	for _, p := range []string{toKernel, fromKernel} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Setenv(protocol.GONB_PIPE_ENV, toKernel)
	os.Setenv(protocol.GONB_PIPE_BACK_ENV, fromKernel)
	os.Setenv(protocol.GONB_TMP_DIR_ENV, dir)
	gonbui.IsNotebook = true
	back := make(chan *gob.Encoder, 1)
	go func() {
		w, err := os.OpenFile(fromKernel, os.O_WRONLY, 0)
		if err != nil {
			panic(err)
		}
		back <- gob.NewEncoder(w)
	}()
	go func() {
		r, err := os.Open(toKernel)
		if err != nil {
			panic(err)
		}
		dec := gob.NewDecoder(r)
		var enc *gob.Encoder
		for {
			var d protocol.DisplayData
			if err := dec.Decode(&d); err != nil {
				close(messages)
				return
			}
			var sync *protocol.CommValue
			switch v := d.Data[protocol.MIMECommValue].(type) {
			case protocol.CommValue:
				sync = &v
			case *protocol.CommValue:
				sync = v
			}
			if sync == nil {
				messages <- &d
				continue
			}
			if sync.Address != protocol.GonbuiSyncAddress {
				panic(fmt.Sprintf("unexpected comm message %+v", sync))
			}
			if enc == nil {
				enc = <-back
			}
			syncs.Add(1)
			if err := enc.Encode(&protocol.CommValue{Address: protocol.GonbuiSyncAckAddress, Value: sync.Value}); err != nil {
				panic(err)
			}
		}
	}()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// next returns the next message sent to the kernel.
func next(t *testing.T) *protocol.DisplayData {
	t.Helper()
	select {
	case d := <-messages:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no message sent to the kernel")
	}
	return nil
}

func nextHTML(t *testing.T) string {
	t.Helper()
	d := next(t)
	s, ok := d.Data[protocol.MIMETextHTML].(string)
	if !ok {
		t.Fatalf("message has no text/html: %v", d.Data)
	}
	return s
}

// resetECharts forgets the CDN choice and that the library was sent, as a
// new cell program starts.
func resetECharts() {
	mu.Lock()
	cdn, loaded = "", false
	mu.Unlock()
}

func arc(t *testing.T, name string) *chart.Chart {
	t.Helper()
	c, err := chart.ARC("ARC", []float64{0, 0.5}, chart.Curve{Name: name, Mean: []float64{0.5, 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestShowCarriesEChartsOncePerCellProgram(t *testing.T) {
	resetECharts()
	const lib = `new DecompressionStream("gzip")`

	a, b, c := arc(t, "first"), arc(t, "second"), arc(t, "third")
	if err := Show(a); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); !strings.Contains(h, lib) || !strings.Contains(h, a.ID) || strings.Index(h, lib) > strings.Index(h, a.ID) {
		t.Errorf("first chart should carry the library before the chart:\n%.400s", h)
	}
	if err := Show(b); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); strings.Contains(h, lib) || !strings.Contains(h, b.ID) {
		t.Errorf("second chart of the cell should not repeat the library:\n%.400s", h)
	}
	// A later cell (or a re-run of this one) is a new program: its first
	// chart carries the library again, so its output draws on its own.
	resetECharts()
	if err := Show(c); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); !strings.Contains(h, lib) {
		t.Errorf("the next cell's first chart does not carry the library:\n%.400s", h)
	}
}

func TestShowWaitsForKernel(t *testing.T) {
	for _, show := range []func() error{
		func() error { return Show(arc(t, "synced")) },
		func() error { return ShowTable("t", []string{"a"}, [][]string{{"1"}}) },
		func() error { return ShowSVG("<svg></svg>") },
		func() error { return Show(7) },
	} {
		before := syncs.Load()
		_ = show()
		if syncs.Load() != before+1 {
			t.Errorf("display returned without one sync with GoNB (%d syncs)", syncs.Load()-before)
		}
		next(t)
	}
}

func TestUseCDN(t *testing.T) {
	resetECharts()
	defer resetECharts()
	UseCDN("https://example.org/echarts.js")
	for range 2 { // the small CDN loader goes with every chart
		if err := Show(arc(t, "cdn")); err != nil {
			t.Fatal(err)
		}
		h := nextHTML(t)
		if !strings.Contains(h, `"https://example.org/echarts.js"`) || strings.Contains(h, "Apache Software Foundation") {
			t.Errorf("chart does not load from the CDN alone:\n%.600s", h)
		}
	}
}

func TestShowBuildersAndRows(t *testing.T) {
	resetECharts()
	d := chart.Decomposition([]float64{0.1, 0.2}, []float64{0.3, 0.4}, []chart.Outcome{chart.Correct, chart.OOD}).Title("dec")
	if err := Show(d); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); !strings.Contains(h, `"text":"dec"`) || !strings.Contains(h, "DecompressionStream") {
		t.Errorf("builder not drawn with the library:\n%.300s", h)
	}
	if err := ShowRow(arc(t, "left"), d); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); strings.Count(h, `class="cuq-chart"`) != 2 || !strings.Contains(h, "display:flex") {
		t.Errorf("row does not hold two charts side by side:\n%.600s", h)
	}
	if err := ShowRow(arc(t, "x"), 3); err == nil || !strings.Contains(err.Error(), "item 1 is a int") {
		t.Errorf("row with a number: error %v", err)
	}
	nextHTML(t)
	bad := chart.Decomposition(nil, nil, nil)
	if err := Show(bad); err == nil || !strings.Contains(err.Error(), "no nodes") {
		t.Errorf("failing builder: error %v", err)
	}
	nextHTML(t)
}

func TestShowErrors(t *testing.T) {
	err := Show(chart.ARC("bad", []float64{0, 1}, chart.Curve{Name: "TU", Mean: []float64{1}}))
	if err == nil || !strings.Contains(err.Error(), `curve "TU" has 1 means`) {
		t.Errorf("constructor error not returned: %v", err)
	}
	if h := nextHTML(t); !strings.Contains(h, `curve &#34;TU&#34; has 1 means`) || !strings.Contains(h, "<pre") {
		t.Errorf("constructor error not displayed: %s", h)
	}
	if err := Show(42); err == nil || err.Error() != "kernelext.Show: cannot display a int" {
		t.Errorf("Show(42): %v", err)
	}
	if h := nextHTML(t); !strings.Contains(h, "cannot display a int") {
		t.Errorf("Show(42) displayed %s", h)
	}
	var c *chart.Chart
	if err := Show(c); err == nil || !strings.Contains(err.Error(), "nil chart") {
		t.Errorf("Show(nil chart): %v", err)
	}
	nextHTML(t)
}

func TestShowTable(t *testing.T) {
	if err := ShowTable("Acc", []string{"model", "acc"}, [][]string{{"GPN", "80.34"}, {"CUQ-GCN", "71.52"}}); err != nil {
		t.Fatal(err)
	}
	h := nextHTML(t)
	for _, want := range []string{"<table", ">Acc</caption>", ">80.34</td>", ">CUQ-GCN</td>", "cuqSortTable"} {
		if !strings.Contains(h, want) {
			t.Errorf("table lacks %q:\n%s", want, h)
		}
	}
	if err := ShowTable("x", []string{"a"}, [][]string{{"1", "2"}}); err == nil || !strings.Contains(err.Error(), "row 0 has 2 cells for 1 columns") {
		t.Errorf("bad row: %v", err)
	}
	nextHTML(t)
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestShowImages(t *testing.T) {
	b := testPNG(t, 3, 2)
	if err := ShowPNG([]byte("not a png")); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Errorf("ShowPNG(garbage): %v", err)
	}
	if err := ShowPNG(b); err != nil {
		t.Fatal(err)
	}
	// The rejected input sent nothing: the next message is the valid PNG.
	if got, ok := next(t).Data[protocol.MIMEImagePNG].([]byte); !ok || !bytes.Equal(got, b) {
		t.Errorf("PNG message does not carry the bytes")
	}

	if err := ShowSVG("<p>no</p>"); err == nil {
		t.Error("ShowSVG without <svg>: no error")
	}
	if err := ShowSVG(`<svg width="10" height="10"></svg>`); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); !strings.Contains(h, `<svg width="10" height="10"></svg>`) {
		t.Errorf("SVG not shown: %s", h)
	}

	img, _ := png.Decode(bytes.NewReader(testPNG(t, 5, 4)))
	if err := ShowImage(img); err != nil {
		t.Fatal(err)
	}
	checkDataPNG(t, nextHTML(t), 5, 4)
	if err := ShowImage(nil); err == nil {
		t.Error("ShowImage(nil): no error")
	}

	pl, err := chart.ARCPlot("ARC", []float64{0, 1}, chart.Curve{Name: "EU", Mean: []float64{0.5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := Show(pl); err != nil {
		t.Fatal(err)
	}
	// 16 cm × 10 cm at 96 dpi.
	checkDataPNG(t, nextHTML(t), 605, 378)
}

var dataPNG = regexp.MustCompile(`<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"/>`)

func checkDataPNG(t *testing.T, h string, w, ht int) {
	t.Helper()
	m := dataPNG.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("no embedded PNG in %.200s", h)
	}
	raw, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != w || cfg.Height != ht {
		t.Errorf("embedded PNG is %d×%d, want %d×%d", cfg.Width, cfg.Height, w, ht)
	}
}

func TestProgressUpdatesInPlace(t *testing.T) {
	p := NewProgress("train")
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	var f ProgressFunc = p.Update

	f(1, 10, "loss 2.0")
	d := next(t)
	if d.DisplayID != p.id || !strings.Contains(d.Data[protocol.MIMETextHTML].(string), "1/10 (10%)") {
		t.Errorf("first update: id %q (want %q), html %v", d.DisplayID, p.id, d.Data)
	}
	clock = clock.Add(50 * time.Millisecond)
	f(2, 10, "skipped: too soon")
	clock = clock.Add(150 * time.Millisecond)
	f(3, 10, "loss 1.0")
	h := d.Data[protocol.MIMETextHTML].(string)
	if d = next(t); !strings.Contains(d.Data[protocol.MIMETextHTML].(string), "3/10 (30%)") || strings.Contains(h, "skipped") {
		t.Errorf("second message should be step 3: %v", d.Data)
	}
	clock = clock.Add(time.Second)
	f(10, 10, "val acc 0.81")
	d = next(t)
	want := "&#10003; train: 10 steps in 1.2s · val acc 0.81"
	if d.DisplayID != p.id || !strings.Contains(d.Data[protocol.MIMETextHTML].(string), want) {
		t.Errorf("summary: id %q, html %v, want %q", d.DisplayID, d.Data, want)
	}
	f(11, 10, "after the end")
	if err := ShowSVG("<svg></svg>"); err != nil {
		t.Fatal(err)
	}
	if h := nextHTML(t); !strings.Contains(h, "<svg>") {
		t.Errorf("an update after the summary was sent: %s", h)
	}
}

func TestProgressTerminal(t *testing.T) {
	gonbui.IsNotebook = false
	defer func() { gonbui.IsNotebook = true }()
	var out bytes.Buffer
	p := NewProgress("fit")
	p.out = &out
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.Update(15, 30, "half")
	clock = clock.Add(2 * time.Second)
	p.Update(30, 30, "")
	want := "\rfit [###############...............] 15/30 half\rfit: 30 steps in 2s\n"
	if out.String() != want {
		t.Errorf("terminal output %q, want %q", out.String(), want)
	}
}

func TestETA(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		elapsed     time.Duration
		want        time.Duration
	}{
		{2, 10, 4 * time.Second, 16 * time.Second},
		{5, 10, time.Second, time.Second},
		{0, 10, time.Second, 0},
		{10, 10, time.Second, 0},
	} {
		if got := eta(tc.done, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("eta(%d, %d, %v) = %v, want %v", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
	if f := fraction(12, 10); f != 1 {
		t.Errorf("fraction(12, 10) = %v, want 1", f)
	}
	if f := fraction(1, 0); f != 0 {
		t.Errorf("fraction(1, 0) = %v, want 0", f)
	}
}

// Training feeds the bar from Fit and ends with a summary of the run.
func TestTrainingProgress(t *testing.T) {
	gonbui.IsNotebook = false
	defer func() { gonbui.IsNotebook = true }()
	g, split := csbm(t, 120, 4, graph.Stratified(0.1, 0.2, 0.8))
	var out bytes.Buffer
	tr := NewTraining("fit")
	tr.bar.out = &out
	tr.bar.every = 0
	model, err := cuq.CUQPPR().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := model.Fit(split, cuq.MaxEpochs(30), tr.OnEpoch())
	tr.Done(hist, err)
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "train epoch 3 · loss") || !strings.Contains(s, "val CE") {
		t.Errorf("no epoch line in %q", s)
	}
	// One epoch count: 30 main epochs after the 5 warm-up epochs, the best
	// epoch in the same numbering, as in the History.
	if hist.WarmupEpochs() != 5 || hist.TrainEpochs() != 30 {
		t.Fatalf("history: %d warm-up and %d main epochs, want 5 and 30", hist.WarmupEpochs(), hist.TrainEpochs())
	}
	summary := regexp.MustCompile(`fit: 30 epochs in [0-9.]+m?s · after 5 warm-up epochs · best epoch ([0-9]+) \(val CE [0-9.]+\); reached 30 epochs\n$`)
	m := summary.FindStringSubmatch(s)
	if m == nil || m[1] != strconv.Itoa(hist.BestEpoch) {
		t.Errorf("summary at the end of %q, want best epoch %d", s[max(0, len(s)-200):], hist.BestEpoch)
	}
}

func TestNoteCachedTakesOneLinePerCell(t *testing.T) {
	cachedMu.Lock()
	cachedID, cachedNotes = "", nil
	cachedMu.Unlock()
	noteCached("GPN (10 epochs, early stopping)")
	first := next(t)
	noteCached("APPNP (5 epochs, early stopping)")
	second := next(t)
	if first.DisplayID == "" || first.DisplayID != second.DisplayID {
		t.Fatalf("display ids %q and %q: the notes should update one output", first.DisplayID, second.DisplayID)
	}
	h := second.Data[protocol.MIMETextHTML].(string)
	if !strings.Contains(h, "GPN (10 epochs, early stopping); APPNP (5 epochs, early stopping): trained earlier") || strings.Count(h, "<div") != 1 {
		t.Errorf("second note %q, want one line listing both runs", h)
	}
}

func setSizes(t *testing.T, counts ...int) *chart.Chart {
	t.Helper()
	c, err := chart.SetSizesOfCounts(0.1, chart.SetSizeCounts{Label: "s", Counts: counts}).Done()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// yMax returns the y-axis maximum in the option of the chart with the
// given id in h.
func yMax(t *testing.T, h, id string) string {
	t.Helper()
	i := strings.Index(h, id)
	if i < 0 {
		t.Fatalf("no chart %s", id)
	}
	rest := h[i:]
	j := strings.Index(rest, `"yAxis":`)
	_, after, _ := strings.Cut(rest[j:], `"max":`)
	v, _, _ := strings.Cut(after, ",")
	return v
}

func TestShowRowSharesScalesAndWidth(t *testing.T) {
	resetECharts()
	// Largest fractions 0.5 and 0.9: the axes end at 0.5 and 0.9 alone,
	// both at 0.9 when shared.
	a, b := setSizes(t, 0, 5, 5), setSizes(t, 0, 9, 1)
	if err := ShowRow(a, b); err != nil {
		t.Fatal(err)
	}
	h := nextHTML(t)
	if yMax(t, h, a.ID) != "0.9" || yMax(t, h, b.ID) != "0.9" {
		t.Errorf("set sizes of the same quantity: y up to %s and %s, want 0.9 both", yMax(t, h, a.ID), yMax(t, h, b.ID))
	}
	if !strings.Contains(h, "flex:1 1 0;min-width:360px;max-width:680px;") || !strings.Contains(h, `style="width:100%;`) {
		t.Errorf("row charts do not follow the notebook's width:\n%.800s", h)
	}
	a, b = setSizes(t, 0, 5, 5), setSizes(t, 0, 9, 1)
	if err := ShowRow(a, b, ShareY(false)); err != nil {
		t.Fatal(err)
	}
	h = nextHTML(t)
	if yMax(t, h, a.ID) != "0.5" || yMax(t, h, b.ID) != "0.9" {
		t.Errorf("ShareY(false): y up to %s and %s, want 0.5 and 0.9", yMax(t, h, a.ID), yMax(t, h, b.ID))
	}
	// An ARC (accuracy) beside set sizes: different quantities, not shared
	// unless asked.
	c := setSizes(t, 0, 5, 5)
	if err := ShowRow(arc(t, "x"), c); err != nil {
		t.Fatal(err)
	}
	if h = nextHTML(t); yMax(t, h, c.ID) != "0.5" {
		t.Errorf("different quantities shared their y range: %s", yMax(t, h, c.ID))
	}
	grid, err := chart.ARCGrid("g", []float64{0, 0.5}, 2, []chart.Panel{{Title: "p"}, {Title: "q"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ShowRow(grid, setSizes(t, 1, 1), ShareY(true)); err == nil || !strings.Contains(err.Error(), "no y axis to share") {
		t.Errorf("ShareY(true) on a grid of panels: error %v", err)
	}
	nextHTML(t)
}
