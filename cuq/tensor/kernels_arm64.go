//go:build arm64 && !purego

package tensor

// Kernels names the kernels the products run: "neon" on arm64 (the NEON
// kernels where they apply, the portable Go ones elsewhere), "portable"
// with the build tag purego. On amd64 it is "avx512", "avx2" or
// "portable"; every path gives the same bits.
func Kernels() string {
	if useNEON {
		return "neon"
	}
	return "portable"
}
