//go:build js && wasm

// Command wasm is the WebAssembly program that runs the explorers of
// package explore in a web page. The page starts it with one argument, the
// id of the element holding the explorers (found in globalThis.cuqxRoots,
// where package wasmbundle's loader puts it, or in the document); each
// element of class cuqx-widget inside it carries an explorer's spec in
// data-spec. For each, the program replaces the element's content (a static fallback picture)
// by the explorer's title, its controls, a canvas and its tables, and
// redraws them whenever a control moves. When all are mounted it removes
// the fallback note and sets data-ready on the root element to the time
// since the page started loading, in milliseconds; every widget element
// records the duration of its last redraw in data-redraw-ms and the number
// of redraws in data-redraws.
//
// An explorer that trains (explore.Trainer) trains when it is mounted and
// again when a control is let go (its change event), cancelling a training
// under way. It trains in a goroutine that yields to the browser after
// every epoch, so the page stays responsive, and redraws the picture of
// the training so far whenever a frame's time has passed. Its element
// records its state in data-state ("training", "done" or "error"), the
// number of trainings finished in data-runs, the duration of the last in
// data-train-ms, and the number of pictures drawn during it in
// data-frames.
//
// Build it with GOOS=js GOARCH=wasm; package kernelext embeds it in a
// notebook's output.
package main

import (
	"context"
	"fmt"
	"html"
	"os"
	"strconv"
	"syscall/js"

	"github.com/cuqgnn/cuqgnn/kernelext/explore"
)

var (
	document    = js.Global().Get("document")
	performance = js.Global().Get("performance")
)

func main() {
	if len(os.Args) < 2 {
		js.Global().Get("console").Call("error", "explore: started without the id of the explorers' element")
		return
	}
	root := js.Global().Get("cuqxRoots")
	if root.Truthy() {
		root = root.Get(os.Args[1])
	}
	if !root.Truthy() {
		root = document.Call("getElementById", os.Args[1])
	}
	if !root.Truthy() {
		js.Global().Get("console").Call("error", "explore: no element with id "+os.Args[1])
		return
	}
	widgets := root.Call("querySelectorAll", ".cuqx-widget")
	for i := range widgets.Length() {
		mount(widgets.Index(i))
	}
	if note := root.Call("querySelector", ".cuqx-note"); !note.IsNull() {
		note.Call("remove")
	}
	root.Get("dataset").Set("ready", fmt.Sprintf("%.1f", performance.Call("now").Float()))
	select {} // keep serving the controls' events
}

// widget is one mounted explorer.
type widget struct {
	el       js.Value
	e        explore.Explorer
	controls []explore.Control
	inputs   []js.Value
	outputs  []js.Value
	canvas   js.Value
	tables   js.Value
	pixels   js.Value // Uint8ClampedArray reused between redraws
	redraws  int

	// Of a Trainer: the cancellation of the training under way and the
	// number of trainings finished.
	cancel context.CancelFunc
	runs   int
}

// mount replaces the fallback content of el by the live explorer.
func mount(el js.Value) {
	e, err := explore.Decode(el.Get("dataset").Get("spec").String())
	if err != nil {
		showError(el, err)
		return
	}
	w := &widget{el: el, e: e, controls: e.Controls()}
	el.Set("innerHTML", "")
	addElement(el, "h3", "cuqx-title", e.Title())
	addElement(el, "p", "cuqx-about", e.About())
	w.mountControls(addElement(el, "div", "cuqx-controls", ""))
	w.canvas = addElement(el, "canvas", "cuqx-canvas", "")
	w.tables = addElement(el, "div", "cuqx-tables", "")
	if tr, ok := e.(explore.Trainer); ok {
		mountTrainer(w, tr)
		return
	}
	w.redraw()
	// The callback lives as long as the page: it is never released.
	onInput := js.FuncOf(func(js.Value, []js.Value) any {
		w.redraw()
		return nil
	})
	for _, in := range w.inputs {
		in.Call("addEventListener", "input", onInput)
		in.Call("addEventListener", "change", onInput)
	}
}

