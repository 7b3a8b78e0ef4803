package kernelext

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/special"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/notebooks/solutions"
)

// graded runs a Grade… function and returns its Grading and the HTML it
// showed.
func graded(t *testing.T, grade func() Grading) (Grading, string) {
	t.Helper()
	g := grade()
	return g, nextHTML(t)
}

// The solutions of the notebook (independent implementations: dense
// matrices, pairs counted one by one) agree with the library on every case.
func TestSolutionsPass(t *testing.T) {
	for _, c := range []struct {
		want  string
		grade func() Grading
	}{
		{"✓ entropy: 200 cases agree to 1e-12", func() Grading { return GradeEntropy(solutions.Entropy) }},
		{"✓ TU: 200 cases agree to 1e-12", func() Grading { return GradeMeasure(uq.TU, solutions.TU) }},
		{"✓ AU: 200 cases agree to 1e-12", func() Grading { return GradeMeasure(uq.AU, solutions.AU) }},
		{"✓ EU: 200 cases agree to 1e-12", func() Grading { return GradeMeasure(uq.EU, solutions.EU) }},
		{"✓ AUROC: 200 cases agree to 1e-12", func() Grading { return GradeAUROC(solutions.AUROC) }},
		{"✓ APPNP step: 200 cases agree to 1e-12", func() Grading { return GradeAPPNPStep(solutions.APPNPStep) }},
		{"✓ behavioural pooling: 200 cases agree to 1e-12", func() Grading { return GradeBehaviouralPool(solutions.BehaviouralPool) }},
	} {
		g, h := graded(t, c.grade)
		if !g.OK() || g.String() != c.want {
			t.Errorf("got %q, want %q", g, c.want)
		}
		if !strings.Contains(h, "cuq-grade-pass") || !strings.Contains(h, c.want) {
			t.Errorf("%s shown as %s", c.want, h)
		}
	}
}

// Typical mistakes are reported with the first case they get wrong, its
// input, the library's value and the student's.
func TestMistakesGiveCounterexamples(t *testing.T) {
	bits := func(p []float64) float64 { return solutions.Entropy(p) / math.Ln2 }
	noZeroRule := func(p []float64) float64 {
		h := 0.0
		for _, v := range p {
			h -= v * math.Log(v)
		}
		return h
	}
	auWithoutPlusOne := func(alpha []float64) float64 {
		a0 := 0.0
		for _, a := range alpha {
			a0 += a
		}
		au := 0.0
		for _, a := range alpha {
			au += a / a0 * (special.Digamma(a0) - special.Digamma(a))
		}
		return au
	}
	tiesAsZero := func(id, ood []float64) float64 {
		n := 0.0
		for _, o := range ood {
			for _, i := range id {
				if o > i {
					n++
				}
			}
		}
		return n / float64(len(id)*len(ood))
	}
	logLinear := func(head *pool.GaussianHead, w1 float64, z1 []float64, w2 float64, z2 []float64) []float64 {
		b1, _ := head.Evidence(z1)
		b2, _ := head.Evidence(z2)
		a := make([]float64, len(b1))
		for c := range a {
			a[c] = 1 + w1*b1[c] + w2*b2[c]
		}
		return a
	}
	for _, c := range []struct {
		grade func() Grading
		want  string
	}{
		{func() Grading { return GradeEntropy(bits) }, `✗ entropy: wrong answer on case 1 of 200 (uniform over 3 classes)
  input:    p = [0.3333333333333333 0.3333333333333333 0.3333333333333333]
  expected: 1.0986122886681096
  yours:    1.584962500721156`},
		{func() Grading { return GradeEntropy(noZeroRule) }, `✗ entropy: wrong answer on case 2 of 200 (one-hot distribution)
  input:    p = [0 1 0]
  expected: 0
  yours:    NaN`},
		{func() Grading { return GradeMeasure(uq.AU, auWithoutPlusOne) }, `✗ AU: wrong answer on case 1 of 200 (flat Dirichlet)
  input:    α = [1 1 1]
  expected: 0.833333333333333
  yours:    1.4999999999999996`},
		{func() Grading { return GradeAUROC(tiesAsZero) }, `✗ AUROC: wrong answer on case 1 of 200 (all scores tied)
  input:    id = [1 1 1]
            ood = [1 1]
  expected: 0.5
  yours:    0`},
		{func() Grading { return GradeBehaviouralPool(logLinear) }, `✗ behavioural pooling: wrong answer at [0] on case 3 of 200 (two nodes in conflict)
  input:    w₁ = 0.5, z₁ = [0 3]
            w₂ = 0.5, z₂ = [-2.598076211353316 -1.5]
            head: budget 300, class means [0 3] [-2.598076211353316 -1.5] [2.598076211353316 -1.5]
  expected: [1.544598267260495 1.544598267260495 1.0006376590126536]
  yours:    [8.957758064340535 8.957758064340537 1.0000218194915376]`},
	} {
		g, h := graded(t, c.grade)
		if g.OK() || g.String() != c.want {
			t.Errorf("got\n%s\nwant\n%s", g, c.want)
		}
		if !strings.Contains(h, "cuq-grade-fail") || strings.Contains(h, "cuq-error") {
			t.Errorf("failure shown as %s", h)
		}
	}
}

