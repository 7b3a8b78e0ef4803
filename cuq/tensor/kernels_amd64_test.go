//go:build amd64 && !purego

package tensor

import "testing"

// forEachKernelSet runs f once for every set of assembly kernels this
// machine can run: AVX-512 (where available) and AVX2 alone.
func forEachKernelSet(t *testing.T, f func(t *testing.T)) {
	defer func(v bool) { useAVX512 = v }(useAVX512)
	if useAVX512 {
		t.Run("AVX-512", f)
	}
	useAVX512 = false
	t.Run("AVX2", f)
}