// addElement appends a new element of the tag, class and text to parent
// and returns it.
func addElement(parent js.Value, tag, class, text string) js.Value {
	n := document.Call("createElement", tag)
	if class != "" {
		n.Set("className", class)
	}
	if text != "" {
		n.Set("textContent", text)
	}
	parent.Call("appendChild", n)
	return n
}

// mountControls adds a labelled slider or list per control to box, with
// the output that shows its value.
func (w *widget) mountControls(box js.Value) {
	for _, c := range w.controls {
		row := addElement(box, "label", "cuqx-control", "")
		addElement(row, "span", "cuqx-label", c.Label)
		var in js.Value
		if c.Choices != nil {
			in = addElement(row, "select", "", "")
			for k, ch := range c.Choices {
				opt := addElement(in, "option", "", ch)
				opt.Set("value", strconv.Itoa(k))
			}
		} else {
			in = addElement(row, "input", "", "")
			in.Set("type", "range")
			for _, a := range [][2]string{{"min", num(c.Min)}, {"max", num(c.Max)}, {"step", num(c.Step)}} {
				in.Call("setAttribute", a[0], a[1])
			}
		}
		in.Set("value", num(c.Value))
		in.Get("dataset").Set("key", c.Key)
		w.inputs = append(w.inputs, in)
		out := addElement(row, "output", "cuqx-value", "")
		if c.Choices != nil {
			out.Get("style").Set("display", "none")
		}
		w.outputs = append(w.outputs, out)
	}
}

// num formats a control value as HTML inputs expect.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// values reads the controls and shows their values beside them.
func (w *widget) values() ([]float64, error) {
	values := make([]float64, len(w.inputs))
	for i, in := range w.inputs {
		v, err := strconv.ParseFloat(in.Get("value").String(), 64)
		if err != nil {
			return nil, fmt.Errorf("control %s: %w", w.controls[i].Key, err)
		}
		values[i] = v
		w.outputs[i].Set("textContent", in.Get("value").String())
	}
	return values, nil
}

// redraw reads the controls, computes the view and shows it.
func (w *widget) redraw() {
	t0 := performance.Call("now").Float()
	values, err := w.values()
	if err != nil {
		w.tables.Set("innerHTML", errorHTML(err))
		return
	}
	v, err := w.e.View(values)
	if err != nil {
		w.tables.Set("innerHTML", errorHTML(err))
		return
	}
	w.show(v)
	w.redraws++
	ds := w.el.Get("dataset")
	ds.Set("redraws", strconv.Itoa(w.redraws))
	ds.Set("redrawMs", fmt.Sprintf("%.2f", performance.Call("now").Float()-t0))
}

// show draws v's picture on the canvas and its tables below.
func (w *widget) show(v *explore.View) {
	w.paint(v)
	w.tables.Set("innerHTML", explore.TablesHTML(v))
}

// paint draws v's picture on the canvas.
func (w *widget) paint(v *explore.View) {
	b := v.Picture.Bounds()
	if w.canvas.Get("width").Int() != b.Dx() || w.canvas.Get("height").Int() != b.Dy() {
		w.canvas.Set("width", b.Dx())
		w.canvas.Set("height", b.Dy())
	}
	if w.pixels.IsUndefined() || w.pixels.Length() != len(v.Picture.Pix) {
		w.pixels = js.Global().Get("Uint8ClampedArray").New(len(v.Picture.Pix))
	}
	js.CopyBytesToJS(w.pixels, v.Picture.Pix)
	img := js.Global().Get("ImageData").New(w.pixels, b.Dx(), b.Dy())
	w.canvas.Call("getContext", "2d").Call("putImageData", img, 0, 0)
}

func errorHTML(err error) string {
	return `<pre class="cuqx-error">` + html.EscapeString(err.Error()) + `</pre>`
}

func showError(el js.Value, err error) {
	el.Set("innerHTML", errorHTML(err)+el.Get("innerHTML").String())
}
