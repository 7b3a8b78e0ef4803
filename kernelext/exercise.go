package kernelext

import (
	"fmt"
	"html"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// Graded exercises: a notebook gives the student a function to write, and
// a cell grades it against the library on fixed inputs. An Exercise holds
// the library's function (the reference) and the inputs; Grade calls the
// student's function on each input, in order, and stops at the first
// answer that disagrees, which it reports as a counterexample: the input,
// the expected value and the student's. A student's function that panics
// is recovered and reported the same way, and one that does not return
// within GradeTimeout is reported with the input it was given. The
// GradeEntropy, GradeMeasure, GradeAUROC, GradeAPPNPStep and
// GradeBehaviouralPool functions (exercises.go) grade the exercises of
// notebooks/09_exercises.ipynb and show the result in the cell.

// DefaultTol is the tolerance of an Exercise whose Tol is 0: an answer a
// agrees with the expected value e when |a − e| ≤ tol · max(1, |e|), an
// absolute tolerance for values up to 1 and a relative one above.
const DefaultTol = 1e-12

// GradeTimeout is how long Grade waits for the student's function to
// answer all the cases of an exercise before it reports the case in
// progress as one that did not return.
var GradeTimeout = 10 * time.Second

// Answer is what a graded function returns: a number, a vector or a
// matrix (a slice of rows).
type Answer interface {
	float64 | []float64 | [][]float64
}

// Case is one input of an exercise. Label names an edge case ("one-hot
// distribution", "an isolated node") in the report of a counterexample; it
// is empty for a random input.
type Case[In any] struct {
	Label string
	In    In
}

// Exercise is a function for the student to write, graded against the
// library: Reference computes the expected answer to each of Cases, and
// the student's answers must agree with it to Tol (DefaultTol when 0; see
// there). A NaN expected value is matched only by NaN, an infinite one
// only by itself. The inputs are shown in reports with fmt's %v, so an
// input type with a String method controls how it reads.
type Exercise[In any, Out Answer] struct {
	Name      string // the name in the report, such as "entropy"
	Reference func(In) Out
	Cases     []Case[In]
	Tol       float64
}

// Grading is the result of grading a student's function.
type Grading struct {
	Exercise string
	Cases    int     // the number of cases of the exercise
	Tol      float64 // the tolerance of the comparison
	// Fail is the first case on which the student's function did not give
	// the expected answer, nil when it gave it on every case.
	Fail *Counterexample
	// Err is set when the grading could not run at all (no function, no
	// reference for what was asked).
	Err error
}

// Counterexample is a case on which the student's function went wrong.
type Counterexample struct {
	Case     int    // its position among the exercise's cases, from 1
	Label    string // the case's label, empty for a random input
	Input    string // the input as fmt's %v shows it
	Expected string // the library's answer
	// Got is the student's answer; empty when the function panicked or
	// did not return.
	Got string
	// Problem says what went wrong: where the answers differ, that the
	// function panicked and with what, or that it did not return.
	Problem string
}

// OK reports whether the student's function agreed with the library on
// every case.
func (g Grading) OK() bool { return g.Err == nil && g.Fail == nil }

// String returns the report: "✓ entropy: 200 cases agree to 1e-12", or a
// line starting with "✗" followed by the counterexample's input, expected
// value and the student's value, one per line.
func (g Grading) String() string {
	if g.Err != nil {
		return fmt.Sprintf("✗ %s: %v", g.Exercise, g.Err)
	}
	if g.Fail == nil {
		return fmt.Sprintf("✓ %s: %d cases agree to %g", g.Exercise, g.Cases, g.Tol)
	}
	f := g.Fail
	which := fmt.Sprintf("case %d of %d", f.Case, g.Cases)
	if f.Label != "" {
		which += " (" + f.Label + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "✗ %s: %s on %s\n", g.Exercise, f.Problem, which)
	field := func(name, v string) {
		fmt.Fprintf(&b, "  %-9s %s\n", name+":", strings.ReplaceAll(v, "\n", "\n            "))
	}
	field("input", f.Input)
	field("expected", f.Expected)
	if f.Got != "" {
		field("yours", f.Got)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Show displays the report in the cell's output (printed outside a
// notebook): a green ✓ line, or the counterexample in a red box. It never
// stops the cell, so that a notebook of unsolved exercises runs to its
// end; the box is not kernelext's error box.
func (g Grading) Show() {
	if !gonbui.IsNotebook {
		fmt.Println(g.String())
		return
	}
	if g.OK() {
		gonbui.DisplayHTML(`<div class="cuq-grade cuq-grade-pass" style="color:#1a7f37;">` + html.EscapeString(g.String()) + "</div>")
	} else {
		gonbui.DisplayHTML(`<pre class="cuq-grade cuq-grade-fail" style="color:#a00;background:#fff4f4;padding:6px;white-space:pre-wrap;">` +
			html.EscapeString(g.String()) + "</pre>")
	}
	gonbui.Sync()
}

// Grade calls student on every case in order and compares its answers
// with the reference's. It stops at the first case where the answer
// differs, where student panics, or where it has not returned when
// GradeTimeout has passed since the first call (the call is abandoned and
// keeps running until the program ends). The reference is computed, and
// each input formatted, before the student's function sees the input, so
// a function that modifies its input is still reported with the input it
// was given.
func (e Exercise[In, Out]) Grade(student func(In) Out) Grading {
	g := Grading{Exercise: e.Name, Cases: len(e.Cases), Tol: e.Tol}
	if g.Tol == 0 {
		g.Tol = DefaultTol
	}
	switch {
	case student == nil:
		g.Err = fmt.Errorf("no function to grade (nil)")
		return g
	case e.Reference == nil || len(e.Cases) == 0:
		g.Err = fmt.Errorf("the exercise has no reference or no cases")
		return g
	}
	inputs := make([]string, len(e.Cases))
	want := make([]Out, len(e.Cases))
	for k, c := range e.Cases {
		inputs[k] = fmt.Sprint(c.In)
		want[k] = e.Reference(c.In)
	}
	fail := func(k int, got, problem string) *Counterexample {
		return &Counterexample{Case: k + 1, Label: e.Cases[k].Label, Input: inputs[k],
			Expected: show(want[k]), Got: got, Problem: problem}
	}
	var current atomic.Int64 // the case being answered
	done := make(chan *Counterexample, 1)
	go func() {
		for k, c := range e.Cases {
			current.Store(int64(k))
			got, p, panicked := call(student, c.In)
			if panicked {
				done <- fail(k, "", fmt.Sprintf("your function panicked with %q", fmt.Sprint(p)))
				return
			}
			if where, ok := agree(want[k], got, g.Tol); !ok {
				done <- fail(k, show(got), "wrong answer"+where)
				return
			}
		}
		done <- nil
	}()
	timer := time.NewTimer(GradeTimeout)
	defer timer.Stop()
	select {
	case g.Fail = <-done:
	case <-timer.C:
		g.Fail = fail(int(current.Load()), "", fmt.Sprintf("your function did not return within %v", GradeTimeout))
	}
	return g
}

// call returns f(in), or what f panicked with.
func call[In any, Out Answer](f func(In) Out, in In) (out Out, p any, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			p, panicked = r, true
		}
	}()
	return f(in), nil, false
}

// show formats an answer for a report.
func show(v any) string {
	if x, ok := v.([][]float64); ok && len(x) > 1 {
		rows := make([]string, len(x))
		for i, r := range x {
			rows[i] = fmt.Sprint(r)
		}
		return "[" + strings.Join(rows, "\n ") + "]"
	}
	return fmt.Sprint(v)
}

// agree reports whether got matches want to tol, and if not, where they
// differ (" at [2]", " at [1][0]", ", 2 rows instead of 3").
func agree[Out Answer](want, got Out, tol float64) (string, bool) {
	switch w := any(want).(type) {
	case float64:
		return "", near(w, any(got).(float64), tol)
	case []float64:
		return agreeVector(w, any(got).([]float64), tol, "")
	case [][]float64:
		g := any(got).([][]float64)
		if len(g) != len(w) {
			return fmt.Sprintf(": %d rows instead of %d", len(g), len(w)), false
		}
		for i := range w {
			if where, ok := agreeVector(w[i], g[i], tol, fmt.Sprintf("[%d]", i)); !ok {
				return where, false
			}
		}
	}
	return "", true
}

func agreeVector(w, g []float64, tol float64, prefix string) (string, bool) {
	if len(g) != len(w) {
		if prefix != "" {
			prefix = " in row " + prefix
		}
		return fmt.Sprintf(": %d entries%s instead of %d", len(g), prefix, len(w)), false
	}
	for j := range w {
		if !near(w[j], g[j], tol) {
			return fmt.Sprintf(" at %s[%d]", prefix, j), false
		}
	}
	return "", true
}

// near reports whether got agrees with want to tol (see DefaultTol).
func near(want, got, tol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}
