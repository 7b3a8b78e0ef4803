package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// TestBatchNormValues checks a training pass and a prediction pass on a
// 3×2 input against the formula worked by hand: column 0 has mean 3 and
// (biased) variance 8/3, column 1 mean 5 and variance 26/3.
func TestBatchNormValues(t *testing.T) {
	b := NewBatchNorm("bn", 2)
	copy(b.Gamma.Data.Data, []float64{2, 1})
	copy(b.Beta.Data.Data, []float64{0.5, -1})
	x := ad.Const(dense(t, 3, 2, 1, 2, 3, 4, 5, 9))
	mean, variance := []float64{3, 5}, []float64{8.0 / 3, 26.0 / 3}
	y := b.Forward(ad.NewTape(), x)
	for i := range 3 {
		for j := range 2 {
			want := b.Gamma.Data.At(0, j)*(x.Data.At(i, j)-mean[j])/math.Sqrt(variance[j]+1e-5) + b.Beta.Data.At(0, j)
			if got := y.Data.At(i, j); math.Abs(got-want) > 1e-14 {
				t.Fatalf("training y[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
	// μ̂ = 0.9·0 + 0.1·μ; σ̂² = 0.9·1 + 0.1·σ²·3/2
	for j := range 2 {
		if got, want := b.Mean.Data.At(0, j), 0.1*mean[j]; math.Abs(got-want) > 1e-15 {
			t.Errorf("running mean %d = %v, want %v", j, got, want)
		}
		if got, want := b.Var.Data.At(0, j), 0.9+0.1*variance[j]*1.5; math.Abs(got-want) > 1e-14 {
			t.Errorf("running variance %d = %v, want %v", j, got, want)
		}
	}
	// prediction: the running estimates, which a prediction leaves alone
	runMean, runVar := b.Mean.Data.Clone(), b.Var.Data.Clone()
	y = b.Forward(ad.NewEvalTape(), x)
	for i := range 3 {
		for j := range 2 {
			want := b.Gamma.Data.At(0, j)*(x.Data.At(i, j)-runMean.At(0, j))/math.Sqrt(runVar.At(0, j)+1e-5) + b.Beta.Data.At(0, j)
			if got := y.Data.At(i, j); math.Abs(got-want) > 1e-14 {
				t.Fatalf("prediction y[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
	if b.Mean.Data.At(0, 1) != runMean.At(0, 1) || b.Var.Data.At(0, 1) != runVar.At(0, 1) {
		t.Error("a prediction changed the running estimates")
	}
	// one row: normalised to β, the running variance unchanged
	one := NewBatchNorm("one", 2)
	y = one.Forward(ad.NewTape(), ad.Const(dense(t, 1, 2, 4, -7)))
	if y.Data.At(0, 0) != 0 || y.Data.At(0, 1) != 0 || one.Var.Data.At(0, 0) != 1 {
		t.Errorf("one row: y %v, running variance %v", y.Data.Data, one.Var.Data.Data)
	}
}

func TestBatchNormGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	b := NewBatchNorm("bn", 3)
	b.Gamma.Data = Uniform(rng, 1, 3, 2)
	b.Beta.Data = Uniform(rng, 1, 3, 1)
	x := ad.Param("x", Uniform(rng, 5, 3, 2))
	check(t, "BatchNorm", append(b.Params(), x), func(tp *ad.Tape) *ad.Value { return weighted(tp, b.Forward(tp, x), 3) })
}

func dense(t *testing.T, rows, cols int, v ...float64) *tensor.Dense {
	t.Helper()
	d, err := tensor.FromSlice(rows, cols, v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
