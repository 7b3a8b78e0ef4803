package explore

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Colours shared by the pictures; the two graph families differ in shape
// as well as colour, so the pictures read without colour too.
var (
	white     = color.RGBA{255, 255, 255, 255}
	ink       = color.RGBA{30, 30, 30, 255}
	grey      = color.RGBA{150, 150, 150, 255}
	faint     = color.RGBA{225, 225, 225, 255}
	latticeC  = color.RGBA{217, 95, 2, 255}   // orange squares
	baC       = color.RGBA{31, 100, 180, 255} // blue discs
	classCols = [3]color.RGBA{{200, 60, 60, 255}, {40, 140, 60, 255}, {60, 80, 200, 255}}
)

// lineHeight is the height of a line of basicfont text.
const lineHeight = 13

// newPicture returns a white w×h picture.
func newPicture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	return img
}

// label draws s with its top-left corner at (x, y) in 7×13 pixel type.
func label(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13,
		Dot: fixed.P(x, y+basicfont.Face7x13.Ascent)}
	d.DrawString(s)
}

// labelWidth returns the width in pixels of s drawn by label.
func labelWidth(s string) int {
	return font.MeasureString(basicfont.Face7x13, s).Ceil()
}

// blend paints c with opacity a ∈ [0, 1] over the pixel (x, y).
func blend(img *image.RGBA, x, y int, c color.RGBA, a float64) {
	if !(image.Point{x, y}.In(img.Rect)) {
		return
	}
	o := img.PixOffset(x, y)
	p := img.Pix[o : o+3 : o+3]
	for k, v := range [3]uint8{c.R, c.G, c.B} {
		p[k] = uint8(math.Round(float64(p[k])*(1-a) + float64(v)*a))
	}
}

// fillRect paints the rectangle r with c.
func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// line draws a segment one pixel wide from (x0, y0) to (x1, y1).
func line(img *image.RGBA, x0, y0, x1, y1 float64, c color.RGBA, a float64) {
	n := int(math.Ceil(math.Max(math.Abs(x1-x0), math.Abs(y1-y0)))) + 1
	for k := 0; k <= n; k++ {
		t := float64(k) / float64(n)
		blend(img, int(math.Round(x0+t*(x1-x0))), int(math.Round(y0+t*(y1-y0))), c, a)
	}
}

// disc paints a filled disc of radius r centred at (cx, cy).
func disc(img *image.RGBA, cx, cy, r float64, c color.RGBA, a float64) {
	for y := int(cy - r); y <= int(cy+r)+1; y++ {
		for x := int(cx - r); x <= int(cx+r)+1; x++ {
			if dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy; dx*dx+dy*dy <= r*r {
				blend(img, x, y, c, a)
			}
		}
	}
}

// ring draws a circle of radius r centred at (cx, cy), two pixels wide.
func ring(img *image.RGBA, cx, cy, r float64, c color.RGBA) {
	for y := int(cy - r - 2); y <= int(cy+r)+2; y++ {
		for x := int(cx - r - 2); x <= int(cx+r)+2; x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			if d := math.Hypot(dx, dy); d >= r-1 && d <= r+1 {
				blend(img, x, y, c, 1)
			}
		}
	}
}

// ramp maps t ∈ [0, 1] to a colour from near-white through teal to dark
// blue, lighter for smaller t, so a density reads as darkness too.
func ramp(t float64) color.RGBA {
	return rampTable[int(math.Round(math.Max(0, math.Min(1, t))*float64(len(rampTable)-1)))]
}

// rampTable holds the ramp at 256 evenly spaced points.
var rampTable = func() (tab [256]color.RGBA) {
	stops := [...][3]float64{{250, 250, 245}, {150, 205, 200}, {45, 125, 170}, {20, 35, 95}}
	for k := range tab {
		t := float64(k) / float64(len(tab)-1) * float64(len(stops)-1)
		i := min(int(t), len(stops)-2)
		f := t - float64(i)
		var c [3]uint8
		for j := range c {
			c[j] = uint8(math.Round(stops[i][j]*(1-f) + stops[i+1][j]*f))
		}
		tab[k] = color.RGBA{c[0], c[1], c[2], 255}
	}
	return tab
}()

// simplex is the 3-class probability simplex drawn in a square panel:
// class 0 at the top corner, class 1 bottom left, class 2 bottom right,
// as the toy head's class means sit in the plane.
type simplex struct {
	top, left, right [2]float64 // pixel positions of the corners
}

