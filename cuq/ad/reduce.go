package ad

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Sum returns the sum of all elements as a 1×1 value.
func (t *Tape) Sum(x *Value) *Value {
	out := tensor.Scalar(x.Data.Sum())
	return t.record(out, func(g *tensor.Dense) {
		gx, s := gradOf(x).Data, g.Data[0]
		for i := range gx {
			gx[i] += s
		}
	}, x)
}

// Mean returns the mean of all elements as a 1×1 value.
func (t *Tape) Mean(x *Value) *Value {
	n := len(x.Data.Data)
	return t.Scale(t.Sum(x), 1/float64(n))
}

// MeanRows returns the N×1 column of row means.
func (t *Tape) MeanRows(x *Value) *Value {
	return t.Scale(t.SumRows(x), 1/float64(x.Data.Cols))
}

// Max returns the largest element as a 1×1 value; the gradient flows to its
// first occurrence.
func (t *Tape) Max(x *Value) *Value {
	best := 0
	for i, v := range x.Data.Data {
		if v > x.Data.Data[best] {
			best = i
		}
	}
	out := tensor.Scalar(x.Data.Data[best])
	return t.record(out, func(g *tensor.Dense) {
		gradOf(x).Data[best] += g.Data[0]
	}, x)
}

// LogSumExp returns ln Σ exp(x) over all elements as a 1×1 value, computed
// with the maximum subtracted; its gradient is the softmax of all elements.
func (t *Tape) LogSumExp(x *Value) *Value {
	buf := make([]float64, len(x.Data.Data))
	l := logSumExp(x.Data.Data, buf)
	return t.record(tensor.Scalar(l), func(g *tensor.Dense) {
		gx := gradOf(x).Data
		expShifted(buf, x.Data.Data, l)
		for i, e := range buf {
			gx[i] += float64(g.Data[0] * e)
		}
	}, x)
}

// SumRows returns the N×1 column of row sums, out_i = Σ_j x_ij.
func (t *Tape) SumRows(x *Value) *Value {
	r, c := x.Data.Rows, x.Data.Cols
	out := t.AllocUninit(r, 1)
	rows(r, c, func(i int) {
		s := 0.0
		for _, v := range x.Data.Row(i) {
			s += v
		}
		out.Data[i] = s
	})
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x).Data
		rows(r, c, func(i int) {
			gi := g.Data[i]
			row := gx[i*c : (i+1)*c]
			for j := range row {
				row[j] += gi
			}
		})
	}, x)
}

// SumCols returns the 1×C row of column sums, out_j = Σ_i x_ij.
func (t *Tape) SumCols(x *Value) *Value {
	r, c := x.Data.Rows, x.Data.Cols
	out := t.Alloc(1, c)
	for i := 0; i < r; i++ {
		for j, v := range x.Data.Row(i) {
			out.Data[j] += v
		}
	}
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x).Data
		for i := 0; i < r; i++ {
			row := gx[i*c : (i+1)*c]
			for j := range row {
				row[j] += g.Data[j]
			}
		}
	}, x)
}

// MaxRows returns the N×1 column of row maxima; the gradient flows to the
// first maximal element of each row.
func (t *Tape) MaxRows(x *Value) *Value {
	r, c := x.Data.Rows, x.Data.Cols
	out := t.AllocUninit(r, 1)
	arg := make([]int, r)
	for i := 0; i < r; i++ {
		row := x.Data.Row(i)
		best := 0
		for j := 1; j < c; j++ {
			if row[j] > row[best] {
				best = j
			}
		}
		arg[i] = best
		out.Data[i] = row[best]
	}
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x).Data
		for i := 0; i < r; i++ {
			gx[i*c+arg[i]] += g.Data[i]
		}
	}, x)
}

// LogSumExpRows returns the N×1 column out_i = ln Σ_j exp(x_ij), computed
// with the row maximum subtracted. Its gradient is the row softmax.
func (t *Tape) LogSumExpRows(x *Value) *Value {
	r, c := x.Data.Rows, x.Data.Cols
	out := t.AllocUninit(r, 1)
	rowsWithBuffer(r, c, func(i int, buf []float64) { out.Data[i] = logSumExp(x.Data.Row(i), buf) })
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x).Data
		rowsWithBuffer(r, c, func(i int, buf []float64) {
			expShifted(buf, x.Data.Row(i), out.Data[i])
			for j, e := range buf {
				gx[i*c+j] += float64(g.Data[i] * e)
			}
		})
	}, x)
}

// LogSoftmax returns x_ij − ln Σ_k exp(x_ik) row by row.
func (t *Tape) LogSoftmax(x *Value) *Value {
	r, c := x.Data.Rows, x.Data.Cols
	out := t.AllocUninit(r, c)
	rows(r, 8*c, func(i int) {
		row, o := x.Data.Row(i), out.Row(i)
		l := logSumExp(row, o)
		for j, v := range row {
			o[j] = v - l
		}
	})
	return t.record(out, func(g *tensor.Dense) {
		gx := gradOf(x).Data
		rowsWithBuffer(r, c, func(i int, buf []float64) {
			gr := g.Row(i)
			s := 0.0
			for _, v := range gr {
				s += v
			}
			tensor.Exp(buf, out.Row(i))
			for j, p := range buf {
				gx[i*c+j] += gr[j] - float64(p*s)
			}
		})
	}, x)
}

// logSumExp returns log Σⱼ exp(rowⱼ), computed as m + log Σⱼ exp(rowⱼ − m)
// with m the row's maximum, so that no term overflows. buf, as long as
// row (and possibly the row's output), receives the terms exp(rowⱼ − m).
func logSumExp(row, buf []float64) float64 {
	m := math.Inf(-1)
	for _, v := range row {
		m = maxFloat(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	expShifted(buf, row, m)
	s := 0.0
	for _, e := range buf[:len(row)] {
		s += e
	}
	return m + math.Log(s)
}

// expShifted sets dst[j] = exp(x[j] − shift) for j < len(x); dst may be x.
func expShifted(dst, x []float64, shift float64) {
	for j, v := range x {
		dst[j] = v - shift
	}
	tensor.Exp(dst[:len(x)], dst[:len(x)])
}

// rowsWithBuffer is rows for a row-wise op that needs a scratch row of c
// elements: f(i, buf) gets one per worker.
func rowsWithBuffer(r, c int, f func(i int, buf []float64)) {
	tensor.ParallelFor(r, r*8*c, func(lo, hi int) {
		buf := make([]float64, c)
		for i := lo; i < hi; i++ {
			f(i, buf)
		}
	})
}

// rows calls f(i) for every row i < r of a row-wise op, in parallel when
// the cost per row (about cost multiply-adds) warrants it; rows are
// independent, so the results do not depend on the split.
func rows(r, cost int, f func(i int)) {
	tensor.ParallelFor(r, r*cost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}
