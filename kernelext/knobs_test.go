package kernelext

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// knobModel returns a CUQ-PPR trained briefly on a small CSBM graph, its
// split and its prediction.
func knobModel(t *testing.T) (*cuq.Model, graph.Split, *cuq.Prediction) {
	t.Helper()
	g, split := csbm(t, 150, 5, graph.Stratified(0.1, 0.2, 0.7).Seed(2))
	m, err := cuq.CUQPPR().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(split, cuq.MaxEpochs(20)); err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, split, p
}

func TestConformalKnobRedrawIsTheLibrarysConformal(t *testing.T) {
	_, split, p := knobModel(t)
	v, err := ConformalKnob(p, split.Test).Seed(3).Done()
	if err != nil {
		t.Fatal(err)
	}
	if got := v.First(); !slices.Equal(got, []int{3}) { // α = 0.1 in DefaultConformalAlphas
		t.Fatalf("first position %v, want [3]", got)
	}
	prev := map[string]float64{}
	for _, alpha := range []float64{0.05, 0.2, 0.4} {
		pos, err := position(DefaultConformalAlphas, alpha, "α")
		if err != nil {
			t.Fatal(err)
		}
		f, err := v.Redraw(pos)
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Conformal(split.Test, conformal.Options{Alpha: alpha, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 3 || len(f.Picture.Charts) != 1 || len(f.Picture.Lines) != 3 {
			t.Fatalf("α = %v: %d results, %d charts, %d lines", alpha, len(want), len(f.Picture.Charts), len(f.Picture.Lines))
		}
		for k, r := range want {
			cov, size := f.Picture.Values["coverage "+r.Score], f.Picture.Values["size "+r.Score]
			if cov != r.Coverage || size != r.MeanSize {
				t.Errorf("α = %v, %s: the knob shows coverage %v, size %v; the library %v, %v", alpha, r.Score, cov, size, r.Coverage, r.MeanSize)
			}
			if !strings.HasPrefix(f.Picture.Lines[k], r.Score+": coverage ") {
				t.Errorf("line %d %q does not start with %s", k, f.Picture.Lines[k], r.Score)
			}
			// One split and one set of uniform numbers for every α: the
			// sets grow as α falls.
			if c, ok := prev[r.Score]; ok && cov > c {
				t.Errorf("%s: coverage %v at α = %v above %v at a smaller α", r.Score, cov, alpha, c)
			}
			prev[r.Score] = cov
		}
		setting := f.Picture.Setting
		if want := fmt.Sprintf("α = %.2f", alpha); setting != want || f.Picture.Values["alpha"] != alpha {
			t.Errorf("setting %q, α %v; want %q", setting, f.Picture.Values["alpha"], want)
		}
		h := f.HTML(v.StaticNote(f.Picture))
		for _, s := range []string{"Static picture at " + setting + ": the knob α moves it in a running kernel", `class="cuq-live-time" data-ms="`, `class="cuq-chart"`} {
			if !strings.Contains(h, s) {
				t.Errorf("α = %v: the HTML lacks %q", alpha, s)
			}
		}
	}
	if len(v.Times()) != 3 {
		t.Errorf("%d redraw times recorded after 3 redraws", len(v.Times()))
	}
}

func TestRejectionKnobRejectsTheMostUncertain(t *testing.T) {
	_, split, p := knobModel(t)
	v, err := RejectionKnob(p, split.Test).Measure(uq.TU).Done()
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.UncertaintyOf(uq.TU, split.Test)
	if err != nil {
		t.Fatal(err)
	}
	correct := p.Correct(split.Test)
	curve, err := eval.ARC(u, correct)
	if err != nil {
		t.Fatal(err)
	}
	idx := eval.RejectionIndices(len(u))
	n := len(split.Test)
	for pos, f := range DefaultRejectionFractions {
		fr, err := v.Redraw(pos)
		if err != nil {
			t.Fatal(err)
		}
		k := int(math.Round(f * float64(n)))
		if got := fr.Picture.Values["rejected"]; got != float64(k) {
			t.Fatalf("r = %v: %v rejected, want round(r·n) = %d", f, got, k)
		}
		// Brute force: the k rejected are the k largest values, and the
		// accuracy is that of the others.
		acc := fr.Picture.Values["kept accuracy"]
		sorted := slices.Clone(u)
		slices.Sort(sorted)
		threshold := math.Inf(1)
		if k > 0 {
			threshold = sorted[n-k]
		}
		right, kept := 0, 0
		strictlyAbove := 0
		for j := range u {
			if u[j] > threshold {
				strictlyAbove++
			}
		}
		if strictlyAbove > k {
			t.Fatalf("r = %v: %d values above the k-th largest", f, strictlyAbove)
		}
		ties := k - strictlyAbove // rejected among the values equal to the threshold, first in node order
		for j := range u {
			switch {
			case u[j] > threshold:
			case u[j] == threshold && ties > 0:
				ties--
			default:
				kept++
				if correct[j] {
					right++
				}
			}
		}
		if want := float64(right) / float64(kept); math.Abs(acc-want) > 1e-12 {
			t.Errorf("r = %v: kept accuracy %v, brute force %v", f, acc, want)
		}
		// Where eval.ARC rejects the same number of nodes at r, the
		// accuracy is the curve's.
		i := int(math.Round(100 * f))
		if idx[i] == k && math.Abs(curve.Acc[i]-acc) > 1e-12 {
			t.Errorf("r = %v: kept accuracy %v, the curve's point %v", f, acc, curve.Acc[i])
		}
		if !strings.Contains(fr.Picture.Lines[0], "rejected: ") || len(fr.Picture.Charts) != 2 {
			t.Errorf("r = %v: lines %q, %d charts", f, fr.Picture.Lines, len(fr.Picture.Charts))
		}
	}
}

func TestKnobErrors(t *testing.T) {
	_, split, p := knobModel(t)
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"α not a setting", func() error { _, err := ConformalKnob(p, split.Test).At(0.33).Done(); return err }, "α 0.33 is not one of the settings"},
		{"α descending", func() error { _, err := ConformalKnob(p, split.Test).Alphas(0.2, 0.1).At(0.2).Done(); return err }, "must be ascending in (0, 1)"},
		{"no nodes", func() error { _, err := RejectionKnob(p, nil).Done(); return err }, "no prediction or no nodes"},
		{"fraction 1", func() error { _, err := RejectionKnob(p, split.Test).Fractions(0, 1).At(0).Done(); return err }, "must be ascending in [0, 1)"},
		{"position out of range", func() error {
			v, err := ConformalKnob(p, split.Test).Done()
			if err != nil {
				return err
			}
			_, err = v.Redraw(len(DefaultConformalAlphas))
			return err
		}, "out of [0, 10)"},
		{"knob without settings", func() error {
			_, err := NewLive("x", func([]int) (*Picture, error) { return &Picture{}, nil }, Knob{Name: "k"}).Redraw(0)
			return err
		}, `knob "k" has no settings`},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TrainModel trains once per session: a second call rebuilds the model
// from its kept state and predicts as the trained one did, bit for bit;
// another schedule trains again.
func TestTrainModelKeepsTheTrainedState(t *testing.T) {
	t.Cleanup(func() { Forget("model") })
	g, split := csbm(t, 150, 5, graph.Stratified(0.1, 0.2, 0.7).Seed(2))
	first, err := TrainModel(cuq.GPN(), g, split, MaxEpochs(20), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	again, err := TrainModel(cuq.GPN(), g, split, MaxEpochs(20), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	if again == first {
		t.Fatal("the second call returned the same model instead of one rebuilt from the state")
	}
	p, err := first.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := again.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Prob.Data {
		if math.Float64bits(p.Prob.Data[i]) != math.Float64bits(q.Prob.Data[i]) {
			t.Fatalf("rebuilt model's probability %d is %v, the trained model's %v", i, q.Prob.Data[i], p.Prob.Data[i])
		}
	}
	longer, err := TrainModel(cuq.GPN(), g, split, MaxEpochs(21), Quiet())
	if err != nil {
		t.Fatal(err)
	}
	r, err := longer.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Prob.Data[0] == p.Prob.Data[0] && r.Prob.Data[1] == p.Prob.Data[1] {
		t.Error("another schedule returned the kept state")
	}
	if _, err := TrainModel(cuq.GKDE(), g, split, Quiet()); err == nil || !strings.Contains(err.Error(), "no parameters") {
		t.Errorf("GKDE: error %v", err)
	}
}

func TestPropagationKnobsRedrawIsTheVariantsPrediction(t *testing.T) {
	m, split, _ := knobModel(t)
	v, err := PropagationKnobs(m, split.Test).Done()
	if err != nil {
		t.Fatal(err)
	}
	if got := v.First(); !slices.Equal(got, []int{10, 1}) { // K = 10, t = 0.1
		t.Fatalf("first positions %v, want [10 1]", got)
	}
	for _, c := range []struct{ k, tp int }{{3, 3}, {0, 0}, {20, 9}} {
		f, err := v.Redraw(c.k, c.tp)
		if err != nil {
			t.Fatal(err)
		}
		k, tel := c.k, float64(c.tp+1)/20
		want, err := m.WithPropagation(k, tel)
		if err != nil {
			t.Fatal(err)
		}
		p, err := want.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Picture.Setting != fmt.Sprintf("K = %d, t = %.2f", k, tel) || f.Picture.Values["K"] != float64(k) || f.Picture.Values["t"] != tel {
			t.Errorf("setting %q, values %v for K = %d, t = %v", f.Picture.Setting, f.Picture.Values, k, tel)
		}
		if acc := p.Accuracy(split.Test); f.Picture.Values["accuracy"] != acc {
			t.Errorf("K = %d, t = %v: accuracy %v, the variant's %v", k, tel, f.Picture.Values["accuracy"], acc)
		}
		eu, _ := p.UncertaintyOf(uq.EU, split.Test)
		mean := 0.0
		for _, x := range eu {
			mean += x / float64(len(eu))
		}
		if math.Abs(f.Picture.Values["mean EU"]-mean) > 1e-12*math.Max(1, mean) {
			t.Errorf("K = %d, t = %v: mean EU %v, the variant's %v", k, tel, f.Picture.Values["mean EU"], mean)
		}
	}
	// K = 0 is the feature-only prediction whatever t: the same numbers.
	a, _ := v.Redraw(0, 0)
	b, _ := v.Redraw(0, 9)
	if a.Picture.Values["mean EU"] != b.Picture.Values["mean EU"] {
		t.Errorf("K = 0: mean EU %v at t = 0.05, %v at t = 0.5", a.Picture.Values["mean EU"], b.Picture.Values["mean EU"])
	}
	if _, err := PropagationKnobs(m, split.Test).At(7, 0.33).Done(); err == nil || !strings.Contains(err.Error(), "t 0.33 is not one of the settings") {
		t.Errorf("t off the settings: error %v", err)
	}
}

func TestPoolingKnobRedrawIsTheVariantsPrediction(t *testing.T) {
	g, split := csbm(t, 150, 5, graph.Stratified(0.1, 0.2, 0.7).Seed(2))
	m, err := cuq.GPN().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(split, cuq.MaxEpochs(20)); err != nil {
		t.Fatal(err)
	}
	v, err := PoolingKnob(m, split.Test).Done()
	if err != nil {
		t.Fatal(err)
	}
	if !v.Knobs()[0].Select || len(v.Knobs()[0].Labels) != 3 {
		t.Fatalf("knob %+v, want a list of three poolings", v.Knobs()[0])
	}
	own, err := m.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range []cuq.Pooling{cuq.LogLinear, cuq.Linear, cuq.Behavioral} {
		f, err := v.Redraw(k)
		if err != nil {
			t.Fatal(err)
		}
		variant, err := m.WithPooling(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := variant.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		if acc := q.Accuracy(split.Test); f.Picture.Values["accuracy"] != acc {
			t.Errorf("%v: accuracy %v, the variant's %v", p, f.Picture.Values["accuracy"], acc)
		}
		if p == cuq.LogLinear && f.Picture.Values["accuracy"] != own.Accuracy(split.Test) {
			t.Errorf("GPN's own pooling: accuracy %v, the model's %v", f.Picture.Values["accuracy"], own.Accuracy(split.Test))
		}
		if !strings.HasPrefix(f.Picture.Setting, "pooling: ") {
			t.Errorf("setting %q", f.Picture.Setting)
		}
	}
}
