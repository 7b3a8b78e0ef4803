//go:build amd64 && !purego

package nn

import "testing"

// The AVX2 and AVX-512 kernels compute the portable code's chains
// operation by operation: log-densities and every gradient agree to the
// bit (flowKernelCase).
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
	f, z, g := flowKernelCase(t)
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
