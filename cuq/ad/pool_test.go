package ad

import (
	"math"
	"math/rand/v2"
	"runtime"
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

// A parameter's gradient accumulates over backward passes (a sum of bits
// computed alone, term by term), and from the second pass on the
// contribution goes to the parameter's spare, so that a training step
// allocates no parameter-sized temporary.
func TestParameterGradientsAccumulateWithoutAllocating(t *testing.T) {
	const n = 256
	rng := rand.New(rand.NewPCG(7, 8))
	x := tensor.New(2, n)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	w := Param("w", tensor.New(n, n))
	for i := range w.Data.Data {
		w.Data.Data[i] = rng.NormFloat64()
	}
	loss := func(tp *Tape, scale float64) *Value {
		h := tp.Scale(tp.MatMul(Const(x), w), scale)
		return tp.Sum(tp.Mul(h, h))
	}
	alone := func(scale float64) []float64 {
		w.Grad = nil
		tp := NewTape()
		if err := tp.Backward(loss(tp, scale)); err != nil {
			t.Fatal(err)
		}
		return append([]float64(nil), w.Grad.Data...)
	}
	g1, g2 := alone(1), alone(0.5)

	w.Grad = nil
	for _, scale := range []float64{1, 0.5} {
		tp := NewTape()
		if err := tp.Backward(loss(tp, scale)); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range w.Grad.Data {
		if want := g1[i] + g2[i]; math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("∂w[%d] after two passes = %v, want %v + %v", i, v, g1[i], g2[i])
		}
	}

	pool := NewPool()
	step := func() {
		w.ZeroGrad()
		tp := NewTape().WithPool(pool)
		if err := tp.Backward(loss(tp, 1)); err != nil {
			t.Fatal(err)
		}
		tp.Release()
	}
	step()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const steps = 10
	for range steps {
		step()
	}
	runtime.ReadMemStats(&after)
	if perStep, size := (after.TotalAlloc-before.TotalAlloc)/steps, uint64(8*n*n); perStep >= size/4 {
		t.Errorf("a training step allocates %d bytes, the parameter takes %d", perStep, size)
	}
}
