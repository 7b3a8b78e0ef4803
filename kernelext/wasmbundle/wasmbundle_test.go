package wasmbundle

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/internal/chromium"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

func picture(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	return img
}

// helloBundle builds the test program with two widgets; it skips the test
// without a Go toolchain.
func helloBundle(t *testing.T) *Bundle {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain:", err)
	}
	b, err := New("./testdata/hello").
		Widget(Widget{Spec: `{"n":1,"s":"<b>&'"}`, Fallback: picture(30, 20), Alt: `first "widget"`}).
		Widget(Widget{Spec: "second", Fallback: picture(10, 40)}).
		Note("scripts did not run").Done()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	programRE = regexp.MustCompile(`const b64 = "([A-Za-z0-9+/=]*)";`)
	imgRE     = regexp.MustCompile(`src="data:image/png;base64,([A-Za-z0-9+/=]*)"`)
)

func TestBundle(t *testing.T) {
	b := helloBundle(t)
	h := b.HTML()
	if !strings.HasPrefix(h, `<div id="`+b.ID()+`" class="cuqx">`) || !regexp.MustCompile(`^cuqx-[0-9a-f]{12}$`).MatchString(b.ID()) {
		t.Errorf("fragment starts %.60q, id %q", h, b.ID())
	}
	for _, want := range []string{
		`<p class="cuqx-note">scripts did not run</p>`,
		`data-spec="{&#34;n&#34;:1,&#34;s&#34;:&#34;&lt;b&gt;&amp;&#39;&#34;}"`,
		`alt="first &#34;widget&#34;"`,
		`data-spec="second"`,
		`go.argv = ["wasm", "` + b.ID() + `"]`,
		"#" + b.ID() + " .cuqx-note{",
		`new DecompressionStream("gzip")`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("fragment lacks %s", want)
		}
	}
	if n := strings.Count(h, "<script>"); n != 1 || !strings.Contains(h, "globalThis.Go = class") {
		t.Errorf("%d scripts, wasm_exec.js inlined: %v", n, strings.Contains(h, "globalThis.Go = class"))
	}
	imgs := imgRE.FindAllStringSubmatch(h, -1)
	if len(imgs) != 2 {
		t.Fatalf("%d fallback pictures, want 2", len(imgs))
	}
	var pngBytes int
	for i, want := range []image.Rectangle{image.Rect(0, 0, 30, 20), image.Rect(0, 0, 10, 40)} {
		raw, _ := base64.StdEncoding.DecodeString(imgs[i][1])
		pngBytes += len(raw)
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds() != want {
			t.Errorf("fallback %d: %v, %v; want a %v PNG", i, img.Bounds(), err, want)
		} else if r, _, _, _ := img.At(1, 1).RGBA(); r>>8 != 200 {
			t.Errorf("fallback %d: pixel (1,1) = %v, want the picture's", i, img.At(1, 1))
		}
	}
	m := programRE.FindStringSubmatch(h)
	if m == nil {
		t.Fatal("no program in the loader")
	}
	gz, _ := base64.StdEncoding.DecodeString(m[1])
	wasm := testenv.Gunzip(t, gz)
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		t.Errorf("the program is not WebAssembly: % x", wasm[:min(8, len(wasm))])
	}
	if s := b.Sizes(); s.Wasm != len(wasm) || s.Gzip != len(gz) || s.Fallbacks != pngBytes || s.HTML != len(h) || s.WasmExecJS == 0 {
		t.Errorf("Sizes %+v; want wasm %d, gzip %d, fallbacks %d, html %d", s, len(wasm), len(gz), pngBytes, len(h))
	}
	p := filepath.Join(t.TempDir(), "page.html")
	if err := b.WriteFile(p, "A & B"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != b.Page("A & B") || !strings.Contains(string(got), "<title>A &amp; B</title>") || !strings.Contains(string(got), h) {
		t.Errorf("WriteFile wrote %.200q", got)
	}
	if err := b.WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir.html"), "x"); err == nil {
		t.Error("WriteFile into a missing directory gave no error")
	}
}

func TestBundleErrors(t *testing.T) {
	w := Widget{Spec: "x", Fallback: picture(2, 2)}
	for _, c := range []struct {
		b    *Builder
		want string
	}{
		{New("./testdata/hello"), "no widgets"},
		{New("").Widget(w), "empty package path"},
		{New("./testdata/hello").Widget(Widget{Spec: "x"}), "widget 0 has no fallback picture"},
	} {
		if _, err := c.b.Done(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain:", err)
	}
	_, err := New("./testdata/broken").Widget(w).Done()
	if err == nil || !strings.Contains(err.Error(), "building ./testdata/broken for js/wasm") || !strings.Contains(err.Error(), `"not a number"`) {
		t.Errorf("a program that does not compile: error %v", err)
	}
	if _, err := New("./testdata/absent").Widget(w).Done(); err == nil {
		t.Error("a missing package built")
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := New("./testdata/hello").Widget(w).Done(); err == nil || !strings.Contains(err.Error(), "the go command is needed") {
		t.Errorf("without go in PATH: error %v", err)
	}
}

// openHello writes the page of helloBundle and opens it in a browser (see
// chromium.ForTest), applying setup to the tab first.
func openHello(t *testing.T, setup ...func(*chromium.Page) error) *chromium.Page {
	t.Helper()
	b := helloBundle(t)
	br := chromium.ForTest(t, time.Minute)
	page := filepath.Join(t.TempDir(), "page.html")
	if err := b.WriteFile(page, "hello"); err != nil {
		t.Fatal(err)
	}
	p, err := br.Open("file://"+page, 400, 300, setup...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBundleInChromium runs the loader in a browser from file://: the
// program starts, receives the root's id and finds the widgets' specs.
func TestBundleInChromium(t *testing.T) {
	p := openHello(t)
	if err := p.WaitFor(`document.querySelector(".cuqx").dataset.ready === "1"`, time.Minute); err != nil {
		t.Fatal(err)
	}
	var texts []string
	if err := p.Eval(`[...document.querySelectorAll(".cuqx-widget")].map(w => w.textContent)`, &texts); err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 || texts[0] != `mounted {"n":1,"s":"<b>&'"}` || texts[1] != "mounted second" {
		t.Errorf("widgets show %q", texts)
	}
	var notes int
	if err := p.Eval(`document.querySelectorAll(".cuqx-note").length`, &notes); err != nil || notes != 0 {
		t.Errorf("%d notes left (%v), want the program to remove it", notes, err)
	}
}

// TestBundleWithoutDecompressionStream runs the loader in a browser that
// lacks DecompressionStream: the note says why nothing started and the
// fallback pictures stay.
func TestBundleWithoutDecompressionStream(t *testing.T) {
	p := openHello(t, func(p *chromium.Page) error {
		return p.BeforeScripts("delete globalThis.DecompressionStream;")
	})
	const want = "The interactive version did not start (Error: this browser lacks WebAssembly or DecompressionStream)"
	if err := p.WaitFor(`document.querySelector(".cuqx-note").textContent.startsWith(`+"`"+want+"`"+`)`, 30*time.Second); err != nil {
		var note string
		_ = p.Eval(`(document.querySelector(".cuqx-note") || {}).textContent`, &note)
		t.Fatalf("%v; note %q", err, note)
	}
	var imgs int
	if err := p.Eval(`document.querySelectorAll("img.cuqx-fallback").length`, &imgs); err != nil || imgs != 2 {
		t.Errorf("%d fallback pictures (%v), want both kept", imgs, err)
	}
}