// An APPNP step without the self loops divides by a zero degree on the
// single node; one that forgets t·H₀ gives 0.9·H there.
func TestAPPNPMistakes(t *testing.T) {
	noSelfLoops := func(a, h, h0 [][]float64, t float64) [][]float64 {
		for i := range a {
			a[i] = slices.Clone(a[i])
			a[i][i] = -1 // cancels the self loop the solution adds, and modifies the input
		}
		return solutions.APPNPStep(a, h, h0, t)
	}
	g, _ := graded(t, func() Grading { return GradeAPPNPStep(noSelfLoops) })
	want := `✗ APPNP step: wrong answer at [0][0] on case 1 of 200 (a single node)
  input:    A  = [[0]]
            H  = [[2 -1]]
            H₀ = [[1 1]]
            t  = 0.1
  expected: [[1.9000000000000001 -0.8]]
  yours:    [[NaN NaN]]`
	if g.String() != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
	noTeleport := func(a, h, h0 [][]float64, t float64) [][]float64 {
		zero := make([][]float64, len(h0))
		for i := range zero {
			zero[i] = make([]float64, len(h0[i]))
		}
		return solutions.APPNPStep(a, h, zero, t)
	}
	g, _ = graded(t, func() Grading { return GradeAPPNPStep(noTeleport) })
	if g.Fail == nil || g.Fail.Case != 1 || g.Fail.Got != "[[1.8 -0.9]]" {
		t.Errorf("forgetting t·H₀ (0.9·H on the single node):\n%s", g)
	}
}

// A panicking function is recovered and reported with its input; so is a
// function that does not return.
func TestPanicsAndHangs(t *testing.T) {
	outOfRange := func(p []float64) float64 { return p[3] }
	g, h := graded(t, func() Grading { return GradeEntropy(outOfRange) })
	want := `✗ entropy: your function panicked with "runtime error: index out of range [3] with length 3" on case 1 of 200 (uniform over 3 classes)
  input:    p = [0.3333333333333333 0.3333333333333333 0.3333333333333333]
  expected: 1.0986122886681096`
	if g.String() != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
	if !strings.Contains(h, "cuq-grade-fail") {
		t.Errorf("shown as %s", h)
	}
	todo := func(alpha []float64) float64 { panic("TODO") }
	if g, _ := graded(t, func() Grading { return GradeMeasure(uq.EU, todo) }); !strings.Contains(g.String(), `panicked with "TODO" on case 1 of 200 (flat Dirichlet)`) {
		t.Errorf("panic(\"TODO\") reported as %s", g)
	}
	var nilPanic func(id, ood []float64) float64 = func(id, ood []float64) float64 { panic(nil) }
	if g, _ := graded(t, func() Grading { return GradeAUROC(nilPanic) }); g.Fail == nil || !strings.Contains(g.Fail.Problem, "panicked") {
		t.Errorf("panic(nil) reported as %s", g)
	}

	GradeTimeout = 50 * time.Millisecond
	release := make(chan struct{})
	t.Cleanup(func() { GradeTimeout = 10 * time.Second; close(release) })
	slow := func(p []float64) float64 {
		if len(p) == 1 {
			<-release
		}
		return solutions.Entropy(p)
	}
	g, _ = graded(t, func() Grading { return GradeEntropy(slow) })
	if g.Fail == nil || g.Fail.Case != 3 || !strings.Contains(g.String(), "did not return within 50ms on case 3 of 200 (a single class)") {
		t.Errorf("a function that does not return: %s", g)
	}
}

func TestGradeErrors(t *testing.T) {
	g, h := graded(t, func() Grading { return GradeEntropy(nil) })
	if g.OK() || g.String() != "✗ entropy: no function to grade (nil)" || !strings.Contains(h, "cuq-grade-fail") {
		t.Errorf("nil function: %s, shown as %s", g, h)
	}
	g, _ = graded(t, func() Grading { return GradeMeasure(uq.EUSO, solutions.TU) })
	if g.OK() || !strings.Contains(g.String(), "no exercise for the measure EU_SO") {
		t.Errorf("EU_SO: %s", g)
	}
	if g := (Exercise[float64, float64]{Name: "x"}).Grade(math.Sqrt); g.Err == nil {
		t.Error("an exercise without cases graded")
	}
}

