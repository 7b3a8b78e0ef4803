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

func TestPage(t *testing.T) {
	b := ForTest(t, 60*time.Second)
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
	q, err := b.Open("file://"+page, 200, 100, (*Page).DisableScripts)
	if err != nil {
		t.Fatal(err)
	}
	var has bool
	if err := q.Eval(`"n" in document.getElementById("d").dataset`, &has); err != nil || has {
		t.Errorf("with scripts disabled the page's script ran (%v, %v)", has, err)
	}

	// A script run before the page's own: the page sees its change.
	r, err := b.Open("file://"+page, 200, 100, func(p *Page) error {
		return p.BeforeScripts("globalThis.String = () => 'patched';")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Eval(`document.getElementById("d").dataset.n`, &n); err != nil || n != "patched" {
		t.Errorf("data-n = %q (%v), want the page's script to call the replaced String", n, err)
	}
}
