package kernelext

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/truth"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/chromium"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
	"github.com/cuqgnn/cuqgnn/kernelext/explore"
	"github.com/cuqgnn/cuqgnn/kernelext/wasmbundle"
)

// Environment of the browser checks (scripts/ci-explorers.sh sets them).
const (
	// envPage names an HTML file to check instead of a page built by the
	// test, such as a notebook exported by nbconvert.
	envPage = "CUQ_EXPLORE_PAGE"
	// envOut names a directory for the screenshots (default: a temporary
	// one, named in the log).
	envOut = "CUQ_EXPLORE_OUT"
)

var (
	bundleOnce sync.Once
	bundle     *wasmbundle.Bundle
	bundleErr  error
)

// skipOrFail skips the test, or fails it when the environment requires
// the browser check to run.
func skipOrFail(t *testing.T, args ...any) {
	t.Helper()
	if os.Getenv(chromium.EnvRequire) == "1" {
		t.Fatal(args...)
	}
	t.Skip(args...)
}

// explorersBundle builds the four default explorers once per test run; it
// skips the test without a Go toolchain.
func explorersBundle(t *testing.T) *wasmbundle.Bundle {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		skipOrFail(t, "no Go toolchain to build the explorers for js/wasm:", err)
	}
	bundleOnce.Do(func() {
		bundle, bundleErr = Explorers(explore.Dirichlet(), explore.Pooling(), explore.Degree(), explore.Training())
	})
	if bundleErr != nil {
		t.Fatal(bundleErr)
	}
	return bundle
}

var (
	specRE     = regexp.MustCompile(`<div class="cuqx-widget" data-spec="([^"]*)"><img class="cuqx-fallback" alt="[^"]*" src="data:image/png;base64,([^"]*)"></div>`)
	programRE  = regexp.MustCompile(`const b64 = "([A-Za-z0-9+/=]*)";`)
	scriptRE   = regexp.MustCompile(`(?is)<script\b.*?</script>`)
	htmlEntity = strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&amp;", "&")
)

// TestExplorersBundle checks the fragment: the four explorers' specs in
// order, a fallback PNG each as drawn by explore.Fallback, one script with
// wasm_exec.js and a gzip-compressed WebAssembly program.
func TestExplorersBundle(t *testing.T) {
	bu := explorersBundle(t)
	h := bu.HTML()
	if n := strings.Count(h, "<script"); n != 1 {
		t.Errorf("%d script elements, want 1", n)
	}
	if !strings.Contains(h, `id="`+bu.ID()+`"`) || !strings.Contains(h, `"`+bu.ID()+`"`) {
		t.Errorf("the root id %s is not both the element's and the program's argument", bu.ID())
	}
	if !strings.Contains(h, "globalThis.Go = class") {
		t.Error("wasm_exec.js is not inlined")
	}
	if !strings.Contains(h, `<p class="cuqx-note">These are static pictures`) {
		t.Error("no fallback note")
	}
	ms := specRE.FindAllStringSubmatch(h, -1)
	want := []explore.Explorer{explore.Dirichlet(), explore.Pooling(), explore.Degree(), explore.Training()}
	if len(ms) != len(want) {
		t.Fatalf("%d widgets, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		e, err := explore.Decode(htmlEntity.Replace(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind() != want[i].Kind() || !slices.Equal(explore.Start(e), explore.Start(want[i])) {
			t.Errorf("widget %d is a %s starting at %v, want a %s at %v", i, e.Kind(), explore.Start(e), want[i].Kind(), explore.Start(want[i]))
		}
		raw, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("widget %d fallback: %v", i, err)
		}
		ref, _ := explore.Fallback(want[i])
		if img.Bounds() != ref.Bounds() {
			t.Errorf("widget %d fallback is %v, explore.Fallback draws %v", i, img.Bounds(), ref.Bounds())
		}
	}
	pm := programRE.FindStringSubmatch(h)
	if pm == nil {
		t.Fatal("no program in the script")
	}
	gz, err := base64.StdEncoding.DecodeString(pm[1])
	if err != nil {
		t.Fatal(err)
	}
	wasm := testenv.Gunzip(t, gz)
	if !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Errorf("the program does not start with the WebAssembly header: % x", wasm[:8])
	}
	s := bu.Sizes()
	if s.Wasm != len(wasm) || s.Gzip != len(gz) || s.HTML != len(h) {
		t.Errorf("Sizes %+v disagree with the fragment (wasm %d, gzip %d, html %d)", s, len(wasm), len(gz), len(h))
	}
	t.Logf("bytes: program %d, gzip %d, base64 %d, wasm_exec.js %d, fallback PNGs %d; fragment %d",
		s.Wasm, s.Gzip, len(pm[1]), s.WasmExecJS, s.Fallbacks, s.HTML)
}

