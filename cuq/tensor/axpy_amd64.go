//go:build amd64 && !purego

package tensor

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX selects the AVX2/FMA kernels of axpy_amd64.s; without them (or
// with the purego build tag) the portable Go loops run.
var useAVX = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func axpy4AVX(o, b0, b1, b2, b3 *float64, n int, v0, v1, v2, v3 float64)

//go:noescape
func axpyAVX(o, b *float64, n int, v float64)

//go:noescape
func scatterBlockAVX(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64)

// axpy4 computes o[j] += v0·b0[j] + v1·b1[j] + v2·b2[j] + v3·b3[j] for
// j < len(o); the b slices must be at least as long as o. With AVX2 every
// element is four fused multiply-adds in order, also below four columns,
// so that a column rounds the same whatever width of block computes it.
func axpy4(o, b0, b1, b2, b3 []float64, v0, v1, v2, v3 float64) {
	if !useAVX {
		axpy4Go(o, b0, b1, b2, b3, v0, v1, v2, v3)
		return
	}
	n := len(o)
	if n >= 4 {
		_, _, _, _ = b0[n-1], b1[n-1], b2[n-1], b3[n-1]
		axpy4AVX(&o[0], &b0[0], &b1[0], &b2[0], &b3[0], n, v0, v1, v2, v3)
		return
	}
	for j := range o {
		o[j] = math.FMA(v3, b3[j], math.FMA(v2, b2[j], math.FMA(v1, b1[j], math.FMA(v0, b0[j], o[j]))))
	}
}

// axpy computes o[j] += v·b[j] for j < len(o), as one fused multiply-add
// per element with AVX2.
func axpy(o, b []float64, v float64) {
	if !useAVX {
		axpyGo(o, b, v)
		return
	}
	if len(o) >= 4 {
		_ = b[len(o)-1]
		axpyAVX(&o[0], &b[0], len(o), v)
		return
	}
	for j := range o {
		o[j] = math.FMA(v, b[j], o[j])
	}
}

// scatterBlock adds the rows of b that masks select to the rows of o, as
// scatterBlockGo: the leading 64-column blocks of each row of o stay in
// eight AVX-512 registers while its bits add their rows of b (with
// AVX-512), the next 32-column blocks in eight AVX2 registers, and the
// remaining columns are Go's.
func scatterBlock(o []float64, ldo int, masks []uint32, b []float64, ldb, cols int, scale []float64) {
	if !useAVX {
		scatterBlockGo(o, ldo, masks, b, ldb, cols, scale)
		return
	}
	if c64 := cols &^ 63; useAVX512 && c64 > 0 {
		scatterBlockWith(scatterBlock512, 64, o, ldo, masks, b, ldb, c64, scale)
		if c64 == cols {
			return
		}
		o, b, cols = o[c64:], b[c64:], cols-c64
	}
	scatterBlockWith(scatterBlockAVX, 32, o, ldo, masks, b, ldb, cols, scale)
}

//go:noescape
func gemmRow32(o, a, b *float64, k, ldb int)

//go:noescape
func spmmRow32(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool

// gemmRowBlocks computes, with the AVX2 kernels, the leading 32-column blocks
// of o = Σ_p a[p]·b[p·ldb + c : …] (gemm) and returns how many columns it
// covered; the caller computes the rest.
func gemmRowBlocks(o, a, b []float64, ldb int) int {
	if !useAVX || len(a) == 0 {
		return 0
	}
	_ = b[(len(a)-1)*ldb+len(o)-1]
	c := 0
	for ; c+32 <= len(o); c += 32 {
		gemmRow32(&o[c], &a[0], &b[c], len(a), ldb)
	}
	return c
}

//go:noescape
func gemm4x8(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)

// gemmRows4 adds, with the AVX2 kernel, the leading 8-column blocks of a
// four-row block of a product to o: o[r·ldo + j] += Σ_{s<k} a[r·lda +
// s·astep]·b[s·ldb + j] for r < 4 and j < cols rounded down to a multiple
// of 8, which it returns; the caller computes the remaining columns. The
// strides let a be read row-wise (a·b: lda = k, astep = 1) or column-wise
// (aᵀ·b: lda = 1, astep = the row length of a). Without AVX2 it is
// gemmRows4Go.
func gemmRows4(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	if !useAVX {
		return gemmRows4Go(o, ldo, a, lda, astep, b, ldb, k, cols)
	}
	return gemmBlocks(gemm4x8, 4, 8, o, ldo, a, lda, astep, b, ldb, k, cols)
}

//go:noescape
func gemm6x8(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)

// gemmRows6 is gemmRows4 for six rows, with the AVX2 kernel gemm6x8; it
// returns 0 (the caller computes the block otherwise) without AVX2.
func gemmRows6(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	if !useAVX {
		return 0
	}
	return gemmBlocks(gemm6x8, 6, 8, o, ldo, a, lda, astep, b, ldb, k, cols)
}

// gemmBlocks adds the leading blocks of width columns of a block of rows
// rows of a product to o with the register kernel gemm (the strides as in
// gemmRows4) and returns the columns covered, cols rounded down to a
// multiple of width.
func gemmBlocks(gemm func(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int), rows, width int,
	o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	cw := cols / width * width
	if cw == 0 || k == 0 {
		return 0
	}
	_, _, _ = o[(rows-1)*ldo+cw-1], a[(rows-1)*lda+(k-1)*astep], b[(k-1)*ldb+cw-1]
	for c := 0; c < cw; c += width {
		gemm(&o[c], ldo, &a[0], lda, astep, &b[c], ldb, k)
	}
	return cw
}

// spmmRowBlocks is gemmRowBlocks for a sparse row: o = Σ_q val[q]·b[ind[q]·ldb + c : …].
// The kernels check each index against the rows of b as they read it.
func spmmRowBlocks(o, val []float64, ind []int, b []float64, ldb int) int {
	if !useAVX || len(val) == 0 || len(o) < 32 {
		return 0
	}
	_ = ind[len(val)-1]
	nb, c := len(b)/ldb, 0
	for ; useAVX512 && c+64 <= len(o); c += 64 {
		if !spmmRow64(&o[c], &val[0], &ind[0], len(val), &b[c], ldb, nb) {
			panic(errRowIndex)
		}
	}
	for ; c+32 <= len(o); c += 32 {
		if !spmmRow32(&o[c], &val[0], &ind[0], len(val), &b[c], ldb, nb) {
			panic(errRowIndex)
		}
	}
	return c
}

// wideKernel returns a register kernel that covers every column of a
// product of f columns in blocks of its width, and the width: the
// 64-column AVX-512 kernel when f is a multiple of 64, the 32-column AVX2
// one when it is a multiple of 32, else none. Either gives each element
// the chain of fused multiply-adds that spmmRowBlocks gives it.
func wideKernel(f int) (kernel func(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool, width int) {
	switch {
	case useAVX512 && f%64 == 0:
		return spmmRow64, 64
	case useAVX && f%32 == 0:
		return spmmRow32, 32
	}
	return nil, 0
}

//go:noescape
func spmmRow4x2(o, val *float64, ind *int, nnz int, b *float64, ldb, off int)

// spmmRowNarrow computes, with the AVX2 kernel, o = Σ_q val[q]·b[ind[q]·ldb
// + c : …] for the 4 to 31 columns o of a row left after the 32-column
// blocks (or of a narrow matrix: class scores, evidence), keeping the sums
// in registers rather than updating o once per stored entry. It reports
// whether it ran; the caller computes o otherwise (no AVX2, fewer than
// four columns, an empty row).
func spmmRowNarrow(o, val []float64, ind []int, b []float64, c, ldb int) bool {
	w := len(o)
	if !useAVX || len(val) == 0 || w < 4 || w >= 32 {
		return false
	}
	checkRowIndices(ind[:len(val)], len(b)/ldb)
	// Blocks of eight columns; the last block ends at column w and may
	// overlap the previous one, whose shared columns it recomputes with the
	// same operations.
	for p := 0; p < w; p += 8 {
		start, off := p, 4
		switch {
		case w < 8:
			off = w - 4
		case p+8 > w:
			start = w - 8
		}
		spmmRow4x2(&o[start], &val[0], &ind[0], len(val), &b[c+start], ldb, off)
	}
	return true
}

//go:noescape
func spmmRows2(o *float64, ptr *int, ind *int32, val *float64, rows int, b *float64, f, off int, c *float64, alpha, beta float64, nb int) bool

//go:noescape
func spmmRows4(o *float64, ptr *int, ind *int32, val *float64, rows int, b *float64, f, off2, off3 int, c *float64, alpha, beta float64, nb int) bool

// narrowColumns reports whether spmmRowsNarrow computes products of f
// columns, so that the caller provides the 32-bit column indices.
func narrowColumns(f int) bool { return useAVX && f >= 4 && f <= 16 }

// spmmRowsNarrow computes, with the AVX2 kernels, the rows lo ≤ i < hi of
// out = S·b, blended by bl, for a product of 4 to 16 columns f (class
// scores, evidence, a 16-dimensional latent space), all rows in one call:
// narrow rows have few multiply-adds, and a call per row would cost as
// much as the row. The kernels read the column indices as 32-bit ind32
// (CSR.index32): on a large graph the adjacency is streamed once per
// product, and the indices are a third of its bytes. They check every
// index against the rows of b as they read it, and prefetch the row of b
// gathered 64 entries ahead, so that on a large graph the gathers of many
// entries are in flight at once. Each element is the same
// chain of fused multiply-adds as spmmRowNarrow's, and the same blend as
// blend.apply's. It reports whether it ran; the caller computes the rows
// otherwise (no AVX2, other widths, no 32-bit indices, offsets that do not
// rise).
func spmmRowsNarrow(out []float64, ptr []int, ind32 []int32, val, b []float64, f, lo, hi int, bl blend) bool {
	if !narrowColumns(f) || ind32 == nil || lo >= hi || !rowsInOrder(ptr, lo, hi) {
		return false
	}
	q0, q1 := ptr[lo], ptr[hi]
	_, _, _ = ind32[q0:q1], val[q0:q1], out[lo*f:hi*f]
	var c *float64
	if bl.c != nil {
		_ = bl.c[lo*f : hi*f]
		c = &bl.c[lo*f]
	}
	o, vals, inds, bs := &out[lo*f], unsafe.SliceData(val), unsafe.SliceData(ind32), unsafe.SliceData(b)
	var ok bool
	switch {
	case f <= 8:
		ok = spmmRows2(o, &ptr[lo], inds, vals, hi-lo, bs, f, min(4, f-4), c, bl.alpha, bl.beta, len(b)/f)
	case useAVX512:
		ok = spmmRows16x512(o, &ptr[lo], inds, vals, hi-lo, bs, f, f-8, c, bl.alpha, bl.beta, len(b)/f)
	default:
		ok = spmmRows4(o, &ptr[lo], inds, vals, hi-lo, bs, f, min(8, f-4), f-4, c, bl.alpha, bl.beta, len(b)/f)
	}
	if !ok {
		panic(errRowIndex)
	}
	return true
}

//go:noescape
func binarySum256(o *float64, ldo int, entries *uint32, start *int, tables, scale, bias *float64, rows int)

// binarySumKernel runs ScaledBinary.sumRows in assembly (binarySum512 or
// binarySum256) and reports whether it could: len(scale) rows, row i's
// table offsets entries[start[i]:start[i+1]], 32 output values per row at
// o[i·ldo:].
func binarySumKernel(o []float64, ldo int, entries []uint32, start []int, tables, scale, bias []float64) bool {
	rows := len(scale)
	if !useAVX || rows == 0 || len(entries) == 0 {
		return false
	}
	_, _, _ = o[(rows-1)*ldo+binarySlice-1], entries[:start[rows]], bias[binarySlice-1]
	if useAVX512 {
		binarySum512(&o[0], ldo, &entries[0], &start[0], &tables[0], &scale[0], &bias[0], rows)
	} else {
		binarySum256(&o[0], ldo, &entries[0], &start[0], &tables[0], &scale[0], &bias[0], rows)
	}
	return true
}
