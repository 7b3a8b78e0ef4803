//go:build amd64 && !purego

package tensor

// Kernels names the kernels the products run on this processor: "avx512"
// (AVX-512 and FMA), "avx2" (AVX2 and FMA) or "portable" (Go).
//
// The choice follows the processor's features as golang.org/x/sys/cpu
// reports them, which honours GODEBUG: GODEBUG=cpu.avx512f=off runs the
// AVX2 kernels on a processor with AVX-512 (to time the path of a laptop
// without it), GODEBUG=cpu.avx2=off the portable ones, which the
// build tag purego and every other architecture use. The products give
// the same bits on every path, each element the chain of fused
// multiply-adds over its inner index in order: tensor_test.go checks each
// product against that chain on every kernel set, and CI runs the same
// tests for arm64 under qemu-user. WebAssembly, which has no fused
// multiply-add, is the exception (madd_wasm.go).
func Kernels() string {
	switch {
	case useAVX512:
		return "avx512"
	case useAVX:
		return "avx2"
	}
	return "portable"
}