// TestShowExplorers checks that the bundle reaches the kernel as one
// text/html output, after which the program waits for the kernel.
func TestShowExplorers(t *testing.T) {
	explorersBundle(t) // skips without a toolchain, warms the build cache
	before := syncs.Load()
	if err := ShowExplorers(explore.Dirichlet().Alpha(2, 2, 9)); err != nil {
		t.Fatal(err)
	}
	h := nextHTML(t)
	if !strings.Contains(h, `class="cuqx"`) || strings.Count(h, `class="cuqx-widget"`) != 1 || !strings.Contains(h, "[2,2,9]") {
		t.Errorf("output is not the bundle of one Dirichlet explorer starting at (2, 2, 9):\n%.300s", h)
	}
	if syncs.Load() == before {
		t.Error("ShowExplorers returned before the kernel acknowledged the output")
	}
	if err := ShowExplorers(explore.Degree().Side(99)); err == nil || !strings.Contains(err.Error(), "side 99") {
		t.Errorf("a bad setting gave error %v", err)
	}
	if h := nextHTML(t); !strings.Contains(h, "side 99") {
		t.Errorf("the error was not shown in the cell: %.200s", h)
	}
	select {
	case d := <-messages:
		t.Errorf("unexpected further output %v", d.Data[protocol.MIMETextHTML])
	default:
	}
}

// pageFile returns the page to check: $CUQ_EXPLORE_PAGE, or the default
// explorers written to a file.
func pageFile(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envPage); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	p := filepath.Join(t.TempDir(), "explorers.html")
	if err := explorersBundle(t).WriteFile(p, "cuqgnn explorers"); err != nil {
		t.Fatal(err)
	}
	return p
}

