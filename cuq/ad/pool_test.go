package ad

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// poolNet is a small graph of ops that covers outputs computed in place
// (products, elementwise ops, gathers, softmax) and outputs and gradients
// that accumulate (column sums, scatter-adds, values used twice).
func poolNet(tp *Tape, w, b *Value, x *tensor.Dense, rng *rand.Rand) *Value {
	h := tp.ReLU(tp.Affine(Const(x), w, b))
	h = tp.Dropout(h, 0.3, rng)
	s := tp.ScatterAddRows(h, []int{0, 2, 2, 1, 0}, 3)
	c := tp.SumCols(tp.Mul(h, h))
	l := tp.LogSoftmax(tp.Add(tp.GatherRows(s, []int{2, 0}), c))
	return tp.Sum(tp.Mul(l, l))
}

// Tapes that draw on a pool compute what tapes without one compute, step
// after step, although from the second step on their matrices hold the
// previous step's numbers.
func TestPooledTapesComputeTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.New(5, 4)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	type run struct{ loss, gw, gb []float64 }
	train := func(pool *Pool) run {
		w := Param("w", tensor.New(4, 3))
		b := Param("b", tensor.New(1, 3))
		init := rand.New(rand.NewPCG(3, 4))
		for i := range w.Data.Data {
			w.Data.Data[i] = init.NormFloat64()
		}
		drop := rand.New(rand.NewPCG(5, 6))
		var r run
		for step := 0; step < 4; step++ {
			w.ZeroGrad()
			b.ZeroGrad()
			tp := NewTape()
			if pool != nil {
				tp.WithPool(pool)
			}
			loss := poolNet(tp, w, b, x, drop)
			r.loss = append(r.loss, loss.Scalar())
			if err := tp.Backward(loss); err != nil {
				t.Fatal(err)
			}
			tp.Release()
			r.gw = append(r.gw, w.Grad.Data...)
			r.gb = append(r.gb, b.Grad.Data...)
			for i := range w.Data.Data {
				w.Data.Data[i] -= 0.001 * w.Grad.Data[i]
			}
		}
		return r
	}
	want, got := train(nil), train(NewPool())
	for name, pair := range map[string][2][]float64{"loss": {want.loss, got.loss}, "∂w": {want.gw, got.gw}, "∂b": {want.gb, got.gb}} {
		for i := range pair[0] {
			if math.Float64bits(pair[0][i]) != math.Float64bits(pair[1][i]) {
				t.Fatalf("%s[%d] = %v with a pool, %v without", name, i, pair[1][i], pair[0][i])
			}
		}
	}
}

// Release returns the tape's matrices to the pool but for the ones kept,
// the next tape reuses them, and storage of a size that is no longer asked
// for is dropped after poolAge releases.
func TestPoolRecyclesAndForgets(t *testing.T) {
	p := NewPool()
	x := Param("x", tensor.New(6, 7))
	tp := NewEvalTape().WithPool(p)
	kept := tp.Scale(x, 2).Data
	freed := tp.Scale(x, 3).Data
	tp.Release(kept)
	tp = NewEvalTape().WithPool(p)
	again := tp.Scale(x, 4).Data
	if &again.Data[0] != &freed.Data[0] {
		t.Error("the next tape did not reuse released storage")
	}
	if &again.Data[0] == &kept.Data[0] {
		t.Error("kept storage was handed out again")
	}
	tp.Release()
	for range poolAge + 1 {
		NewEvalTape().WithPool(p).Release()
	}
	if len(p.free) != 0 {
		t.Errorf("storage of an unused size still pooled after %d releases", poolAge+1)
	}
}
