//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"syscall/js"

	"github.com/cuqgnn/cuqgnn/kernelext/explore"
)

// frameMs is how often, at most, a training redraws its picture: every
// third frame of a 60 Hz display, smooth enough for a curve and cheap
// beside the training.
const frameMs = 50

// mountTrainer makes w train at the controls' values now and whenever a
// control is let go; moving a control only updates the value beside it.
func mountTrainer(w *widget, tr explore.Trainer) {
	w.train(tr)
	// The callbacks live as long as the page: they are never released.
	onInput := js.FuncOf(func(js.Value, []js.Value) any {
		_, _ = w.values()
		return nil
	})
	onChange := js.FuncOf(func(js.Value, []js.Value) any {
		w.train(tr)
		return nil
	})
	for _, in := range w.inputs {
		in.Call("addEventListener", "input", onInput)
		in.Call("addEventListener", "change", onChange)
	}
}

// train cancels the training under way, if any, and starts one at the
// controls' values in a goroutine.
func (w *widget) train(tr explore.Trainer) {
	if w.cancel != nil {
		w.cancel()
	}
	ds := w.el.Get("dataset")
	values, err := w.values()
	if err != nil {
		w.tables.Set("innerHTML", errorHTML(err))
		ds.Set("state", "error")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	ds.Set("state", "training")
	go func() {
		t0 := performance.Call("now").Float()
		last, frames, waited := t0, 0, 0.0
		progress := func(p explore.Progress) {
			if ctx.Err() != nil {
				return // Fit stops at the next epoch
			}
			if now := performance.Call("now").Float(); now-last >= frameMs {
				w.show(p.View())
				frames++
				last = now
				waited += yield(setTimeout) // a task after which the browser may render
				return
			}
			waited += yield(postMessage) // input events run before the next epoch
		}
		v, err := tr.Train(ctx, values, progress)
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return // a newer training replaced this one
		}
		if err != nil {
			w.tables.Set("innerHTML", errorHTML(err))
			ds.Set("state", "error")
			return
		}
		w.show(v)
		w.runs++
		ds.Set("frames", strconv.Itoa(frames))
		ds.Set("yieldMs", fmt.Sprintf("%.1f", waited))
		ds.Set("trainMs", fmt.Sprintf("%.1f", performance.Call("now").Float()-t0))
		ds.Set("runs", strconv.Itoa(w.runs))
		ds.Set("state", "done")
	}()
}

// Yielding: the goroutine waits on a channel that a JavaScript callback
// closes in a later task of the page's event loop, so the browser handles
// input and renders in between. postMessage on a MessageChannel queues the
// task at once; setTimeout queues it after the browser's timer clamping.
var (
	waiters     []chan struct{}
	wake        = js.FuncOf(func(js.Value, []js.Value) any { wakeOne(); return nil })
	channel     = js.Global().Get("MessageChannel").New()
	_           = channel.Get("port1").Call("addEventListener", "message", wake)
	_           = channel.Get("port1").Call("start")
	postMessage = func() { channel.Get("port2").Call("postMessage", nil) }
	setTimeout  = func() { js.Global().Call("setTimeout", wake, 0) }
)

// wakeOne wakes the goroutine that has waited longest.
func wakeOne() {
	if len(waiters) == 0 {
		return
	}
	close(waiters[0])
	waiters = waiters[1:]
}

// yield queues a wake-up with schedule, waits for it and returns the
// milliseconds waited.
func yield(schedule func()) float64 {
	t0 := performance.Call("now").Float()
	ch := make(chan struct{})
	waiters = append(waiters, ch)
	schedule()
	<-ch
	return performance.Call("now").Float() - t0
}
