//go:build amd64 && !purego

package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The AVX2 and AVX-512 kernels compute the portable code's chains
// operation by operation: log-densities and every gradient agree to the
// bit (flowKernelCase, flowPairCase).
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
	for _, c := range []func(*testing.T) (*RadialFlows, *tensor.Dense, *tensor.Dense){flowKernelCase, flowPairCase} {
		f, z, g := c(t)
		run := func(b backend) flowRun {
			defer func(a2, a5 bool) { flowAVX2, flowAVX512 = a2, a5 }(flowAVX2, flowAVX512)
			flowAVX2, flowAVX512 = b.avx2, b.avx512
			return runFlows(t, f, z, g)
		}
		want := run(backend{"portable", false, false})
		for _, b := range backends {
			requireSameFlowRun(t, b.name, run(b), want)
		}
	}
}

// flowPairCase returns a block of two classes, which the AVX-512 forward
// kernel runs at once with records for the backward pass, whose lane 1
// runs a non-finite chain with an output gradient for class 0 only: class
// 0's gradients are NaN, and class 1's stay finite only if each class's
// backward pass masks its accumulators by its own lanes.
func flowPairCase(t *testing.T) (f *RadialFlows, z, g *tensor.Dense) {
	rng := rand.New(rand.NewPCG(5, 6))
	f = scaledFlows(t, rng, 2, 10, 16, 4)
	z = Uniform(rng, lanes, 16, 1.5)
	z.Set(1, 7, math.Inf(-1))
	g = Uniform(rng, lanes, 2, 1)
	g.Set(1, 1, 0)
	return f, z, g
}
