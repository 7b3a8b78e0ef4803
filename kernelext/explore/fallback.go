package explore

import (
	"fmt"
	"image"
	"image/draw"
	"strings"
)

// Fallback returns the static picture of e at its starting values: the
// title, the view's picture, and the view's tables as text. It is what a
// page shows where its scripts do not run.
func Fallback(e Explorer) (*image.RGBA, error) {
	if e == nil {
		return nil, fmt.Errorf("explore.Fallback: nil explorer")
	}
	if err := e.Err(); err != nil {
		return nil, fmt.Errorf("explore.Fallback: %w", err)
	}
	v, err := e.View(Start(e))
	if err != nil {
		return nil, fmt.Errorf("explore.Fallback: %w", err)
	}
	var lines []string
	for _, t := range v.Tables {
		lines = append(lines, "")
		lines = append(lines, tableLines(t)...)
	}
	pic := v.Picture.Bounds()
	w := pic.Dx()
	for _, l := range lines {
		w = max(w, labelWidth(l)+8)
	}
	const top = lineHeight + 8
	img := newPicture(w, top+pic.Dy()+len(lines)*lineHeight+6)
	label(img, 4, 2, asciiText(e.Title()), ink)
	draw.Draw(img, pic.Add(image.Pt(0, top)), v.Picture, pic.Min, draw.Src)
	for k, l := range lines {
		label(img, 4, top+pic.Dy()+k*lineHeight, l, ink)
	}
	return img, nil
}

// tableLines lays a table out as lines of monospaced text: the caption,
// the header, then the rows, with columns padded to a common width.
func tableLines(t Table) []string {
	grid := [][]string{make([]string, len(t.Columns))}
	for c, h := range t.Columns {
		grid[0][c] = asciiText(h)
	}
	for _, r := range t.Rows {
		row := []string{asciiText(r.Label)}
		for _, c := range r.Cells {
			row = append(row, asciiText(c.Text))
		}
		grid = append(grid, row)
	}
	width := make([]int, len(t.Columns))
	for _, row := range grid {
		for c, s := range row {
			if c < len(width) {
				width[c] = max(width[c], len(s))
			}
		}
	}
	lines := []string{asciiText(t.Caption)}
	for _, row := range grid {
		var b strings.Builder
		for c, s := range row {
			if c >= len(width) {
				break
			}
			if c == 0 {
				b.WriteString(s + strings.Repeat(" ", width[c]-len(s)))
			} else {
				b.WriteString("  " + strings.Repeat(" ", width[c]-len(s)) + s)
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	return lines
}

// asciiText spells s in the ASCII the pictures' 7×13 type has: Greek
// letters by name, dashes as '-', accented letters without accents, other
// runes as '?'.
func asciiText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 {
			b.WriteRune(r)
		} else if a, ok := asciiFor[r]; ok {
			b.WriteString(a)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String()
}

var asciiFor = map[rune]string{
	'α': "a", 'θ': "theta", 'ρ': "rho", 'Π': "Pi", '\u0304': "", // combining macron (θ̄)
	'—': "-", '–': "-", '≈': "~", '≤': "<=", '²': "^2", 'á': "a", '−': "-",
}
