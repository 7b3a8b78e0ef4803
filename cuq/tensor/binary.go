package tensor

import (
	"fmt"
	"math"
)

// ScaledBinary is a read-only view of a dense matrix X whose every row is a
// scale times a 0/1 pattern,
//
//	x_ij = s_i·b_ij,  b_ij ∈ {0, 1},
//
// as bag-of-words features are after binarising and normalising the rows.
// Its products X·W go through subset-sum tables: the columns of X are cut
// into chunks of four, and for each chunk c and each of the 16 patterns p
// of its four bits the sum T_c[p] of the rows of W that p selects is
// computed once per product, so that
//
//	(X·W)_i = s_i · Σ_c T_c[p_ic],
//
// one table row added per four columns of X instead of four rows of W
// multiplied and added. The tables of a 64-column W cut into 32-column
// slices stay in the second-level cache, which makes the product of Amazon
// Computers' features (13,752 × 767, 35% non-zero) by a 767 × 64 weight
// faster than the dense product (docs/records/performance.md). The sums
// are ordered (T_c[p] = T_c[p without its lowest bit] + the row of W of
// that bit, then the chunks in order, then the scale), so the result is
// the same on every machine; it differs from the dense product's chain of
// fused multiply-adds in the last bits. Xᵀ·G, the gradient of such a
// product, skips the zeros of X and keeps the dense product's bits (see
// TMulTo).
type ScaledBinary struct {
	x     *Dense
	scale []float64
	// entries lists, row after row, where in the tables each chunk of the
	// row that has a bit set reads: (c·16 + p_ic)·binarySlice for those
	// chunks c in order, p_ic the chunk's bits b_{i,4c..4c+3}. Row i's are
	// entries[start[i]:start[i+1]]. A chunk without bits would add
	// T_c[0] = +0, which changes no sum (no sum is ever −0: each starts at
	// +0, and x + y is −0 only when both are), so it is left out: a third
	// of the chunks of Amazon's features.
	entries []uint32
	start   []int
	// masks holds X's non-zeros for TMulTo, column by column in blocks of
	// scatterRows rows: bit r of masks[k·cols + j] is set when
	// x_{k·scatterRows + r, j} ≠ 0.
	masks []uint32
	// colStart[j] counts the non-zeros of X in the columns before j, so
	// that TMulTo splits the columns at equal shares of the non-zeros
	// (ParallelForRows).
	colStart []int
	chunks   int
}

// binaryChunk is the number of columns of X that one table lookup covers.
const binaryChunk = 4

// binarySlice is the number of columns of W, and of the product, that one
// pass of the tables covers.
const binarySlice = 32

// NewScaledBinary returns the view of x when every row of x is a scale times
// a 0/1 pattern (the non-zeros of a row equal, finite); ok is false
// otherwise. x is not copied: do not modify it afterwards.
func NewScaledBinary(x *Dense) (s *ScaledBinary, ok bool) {
	chunks := (x.Cols + binaryChunk - 1) / binaryChunk
	if uint64(chunks)*16*binarySlice > math.MaxUint32 {
		return nil, false // table offsets past what entries hold
	}
	blocks := (x.Rows + scatterRows - 1) / scatterRows
	s = &ScaledBinary{x: x, scale: make([]float64, x.Rows), start: make([]int, x.Rows+1), chunks: chunks,
		masks: make([]uint32, blocks*x.Cols), colStart: make([]int, x.Cols+1)}
	pat := make([]uint8, chunks)
	for i := 0; i < x.Rows; i++ {
		row := x.Row(i)
		clear(pat)
		for j, v := range row {
			if v == 0 {
				continue
			}
			if s.scale[i] == 0 {
				s.scale[i] = v
			}
			if v != s.scale[i] || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, false
			}
			pat[j/binaryChunk] |= 1 << (j % binaryChunk)
			s.masks[i/scatterRows*x.Cols+j] |= 1 << (i % scatterRows)
			s.colStart[j+1]++
		}
		for c, p := range pat {
			if p != 0 {
				s.entries = append(s.entries, uint32((c*16+int(p))*binarySlice))
			}
		}
		s.start[i+1] = len(s.entries)
	}
	for j := range x.Cols {
		s.colStart[j+1] += s.colStart[j]
	}
	return s, true
}

