package chart

import "math"

// ECharts' legend geometry, in pixels, with its defaults: an item is a
// 25 × 14 icon, a 5 px gap and the text; items are 10 px apart; the box has
// a padding of 5 on every side.
const (
	legendIcon    = 25
	legendTextGap = 5
	legendItemGap = 10
	legendItemH   = 14
	legendPadding = 5
)

// textWidth estimates the width of s in ECharts' default 12 px sans-serif
// font, erring wide: 9 px for capitals, digits and the widest signs, 3.5
// for a space and 7 for anything else (Helvetica's widest lowercase
// letters but m and w are 6.7 px).
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == 'm', r == 'w', r == '%', r == '@':
			w += 9
		case r == ' ':
			w += 3.5
		default:
			w += 7
		}
	}
	return w
}

// legendItemWidth is the width of one legend item named s.
func legendItemWidth(s string) float64 { return legendIcon + legendTextGap + textWidth(s) }

// verticalLegendWidth returns the width of a vertical legend of names,
// padding included.
func verticalLegendWidth(names []string) int {
	w := 0.0
	for _, s := range names {
		w = math.Max(w, legendItemWidth(s))
	}
	return int(math.Ceil(w)) + 2*legendPadding
}

// legendRows returns the number of rows a horizontal legend of names
// takes in a box of the given width: items are placed left to right and
// wrap to a new row when the next would not fit.
func legendRows(names []string, width int) int {
	avail := float64(width - 2*legendPadding)
	rows, x := 1, 0.0
	for k, s := range names {
		w := legendItemWidth(s)
		if k > 0 && x+legendItemGap+w > avail {
			rows, x = rows+1, w
			continue
		}
		if k > 0 {
			x += legendItemGap
		}
		x += w
	}
	return rows
}

// legendHeight returns the height of a legend of the given rows, padding
// included.
func legendHeight(rows int) int {
	return rows*legendItemH + (rows-1)*legendItemGap + 2*legendPadding
}

// rightLegendMargin returns the right margin of a plot whose vertical
// legend of names sits right pixels from the chart's right edge: at least
// min, and wide enough for the legend and a 12 px gap.
func rightLegendMargin(names []string, right, min int) int {
	return max(min, right+verticalLegendWidth(names)+12)
}
