package tensor

import "fmt"

// MulTo computes dst = op(a)·op(b), where op transposes its operand when the
// matching flag is set. dst is overwritten. It panics with the three shapes
// when they do not fit. The kernels are row-parallel and unrolled by four
// for the tall-and-thin shapes of graph models (N×64 by 64×64 and smaller);
// there they match or beat gonum's BLAS.
func MulTo(dst *Dense, a *Dense, transA bool, b *Dense, transB bool) {
	ar, ac := a.Rows, a.Cols
	if transA {
		ar, ac = ac, ar
	}
	br, bc := b.Rows, b.Cols
	if transB {
		br, bc = bc, br
	}
	if ac != br || dst.Rows != ar || dst.Cols != bc {
		panic(fmt.Sprintf("tensor: product %s%s · %s%s into %s: shapes do not fit", a.Shape(), tMark(transA), b.Shape(), tMark(transB), dst.Shape()))
	}
	if ar == 0 || bc == 0 {
		return
	}
	if ac == 0 {
		dst.Zero()
		return
	}
	switch {
	case !transA && !transB:
		mulNN(a.Data, b.Data, dst.Data, ar, ac, bc, nil)
	case !transA && transB:
		mulNT(a.Data, b.Data, dst.Data, ar, ac, bc)
	case transA && !transB:
		mulTN(a.Data, b.Data, dst.Data, a.Rows, a.Cols, bc)
	default:
		at := getScratch(len(a.Data))
		transposeTo(at, a.Data, a.Rows, a.Cols)
		mulNT(at, b.Data, dst.Data, ar, ac, bc)
		putScratch(at)
	}
}

// MulAddRowTo computes dst = a·b + 1·rᵀ: the row vector r, of length
// b.Cols, is added to every row of the product while the row is in cache
// (a dense layer's bias), with the rounding of the two-pass a·b + 1·rᵀ. It
// panics with the shapes when they do not fit.
func MulAddRowTo(dst, a, b *Dense, r []float64) {
	if a.Cols != b.Rows || dst.Rows != a.Rows || dst.Cols != b.Cols || len(r) != b.Cols {
		panic(fmt.Sprintf("tensor: product %s · %s plus a row of %d into %s: shapes do not fit", a.Shape(), b.Shape(), len(r), dst.Shape()))
	}
	if a.Rows == 0 || b.Cols == 0 {
		return
	}
	if a.Cols == 0 {
		for i := 0; i < dst.Rows; i++ {
			copy(dst.Row(i), r)
		}
		return
	}
	mulNN(a.Data, b.Data, dst.Data, a.Rows, a.Cols, b.Cols, r)
}

// Mul returns a·b.
func Mul(a, b *Dense) *Dense {
	dst := New(a.Rows, b.Cols)
	MulTo(dst, a, false, b, false)
	return dst
}

// MulTo computes dst = d·b, making Dense a Matrix.
func (d *Dense) MulTo(dst, b *Dense) { MulTo(dst, d, false, b, false) }

// MulAddRowTo computes dst = d·b + 1·rᵀ (see the function MulAddRowTo).
func (d *Dense) MulAddRowTo(dst, b *Dense, r []float64) { MulAddRowTo(dst, d, b, r) }

// TMulTo computes dst = dᵀ·b.
func (d *Dense) TMulTo(dst, b *Dense) { MulTo(dst, d, true, b, false) }

func tMark(t bool) string {
	if t {
		return "ᵀ"
	}
	return ""
}

