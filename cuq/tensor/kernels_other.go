//go:build (!amd64 && !arm64) || purego

package tensor

// Kernels names the kernels the products run: "portable" (Go), as on
// every architecture but amd64 and arm64 and with the build tag purego. On
// amd64 it is "avx512" or "avx2" where the processor has them, on arm64
// "neon".
func Kernels() string { return "portable" }