// outDir returns the directory for screenshots.
func outDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(envOut); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func screenshot(t *testing.T, p *chromium.Page, path string) {
	t.Helper()
	shot, err := p.Screenshot(1100)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// domCell is a table cell as the page shows it.
type domCell struct {
	Key   string  `json:"key"`
	Text  string  `json:"text"`
	Value *string `json:"value"`
}

// domWidget is a mounted explorer as the page shows it.
type domWidget struct {
	Spec     string    `json:"spec"`
	Inputs   []string  `json:"inputs"` // the controls' values
	Cells    []domCell `json:"cells"`
	Redraws  string    `json:"redraws"`
	RedrawMs string    `json:"redrawMs"`
	// Of a training explorer: its state, the trainings finished, the
	// duration of the last and the pictures drawn during it.
	State   string `json:"state"`
	Runs    string `json:"runs"`
	TrainMs string `json:"trainMs"`
	YieldMs string `json:"yieldMs"`
	Frames  string `json:"frames"`
}

// readWidgets returns every explorer of the page.
const readWidgets = `[...document.querySelectorAll(".cuqx-widget")].map(w => ({
	spec: w.dataset.spec,
	inputs: [...w.querySelectorAll("input, select")].map(i => i.value),
	cells: [...w.querySelectorAll("td[data-key]")].map(c => ({key: c.dataset.key, text: c.textContent, value: c.dataset.value ?? null})),
	redraws: w.dataset.redraws ?? "", redrawMs: w.dataset.redrawMs ?? "",
	state: w.dataset.state ?? "", runs: w.dataset.runs ?? "", trainMs: w.dataset.trainMs ?? "", yieldMs: w.dataset.yieldMs ?? "", frames: w.dataset.frames ?? ""}))`

// trainLimit is the longest a training of the training explorer may take
// in the browser: the explorer is made to train both models on 500 nodes in
// under 10 s; the limit leaves room for a machine busy with other work.
const trainLimit = 20 * time.Second

// TestExplorersInChromium opens the page from file:// in headless Chromium
// with no network, waits for the program, moves every control of every
// explorer by script, and after each move checks each number shown against
// the library's value for the controls' values as the page reads them.
func TestExplorersInChromium(t *testing.T) {
	page := pageFile(t)
	out := outDir(t)
	b := chromium.ForTest(t, 2*time.Minute)
	p, err := b.Open("file://"+page, 1100, 900)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(`[...document.querySelectorAll(".cuqx")].every(r => r.dataset.ready)`, 2*time.Minute); err != nil {
		var note string
		_ = p.Eval(`(document.querySelector(".cuqx-note") || {}).textContent || ""`, &note)
		t.Fatalf("%v; note: %q", err, note)
	}
	var ready []string
	if err := p.Eval(`[...document.querySelectorAll(".cuqx")].map(r => r.dataset.ready)`, &ready); err != nil {
		t.Fatal(err)
	}
	if len(ready) < 1 {
		t.Errorf("no explorer bundle in the page")
	}
	t.Logf("ready %s ms after the page started loading", strings.Join(ready, ", "))
	var notes, fallbacks int
	if err := p.Eval(`document.querySelectorAll(".cuqx-note").length`, &notes); err != nil {
		t.Fatal(err)
	}
	if err := p.Eval(`document.querySelectorAll(".cuqx-fallback").length`, &fallbacks); err != nil {
		t.Fatal(err)
	}
	if notes != 0 || fallbacks != 0 {
		t.Errorf("after start: %d fallback notes and %d fallback pictures left, want none", notes, fallbacks)
	}
	screenshot(t, p, filepath.Join(out, "explorers-before.png"))

	var widgets []domWidget
	if err := p.Eval(readWidgets, &widgets); err != nil {
		t.Fatal(err)
	}
	if len(widgets) < 4 {
		t.Fatalf("%d explorers in the page, want at least 4", len(widgets))
	}
	kinds := map[string]bool{}
	for wi, w := range widgets {
		e, err := explore.Decode(w.Spec)
		if err != nil {
			t.Fatal(err)
		}
		kinds[e.Kind()] = true
		if _, ok := e.(explore.Trainer); ok {
			checkTrainer(t, p, wi, e)
			continue
		}
		checkCells(t, fmt.Sprintf("%s at start", e.Kind()), w, e.Kind(), w.Spec)
		var times []float64
		for ci, c := range e.Controls() {
			target := moveTarget(c, ci, w.Inputs[ci])
			event := "input"
			if c.Choices != nil {
				event = "change"
			}
			move := fmt.Sprintf(`(() => { const w = document.querySelectorAll(".cuqx-widget")[%d];
				const i = w.querySelectorAll("input, select")[%d];
				i.value = %q; i.dispatchEvent(new Event(%q)); return i.value; })()`, wi, ci, target, event)
			var got string
			if err := p.Eval(move, &got); err != nil {
				t.Fatal(err)
			}
			var after []domWidget
			if err := p.Eval(readWidgets, &after); err != nil {
				t.Fatal(err)
			}
			now := after[wi]
			if now.Inputs[ci] == w.Inputs[ci] {
				t.Errorf("%s: moving %s to %s left it at %s", e.Kind(), c.Key, target, now.Inputs[ci])
			}
			before, _ := strconv.Atoi(w.Redraws)
			if n, _ := strconv.Atoi(now.Redraws); n != before+1 {
				t.Errorf("%s: moving %s: %d redraws after %d, want one more", e.Kind(), c.Key, n, before)
			}
			ms, err := strconv.ParseFloat(now.RedrawMs, 64)
			if err != nil {
				t.Errorf("%s: redraw time %q: %v", e.Kind(), now.RedrawMs, err)
			}
			times = append(times, ms)
			checkCells(t, fmt.Sprintf("%s after moving %s to %s", e.Kind(), c.Key, now.Inputs[ci]), now, e.Kind(), w.Spec)
			w = now
		}
		sort.Float64s(times)
		t.Logf("%s: %d moves, redraw ms min %.1f, median %.1f, max %.1f", e.Kind(), len(times), times[0], times[len(times)/2], times[len(times)-1])
	}
	for _, k := range []string{"dirichlet", "pooling", "degree", "training"} {
		if !kinds[k] {
			t.Errorf("no %s explorer in the page", k)
		}
	}
	screenshot(t, p, filepath.Join(out, "explorers-after.png"))
}

// checkTrainer checks the wi-th explorer of the page, a training one: it
// waits for the training started when the page loaded, checks the numbers
// shown, then lets go of each control at a new value in turn (its change
// event), waits for the new training and checks again. Every training
// must have drawn its picture more than once while it ran and must end
// within trainLimit.
func checkTrainer(t *testing.T, p *chromium.Page, wi int, e explore.Explorer) {
	t.Helper()
	read := func() domWidget {
		var ws []domWidget
		if err := p.Eval(readWidgets, &ws); err != nil {
			t.Fatal(err)
		}
		return ws[wi]
	}
	await := func(what string, runs int) domWidget {
		cond := fmt.Sprintf(`(() => { const w = document.querySelectorAll(".cuqx-widget")[%d];
			return w.dataset.state === "error" || (w.dataset.state === "done" && +w.dataset.runs >= %d); })()`, wi, runs)
		if err := p.WaitFor(cond, 3*trainLimit); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		w := read()
		if w.State != "done" {
			t.Fatalf("%s: state %q, cells %v", what, w.State, w.Cells)
		}
		ms, err := strconv.ParseFloat(w.TrainMs, 64)
		if err != nil {
			t.Fatalf("%s: training time %q: %v", what, w.TrainMs, err)
		}
		t.Logf("%s: trained in %.0f ms (%s ms of it yielding to the browser), %s pictures drawn while training", what, ms, w.YieldMs, w.Frames)
		if time.Duration(ms*float64(time.Millisecond)) > trainLimit {
			t.Errorf("%s: training took %.0f ms, want under %v", what, ms, trainLimit)
		}
		if n, _ := strconv.Atoi(w.Frames); n < 2 {
			t.Errorf("%s: %s pictures drawn while training, want the curve redrawn as it trains", what, w.Frames)
		}
		return w
	}
	w := await(fmt.Sprintf("%s at start", e.Kind()), 1)
	checkCells(t, fmt.Sprintf("%s at start", e.Kind()), w, e.Kind(), w.Spec)
	for ci, c := range e.Controls() {
		runs, _ := strconv.Atoi(w.Runs)
		target := moveTarget(c, ci, w.Inputs[ci])
		move := fmt.Sprintf(`(() => { const w = document.querySelectorAll(".cuqx-widget")[%d];
			const i = w.querySelectorAll("input, select")[%d];
			i.value = %q; i.dispatchEvent(new Event("input")); i.dispatchEvent(new Event("change")); return i.value; })()`, wi, ci, target)
		var got string
		if err := p.Eval(move, &got); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%s after moving %s to %s", e.Kind(), c.Key, got)
		if ci == 0 {
			// The page while CUQ-PPR trains: its curve drawn so far.
			cond := fmt.Sprintf(`/epoch [1-9][0-9]/.test((document.querySelectorAll(".cuqx-widget")[%d].querySelector('td[data-key="cuqppr.state"]') || {}).textContent || "")`, wi)
			if err := p.WaitFor(cond, 3*trainLimit); err != nil {
				t.Fatalf("%s: CUQ-PPR did not show its tenth epoch: %v", what, err)
			}
			screenshot(t, p, filepath.Join(outDir(t), "explorers-training.png"))
		}
		now := await(what, runs+1)
		if now.Inputs[ci] == w.Inputs[ci] {
			t.Errorf("%s: the control stayed at %s", what, now.Inputs[ci])
		}
		checkCells(t, what, now, e.Kind(), w.Spec)
		w = now
	}
}

// moveFractions are where in its range each control is moved, by position.
var moveFractions = []float64{0.3, 0.7, 0.45, 0.85, 0.15, 0.6, 0.25, 0.9, 0.55}

// moveTarget returns a new value for control c (the ci-th) whose current
// value is cur: another choice, or a point of the slider's range that
// differs from cur after snapping to the step.
func moveTarget(c explore.Control, ci int, cur string) string {
	if c.Choices != nil {
		k, _ := strconv.Atoi(cur)
		return strconv.Itoa((k + 1) % len(c.Choices))
	}
	v, _ := strconv.ParseFloat(cur, 64)
	for k := range moveFractions {
		f := moveFractions[(ci+k)%len(moveFractions)]
		x := c.Min + math.Round(f*(c.Max-c.Min)/c.Step)*c.Step
		if math.Abs(x-v) > c.Step/2 {
			return strconv.FormatFloat(x, 'f', 4, 64)
		}
	}
	return strconv.FormatFloat(c.Max, 'f', 4, 64)
}

// checkCells compares the cells the page shows with the library's values
// for the controls' values.
func checkCells(t *testing.T, what string, w domWidget, kind, spec string) {
	t.Helper()
	values := make([]float64, len(w.Inputs))
	for i, s := range w.Inputs {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: control %d shows %q: %v", what, i, s, err)
		}
		values[i] = v
	}
	want, err := expected(kind, spec, values)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	seen := map[string]bool{}
	for _, c := range w.Cells {
		seen[c.Key] = true
		e, ok := want[c.Key]
		if !ok {
			t.Errorf("%s: unexpected cell %s = %q", what, c.Key, c.Text)
			continue
		}
		if c.Text != e.text {
			t.Errorf("%s: %s shows %q, the library gives %q", what, c.Key, c.Text, e.text)
		}
		if math.IsNaN(e.value) != (c.Value == nil) {
			t.Errorf("%s: %s: data-value %v, expected number %v", what, c.Key, c.Value, e.value)
			continue
		}
		if c.Value != nil {
			// The training explorer's numbers are the native ones exactly:
			// they are epoch counts, accuracies and rank correlations, which
			// the last bits of the products do not move (in WebAssembly the
			// product kernels round each product, see tensor's
			// madd_wasm.go). After four trainings of hundreds of epochs
			// each in Chromium, every number agreed to the last bit.
			tol := 1e-9 * math.Max(1, math.Abs(e.value))
			if kind == "training" {
				tol = 0
			}
			v, err := strconv.ParseFloat(*c.Value, 64)
			if err != nil || math.Abs(v-e.value) > tol {
				t.Errorf("%s: %s has value %s, the library gives %v", what, c.Key, *c.Value, e.value)
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("%s: cell %s missing", what, k)
		}
	}
}

// cellValue is an expected cell: its text and its number (NaN for text).
type cellValue struct {
	text  string
	value float64
}

func numCell(verb string, v float64) cellValue { return cellValue{fmt.Sprintf(verb, v), v} }
func textCell(s string) cellValue              { return cellValue{s, math.NaN()} }

// expected computes, with the library's packages and independently of
// package explore, the cells an explorer of the given kind and spec should
// show for the control values.
func expected(kind, spec string, v []float64) (map[string]cellValue, error) {
	var sp struct {
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal([]byte(spec), &sp); err != nil {
		return nil, err
	}
	switch kind {
	case "dirichlet":
		return expectDirichlet(v)
	case "pooling":
		return expectPooling(v)
	case "degree":
		var cfg struct {
			M     int     `json:"m"`
			Sigma float64 `json:"sigma"`
			Seed  uint64  `json:"seed"`
		}
		if err := json.Unmarshal(sp.Config, &cfg); err != nil {
			return nil, err
		}
		return expectDegree(int(v[0]), int(v[1]), cfg.M, cfg.Sigma, cfg.Seed)
	case "training":
		var cfg struct {
			Nodes     int `json:"nodes"`
			MaxEpochs int `json:"max_epochs"`
			Flows     int `json:"flows"`
			Patience  int `json:"patience"`
		}
		if err := json.Unmarshal(sp.Config, &cfg); err != nil {
			return nil, err
		}
		return expectTraining(v[0], v[1], uint64(v[2]), cfg.Nodes, cfg.Flows, cfg.Patience, cfg.MaxEpochs)
	}
	return nil, fmt.Errorf("unknown explorer kind %q", kind)
}

func expectDirichlet(alpha []float64) (map[string]cellValue, error) {
	ms, err := uq.Dirichlet(alpha, 3)
	if err != nil {
		return nil, err
	}
	a0 := alpha[0] + alpha[1] + alpha[2]
	return map[string]cellValue{
		"alpha0": numCell("%.1f", a0),
		"mean":   textCell(fmt.Sprintf("(%.3f, %.3f, %.3f)", alpha[0]/a0, alpha[1]/a0, alpha[2]/a0)),
		"TU":     numCell("%.4f", ms.TU[0]),
		"AU":     numCell("%.4f", ms.AU[0]),
		"EU":     numCell("%.4f", ms.EU[0]),
		"EU_PC":  numCell("%.1f", -a0),
		"EU_SO":  numCell("%.4f", uq.DirichletEntropy(alpha)),
		"LC":     numCell("%.4f", 1-max(alpha[0], alpha[1], alpha[2])/a0),
	}, nil
}

// star pools the graph i–1, i–2 with the given representations and edge
// weights, Π = PPR(0.1, 10) over the random-walk normalisation.
func star(z [3][2]float64, w1, w2 float64) (*pool.Pooled, error) {
	adj, err := tensor.FromCOO(3, 3, []int{0, 1, 0, 2}, []int{1, 0, 2, 0}, []float64{w1, w1, w2, w2})
	if err != nil {
		return nil, err
	}
	g, err := graph.New("star", adj, tensor.MustFromSlice(3, 2, []float64{z[0][0], z[0][1], z[1][0], z[1][1], z[2][0], z[2][1]}), []int{-1, -1, -1}, 3, nil)
	if err != nil {
		return nil, err
	}
	return pool.On(g).Norm(graph.RWNorm).PPR(0.1, 10).Done()
}

func expectPooling(v []float64) (map[string]cellValue, error) {
	z := [3][2]float64{{v[0], v[1]}, {v[2], v[3]}, {v[4], v[5]}}
	p, err := star(z, v[6], v[7])
	if err != nil {
		return nil, err
	}
	za := z
	za[2] = z[1]
	agree, err := star(za, v[6], v[7])
	if err != nil {
		return nil, err
	}
	pi, _ := p.Weights(0)
	out := map[string]cellValue{}
	measure := func(p *pool.Pooled, j int, pl pool.Pooling) (uq.Measures, []float64) {
		o, err := p.Opinion(j, pl)
		if err != nil {
			panic(err) // the test's inputs are valid
		}
		ms, err := o.Measures()
		if err != nil {
			panic(err)
		}
		return ms, o.Mean()
	}
	var eu, au [3]float64
	var class [3]int
	for j := range 3 {
		ms, mean := measure(p, j, pool.Alone)
		eu[j], au[j] = ms.EU[0], ms.AU[0]
		top := slices.Clone(mean)
		sort.Float64s(top)
		class[j] = -1
		if top[2]-top[1] > 1e-9 {
			class[j] = slices.Index(mean, top[2])
		}
		out[fmt.Sprintf("pi%d", j)] = numCell("%.4f", pi[j])
		out[fmt.Sprintf("n%d.AU", j)] = numCell("%.4f", au[j])
		out[fmt.Sprintf("n%d.EU", j)] = numCell("%.4f", eu[j])
		if class[j] < 0 {
			out[fmt.Sprintf("n%d.class", j)] = textCell("none (tie)")
		} else {
			out[fmt.Sprintf("n%d.class", j)] = numCell("%.0f", float64(class[j]))
		}
	}
	// A change counts when it shows in the tables' last digit, 1e-4.
	a2 := (pi[1] > 0 && eu[1] < eu[0]-1e-4) || (pi[2] > 0 && eu[2] < eu[0]-1e-4)
	a3 := pi[1] > 0 && pi[2] > 0 && class[1] >= 0 && class[2] >= 0 && class[1] != class[2]
	verdict := func(applies, holds bool) cellValue {
		switch {
		case !applies:
			return textCell("n/a")
		case holds:
			return textCell("holds")
		}
		return textCell("breaks")
	}
	for key, pl := range map[string]pool.Pooling{"alone": pool.Alone, "loglinear": pool.LogLinear, "linear": pool.Linear, "behavioural": pool.Behavioural} {
		ms, _ := measure(p, 0, pl)
		out[key+".TU"] = numCell("%.4f", ms.TU[0])
		out[key+".AU"] = numCell("%.4f", ms.AU[0])
		out[key+".EU"] = numCell("%.4f", ms.EU[0])
		out[key+".EU_PC"] = numCell("%.2f", ms.EUPC[0])
		if pl == pool.Alone {
			for _, k := range []string{"AUagree", "EUagree", "A2", "A3"} {
				out[key+"."+k] = textCell("—")
			}
			continue
		}
		ag, _ := measure(agree, 0, pl)
		out[key+".AUagree"] = numCell("%.4f", ag.AU[0])
		out[key+".EUagree"] = numCell("%.4f", ag.EU[0])
		out[key+".A2"] = verdict(a2, ms.EU[0] < eu[0]-1e-4)
		out[key+".A3"] = verdict(a3, ms.AU[0] > ag.AU[0]+1e-4)
	}
	return out, nil
}

func expectDegree(side, norm, m int, sigma float64, seed uint64) (map[string]cellValue, error) {
	lat, err := datasets.Lattice(side, side).Classes(3).Features(1).Seed(seed).Done()
	if err != nil {
		return nil, err
	}
	ba, err := datasets.BarabasiAlbert(side*side, m).Classes(3).Features(1).Seed(seed).Done()
	if err != nil {
		return nil, err
	}
	normalise := []func(*tensor.CSR) *tensor.CSR{graph.SymNorm, graph.RWNorm}[norm]
	out := map[string]cellValue{}
	for key, g := range map[string]*graph.Graph{"lattice": lat, "ba": ba} {
		z, err := pool.ToyHead().Representations(g.Labels, sigma, seed)
		if err != nil {
			return nil, err
		}
		p, err := pool.On(g).Representations(z).Norm(normalise).PPR(0.1, 10).Done()
		if err != nil {
			return nil, err
		}
		gpn, _ := p.Measures(pool.LogLinear)
		cuq, _ := p.Measures(pool.Behavioural)
		conf, _ := g.Conflicting(nil)
		deg := g.Degrees()
		var n, maxDeg int
		var sum [5]float64 // degree, GPN AU, GPN EU, CUQ AU, CUQ EU
		for i := range g.N {
			maxDeg = max(maxDeg, deg[i])
			if conf[i] {
				n++
				for k, x := range []float64{float64(deg[i]), gpn.AU[i], gpn.EU[i], cuq.AU[i], cuq.EU[i]} {
					sum[k] += x
				}
			}
		}
		out[key+".nodes"] = numCell("%.0f", float64(g.N))
		out[key+".maxdeg"] = numCell("%.0f", float64(maxDeg))
		out[key+".conflicts"] = numCell("%.0f", float64(n))
		for k, name := range []string{"degree", "gpn.AU", "gpn.EU", "cuq.AU", "cuq.EU"} {
			verb := "%.4f"
			if k == 0 {
				verb = "%.2f"
			}
			if n == 0 {
				out[key+"."+name] = textCell("—")
			} else {
				out[key+"."+name] = numCell(verb, sum[k]/float64(n))
			}
		}
	}
	return out, nil
}

// expectTraining trains the paper's CUQ-PPR and GPN with the given flows,
// patience and cap of epochs on the CSBM of truth.Sweep at homophily h,
// signal snr and seed: the accuracies and rank correlations come from
// truth.Sweep, the epochs from a Fit of each model on the sweep's graph.
func expectTraining(h, snr float64, seed uint64, nodes, flows, patience, maxEpochs int) (map[string]cellValue, error) {
	s := cuq.PostNetSchedule()
	s.Patience, s.MaxEpochs = patience, maxEpochs
	fit := []cuq.FitOption{s}
	keys := map[string]string{"CUQ-PPR": "cuqppr", "GPN": "gpn"}
	sweep := truth.Sweep(truth.Model{Name: "CUQ-PPR", Preset: cuq.CUQPPR().Flows(flows), Fit: fit},
		truth.Model{Name: "GPN", Preset: cuq.GPN().Flows(flows), Fit: fit}).
		Nodes(nodes).Homophily(h).Signal(snr).Seeds(seed)
	table, err := sweep.Done()
	if err != nil {
		return nil, err
	}
	rho := func(v float64) cellValue {
		if math.IsNaN(v) {
			return textCell("—")
		}
		return numCell("%.3f", v)
	}
	out := map[string]cellValue{"bayes.epochs": textCell("—"), "bayes.best": textCell("—"), "bayes.rhoAU": textCell("—"), "bayes.rhoEU": textCell("—")}
	for _, r := range table {
		k := keys[r.Model]
		out[k+".acc"] = numCell("%.3f", r.Accuracy)
		out["bayes.acc"] = numCell("%.3f", r.BayesAccuracy)
		switch r.Measure {
		case uq.AU:
			out[k+".rhoAU"] = rho(r.Spearman)
		case uq.EU:
			out[k+".rhoEU"] = rho(r.Spearman)
		}
	}
	point, err := sweep.Point(h, snr, seed)
	if err != nil {
		return nil, err
	}
	for name, b := range map[string]*cuq.PostNetBuilder{"CUQ-PPR": cuq.CUQPPR().Flows(flows), "GPN": cuq.GPN().Flows(flows)} {
		m, err := b.Done(point.Graph)
		if err != nil {
			return nil, err
		}
		hist, err := m.Fit(point.Split, s)
		if err != nil {
			return nil, err
		}
		out[keys[name]+".epochs"] = numCell("%.0f", float64(hist.TrainEpochs()))
		out[keys[name]+".best"] = numCell("%.0f", float64(hist.BestEpoch))
	}
	return out, nil
}

// TestExplorersFallbackInChromium checks what a reader sees where the
// page's scripts do not run: the note saying why and each explorer's
// static picture, with the scripts stripped from the HTML (a sanitised
// export) and with scripts disabled (an untrusted notebook).
func TestExplorersFallbackInChromium(t *testing.T) {
	page := pageFile(t)
	out := outDir(t)
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	stripped := filepath.Join(t.TempDir(), "stripped.html")
	if err := os.WriteFile(stripped, scriptRE.ReplaceAll(raw, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	b := chromium.ForTest(t, 2*time.Minute)
	check := func(what string, p *chromium.Page) {
		var got struct {
			Note     string `json:"note"`
			Visible  bool   `json:"visible"`
			Pictures []int  `json:"pictures"` // natural widths
			Canvases int    `json:"canvases"`
			Ready    bool   `json:"ready"`
		}
		err := p.Eval(`(() => { const n = document.querySelector(".cuqx-note");
			return {note: n ? n.textContent : "", visible: !!n && n.getBoundingClientRect().height > 0,
				pictures: [...document.querySelectorAll("img.cuqx-fallback")].map(i => i.complete ? i.naturalWidth : 0),
				canvases: document.querySelectorAll(".cuqx canvas").length,
				ready: [...document.querySelectorAll(".cuqx")].some(r => r.dataset.ready)}; })()`, &got)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got.Note, "These are static pictures") || !got.Visible {
			t.Errorf("%s: note %q (visible %v), want the fallback note shown", what, got.Note, got.Visible)
		}
		if len(got.Pictures) < 4 || slices.Contains(got.Pictures, 0) {
			t.Errorf("%s: fallback pictures of widths %v, want at least 4 decoded", what, got.Pictures)
		}
		if got.Canvases != 0 || got.Ready {
			t.Errorf("%s: %d canvases, ready %v: the program ran", what, got.Canvases, got.Ready)
		}
	}
	p, err := b.Open("file://"+stripped, 1100, 900)
	if err != nil {
		t.Fatal(err)
	}
	check("scripts stripped", p)
	screenshot(t, p, filepath.Join(out, "explorers-fallback.png"))

	q, err := b.Open("file://"+page, 1100, 900, (*chromium.Page).DisableScripts)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // a program that ran despite the setting would have mounted by now
	check("scripts disabled", q)
}
