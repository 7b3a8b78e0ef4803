package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Palette is the colour cycle of the charts' series, the same in the
// interactive and the static figures: the Okabe–Ito palette, which stays
// distinguishable with the common forms of colour blindness (blue,
// vermillion, bluish green, reddish purple, orange, sky blue, black,
// yellow).
var Palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// Dash is the line pattern of a curve, so that curves can be told apart
// without colour.
type Dash int

// The line patterns, in the order DashCycle hands them out.
const (
	Solid Dash = iota
	Dashed
	Dotted
	DashDot
	LongDash
	numDashes
)

var dashNames = [numDashes]string{"solid", "dashed", "dotted", "dash-dot", "long dash"}

// String returns the pattern's name.
func (d Dash) String() string { return enum.String(d, dashNames[:]) }

// DashCycle returns the k-th pattern of the cycle Solid, Dashed, Dotted,
// DashDot, LongDash.
func DashCycle(k int) Dash { return Dash(k % int(numDashes)) }

// pattern returns the dash and gap lengths of d in points, nil for a
// solid line.
func (d Dash) pattern() []float64 {
	switch d {
	case Dashed:
		return []float64{6, 3}
	case Dotted:
		return []float64{1.5, 2.5}
	case DashDot:
		return []float64{7, 3, 1.5, 3}
	case LongDash:
		return []float64{12, 4}
	}
	return nil
}

// echarts returns d as an ECharts lineStyle.type.
func (d Dash) echarts() any {
	if p := d.pattern(); p != nil {
		return p
	}
	return "solid"
}

// dashes returns d as gonum/plot line dashes.
func (d Dash) dashes() []vg.Length {
	var out []vg.Length
	for _, v := range d.pattern() {
		out = append(out, vg.Points(v))
	}
	return out
}

// checkColor reports whether s is a "#rrggbb" colour.
func checkColor(s string) error {
	if len(s) != 7 || s[0] != '#' {
		return fmt.Errorf("colour %q is not of the form #rrggbb", s)
	}
	if _, err := strconv.ParseUint(s[1:], 16, 32); err != nil {
		return fmt.Errorf("colour %q is not of the form #rrggbb", s)
	}
	return nil
}

// hexColor parses a "#rrggbb" colour (checked by checkColor) with the given
// opacity alpha (0–255).
func hexColor(s string, alpha uint8) color.Color {
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: alpha}
}

// rawOption is an ECharts option written as Go maps and slices, for charts
// that go-echarts cannot express (several grids, per-point symbols, dash
// arrays). JavaScript functions in it are jsFunc values.
type rawOption map[string]any

// Validate is a no-op: a rawOption is complete as built.
func (rawOption) Validate() {}

// JSONNotEscaped encodes the option as JSON without HTML escaping; the
// funcMarker quotes around jsFunc values are removed by Chart.Option.
func (o rawOption) JSONNotEscaped() template.HTML {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any(o)); err != nil {
		// Options are built by this package from maps, slices, strings
		// and finite numbers; an encoding error is a bug here.
		return template.HTML(fmt.Sprintf("{\"title\":{\"text\":%q}}", "chart: "+err.Error()))
	}
	return template.HTML(b.String())
}

// jsFunc marks JavaScript source that the option must carry as code (a
// formatter or renderItem), not as a string. The source must not contain
// double quotes or backslashes, which JSON would escape; line breaks are
// folded into spaces.
func jsFunc(src string) string {
	return "__f__" + strings.Join(strings.Fields(src), " ") + "__f__"
}

// ModelPalette is the colour cycle of models in the comparison charts: the
// Okabe–Ito colours but yellow, then five of Paul Tol's muted colours, all
// readable on white.
var ModelPalette = []string{
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
	"#882255", "#44AA99", "#999933", "#332288", "#AA4499",
}

// knownModels gives the models of cuqgnn's presets fixed, distinct
// colours (indices into ModelPalette).
var knownModels = map[string]int{
	"APPNP": 0, "GKDE": 1, "GPN": 2, "LOP-GPN": 3, "CUQ-PPR": 4, "CUQ-GCN": 5, "CUQ-GAT": 6,
	"GCN": 7, "Ensemble-GCN": 8, "Ensemble-APPNP": 9, "MC-Dropout-GCN": 10, "DropEdge-GCN": 11,
}

// ModelColor returns the colour of the model (or run) label in every
// comparison chart, so that a model looks the same across the cells of a
// notebook: a fixed colour for the models of cuqgnn's presets, for other
// labels the ModelPalette entry at the label's 32-bit FNV-1a hash modulo
// the palette's length. It depends on the label alone.
func ModelColor(label string) string {
	if k, ok := knownModels[label]; ok {
		return ModelPalette[k]
	}
	h := uint32(2166136261)
	for i := 0; i < len(label); i++ {
		h = (h ^ uint32(label[i])) * 16777619
	}
	return ModelPalette[h%uint32(len(ModelPalette))]
}
