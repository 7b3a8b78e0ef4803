//go:build arm64 && !purego

package tensor

// useNEON selects the NEON kernels of neon_arm64.s. Every ARMv8-A
// processor has NEON (Advanced SIMD); the tests switch it off to check
// the portable kernels against them.
var useNEON = true

//go:noescape
func axpy4NEON(o, b0, b1, b2, b3 *float64, n int, v0, v1, v2, v3 float64)

//go:noescape
func spmmRow8NEON(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool

//go:noescape
func gemm4x8NEON(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)

//go:noescape
func scatterBlockNEON(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64)

//go:noescape
func binarySumNEON(o *float64, ldo int, entries *uint32, start *int, tables, scale, bias *float64, rows int)

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

// scatterBlock adds the rows of b that masks select to the rows of o, as
// scatterBlockGo: with NEON the leading 8-column blocks of each row of o
// stay in four registers while its bits add their rows of b; the
// remaining columns are Go's.
func scatterBlock(o []float64, ldo int, masks []uint32, b []float64, ldb, cols int, scale []float64) {
	if !useNEON {
		scatterBlockGo(o, ldo, masks, b, ldb, cols, scale)
		return
	}
	scatterBlockWith(scatterBlockNEON, 8, o, ldo, masks, b, ldb, cols, scale)
}

// gemmRows4 adds the leading columns of a four-row block of a product to
// o, o[r·ldo + j] += Σ_{s<k} a[r·lda + s·astep]·b[s·ldb + j] for r < 4,
// and returns how many columns it covered: the 8-column blocks with the
// NEON kernel, for a read row-wise (a·b: lda = k, astep = 1) or
// column-wise (aᵀ·b: lda = 1, astep = the row length of a), and a
// following 4-column block with gemmRows4Go where a is read row-wise.
// The caller computes the remaining columns.
func gemmRows4(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	c8 := cols &^ 7
	if !useNEON || c8 == 0 || k == 0 {
		return gemmRows4Go(o, ldo, a, lda, astep, b, ldb, k, cols)
	}
	_, _, _ = o[3*ldo+c8-1], a[3*lda+(k-1)*astep], b[(k-1)*ldb+c8-1]
	for c := 0; c < c8; c += 8 {
		gemm4x8NEON(&o[c], ldo, &a[0], lda, astep, &b[c], ldb, k)
	}
	return c8 + gemmRows4Go(o[c8:], ldo, a, lda, astep, b[c8:], ldb, k, cols-c8)
}

// binarySumKernel runs ScaledBinary.sumRows with the NEON kernel and
// reports whether it could: len(scale) rows, row i's table offsets
// entries[start[i]:start[i+1]], 32 output values per row at o[i·ldo:].
func binarySumKernel(o []float64, ldo int, entries []uint32, start []int, tables, scale, bias []float64) bool {
	rows := len(scale)
	if !useNEON || rows == 0 || len(entries) == 0 {
		return false
	}
	_, _, _ = o[(rows-1)*ldo+binarySlice-1], entries[:start[rows]], bias[binarySlice-1]
	binarySumNEON(&o[0], ldo, &entries[0], &start[0], &tables[0], &scale[0], &bias[0], rows)
	return true
}

// wideKernel returns a register kernel that covers every column of a
// product of f columns in blocks of its width, and the width: the
// 8-column NEON kernel of spmmRowBlocks when f is a multiple of 8, else
// none.
func wideKernel(f int) (kernel func(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool, width int) {
	if useNEON && f%8 == 0 {
		return spmmRow8NEON, 8
	}
	return nil, 0
}

// spmmRowBlocks computes, with the NEON kernel, the leading 8-column
// blocks of a sparse row times b, o = Σ_q val[q]·b[ind[q]·ldb + c : …]
// for c below len(o) rounded down to a multiple of 8, and returns how
// many columns it covered; the caller computes the rest. The kernel checks
// each index against the rows of b as it reads it.
func spmmRowBlocks(o, val []float64, ind []int, b []float64, ldb int) int {
	c8 := len(o) &^ 7
	if !useNEON || c8 == 0 || len(val) == 0 {
		return 0
	}
	_ = ind[len(val)-1]
	nb := len(b) / ldb
	for c := 0; c < c8; c += 8 {
		if !spmmRow8NEON(&o[c], &val[0], &ind[0], len(val), &b[c], ldb, nb) {
			panic(errRowIndex)
		}
	}
	return c8
}