// Dims returns the dimensions of X.
func (s *ScaledBinary) Dims() (rows, cols int) { return s.x.Rows, s.x.Cols }

// Dense returns X.
func (s *ScaledBinary) Dense() *Dense { return s.x }

// MulTo computes dst = X·b (dst is overwritten), through the tables. It
// panics with both shapes when they do not fit.
func (s *ScaledBinary) MulTo(dst, b *Dense) {
	if s.x.Cols != b.Rows || dst.Rows != s.x.Rows || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: product of scaled binary %s · %s into %s: shapes do not fit", s.x.Shape(), b.Shape(), dst.Shape()))
	}
	s.mul(dst, b, nil)
}

// MulAddRowTo computes dst = X·b + 1·rᵀ (dst is overwritten): each element
// is fma(s_i, Σ_c T_c[p_ic], r_j). It panics with the shapes when they do
// not fit.
func (s *ScaledBinary) MulAddRowTo(dst, b *Dense, r []float64) {
	if s.x.Cols != b.Rows || dst.Rows != s.x.Rows || dst.Cols != b.Cols || len(r) != b.Cols {
		panic(fmt.Sprintf("tensor: product of scaled binary %s · %s plus a row of %d into %s: shapes do not fit", s.x.Shape(), b.Shape(), len(r), dst.Shape()))
	}
	s.mul(dst, b, r)
}

// TMulTo computes dst = Xᵀ·b (dst is overwritten) through the non-zeros of
// X:
//
//	(Xᵀ·b)_jc = Σ_{i: x_ij ≠ 0} s_i·b_ic.
//
// Each element is one fused multiply-add per term, with i ascending: the
// chain of the dense product MulTo(dst, X, true, b, false) without its
// zero terms, which add nothing, so the result has the dense product's
// bits whenever b is finite, in a third of its multiply-adds at Amazon's
// 35% density. The rows of X go 32 at a time: each row j of dst is
// loaded and stored once per block, and the block's rows with x_ij ≠ 0
// add s_i·b_i to it in between (docs/records/performance.md measures it
// on every kernel path). The rows of dst are split among the workers at
// equal shares of X's non-zeros. It panics with both shapes when they do
// not fit.
func (s *ScaledBinary) TMulTo(dst, b *Dense) {
	if s.x.Rows != b.Rows || dst.Rows != s.x.Cols || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: product of transposed scaled binary %s · %s into %s: shapes do not fit", s.x.Shape(), b.Shape(), dst.Shape()))
	}
	clear(dst.Data)
	m := b.Cols
	if m == 0 {
		return
	}
	// The workers split the rows of dst, at equal shares of X's non-zeros.
	cols := s.x.Cols
	ParallelForRows(s.colStart, m, func(jlo, jhi int) {
		for i0, k := 0, 0; i0 < s.x.Rows; i0, k = i0+scatterRows, k+1 {
			i1 := min(i0+scatterRows, s.x.Rows)
			scatterBlock(dst.Data[jlo*m:jhi*m], m, s.masks[k*cols+jlo:k*cols+jhi], b.Data[i0*m:i1*m], m, m, s.scale[i0:i1])
		}
	})
}

// mul computes dst = X·b plus the row r (none when nil), a slice of
// binarySlice columns at a time; a last slice that is narrower is computed
// with zero columns appended.
func (s *ScaledBinary) mul(dst, b *Dense, r []float64) {
	n, m := dst.Rows, dst.Cols
	if n == 0 || m == 0 {
		return
	}
	// The tables and a narrow last slice are scratch memory (getScratch):
	// the next product, an epoch later, takes them again instead of fresh
	// pages.
	tables := getScratch(s.chunks * 16 * binarySlice)
	defer putScratch(tables)
	var bias [binarySlice]float64
	var narrow []float64
	out := dst
	for c0 := 0; c0 < m; c0 += binarySlice {
		w := min(binarySlice, m-c0)
		if w < binarySlice {
			clear(tables) // the columns past w stay zero
		}
		s.buildTables(tables, b, c0, w)
		clear(bias[:])
		if r != nil {
			copy(bias[:], r[c0:c0+w])
		}
		if w < binarySlice {
			narrow = getScratch(n * binarySlice)
			out = &Dense{Rows: n, Cols: binarySlice, Data: narrow}
		}
		ParallelForRows(s.start, binarySlice, func(lo, hi int) {
			o := out.Data[lo*out.Cols:]
			if out == dst {
				o = o[c0:]
			}
			s.sumRows(o, out.Cols, lo, hi, tables, bias[:])
		})
		if out != dst {
			for i := 0; i < n; i++ {
				copy(dst.Row(i)[c0:c0+w], out.Row(i)[:w])
			}
		}
	}
	putScratch(narrow)
}

