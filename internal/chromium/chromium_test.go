package chromium

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// start returns a browser, skipping the test when there is none (failing
// when CUQ_REQUIRE_CHROMIUM=1).
func start(t *testing.T) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv("CUQ_REQUIRE_CHROMIUM") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	b, err := Start(path, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

func TestPage(t *testing.T) {
	b := start(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	html := `<!DOCTYPE html><html><body style="margin:0"><div id="d" style="height:300px;background:#f00"></div>
<script>document.getElementById("d").dataset.n = String(6 * 7);</script>
<img id="net" src="https://example.com/x.png"></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := b.Open("file://"+page, 200, 100)
	if err != nil {
		t.Fatal(err)
	}
	var n string
	if err := p.Eval(`document.getElementById("d").dataset.n`, &n); err != nil || n != "42" {
		t.Errorf("data-n = %q (%v), want 42 set by the page's script", n, err)
	}
	var sum float64
	if err := p.Eval(`new Promise(r => setTimeout(() => r(1.5 + 2), 10))`, &sum); err != nil || sum != 3.5 {
		t.Errorf("awaited promise = %v (%v), want 3.5", sum, err)
	}
	// Offline: the network image cannot load.
	if err := p.WaitFor(`document.getElementById("net").complete`, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	var w int
	if err := p.Eval(`document.getElementById("net").naturalWidth`, &w); err != nil || w != 0 {
		t.Errorf("an image from the network loaded (width %d, %v): the browser is not offline", w, err)
	}
	if err := p.Eval(`no_such_function()`, nil); err == nil || !strings.Contains(err.Error(), "no_such_function") {
		t.Errorf("a failing script gave error %v", err)
	}
	shot, err := p.Screenshot(200)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, _, _ := img.At(10, 10).RGBA(); img.Bounds().Dx() != 200 || img.Bounds().Dy() < 300 || r>>8 != 255 || g>>8 != 0 {
		t.Errorf("screenshot %v, pixel (10,10) = %v; want 200 wide, ≥ 300 high, red", img.Bounds(), img.At(10, 10))
	}

	// The same page with scripts disabled: data-n stays unset.
	q, err := b.NewPage(200, 100)
	if err == nil {
		err = q.DisableScripts()
	}
	if err == nil {
		err = q.Navigate("file://" + page)
	}
	if err != nil {
		t.Fatal(err)
	}
	var has bool
	if err := q.Eval(`"n" in document.getElementById("d").dataset`, &has); err != nil || has {
		t.Errorf("with scripts disabled the page's script ran (%v, %v)", has, err)
	}

	// A script run before the page's own: the page sees its change.
	r, err := b.NewPage(200, 100)
	if err == nil {
		err = r.BeforeScripts("globalThis.String = () => 'patched';")
	}
	if err == nil {
		err = r.Navigate("file://" + page)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Eval(`document.getElementById("d").dataset.n`, &n); err != nil || n != "patched" {
		t.Errorf("data-n = %q (%v), want the page's script to call the replaced String", n, err)
	}
}
