//go:build amd64 && !purego

package tensor

import "testing"

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

// withPortableKernels runs f with the assembly kernels switched off.
func withPortableKernels(f func()) {
	defer func(a, a5 bool) { useAVX, useAVX512 = a, a5 }(useAVX, useAVX512)
	useAVX, useAVX512 = false, false
	f()
}
