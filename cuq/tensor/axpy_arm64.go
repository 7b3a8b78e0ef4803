//go:build arm64 && !purego

package tensor

// useNEON selects the NEON kernels of neon_arm64.s. Every ARMv8-A
// processor has NEON (Advanced SIMD); the tests switch it off to check
// the portable kernels against them.
var useNEON = true

//go:noescape
func axpy4NEON(o, b0, b1, b2, b3 *float64, n int, v0, v1, v2, v3 float64)

//go:noescape
func spmmRow8NEON(o, val *float64, ind *int, nnz int, b *float64, ldb int)

// axpy4 computes o[j] += v0·b0[j] + v1·b1[j] + v2·b2[j] + v3·b3[j] for
// j < len(o) as four fused multiply-adds in order, two elements per NEON
// register and the last odd one in Go.
func axpy4(o, b0, b1, b2, b3 []float64, v0, v1, v2, v3 float64) {
	n := len(o) &^ 1
	if !useNEON || n == 0 {
		axpy4Go(o, b0, b1, b2, b3, v0, v1, v2, v3)
		return
	}
	_, _, _, _ = b0[n-1], b1[n-1], b2[n-1], b3[n-1]
	axpy4NEON(&o[0], &b0[0], &b1[0], &b2[0], &b3[0], n, v0, v1, v2, v3)
	axpy4Go(o[n:], b0[n:], b1[n:], b2[n:], b3[n:], v0, v1, v2, v3)
}

func axpy(o, b []float64, v float64) { axpyGo(o, b, v) }

func scatter(o []float64, ldo int, js []int32, b []float64, v float64) { scatterGo(o, ldo, js, b, v) }

// spmmRowBlocks computes, with the NEON kernel, the leading 8-column
// blocks of a sparse row times b, o = Σ_q val[q]·b[ind[q]·ldb + c : …]
// for c below len(o) rounded down to a multiple of 8, and returns how
// many columns it covered; the caller computes the rest.
func spmmRowBlocks(o, val []float64, ind []int, b []float64, ldb int) int {
	c8 := len(o) &^ 7
	if !useNEON || c8 == 0 || len(val) == 0 {
		return 0
	}
	checkRowIndices(ind[:len(val)], len(b)/ldb)
	for c := 0; c < c8; c += 8 {
		spmmRow8NEON(&o[c], &val[0], &ind[0], len(val), &b[c], ldb)
	}
	return c8
}
