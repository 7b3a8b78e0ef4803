// Package explore holds the interactive explorers of the teaching
// notebooks: the Dirichlet simplex, the three poolings on a hand-made
// graph, bounded versus unbounded degree, and the training of CUQ-PPR and
// GPN on a graph whose true uncertainty is known. An explorer is a set of
// controls (sliders and choices) and a function from their values to a
// View, a picture and tables of numbers, computed by the library's own
// packages (uq, pool, graph, datasets).
//
// The same code runs in two places: compiled to WebAssembly (the command
// in explore/wasm), it draws the views in the reader's browser each time a
// slider moves, with no kernel and no server; compiled natively, it draws
// the static picture shown where the page's scripts do not run. Package
// kernelext ships the explorers of a notebook as one WebAssembly bundle
// (kernelext.ShowExplorers).
//
// Explorers travel from the notebook to the browser as a spec, a small
// JSON document (Encode, Decode), so the settings chosen in a notebook
// cell, such as Dirichlet().Alpha(8, 2, 1), are the ones the page starts
// from. Nothing here imports syscall/js: the package builds and is tested
// on every platform.
package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image"
	"math"
	"strconv"
	"strings"
)

// MainPackage is the import path of the WebAssembly program that mounts
// the explorers in a page.
const MainPackage = "github.com/cuqgnn/cuqgnn/kernelext/explore/wasm"

// Control is one input of an explorer: a slider from Min to Max in steps
// of Step, or, when Choices is set, a choice among them with Value the
// index of the chosen one.
type Control struct {
	Key     string   `json:"key"`
	Label   string   `json:"label"`
	Min     float64  `json:"min"`
	Max     float64  `json:"max"`
	Step    float64  `json:"step"`
	Value   float64  `json:"value"` // the starting value
	Choices []string `json:"choices,omitempty"`
}

// check reports whether v is a value the control can take.
func (c Control) check(v float64) error {
	if c.Choices != nil {
		if v != math.Trunc(v) || v < 0 || int(v) >= len(c.Choices) {
			return fmt.Errorf("%s = %v, want the index of one of %d choices", c.Key, v, len(c.Choices))
		}
		return nil
	}
	if !(v >= c.Min && v <= c.Max) {
		return fmt.Errorf("%s = %v, want a value in [%v, %v]", c.Key, v, c.Min, c.Max)
	}
	return nil
}

// Cell is one entry of a table: Text is what is shown; Value is the number
// it shows, NaN for text such as a verdict. Key names the cell uniquely
// within its explorer, so that scripts (and tests) can find it.
type Cell struct {
	Key   string
	Text  string
	Value float64
}

// num returns a numeric cell shown with the format verb.
func num(key, verb string, v float64) Cell {
	return Cell{Key: key, Text: fmt.Sprintf(verb, v), Value: v}
}

// text returns a cell without a number.
func text(key, s string) Cell { return Cell{Key: key, Text: s, Value: math.NaN()} }

// Row is a labelled row of cells.
type Row struct {
	Label string
	Cells []Cell
}

// Table is a captioned table: a header of Columns (the first names the
// row labels) and rows with one cell per remaining column.
type Table struct {
	Caption string
	Columns []string
	Rows    []Row
}

// View is what an explorer shows for one setting of its controls.
type View struct {
	Picture *image.RGBA
	Tables  []Table
}

// Cells returns every cell of the view's tables by key.
func (v *View) Cells() map[string]Cell {
	out := map[string]Cell{}
	for _, t := range v.Tables {
		for _, r := range t.Rows {
			for _, c := range r.Cells {
				out[c.Key] = c
			}
		}
	}
	return out
}

// Explorer is one interactive widget. Controls lists its inputs with their
// starting values; View computes what it shows for values, one per
// control in the order of Controls, and returns an error when a value is
// outside its control's range. The explorers of this package are made by
// Dirichlet, Pooling, Degree and Training; the last is also a Trainer,
// whose view takes seconds and can be followed epoch by epoch.
type Explorer interface {
	// Kind names the explorer in specs: "dirichlet", "pooling", "degree",
	// "training".
	Kind() string
	// Title is a one-line heading, About a paragraph saying what to look
	// for.
	Title() string
	About() string
	Controls() []Control
	View(values []float64) (*View, error)
	// Err reports a mistake made while configuring the explorer.
	Err() error
}

// Start returns the starting values of the controls of e.
func Start(e Explorer) []float64 {
	cs := e.Controls()
	v := make([]float64, len(cs))
	for i, c := range cs {
		v[i] = c.Value
	}
	return v
}

