//go:build amd64 && !purego

package tensor

import (
	"math/rand/v2"
	"testing"
)

// forEachKernelSet runs f once for every set of kernels this machine can
// run: AVX-512 (where available), AVX2 alone, and the portable Go loops
// that the build tag purego and every other architecture use.
func forEachKernelSet(t *testing.T, f func(t *testing.T)) {
	defer func(a, a5 bool) { useAVX, useAVX512 = a, a5 }(useAVX, useAVX512)
	if useAVX512 {
		t.Run("AVX-512", f)
	}
	useAVX512 = false
	if useAVX {
		t.Run("AVX2", f)
	}
	useAVX = false
	t.Run("portable", f)
}

// The AVX-512 and AVX2 table kernels of ScaledBinary compute what the
// portable code computes, bit for bit.
func TestScaledBinaryKernelsMatchPortable(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX2/FMA kernels on this machine")
	}
	rng := rand.New(rand.NewPCG(45, 46))
	x := scaledBinary(rng, 101, 767, 0.35)
	sb, _ := NewScaledBinary(x)
	w, r := randomDense(rng, 767, 70), randomDense(rng, 1, 70).Data
	product := func() *Dense {
		out := New(101, 70)
		sb.MulAddRowTo(out, w, r)
		return out
	}
	defer func(a bool) { useAVX = a }(useAVX)
	useAVX = false
	want := product()
	useAVX = true
	forEachKernelSet(t, func(t *testing.T) { denseEqual(t, "X·W + r", product(), want, 0) })
}
