//go:build amd64 && !purego

package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The four-lane backward kernel must give the gradients of the
// single-chain path up to summation order: on blocks whose output
// gradients are all non-zero, on blocks with a zero gradient (which fall
// back to single chains), on a chain through a layer centre (r = 0) and on
// the tail nodes that do not fill a block.
func TestRadialFlowLaneBackwardAgrees(t *testing.T) {
	if !chainAVX {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n, classes = 11, 3
	f := scaledFlows(t, rng, classes, 10, 16, 4)
	z := ad.Param("z", Uniform(rng, n, 16, 1.5))
	copy(z.Data.Row(2), f.X0.Data.Row(1)) // node 2 sits on the centre of class 1, layer 0
	g := Uniform(rng, n, classes, 1)
	g.Set(5, 2, 0) // the second block falls back to single chains for class 2
	grads := func(lanes bool) [][]float64 {
		defer func(v bool) { chainAVX = v }(chainAVX)
		chainAVX = lanes
		ps := append(f.Params(), z)
		for _, p := range ps {
			p.Grad = nil
		}
		tp := ad.NewTape()
		loss := tp.Sum(tp.Mul(f.LogDensity(tp, z), ad.Const(g)))
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, p := range ps {
			out = append(out, p.Grad.Data)
		}
		return out
	}
	want, got := grads(false), grads(true)
	names := []string{"x0", "a", "b", "z"}
	for p := range want {
		for i := range want[p] {
			w, v := want[p][i], got[p][i]
			if math.Abs(v-w) > 1e-12*math.Max(1, math.Abs(w)) || math.IsNaN(v) {
				t.Fatalf("∂%s[%d] = %v with the lane kernel, %v with single chains", names[p], i, v, w)
			}
		}
	}
	if !tensor.MustFromSlice(n, 16, got[3]).AllFinite() {
		t.Fatal("non-finite latent gradient")
	}
}
