//go:build amd64 && !purego

package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The AVX2 and AVX-512 kernels compute the portable code's chains
// operation by operation: log-densities and every gradient agree to the
// bit, on full and partial blocks, with masked lanes (zero output
// gradient) in every position, with a latent on a layer centre (r = 0),
// and with a non-finite chain in a masked lane.
func TestRadialFlowKernelsMatchPortable(t *testing.T) {
	type backend struct {
		name         string
		avx2, avx512 bool
	}
	backends := []backend{{"AVX2", true, false}}
	if flowAVX512 {
		backends = append(backends, backend{"AVX-512", true, true})
	}
	if !flowAVX2 {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n, classes = 21, 3
	f := scaledFlows(t, rng, classes, 10, 16, 4)
	z := Uniform(rng, n, 16, 1.5)
	copy(z.Row(2), f.X0.Data.Row(1)) // node 2 sits on the centre of class 1, layer 0
	g := Uniform(rng, n, classes, 1)
	for _, i := range []int{0, 5, 6, 11, 19} { // masked lanes in both halves and in the tail block
		g.Set(i, 2, 0)
	}
	for c := 0; c < classes; c++ { // a whole masked half
		for i := 8; i < 12; i++ {
			g.Set(i, c, 0)
		}
	}
	z.Set(9, 3, math.Inf(1)) // a non-finite chain nothing needs
	run := func(b backend) flowRun {
		defer func(a2, a5 bool) { flowAVX2, flowAVX512 = a2, a5 }(flowAVX2, flowAVX512)
		flowAVX2, flowAVX512 = b.avx2, b.avx512
		return runFlows(t, f, z, g)
	}
	want := run(backend{"portable", false, false})
	for _, b := range backends {
		got := run(b)
		for _, name := range flowRunParts {
			w, v := want.part(name), got.part(name)
			for i := range w {
				if math.Float64bits(w[i]) != math.Float64bits(v[i]) && !(math.IsNaN(w[i]) && math.IsNaN(v[i])) {
					t.Fatalf("%s: %s[%d] = %v, portable code %v", b.name, name, i, v[i], w[i])
				}
			}
		}
	}
}
