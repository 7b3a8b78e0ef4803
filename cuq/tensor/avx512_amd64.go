//go:build amd64 && !purego

package tensor

import "golang.org/x/sys/cpu"

// useAVX512 selects the AVX-512 kernels of avx512_amd64.s where the CPU
// and the operating system support them. Their 512-bit registers hold
// eight independent fused multiply-add chains where the AVX2 kernels'
// hold four, so every element is computed by the same chain either way
// and results do not depend on which kernels run; on cores with
// full-width AVX-512 units they do twice the work per instruction.
var useAVX512 = useAVX && cpu.X86.HasAVX512F

//go:noescape
func binarySum512(o *float64, ldo int, entries *uint32, start *int, tables, scale, bias *float64, rows int)

//go:noescape
func spmmRow64(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool

//go:noescape
func spmmRows16x512(o *float64, ptr *int, ind *int32, val *float64, rows int, b *float64, f, off int, c *float64, alpha, beta float64, nb int) bool

//go:noescape
func scatterBlock512(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64)

//go:noescape
func gemm8x16(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)

// gemmRows8 is gemmRows4 for a block of eight rows: it adds the leading
// 16-column blocks of o = a·b (with the strides of gemmRows4) with the
// AVX-512 kernel, then a remaining 8-column block with two calls of the
// four-row kernel, and returns the columns covered (cols rounded down to a
// multiple of 8); the caller computes the rest. It returns 0 without
// AVX-512.
func gemmRows8(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	if !useAVX512 {
		return 0
	}
	c := gemmBlocks(gemm8x16, 8, 16, o, ldo, a, lda, astep, b, ldb, k, cols)
	if c8 := cols &^ 7; c < c8 && k > 0 {
		_, _, _ = o[7*ldo+c8-1], a[7*lda+(k-1)*astep], b[(k-1)*ldb+c8-1]
		gemm4x8(&o[c], ldo, &a[0], lda, astep, &b[c], ldb, k)
		gemm4x8(&o[4*ldo+c], ldo, &a[4*lda], lda, astep, &b[c], ldb, k)
		c = c8
	}
	return c
}