// Answers of the wrong shape are reported as such.
func TestShapes(t *testing.T) {
	ident := func(x [][]float64) [][]float64 { return x }
	e := Exercise[[][]float64, [][]float64]{Name: "copy", Reference: ident,
		Cases: []Case[[][]float64]{{In: [][]float64{{1, 2}, {3, 4}}}}}
	for _, c := range []struct {
		f    func([][]float64) [][]float64
		want string
	}{
		{ident, ""},
		{func(x [][]float64) [][]float64 { return x[:1] }, "wrong answer: 1 rows instead of 2"},
		{func(x [][]float64) [][]float64 { return [][]float64{x[0], x[1][:1]} }, "wrong answer: 1 entries in row [1] instead of 2"},
		{func(x [][]float64) [][]float64 { return [][]float64{x[0], {3, 4 + 1e-11}} }, "wrong answer at [1][1]"},
		{func(x [][]float64) [][]float64 { return [][]float64{x[0], {3, 4 + 1e-12}} }, ""},
	} {
		g := e.Grade(c.f)
		got := ""
		if g.Fail != nil {
			got = g.Fail.Problem
		}
		if got != c.want {
			t.Errorf("problem %q, want %q", got, c.want)
		}
	}
	// Tolerance: absolute below 1, relative above; NaN and Inf only match themselves.
	for _, c := range []struct {
		want, got float64
		ok        bool
	}{
		{0, 1e-12, true}, {0, 2e-12, false}, {1e6, 1e6 + 1e-7, true}, {1e6, 1e6 + 1e-5, false},
		{math.NaN(), math.NaN(), true}, {1, math.NaN(), false}, {math.Inf(1), math.Inf(1), true}, {math.Inf(1), math.MaxFloat64, false},
	} {
		if near(c.want, c.got, DefaultTol) != c.ok {
			t.Errorf("near(%v, %v) = %v", c.want, c.got, !c.ok)
		}
	}
}

// The references are the library's: the AUROC of the tie case by hand, the
// behavioural pool against pool.On on a graph of two nodes.
func TestReferences(t *testing.T) {
	auroc := aurocExercise()
	if c := auroc.Cases[4]; c.Label != "ties across the groups" || auroc.Reference(c.In) != 9.5/12 {
		t.Errorf("%s: AUROC %v, want 9.5/12 (pairs counted by hand)", c.Label, auroc.Reference(c.In))
	}
	g, err := graph.NewBuilder(3).Node(0, 0.5, 2).Node(1, -1, -1).Edge(0, 1).Done()
	if err != nil {
		t.Fatal(err)
	}
	pooled, err := pool.On(g).Done()
	if err != nil {
		t.Fatal(err)
	}
	w, err := pooled.Weights(0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pooled.Alpha(pool.Behavioural, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := behaviouralPoolExercise().Reference(committee{pool.ToyHead(), w[0], w[1], []float64{0.5, 2}, []float64{-1, -1}})
	if _, ok := agree(want, got, 1e-12); !ok {
		t.Errorf("behavioural pool of two nodes: %v, pool.On gives %v", got, want)
	}
	// The cases are the same on every call (fixed seed), 200 of them.
	a, b := appnpStepExercise(), appnpStepExercise()
	if len(a.Cases) != exerciseCases || show(a.Cases[100].In) != show(b.Cases[100].In) {
		t.Errorf("%d cases; case 101 differs between calls", len(a.Cases))
	}
}

func TestMeasuresChart(t *testing.T) {
	c, err := MeasuresChart(map[uq.Measure]func([]float64) float64{uq.TU: solutions.TU, uq.AU: solutions.AU, uq.EU: func([]float64) float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Fragment()
	for _, want := range []string{"TU, library (= TU, yours)", "AU, library (= AU, yours)", `"EU, library"`, `"EU, yours"`, `"0.1"`, `"1000"`} {
		if !strings.Contains(h, want) {
			t.Errorf("chart has no %s", want)
		}
	}
	for _, c := range []struct {
		yours map[uq.Measure]func([]float64) float64
		want  string
	}{
		{nil, "no measures"},
		{map[uq.Measure]func([]float64) float64{uq.LC: solutions.TU}, "not TU, AU or EU"},
		{map[uq.Measure]func([]float64) float64{uq.AU: func(a []float64) float64 { return a[5] }}, "your AU panicked at α = [0.06 0.03 0.010000000000000002]: runtime error: index out of range [5] with length 3"},
		{map[uq.Measure]func([]float64) float64{uq.TU: func([]float64) float64 { return math.NaN() }}, "your TU is NaN at α = [0.06"},
	} {
		if _, err := MeasuresChart(c.yours); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