// checkValues validates values against the controls.
func checkValues(cs []Control, values []float64) error {
	if len(values) != len(cs) {
		return fmt.Errorf("%d values for %d controls", len(values), len(cs))
	}
	var errs []error
	for i, c := range cs {
		if err := c.check(values[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// spec is the JSON form of an explorer.
type spec struct {
	Kind   string          `json:"kind"`
	Config json.RawMessage `json:"config"`
}

// Encode returns the spec of e, a JSON document that Decode turns back
// into the same explorer. It fails if e was configured with a mistake.
func Encode(e Explorer) (string, error) {
	if e == nil {
		return "", errors.New("explore.Encode: nil explorer")
	}
	if err := e.Err(); err != nil {
		return "", fmt.Errorf("explore.Encode: %w", err)
	}
	var cfg any
	switch x := e.(type) {
	case *DirichletExplorer:
		cfg = x.cfg
	case *PoolingExplorer:
		cfg = x.cfg
	case *DegreeExplorer:
		cfg = x.cfg
	case *TrainingExplorer:
		cfg = x.cfg
	default:
		return "", fmt.Errorf("explore.Encode: %T is not an explorer of this package", e)
	}
	c, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("explore.Encode: %w", err)
	}
	b, err := json.Marshal(spec{Kind: e.Kind(), Config: c})
	if err != nil {
		return "", fmt.Errorf("explore.Encode: %w", err)
	}
	return string(b), nil
}

// Decode returns the explorer of a spec made by Encode. It fails on
// malformed JSON, an unknown kind, or settings an explorer refuses.
func Decode(s string) (Explorer, error) {
	var sp spec
	if err := json.Unmarshal([]byte(s), &sp); err != nil {
		return nil, fmt.Errorf("explore.Decode: %w", err)
	}
	var e Explorer
	var target any
	switch sp.Kind {
	case "dirichlet":
		x := Dirichlet()
		e, target = x, &x.cfg
	case "pooling":
		x := Pooling()
		e, target = x, &x.cfg
	case "degree":
		x := Degree()
		e, target = x, &x.cfg
	case "training":
		x := Training()
		e, target = x, &x.cfg
	default:
		return nil, fmt.Errorf("explore.Decode: unknown explorer kind %q", sp.Kind)
	}
	if len(sp.Config) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(sp.Config)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(target); err != nil {
			return nil, fmt.Errorf("explore.Decode: %s config: %w", sp.Kind, err)
		}
	}
	if err := validate(e); err != nil {
		return nil, fmt.Errorf("explore.Decode: %w", err)
	}
	return e, nil
}

// validate checks a decoded explorer's settings.
func validate(e Explorer) error {
	switch x := e.(type) {
	case *DirichletExplorer:
		return x.cfg.validate()
	case *PoolingExplorer:
		return x.cfg.validate()
	case *DegreeExplorer:
		return x.cfg.validate()
	case *TrainingExplorer:
		return x.cfg.validate()
	}
	return nil
}

// TablesHTML renders the tables of v as HTML. Every cell carries its key
// in data-key and, when it shows a number, the number in full precision in
// data-value.
func TablesHTML(v *View) string {
	var b strings.Builder
	for _, t := range v.Tables {
		b.WriteString("<table class=\"cuqx-table\"><caption>")
		b.WriteString(html.EscapeString(t.Caption))
		b.WriteString("</caption><tr>")
		for _, c := range t.Columns {
			b.WriteString("<th>" + html.EscapeString(c) + "</th>")
		}
		b.WriteString("</tr>")
		for _, r := range t.Rows {
			b.WriteString("<tr><th>" + html.EscapeString(r.Label) + "</th>")
			for _, c := range r.Cells {
				b.WriteString(`<td data-key="` + html.EscapeString(c.Key) + `"`)
				if !math.IsNaN(c.Value) {
					b.WriteString(` data-value="` + strconv.FormatFloat(c.Value, 'g', -1, 64) + `"`)
				}
				b.WriteString(">" + html.EscapeString(c.Text) + "</td>")
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</table>")
	}
	return b.String()
}

// intro is what an explorer says of itself (see Explorer) and the mistake
// made configuring it; every explorer embeds one.
type intro struct {
	kind, title, about string
	err                error
}

// Kind returns the explorer's name in specs.
func (i *intro) Kind() string { return i.kind }

// Title returns the explorer's heading.
func (i *intro) Title() string { return i.title }

// About says what to look for.
func (i *intro) About() string { return i.about }

// Err reports an invalid setting.
func (i *intro) Err() error { return i.err }
