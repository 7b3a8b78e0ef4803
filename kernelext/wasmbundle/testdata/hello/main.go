//go:build js && wasm

// Command hello is the program of the wasmbundle tests: it writes each
// widget's spec into the widget, removes the note and marks the root
// ready.
package main

import (
	"os"
	"syscall/js"
)

func main() {
	root := js.Global().Get("document").Call("getElementById", os.Args[1])
	ws := root.Call("querySelectorAll", ".cuqx-widget")
	for i := range ws.Length() {
		w := ws.Index(i)
		w.Set("textContent", "mounted "+w.Get("dataset").Get("spec").String())
	}
	root.Call("querySelector", ".cuqx-note").Call("remove")
	root.Get("dataset").Set("ready", "1")
}