// mulNN computes out = a·b for row-major a (n×k), b (k×m), plus the row
// bias when it is not nil. Blocks of eight output rows go through the
// AVX-512 8×16 register kernel where the processor has it, blocks of six
// and four through the AVX2 6×8 and 4×8 ones; each reads a row of b once
// for the block. The
// other columns and rows accumulate rows of b, four at a time
// (mulRowFrom). With AVX2 every element is the same chain of fused
// multiply-adds in order of p whichever path computes it, so the result
// does not depend on how ParallelFor splits the rows.
func mulNN(a, b, out []float64, n, k, m int, bias []float64) {
	if m8, ok := paddedWidth(m); ok && n >= 4 {
		var wideBias []float64
		if bias != nil {
			wideBias = padColumns(bias, 1, m, m8)
		}
		wide, wideB := getScratch(n*m8), padColumns(b, k, m, m8)
		mulNN(a, wideB, wide, n, k, m8, wideBias)
		dropColumns(out, wide, n, m, m8)
		putScratch(wide)
		putScratch(wideB)
		putScratch(wideBias)
		return
	}
	if m == 1 { // matrix-vector: one dot product per row
		ParallelFor(n, n*k, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = dot(a[i*k:(i+1)*k], b)
				if bias != nil {
					out[i] += bias[0]
				}
			}
		})
		return
	}
	ParallelFor(n, n*k*m, func(lo, hi int) {
		i := lo
		for ; useAVX512 && i+8 <= hi; i += 8 {
			mulRows(out, a, b, bias, i, 8, k, m, gemmRows8)
		}
		for ; useAVX && i+6 <= hi; i += 6 {
			mulRows(out, a, b, bias, i, 6, k, m, gemmRows6)
		}
		for ; i+4 <= hi; i += 4 {
			mulRows(out, a, b, bias, i, 4, k, m, gemmRows4)
		}
		for ; i < hi; i++ {
			ar := a[i*k : (i+1)*k]
			row := out[i*m : (i+1)*m]
			mulRowFrom(row, ar, b, gemmRowBlocks(row, ar, b, m), m)
			if bias != nil {
				addRow(row, bias)
			}
		}
	})
}

