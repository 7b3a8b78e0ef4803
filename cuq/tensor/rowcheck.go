//go:build (amd64 || arm64) && !purego

package tensor

import "math/bits"

// errRowIndex is the panic of a sparse product whose column index does not
// select a row of the dense operand.
const errRowIndex = "tensor: CSR column index out of range"

// checkRowIndices panics unless every index selects one of the rows of b:
// the assembly kernels that do not check their indices read b without
// bounds checks.
func checkRowIndices(ind []int, rows int) {
	for _, j := range ind {
		if j < 0 || j >= rows {
			panic(errRowIndex)
		}
	}
}

// scatterBlockWith runs scatterBlock with an assembly kernel that covers
// the leading columns in blocks of width (a power of two), its bounds
// checked here, and scatterBlockGo the remaining columns; with no whole
// block, scatterBlockGo all of them.
func scatterBlockWith(kernel func(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64),
	width int, o []float64, ldo int, masks []uint32, b []float64, ldb, cols int, scale []float64) {
	blocks := cols &^ (width - 1)
	if blocks == 0 || len(masks) == 0 {
		scatterBlockGo(o, ldo, masks, b, ldb, cols, scale)
		return
	}
	var any uint32
	for _, m := range masks {
		any |= m
	}
	_ = o[(len(masks)-1)*ldo+cols-1]
	if any != 0 {
		top := 31 - bits.LeadingZeros32(any)
		_, _ = b[top*ldb+cols-1], scale[top]
	}
	kernel(&o[0], ldo, &masks[0], len(masks), &b[0], ldb, blocks, &scale[0])
	if blocks < cols {
		scatterBlockGo(o[blocks:], ldo, masks, b[blocks:], ldb, cols-blocks, scale)
	}
}

// spmmRowsWide computes the rows lo ≤ i < hi of spmm's product with the
// register kernel of wideKernel, which covers a row's f columns in blocks
// of its width, calling it row after row. spmmRow gives each element the
// same chain of fused multiply-adds, so the bits are the same, but its way
// to the kernel (the slices of the row, the division for the bounds, the
// checks for the narrow and portable remainders) costs, on a graph of a
// few entries per row such as CoraML's adjacency, as much as the kernel
// itself. It reports false, computing nothing, when no kernel covers
// every column or the rows' pointers are out of order.
func spmmRowsWide(out []float64, ptr, ind []int, val, b []float64, f, lo, hi int) bool {
	kernel, width := wideKernel(f)
	if kernel == nil || lo >= hi || ptr[hi] > min(len(val), len(ind)) || ptr[lo] < 0 || !rowsInOrder(ptr, lo, hi) {
		return false
	}
	nb := len(b) / f
	for i := lo; i < hi; i++ {
		k, end := ptr[i], ptr[i+1]
		row := out[i*f : (i+1)*f]
		if k == end {
			clear(row)
			continue
		}
		for c := 0; c < f; c += width {
			if !kernel(&row[c], &val[k], &ind[k], end-k, &b[c], f, nb) {
				panic(errRowIndex)
			}
		}
	}
	return true
}

// rowsInOrder reports whether the row pointers of the rows lo ≤ i < hi
// never decrease, so that every row's entries ptr[i]…ptr[i+1] exist: the
// multi-row kernels check it before they read any row.
func rowsInOrder(ptr []int, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if ptr[i] > ptr[i+1] {
			return false
		}
	}
	return true
}