// buildTables fills tables with T_c[p] for the columns c0…c0+w−1 of b,
// binarySlice values per entry (zero beyond w): T_c[0] = 0 and T_c[p] =
// T_c[p & (p−1)] + b_{4c + lowest bit of p}. Patterns that select rows past
// the end of b never occur and are left zero.
func (s *ScaledBinary) buildTables(tables []float64, b *Dense, c0, w int) {
	const entry = binarySlice
	ParallelFor(s.chunks, s.chunks*16*entry, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			t := tables[c*16*entry : (c+1)*16*entry]
			clear(t[:entry])
			for p := 1; p < 16; p++ {
				low := p & -p
				k := c*binaryChunk + bitIndex(low)
				e := t[p*entry : (p+1)*entry]
				if k >= b.Rows {
					clear(e)
					continue
				}
				prev, row := t[(p&(p-1))*entry:], b.Row(k)[c0:c0+w]
				for j := range row {
					e[j] = prev[j] + row[j]
				}
				clear(e[w:])
			}
		}
	})
}

// bitIndex returns the index of the single set bit of a 4-bit value.
func bitIndex(bit int) int {
	switch bit {
	case 1:
		return 0
	case 2:
		return 1
	case 4:
		return 2
	}
	return 3
}

// sumRows sets, for the rows lo ≤ i < hi, the binarySlice values at
// o[(i−lo)·ldo:] to fma(s_i, Σ_c T_c[p_ic], bias), the chunks added in
// order starting from zero (those without bits left out).
func (s *ScaledBinary) sumRows(o []float64, ldo, lo, hi int, tables, bias []float64) {
	// Every offset in entries is below chunks·16·binarySlice: the kernels
	// read the tables within this slice.
	tables = tables[:s.chunks*16*binarySlice]
	if binarySumKernel(o, ldo, s.entries, s.start[lo:hi+1], tables, s.scale[lo:hi], bias) {
		return
	}
	const entry = binarySlice
	for i := lo; i < hi; i++ {
		entries := s.entries[s.start[i]:s.start[i+1]]
		row := o[(i-lo)*ldo : (i-lo)*ldo+entry]
		for g := 0; g < entry; g += 8 {
			a := sumEntries8(tables[g:], entries)
			r, b, si := row[g:g+8], bias[g:g+8], s.scale[i]
			r[0], r[1], r[2], r[3] = math.FMA(si, a[0], b[0]), math.FMA(si, a[1], b[1]), math.FMA(si, a[2], b[2]), math.FMA(si, a[3], b[3])
			r[4], r[5], r[6], r[7] = math.FMA(si, a[4], b[4]), math.FMA(si, a[5], b[5]), math.FMA(si, a[6], b[6]), math.FMA(si, a[7], b[7])
		}
	}
}

// sumEntries8 returns the sum of the table entries at the offsets entries,
// in order starting from zero, for the eight columns that start at
// tables[0]. The sums stay in registers over all of the row's entries: a
// function of its own, so that nothing else competes for them.
func sumEntries8(tables []float64, entries []uint32) [8]float64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	for _, e := range entries {
		t := tables[int(e) : int(e)+8]
		a0, a1, a2, a3 = a0+t[0], a1+t[1], a2+t[2], a3+t[3]
		a4, a5, a6, a7 = a4+t[4], a5+t[5], a6+t[6], a7+t[7]
	}
	return [8]float64{a0, a1, a2, a3, a4, a5, a6, a7}
}
