package ad

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// GatherRows returns the len(idx)×C matrix whose row k is row idx[k] of x.
// Gradient: scatter-add of g into the gathered rows.
func (t *Tape) GatherRows(x *Value, idx []int) *Value {
	c := x.Data.Cols
	for k, i := range idx {
		if i < 0 || i >= x.Data.Rows {
			panic(fmt.Sprintf("ad.GatherRows: index %d (position %d) out of range for %s", i, k, x.Shape()))
		}
	}
	out := t.AllocUninit(len(idx), c)
	tensor.ParallelFor(len(idx), len(idx)*c, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(out.Row(k), x.Data.Row(idx[k]))
		}
	})
	return t.record(out, func(g *tensor.Dense) {
		scatterAdd(gradOf(x), g, idx)
	}, x)
}

// scatterAdd adds row k of src into row idx[k] of dst, for every k.
func scatterAdd(dst, src *tensor.Dense, idx []int) {
	for k, i := range idx {
		addRow(dst.Row(i), src.Row(k))
	}
}

// gatherAdd adds row idx[k] of src into row k of dst, for every k: the
// transpose of scatterAdd.
func gatherAdd(dst, src *tensor.Dense, idx []int) {
	for k, i := range idx {
		addRow(dst.Row(k), src.Row(i))
	}
}

// addRow adds src to dst elementwise.
func addRow(dst, src []float64) {
	for j, v := range src {
		dst[j] += v
	}
}

// SliceCols returns the columns from..to−1 of x, a copy of shape
// rows × (to−from); x itself when the range covers all its columns.
// Gradient: g added into those columns.
func (t *Tape) SliceCols(x *Value, from, to int) *Value {
	r, c := x.Data.Rows, x.Data.Cols
	if from < 0 || to < from || to > c {
		panic(fmt.Sprintf("ad.SliceCols: columns [%d, %d) out of range for %s", from, to, x.Shape()))
	}
	if from == 0 && to == c {
		return x
	}
	w := to - from
	out := t.AllocUninit(r, w)
	for i := 0; i < r; i++ {
		copy(out.Row(i), x.Data.Row(i)[from:to])
	}
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x)
		for i := 0; i < r; i++ {
			row := gx.Row(i)[from:to]
			for j, v := range g.Row(i) {
				row[j] += v
			}
		}
	}, x)
}

// ConcatCols returns the matrices xs side by side: all have the same number
// of rows, and the columns of xs[k] follow those of xs[k−1]. A single input
// is returned as is. Gradient: each input receives its block of columns of g.
func (t *Tape) ConcatCols(xs ...*Value) *Value {
	if len(xs) == 0 {
		panic("ad.ConcatCols: no inputs")
	}
	if len(xs) == 1 {
		return xs[0]
	}
	r, c := xs[0].Data.Rows, 0
	for _, x := range xs {
		if x.Data.Rows != r {
			panic(fmt.Sprintf("ad.ConcatCols: shapes %s and %s have different row counts", xs[0].Shape(), x.Shape()))
		}
		c += x.Data.Cols
	}
	out := t.AllocUninit(r, c)
	for i := 0; i < r; i++ {
		row := out.Row(i)
		for _, x := range xs {
			row = row[copy(row, x.Data.Row(i)):]
		}
	}
	return t.record(out, func(g *tensor.Dense) {
		from := 0
		for _, x := range xs {
			w := x.Data.Cols
			if gx := gradOf(x); gx != nil {
				for i := 0; i < r; i++ {
					row := gx.Row(i)
					for j, v := range g.Row(i)[from : from+w] {
						row[j] += v
					}
				}
			}
			from += w
		}
	}, xs...)
}

// ScatterAddRows returns the n×C matrix out with out_i = Σ_{k: idx[k]=i} x_k,
// the per-destination sum of the rows of x (len(idx) = rows of x).
// Gradient: ∂x_k = g_{idx[k]}.
func (t *Tape) ScatterAddRows(x *Value, idx []int, n int) *Value {
	if len(idx) != x.Data.Rows {
		panic(fmt.Sprintf("ad.ScatterAddRows: %d indices for %s", len(idx), x.Shape()))
	}
	for k, i := range idx {
		if i < 0 || i >= n {
			panic(fmt.Sprintf("ad.ScatterAddRows: index %d (position %d) out of range [0,%d)", i, k, n))
		}
	}
	out := t.Alloc(n, x.Data.Cols)
	scatterAdd(out, x.Data, idx)
	return t.record(out, func(g *tensor.Dense) {
		gatherAdd(gradOf(x), g, idx)
	}, x)
}

