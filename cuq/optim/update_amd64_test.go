//go:build amd64 && !purego

package optim

import "testing"

// The AVX and AVX-512 kernels give updateGo's bits.
func TestUpdateKernelsMatchPortable(t *testing.T) {
	if !updateAVX {
		t.Skip("no AVX2 and FMA")
	}
	defer func(avx512 bool) { updateAVX512 = avx512 }(updateAVX512)
	has512 := updateAVX512
	updateAVX512 = false
	requireUpdateMatchesPortable(t, "AVX")
	if has512 {
		updateAVX512 = true
		requireUpdateMatchesPortable(t, "AVX-512")
	}
}
