package kernelext

import (
	"fmt"
	"html"
	"os"

	"github.com/janpfeifer/gonb/gonbui"
)

// exit ends the cell program; tests replace it.
var exit = os.Exit

// stop shows err in the cell's output and ends the cell program with
// status 1, which GoNB reports as a failed cell: the notebook's run stops
// there, as it would in a headless run in CI.
func stop(err error) {
	gonbui.DisplayHTML(errorHTML(err))
	gonbui.Sync()
	if !gonbui.IsNotebook {
		fmt.Fprintln(os.Stderr, "error:", err)
	}
	exit(1)
}

// Must returns v when err is nil; otherwise it shows err in the cell and
// stops the cell. It is the notebooks' one idiom for errors, in place of
// `if err != nil { … }` blocks:
//
//	g := kernelext.Must(datasets.Load("CoraML"))
//
// Library code keeps returning errors; Must belongs in notebook cells.
func Must[T any](v T, err error) T {
	if err != nil {
		stop(err)
	}
	return v
}

// Check shows a non-nil err in the cell and stops the cell, for calls that
// return only an error: kernelext.Check(kernelext.Show(c)).
func Check(err error) {
	if err != nil {
		stop(err)
	}
}

// Claim checks a statement that the notebook's prose makes about what the
// cell computed. When ok, it prints "✓ " and the statement; otherwise it
// shows "claim failed: " and the statement as an error and stops the cell,
// so that prose which no longer matches the numbers fails the notebook's
// run. The statement is formatted with fmt.Sprintf(format, args...).
func Claim(ok bool, format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !ok {
		stop(fmt.Errorf("claim failed: %s", s))
		return
	}
	if gonbui.IsNotebook {
		gonbui.DisplayHTML("<div style=\"color:#1a7f37;\">✓ " + html.EscapeString(s) + "</div>")
		gonbui.Sync()
		return
	}
	fmt.Println("✓ " + s)
}

// Must2 is Must for calls that return two values and an error:
//
//	right, wrong := kernelext.Must2(pred.SplitByCorrectness(split.Test))
func Must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		stop(err)
	}
	return a, b
}
