package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The copied generator draws the numbers of math/rand/v2's PCG, a jump of n
// steps lands where n draws do, and storing a state back gives the
// generator that state.
func TestPCGMatchesMathRand(t *testing.T) {
	src := rand.NewPCG(12, 34)
	s := loadPCG(src)
	for i := range 1000 {
		if got, want := s.uint64(), src.Uint64(); got != want {
			t.Fatalf("draw %d: %#x, math/rand/v2 %#x", i, got, want)
		}
	}
	for _, n := range []uint64{0, 1, 2, 3, 255, 256, 1000, 12345} {
		ref := rand.NewPCG(5, uint64(n))
		jumped := loadPCG(ref)
		jumped.advance(n)
		for range n {
			ref.Uint64()
		}
		if want := loadPCG(ref); jumped != want {
			t.Fatalf("advance(%d) = %#x, %d draws %#x", n, jumped, n, want)
		}
	}
	// A jump of 2⁶⁴ − 1 steps and one more draw is a jump of 2⁶⁴:
	// the powers of the multiplier wrap around 2¹²⁸ consistently.
	a, b := loadPCG(src), loadPCG(src)
	a.advance(math.MaxUint64)
	a.advance(1)
	b.advance(1 << 63)
	b.advance(1 << 63)
	if a != b {
		t.Fatalf("advance(2⁶⁴ − 1) then 1 = %#x, twice 2⁶³ %#x", a, b)
	}
	dst := rand.NewPCG(0, 0)
	a.store(dst)
	if got := loadPCG(dst); got != a {
		t.Fatalf("store then load = %#x, want %#x", got, a)
	}
}

// Dropout draws the same numbers whether the generator is a *rand.PCG,
// split among the cores, or any other source drawn from in turn: the same
// output and gradient to the bit, and the generator left in the same
// state, for an odd number of elements and on one or two cores.
func TestDropoutSameOnEverySource(t *testing.T) {
	x := randParam(rand.New(rand.NewPCG(3, 3)), "x", 1001, 37, -1, 1)
	g := tensor.New(1001, 37)
	for i := range g.Data {
		g.Data[i] = float64(i%7) - 3
	}
	run := func(rng rand.Source) (out, grad []float64) {
		x.Grad = nil
		tp := NewTape()
		y := tp.Dropout(x, 0.35, rng)
		if err := tp.Backward(tp.Sum(tp.Mul(y, Const(g)))); err != nil {
			t.Fatal(err)
		}
		return y.Data.Data, x.Grad.Data
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		serial, parallel := rand.NewPCG(8, 9), rand.NewPCG(8, 9)
		wantOut, wantGrad := run(rand.New(serial)) // a *rand.Rand: drawn in turn
		gotOut, gotGrad := run(parallel)
		for i := range wantOut {
			if math.Float64bits(gotOut[i]) != math.Float64bits(wantOut[i]) || math.Float64bits(gotGrad[i]) != math.Float64bits(wantGrad[i]) {
				t.Fatalf("%d cores, element %d: %v (gradient %v), drawn in turn %v (%v)", procs, i, gotOut[i], gotGrad[i], wantOut[i], wantGrad[i])
			}
		}
		if a, b := parallel.Uint64(), serial.Uint64(); a != b {
			t.Fatalf("%d cores: the generator's next draw is %#x, drawn in turn %#x", procs, a, b)
		}
	}
}

// Dropout on a hidden layer of CoraML's size (2,995 × 64) and of Amazon
// Computers' (13,752 × 64), its memory reused as in training: drawn in turn
// from a *rand.Rand, and from a *rand.PCG on all cores.
func BenchmarkDropout(b *testing.B) {
	for _, rows := range []int{2995, 13752} {
		x := Const(tensor.New(rows, 64))
		for _, source := range []string{"Rand", "PCG"} {
			b.Run(fmt.Sprintf("%dx64/%s", rows, source), func(b *testing.B) {
				var rng rand.Source = rand.New(rand.NewPCG(1, 2))
				if source == "PCG" {
					rng = rand.NewPCG(1, 2)
				}
				pool := NewPool()
				for b.Loop() {
					tp := NewTape().WithPool(pool)
					tp.Dropout(x, 0.5, rng)
					tp.Release()
				}
			})
		}
	}
}