// mulRows computes the rows i ≤ r < i+rows of mulNN's out = a·b (+ bias):
// the leading columns of the block with the register kernel gemm
// (gemmRows8 or gemmRows4, which returns how many columns it covered),
// the others with mulRowFrom.
func mulRows(out, a, b, bias []float64, i, rows, k, m int, gemm func(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int) {
	block := out[i*m : (i+rows)*m]
	clear(block)
	c := gemm(block, m, a[i*k:(i+rows)*k], k, 1, b, m, k, m)
	for r := range rows {
		row := block[r*m : (r+1)*m]
		mulRowFrom(row, a[(i+r)*k:(i+r+1)*k], b, c, m)
		if bias != nil {
			addRow(row, bias)
		}
	}
}

// paddedWidth reports whether a product of m columns is faster at m8, the
// next multiple of 8, with zero columns appended to its right operand:
// with AVX2, 8-column blocks of four rows go through the register kernel,
// while the columns past the last block are added one row of b at a time.
// Each element's chain of fused multiply-adds is the same either way.
func paddedWidth(m int) (m8 int, ok bool) {
	m8 = (m + 7) &^ 7
	return m8, useAVX && m > 1 && m != m8
}

// padColumns returns the rows×m matrix b widened to w columns, the new
// ones zero, in a temporary from getScratch.
func padColumns(b []float64, rows, m, w int) []float64 {
	wide := getScratch(rows * w)
	for i := range rows {
		copy(wide[i*w:i*w+m], b[i*m:(i+1)*m])
		clear(wide[i*w+m : (i+1)*w])
	}
	return wide
}

// dropColumns sets the rows×m matrix out to the first m columns of the
// rows×w matrix wide, undoing padColumns.
func dropColumns(out, wide []float64, rows, m, w int) {
	for i := range rows {
		copy(out[i*m:(i+1)*m], wide[i*w:i*w+m])
	}
}

// mulRowFrom sets the columns c.. of an output row of a·b: row[j] =
// Σ_p ar[p]·b[p·m + j] for c ≤ j < m, accumulating four rows of b at a time.
func mulRowFrom(row, ar, b []float64, c, m int) {
	if c == m {
		return
	}
	o := row[c:]
	clear(o)
	k := len(ar)
	p := 0
	for ; p+4 <= k; p += 4 {
		axpy4(o, b[p*m+c:p*m+m], b[(p+1)*m+c:(p+1)*m+m], b[(p+2)*m+c:(p+2)*m+m], b[(p+3)*m+c:(p+3)*m+m],
			ar[p], ar[p+1], ar[p+2], ar[p+3])
	}
	for ; p < k; p++ {
		axpy(o, b[p*m+c:p*m+m], ar[p])
	}
}

// addRow adds r to row elementwise. With AVX2 a row of 16 or more goes
// through the vector kernel of axpy with the factor 1, whose fused
// multiply-add 1·r_j + row_j rounds once, as the sum does: the same bits.
// (Elsewhere axpy may be math.FMA's software fallback, far slower than a
// sum.)
func addRow(row, r []float64) {
	r = r[:len(row)]
	if useAVX && len(row) >= 16 {
		axpy(row, r, 1)
		return
	}
	for j := range row {
		row[j] += r[j]
	}
}

// mulNT computes out = a·bᵀ for a (n×k), b (m×k). In graph models b is a
// small weight matrix, so it is transposed once, into scratch memory, and
// the product runs as mulNN.
func mulNT(a, b, out []float64, n, k, m int) {
	bt := getScratch(k * m)
	transposeTo(bt, b, m, k)
	mulNN(a, bt, out, n, k, m, nil)
	putScratch(bt)
}

// tnRowBlock is the number of rows of a and b that mulTN passes over at a
// time: 64 rows of a 767-column a take 393 KB, so they stay in L2 while the
// output rows are updated.
const tnRowBlock = 512

// mulTN computes out = aᵀ·b for a (n×k), b (n×m): output row p is
// Σ_i a[i,p]·b[i,:]. Workers own blocks of output rows. Blocks of eight,
// six and four output rows go through the register kernels (as in mulNN)
// over tnRowBlock rows of a and b at a time; the rest add four rows of b
// at a time. With AVX2 every
// element is the same chain of fused multiply-adds in order of i either
// way (see mulNN).
func mulTN(a, b, out []float64, n, k, m int) {
	if m8, ok := paddedWidth(m); ok && k >= 4 {
		wide, wideB := getScratch(k*m8), padColumns(b, n, m, m8)
		mulTN(a, wideB, wide, n, k, m8)
		dropColumns(out, wide, k, m, m8)
		putScratch(wide)
		putScratch(wideB)
		return
	}
	clear(out)
	if m == 1 { // aᵀ·b for a vector b: rows of a scaled and summed
		for i := 0; i < n; i++ {
			axpy(out, a[i*k:(i+1)*k], b[i])
		}
		return
	}
	ParallelFor(k, n*k*m, func(lo, hi int) {
		for i0 := 0; i0 < n; i0 += tnRowBlock {
			i1 := min(i0+tnRowBlock, n)
			p := lo
			for ; useAVX512 && p+8 <= hi; p += 8 {
				c := gemmRows8(out[p*m:(p+8)*m], m, a[i0*k+p:], 1, k, b[i0*m:], m, i1-i0, m)
				addTN(out, a, b, i0, i1, p, p+8, c, k, m)
			}
			for ; useAVX && p+6 <= hi; p += 6 {
				c := gemmRows6(out[p*m:(p+6)*m], m, a[i0*k+p:], 1, k, b[i0*m:], m, i1-i0, m)
				addTN(out, a, b, i0, i1, p, p+6, c, k, m)
			}
			for ; p+4 <= hi; p += 4 {
				c := gemmRows4(out[p*m:(p+4)*m], m, a[i0*k+p:], 1, k, b[i0*m:], m, i1-i0, m)
				addTN(out, a, b, i0, i1, p, p+4, c, k, m)
			}
			addTN(out, a, b, i0, i1, p, hi, 0, k, m)
		}
	})
}

// addTN adds Σ_{i0 ≤ i < i1} a[i,p]·b[i, c:m] to columns c.. of the output
// rows p in [plo, phi) of mulTN, four rows of b at a time.
func addTN(out, a, b []float64, i0, i1, plo, phi, c, k, m int) {
	if plo == phi || c == m {
		return
	}
	i := i0
	for ; i+4 <= i1; i += 4 {
		b0, b1, b2, b3 := b[i*m+c:(i+1)*m], b[(i+1)*m+c:(i+2)*m], b[(i+2)*m+c:(i+3)*m], b[(i+3)*m+c:(i+4)*m]
		for p := plo; p < phi; p++ {
			axpy4(out[p*m+c:(p+1)*m], b0, b1, b2, b3, a[i*k+p], a[(i+1)*k+p], a[(i+2)*k+p], a[(i+3)*k+p])
		}
	}
	for ; i < i1; i++ {
		br := b[i*m+c : (i+1)*m]
		for p := plo; p < phi; p++ {
			axpy(out[p*m+c:(p+1)*m], br, a[i*k+p])
		}
	}
}

// dot returns Σ x[j]·y[j] over len(x) elements.
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += float64(x[j] * y[j])
		s1 += float64(x[j+1] * y[j+1])
		s2 += float64(x[j+2] * y[j+2])
		s3 += float64(x[j+3] * y[j+3])
	}
	for ; j < len(x); j++ {
		s0 += float64(x[j] * y[j])
	}
	return (s0 + s1) + (s2 + s3)
}