// Pick returns the N×1 column out_i = x[i, cols[i]] (for instance the
// log-probability or pseudo-count of each node's label).
func (t *Tape) Pick(x *Value, cols []int) *Value {
	if len(cols) != x.Data.Rows {
		panic(fmt.Sprintf("ad.Pick: %d column indices for %s", len(cols), x.Shape()))
	}
	c := x.Data.Cols
	for i, j := range cols {
		if j < 0 || j >= c {
			panic(fmt.Sprintf("ad.Pick: column %d (row %d) out of range for %s", j, i, x.Shape()))
		}
	}
	out := t.AllocUninit(len(cols), 1)
	for i, j := range cols {
		out.Data[i] = x.Data.Data[i*c+j]
	}
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x).Data
		for i, j := range cols {
			gx[i*c+j] += g.Data[i]
		}
	}, x)
}

// SegmentSoftmax normalises the E×1 scores e within segments: the entries
// ptr[s]..ptr[s+1]−1 form segment s, and out_k = exp(e_k − m_s) / Σ_{l∈s}
// exp(e_l − m_s) with m_s the segment maximum. With edges sorted by
// destination (CSR order) this is the attention softmax over each node's
// in-edges. Gradient: ∂e_k = out_k (g_k − Σ_{l∈s} out_l g_l).
func (t *Tape) SegmentSoftmax(e *Value, ptr []int) *Value {
	if e.Data.Cols != 1 || len(ptr) == 0 || ptr[0] != 0 || ptr[len(ptr)-1] != e.Data.Rows {
		panic(fmt.Sprintf("ad.SegmentSoftmax: scores %s do not match a segment pointer of length %d", e.Shape(), len(ptr)))
	}
	for s := 0; s+1 < len(ptr); s++ {
		if ptr[s+1] < ptr[s] {
			panic(fmt.Sprintf("ad.SegmentSoftmax: segment pointer decreases at %d", s))
		}
	}
	out := t.AllocUninit(e.Data.Rows, 1)
	ed, od := e.Data.Data, out.Data
	// Segments are independent: they run in parallel, each in order.
	tensor.ParallelForRows(ptr, 8, func(lo, hi int) {
		for s0 := lo; s0 < hi; {
			s1 := s0 + 1
			for s1 < hi && ptr[s1+1]-ptr[s0] <= softmaxBlock {
				s1++
			}
			segmentSoftmax(od, ed, ptr[s0:s1+1])
			s0 = s1
		}
	})
	return t.record(out, func(g *tensor.Dense) {
		ge, gd := gradOf(e).Data, g.Data
		tensor.ParallelForRows(ptr, 4, func(lo, hi int) {
			for s := lo; s < hi; s++ {
				a, b := ptr[s], ptr[s+1]
				dot := 0.0
				for k := a; k < b; k++ {
					dot += float64(od[k] * gd[k])
				}
				for k := a; k < b; k++ {
					ge[k] += float64(od[k] * (gd[k] - dot))
				}
			}
		})
	}, e)
}

// segmentSoftmax sets od to the softmax of ed within each of the segments
// ptr[s]..ptr[s+1]−1 of the block ptr covers: the maximum subtracted, the
// exponentials, the division by their sum in order. The exponentials of
// the whole block are one call, whose vector kernel then covers the short
// segments of a sparse graph too (a CiteSeer node has four in-edges on
// average, which a call per segment would leave to the scalar math.Exp);
// they are math.Exp's bits either way.
func segmentSoftmax(od, ed []float64, ptr []int) {
	for s := 0; s+1 < len(ptr); s++ {
		a, b := ptr[s], ptr[s+1]
		m := math.Inf(-1)
		for _, v := range ed[a:b] {
			m = maxFloat(m, v)
		}
		for k := a; k < b; k++ {
			od[k] = ed[k] - m
		}
	}
	block := od[ptr[0]:ptr[len(ptr)-1]]
	tensor.MathExp(block, block)
	for s := 0; s+1 < len(ptr); s++ {
		a, b := ptr[s], ptr[s+1]
		sum := 0.0
		for _, v := range od[a:b] {
			sum += v
		}
		for k := a; k < b; k++ {
			od[k] /= sum
		}
	}
}

// softmaxBlock is the number of entries SegmentSoftmax hands to
// segmentSoftmax at once (more when one segment is longer): a block of
// 512 scores (4 KB) stays in L1 cache from the subtraction of its maxima
// to the division by its sums.
const softmaxBlock = 512

// maxFloat is math.Max (+Inf if either is +Inf, else NaN if either is
// NaN; +0 over −0), written out so
// that it inlines in the loops over every edge of an attention graph and
// every row of a log-softmax.
func maxFloat(x, y float64) float64 {
	switch {
	case x > y:
		return x
	case y > x:
		return y
	case x == y:
		if x == 0 && math.Signbit(x) {
			return y
		}
		return x
	case math.IsInf(x, 1) || math.IsInf(y, 1): // against a NaN
		return math.Inf(1)
	}
	return math.NaN()
}