// newSimplex fits the triangle into the square of side s at (x, y),
// leaving room for labels.
func newSimplex(x, y, s int) simplex {
	m := 14.0
	side := float64(s) - 2*m
	h := side * math.Sqrt(3) / 2
	x0, y0 := float64(x)+m, float64(y)+m+(side-h)/2+6
	return simplex{top: [2]float64{x0 + side/2, y0}, left: [2]float64{x0, y0 + h}, right: [2]float64{x0 + side, y0 + h}}
}

// point returns the pixel position of θ.
func (s simplex) point(theta []float64) (float64, float64) {
	return theta[0]*s.top[0] + theta[1]*s.left[0] + theta[2]*s.right[0],
		theta[0]*s.top[1] + theta[1]*s.left[1] + theta[2]*s.right[1]
}

// barycentric returns θ at the pixel position (px, py); θ has a negative
// entry outside the triangle.
func (s simplex) barycentric(px, py float64) [3]float64 {
	x0, y0 := s.top[0], s.top[1]
	x1, y1 := s.left[0], s.left[1]
	x2, y2 := s.right[0], s.right[1]
	det := (y1-y2)*(x0-x2) + (x2-x1)*(y0-y2)
	a := ((y1-y2)*(px-x2) + (x2-x1)*(py-y2)) / det
	b := ((y2-y0)*(px-x2) + (x0-x2)*(py-y2)) / det
	return [3]float64{a, b, 1 - a - b}
}

// densityPanel draws a density over the simplex in the square of side s at
// (x, y), coloured on a scale from 0 to top, the 99th percentile of its
// values at every fourth pixel (higher values saturate), with the mean
// marked by a ring and top printed under the picture. It returns top.
func densityPanel(img *image.RGBA, x, y, s int, title string, logDensity func([]float64) float64, mean []float64) float64 {
	y0 := y + lineHeight
	sx := newSimplex(x, y0, s)
	dens := make([]float64, s*s) // −1 outside the triangle
	sample := make([]float64, 0, s*s/8)
	theta := make([]float64, 3)
	for k := range dens {
		t := sx.barycentric(float64(x+k%s)+0.5, float64(y0+k/s)+0.5)
		if t[0] < 0 || t[1] < 0 || t[2] < 0 {
			dens[k] = -1
			continue
		}
		theta[0], theta[1], theta[2] = t[0], t[1], t[2]
		d := math.Exp(logDensity(theta))
		if math.IsNaN(d) {
			d = 0
		}
		dens[k] = d
		if k%4 == 0 && !math.IsInf(d, 1) {
			sample = append(sample, d)
		}
	}
	top := 0.0
	if len(sample) > 0 {
		slices.Sort(sample)
		top = sample[min(len(sample)-1, int(0.99*float64(len(sample))))]
	}
	for k, d := range dens {
		if d < 0 {
			continue
		}
		t := 1.0
		if top > 0 && !math.IsInf(d, 1) {
			t = d / top
		}
		c := ramp(t)
		o := img.PixOffset(x+k%s, y0+k/s)
		img.Pix[o], img.Pix[o+1], img.Pix[o+2] = c.R, c.G, c.B
	}
	// Outline, corner labels, title, mean.
	for _, e := range [][2][2]float64{{sx.top, sx.left}, {sx.left, sx.right}, {sx.right, sx.top}} {
		line(img, e[0][0], e[0][1], e[1][0], e[1][1], grey, 1)
	}
	label(img, int(sx.top[0])+6, int(sx.top[1])-6, "0", classCols[0])
	label(img, int(sx.left[0])-2, int(sx.left[1])+1, "1", classCols[1])
	label(img, int(sx.right[0])-5, int(sx.right[1])+1, "2", classCols[2])
	label(img, x+(s-labelWidth(title))/2, y, title, ink)
	scale := "colour scale 0-" + shortNumber(top)
	label(img, x+(s-labelWidth(scale))/2, y+s+lineHeight-12, scale, grey)
	if mean != nil {
		mx, my := sx.point(mean)
		ring(img, mx, my, 4, color.RGBA{230, 40, 40, 255})
	}
	return top
}

// shortNumber formats a positive number with about three significant
// digits for a label.
func shortNumber(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
