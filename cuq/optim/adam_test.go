package optim

import (
	"math"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// One Adam step from zero state moves every parameter by lr·sign(g) (up to
// ε): m̂ = g, v̂ = g², so the update is lr·g/(|g|+ε).
func TestAdamFirstStepClosedForm(t *testing.T) {
	p := ad.Param("p", tensor.MustFromSlice(1, 3, []float64{1, -2, 3}))
	opt, err := NewAdam(Group{Params: []*ad.Value{p}, LR: 0.1, WeightDecay: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	tp := ad.NewTape()
	// loss = Σ p² → g = 2p; with decay g' = 2p + 0.5p = 2.5p
	if err := tp.Backward(tp.Sum(tp.Mul(p, p))); err != nil {
		t.Fatal(err)
	}
	opt.Step()
	want := []float64{1, -2, 3}
	for i := range want {
		g := 2.5 * want[i]
		want[i] -= 0.1 * g / (math.Abs(g) + 1e-8)
		if math.Abs(p.Data.Data[i]-want[i]) > 1e-12 {
			t.Fatalf("after one step p = %v, want %v", p.Data.Data, want)
		}
	}
}

// With a constant gradient c the bias-corrected moments are exactly c and
// c², so each step moves by lr·c/(|c|+ε).
func TestAdamSecondStepAndSkipping(t *testing.T) {
	p := ad.Param("p", tensor.MustFromSlice(1, 1, []float64{0}))
	q := ad.Param("q", tensor.MustFromSlice(1, 1, []float64{5}))
	opt, err := NewAdam(Group{Params: []*ad.Value{p}, LR: 0.01}, Group{Params: []*ad.Value{q}, LR: 1})
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 2; step++ {
		opt.ZeroGrad()
		tp := ad.NewTape()
		if err := tp.Backward(tp.Scale(tp.Sum(p), 3)); err != nil {
			t.Fatal(err)
		}
		opt.Step()
	}
	if want := -0.02 * 3 / (3 + 1e-8); math.Abs(p.Data.Data[0]-want) > 1e-12 {
		t.Errorf("p = %v, want %v", p.Data.Data[0], want)
	}
	if q.Data.Data[0] != 5 {
		t.Errorf("a parameter without gradient moved to %v", q.Data.Data[0])
	}
}

func TestAdamRejectsBadGroups(t *testing.T) {
	p := ad.Param("p", tensor.New(1, 1))
	if _, err := NewAdam(Group{Params: []*ad.Value{p}, LR: 0}); err == nil {
		t.Error("zero learning rate accepted")
	}
	if _, err := NewAdam(Group{Params: []*ad.Value{p}, LR: 1}, Group{Params: []*ad.Value{p}, LR: 1}); err == nil {
		t.Error("parameter in two groups accepted")
	}
	if _, err := NewAdam(Group{Params: []*ad.Value{ad.Const(tensor.New(1, 1))}, LR: 1}); err == nil {
		t.Error("constant accepted as parameter")
	}
}
