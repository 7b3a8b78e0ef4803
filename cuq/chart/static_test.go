package chart

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

func testCurves() ([]float64, []Curve) {
	p := []float64{0, 0.25, 0.5, 0.75, 0.99}
	return p, []Curve{
		{Name: "TU", Mean: []float64{0.8, 0.85, 0.9, 0.95, 1}, SE: []float64{0.02, 0.02, 0.02, 0.01, 0}},
		{Name: "EU", Mean: []float64{0.8, 0.82, 0.86, 0.9, 0.97}},
	}
}

// writeTestPlot returns the ARC plot of testCurves, 4 × 3 inches, written
// in format.
func writeTestPlot(t *testing.T, format string) *bytes.Buffer {
	t.Helper()
	p, curves := testCurves()
	pl, err := ARCPlot("ARC", p, curves...)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePlot(&buf, pl, format, 4*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// decodePNG decodes a PNG of the given size, failing t if r holds none.
func decodePNG(t *testing.T, r io.Reader, width, height int) image.Image {
	t.Helper()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatalf("output is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Errorf("PNG is %d×%d, want %d×%d", b.Dx(), b.Dy(), width, height)
	}
	return img
}

func TestARCPlotPNG(t *testing.T) {
	// gonum/plot rasterises at 96 dots per inch.
	img := decodePNG(t, writeTestPlot(t, "png"), 384, 288)
	// The first curve's line colour (Palette[0], #0072B2) is drawn.
	if found := countPixels(img, color.NRGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, 0); found < 50 {
		t.Errorf("only %d pixels of the first curve's colour; the curve is missing", found)
	}
	// The band is that colour at opacity 56/255 over white:
	// 255·(1 − 56/255) + c·56/255 = (199, 224, 238).
	if band := countPixels(img, color.NRGBA{R: 199, G: 224, B: 238, A: 0xff}, 2); band < 500 {
		t.Errorf("only %d pixels of the SE band's colour; the band is missing", band)
	}
}

func TestARCPlotSVG(t *testing.T) {
	buf := writeTestPlot(t, "svg")
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &root); err != nil {
		t.Fatalf("output is not XML: %v", err)
	}
	if root.XMLName.Local != "svg" || root.Width != "288pt" || root.Height != "216pt" {
		t.Errorf("root <%s width=%q height=%q>, want <svg width=\"288pt\" height=\"216pt\">", root.XMLName.Local, root.Width, root.Height)
	}
	for _, label := range []string{"TU", "EU", "rejected fraction", "accuracy"} {
		if !strings.Contains(buf.String(), label) {
			t.Errorf("SVG lacks the text %q", label)
		}
	}
}

func TestARCPlotErrors(t *testing.T) {
	if _, err := ARCPlot("x", []float64{0, 1}, Curve{Name: "a", Mean: []float64{1}}); err == nil || !strings.HasPrefix(err.Error(), "chart.ARCPlot:") {
		t.Errorf("length mismatch: error %v", err)
	}
	p, curves := testCurves()
	pl, _ := ARCPlot("x", p, curves...)
	if err := WritePlot(&bytes.Buffer{}, pl, "bmp", vg.Inch, vg.Inch); err == nil || !strings.Contains(err.Error(), "chart.WritePlot") {
		t.Errorf("unknown format: error %v", err)
	}
}

func TestHexColor(t *testing.T) {
	if got := hexColor("#5470c6", 64); got != (color.NRGBA{R: 0x54, G: 0x70, B: 0xc6, A: 64}) {
		t.Errorf("hexColor(#5470c6, 64) = %v", got)
	}
	for _, bad := range []string{"", "#12345", "5470c6x", "#54 0c6", "#zzzzzz"} {
		if checkColor(bad) == nil {
			t.Errorf("checkColor(%q) accepted it", bad)
		}
	}
}

func TestARCPlotAxisEndsAtOne(t *testing.T) {
	p, curves := testCurves()
	curves[0].SE[4] = 0.05 // band up to 1.05
	pl, err := ARCPlot("x", p, curves...)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Y.Max != 1 || pl.Y.Min != 0.75 {
		t.Errorf("y axis [%v, %v], want [0.75, 1] (lowest band edge 0.78 rounded down to 0.05, accuracy 1)", pl.Y.Min, pl.Y.Max)
	}
}

func TestWriteARCGridPlot(t *testing.T) {
	p, curves := testCurves()
	curves[0].Color, curves[1].Color = "#D55E00", "#009E73"
	panels := []Panel{{Title: "A", Curves: curves}, {Title: "B", Curves: curves[1:]}, {Title: "C"}}
	var buf bytes.Buffer
	if err := WriteARCGridPlot(&buf, "png", p, 2, panels); err != nil {
		t.Fatal(err)
	}
	// Two rows of 9 × 8 cm panels at 96 dots per inch.
	img := decodePNG(t, &buf, 680, 605)
	for _, c := range []string{"#D55E00", "#009E73"} {
		if n := countPixels(img, hexColor(c, 255).(color.NRGBA), 0); n < 50 {
			t.Errorf("only %d pixels of %s: a curve is missing", n, c)
		}
	}
	if err := WriteARCGridPlot(&bytes.Buffer{}, "bmp", p, 2, panels); err == nil || !strings.Contains(err.Error(), `unknown format "bmp"`) {
		t.Errorf("unknown format: error %v", err)
	}
	if err := WriteARCGridPlot(&bytes.Buffer{}, "png", p, 0, panels); err == nil {
		t.Error("0 columns: no error")
	}
}

// countPixels counts the pixels of img within tol of colour c in each of
// R, G and B.
func countPixels(img image.Image, c color.NRGBA, tol int) int {
	near := func(a, b uint8) bool { return int(a) >= int(b)-tol && int(a) <= int(b)+tol }
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if near(p.R, c.R) && near(p.G, c.G) && near(p.B, c.B) {
				n++
			}
		}
	}
	return n
}
