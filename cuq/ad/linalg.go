package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// MatMul returns the matrix product a·b. Gradients: ∂a = g·bᵀ, ∂b = aᵀ·g.
func (t *Tape) MatMul(a, b *Value) *Value {
	if a.Data.Cols != b.Data.Rows {
		panic(fmt.Sprintf("ad.MatMul: shapes %s and %s do not fit", a.Shape(), b.Shape()))
	}
	out := t.AllocUninit(a.Data.Rows, b.Data.Cols)
	tensor.MulTo(out, a.Data, false, b.Data, false)
	return t.record(out, func(g *tensor.Dense) {
		addInto(a, func(dst *tensor.Dense) { tensor.MulTo(dst, g, false, b.Data, true) })
		addInto(b, func(dst *tensor.Dense) { tensor.MulTo(dst, a.Data, true, g, false) })
	}, a, b)
}

// Affine returns x·w + 1·bᵀ, a dense layer with its bias row b (1 × w.Cols)
// added to every row of the product while the row is in cache; b may be
// nil. Gradients: ∂x = g·wᵀ, ∂w = xᵀ·g, ∂b = Σᵢ gᵢ (the column sums of g).
func (t *Tape) Affine(x, w, b *Value) *Value {
	if b == nil {
		return t.MatMul(x, w)
	}
	if x.Data.Cols != w.Data.Rows || b.Data.Rows != 1 || b.Data.Cols != w.Data.Cols {
		panic(fmt.Sprintf("ad.Affine: shapes %s · %s + %s do not fit", x.Shape(), w.Shape(), b.Shape()))
	}
	out := t.AllocUninit(x.Data.Rows, w.Data.Cols)
	tensor.MulAddRowTo(out, x.Data, w.Data, b.Data.Data)
	return t.record(out, func(g *tensor.Dense) {
		addInto(x, func(dst *tensor.Dense) { tensor.MulTo(dst, g, false, w.Data, true) })
		addInto(w, func(dst *tensor.Dense) { tensor.MulTo(dst, x.Data, true, g, false) })
		rowBroadcast(g).reduceInto(gradOf(b), g, 0, 1, 1)
	}, x, w, b)
}

// LeftMulAddRow returns m·x + 1·bᵀ for a constant matrix m (see LeftMul)
// and a bias row b (1 × x.Cols), added to every row of the product while
// the row is in cache; b may be nil. Gradients: ∂x = mᵀ·g, ∂b = Σᵢ gᵢ.
func (t *Tape) LeftMulAddRow(m tensor.Matrix, x, b *Value) *Value {
	if b == nil {
		return t.LeftMul(m, x)
	}
	r, c := m.Dims()
	if c != x.Data.Rows || b.Data.Rows != 1 || b.Data.Cols != x.Data.Cols {
		panic(fmt.Sprintf("ad.LeftMulAddRow: constant %dx%d times %s plus %s: shapes do not fit", r, c, x.Shape(), b.Shape()))
	}
	out := t.AllocUninit(r, x.Data.Cols)
	m.MulAddRowTo(out, x.Data, b.Data.Data)
	return t.recordLeftMul(m, x, b, out)
}

// LeftMulAddRowKnown records m·x + 1·bᵀ as LeftMulAddRow(m, x, b) does
// (b may be nil), with known as its value instead of computing it: known
// must hold what LeftMulAddRow computes for the present values of x and b,
// such as the product of an earlier pass with the same values. known
// itself becomes the value's storage, not a copy (the tape does not take
// it into its pool), so it must not change until the tape is released or
// reset. The gradients are LeftMulAddRow's.
func (t *Tape) LeftMulAddRowKnown(m tensor.Matrix, x, b *Value, known *tensor.Dense) *Value {
	r, c := m.Dims()
	if c != x.Data.Rows || known.Rows != r || known.Cols != x.Data.Cols || (b != nil && (b.Data.Rows != 1 || b.Data.Cols != x.Data.Cols)) {
		bias := "no bias"
		if b != nil {
			bias = b.Shape()
		}
		panic(fmt.Sprintf("ad.LeftMulAddRowKnown: constant %dx%d times %s plus %s as %s: shapes do not fit", r, c, x.Shape(), bias, known.Shape()))
	}
	return t.recordLeftMul(m, x, b, known)
}

// recordLeftMul records out = m·x + 1·bᵀ (b may be nil) with its
// gradients ∂x = mᵀ·g and ∂b = Σᵢ gᵢ.
func (t *Tape) recordLeftMul(m tensor.Matrix, x, b *Value, out *tensor.Dense) *Value {
	if b == nil {
		return t.record(out, func(g *tensor.Dense) {
			addInto(x, func(dst *tensor.Dense) { m.TMulTo(dst, g) })
		}, x)
	}
	return t.record(out, func(g *tensor.Dense) {
		addInto(x, func(dst *tensor.Dense) { m.TMulTo(dst, g) })
		rowBroadcast(g).reduceInto(gradOf(b), g, 0, 1, 1)
	}, x, b)
}

// rowBroadcast describes a 1 × g.Cols row broadcast over the rows of g, so
// that its reduceInto with row stride 0 adds the column sums of g into the
// row's gradient (the bias gradient of Affine and LeftMulAddRow).
func rowBroadcast(g *tensor.Dense) broadcast {
	return broadcast{rows: g.Rows, cols: g.Cols}
}

// Transpose returns xᵀ. Gradient: ∂x = gᵀ.
func (t *Tape) Transpose(x *Value) *Value {
	return t.record(x.Data.T(), func(g *tensor.Dense) {
		gradOf(x).AddScaled(1, g.T())
	}, x)
}

// LeftMul returns m·x for a constant matrix m (dense or CSR: node features,
// a normalised adjacency, mixture weights). Gradient: ∂x = mᵀ·g, computed
// without forming mᵀ.
func (t *Tape) LeftMul(m tensor.Matrix, x *Value) *Value {
	r, c := m.Dims()
	if c != x.Data.Rows {
		panic(fmt.Sprintf("ad.LeftMul: constant %dx%d times %s: shapes do not fit", r, c, x.Shape()))
	}
	out := t.AllocUninit(r, x.Data.Cols)
	m.MulTo(out, x.Data)
	return t.recordLeftMul(m, x, nil, out)
}

// LeftMulPick returns the column of the elements (m·x)ᵢ,cols[i], one per
// row of the constant m: Pick(LeftMul(m, x), cols) with the same bits
// (tensor.CSR.MulPickTo), without the rest of the product. Gradient, as
// theirs: ∂x = mᵀ·G, G zero but for gᵢ at (i, cols[i]). With a non-nil memo
// the product mᵀ·G is computed only when m, cols or g differ from those of
// the memo's last backward pass; otherwise the memo gives it back.
func (t *Tape) LeftMulPick(m *tensor.CSR, x *Value, cols []int, memo *ProductMemo) *Value {
	if m.Cols != x.Data.Rows || len(cols) != m.Rows {
		panic(fmt.Sprintf("ad.LeftMulPick: constant %s times %s picked by %d columns: shapes do not fit", m.Shape(), x.Shape(), len(cols)))
	}
	out := t.AllocUninit(m.Rows, 1)
	m.MulPickTo(out.Data, x.Data, cols)
	return t.record(out, func(g *tensor.Dense) {
		addInto(x, func(dst *tensor.Dense) {
			if memo.holds(m, cols, g.Data, dst) {
				copy(dst.Data, memo.grad.Data)
				return
			}
			c := x.Data.Cols
			picked := tensor.New(m.Rows, c)
			for i, j := range cols {
				picked.Data[i*c+j] += g.Data[i]
			}
			m.TMulTo(dst, picked)
			memo.keep(m, cols, g.Data, dst)
		})
	}, x)
}

// A ProductMemo keeps the gradient mᵀ·G that a LeftMulPick computed in its
// backward pass, with the m, columns and output gradient it came from, for
// the next backward passes to take while those stay the same to the bit. A
// loss whose gradient reaches m·x through sums alone gets the same output
// gradient at every step (LOP-GPN's mixture loss: ones, and the entropy
// weight), so its training computes the product once. m is compared by
// identity, as a constant: a matrix changed in place needs a fresh memo.
// The zero value is ready to use; it is not safe for concurrent use.
type ProductMemo struct {
	m    *tensor.CSR
	cols []int
	g    []float64
	grad *tensor.Dense
}

// holds reports whether the kept gradient is that of m, cols and g, of
// dst's shape; a nil memo holds none.
func (p *ProductMemo) holds(m *tensor.CSR, cols []int, g []float64, dst *tensor.Dense) bool {
	return p != nil && p.m == m && p.grad != nil && p.grad.SameShape(dst) &&
		slices.Equal(p.cols, cols) && tensor.SameBits(p.g, g)
}

// keep remembers grad, the gradient of m, cols and g; a nil memo keeps
// nothing.
func (p *ProductMemo) keep(m *tensor.CSR, cols []int, g []float64, grad *tensor.Dense) {
	if p == nil {
		return
	}
	p.m, p.cols, p.g = m, append(p.cols[:0], cols...), append(p.g[:0], g...)
	if p.grad == nil || !p.grad.SameShape(grad) {
		p.grad = tensor.New(grad.Rows, grad.Cols)
	}
	copy(p.grad.Data, grad.Data)
}

// Dropout zeroes each element of x with probability p and scales the others
// by 1/(1−p) (inverted dropout), drawing from rng. On an evaluation tape, or
// with p = 0, it returns x unchanged. Each 64-bit draw decides two elements
// (32 random bits each, so p is resolved to 2⁻³²): draw k the elements 2k
// and 2k+1, in order. When rng is a *rand.PCG the draws are made on all
// cores, each core jumping ahead to its own part of the generator's
// sequence (a linear congruential generator reaches its n-th state in
// O(log n) steps), with the same numbers and the same final state of rng
// as one core drawing them in turn; any other source is drawn from in
// turn.
func (t *Tape) Dropout(x *Value, p float64, rng rand.Source) *Value {
	if !t.recording || p == 0 {
		return x
	}
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("ad.Dropout: probability %v not in [0, 1)", p))
	}
	d := dropout{scale: 1 / (1 - p), threshold: uint32(math.Min(p*(1<<32), math.MaxUint32))}
	d.keep = t.allocMask(len(x.Data.Data))
	out := t.AllocUninit(x.Data.Rows, x.Data.Cols)
	n := len(d.keep)
	draws := (n + 1) / 2
	if src, ok := rng.(*rand.PCG); ok {
		s := loadPCG(src)
		tensor.ParallelFor(draws, 8*n, func(lo, hi int) {
			w := s
			w.advance(uint64(lo))
			d.apply(out.Data, x.Data.Data, lo, hi, w.fill)
		})
		s.advance(uint64(draws))
		s.store(src)
	} else {
		d.apply(out.Data, x.Data.Data, 0, draws, func(halves []uint32) {
			for k := 0; k+1 < len(halves); k += 2 {
				v := rng.Uint64()
				halves[k], halves[k+1] = uint32(v), uint32(v>>32)
			}
		})
	}
	return t.record(out, func(g *tensor.Dense) {
		gx, gd := gradOf(x).Data[:n], g.Data[:n]
		tensor.ParallelFor(n, n, func(lo, hi int) {
			tensor.AddDropoutGrad(gx[lo:hi], gd[lo:hi], d.keep[lo:hi], d.scale)
		})
	}, x)
}

// dropout holds what a Dropout needs for its elements: the scale of the
// kept ones, the threshold a draw's 32 bits must reach to keep its element,
// and the decisions, 1 for a kept element and 0 for a dropped one.
type dropout struct {
	scale     float64
	threshold uint32
	keep      []uint8
}

// apply decides the elements of the draws lo ≤ k < hi, a block at a time
// whose 32-bit halves fill writes (see pcg.fill), and writes the kept
// elements scaled into od (tensor.Dropout).
func (d *dropout) apply(od, xd []float64, lo, hi int, fill func(halves []uint32)) {
	var buf [1024]uint32
	for b := 2 * lo; b < 2*hi; b += len(buf) {
		halves := buf[:min(len(buf), 2*hi-b)]
		fill(halves)
		e := min(b+len(halves), len(xd))
		tensor.Dropout(od[b:e], xd[b:e], d.keep[b:e], halves, d.threshold, d.scale)
	}
}

// SpMMValues returns the sparse-dense product S·x where S has the sparsity
// pattern of p (row pointer and column indices) and the variable values
// v (E×1, one per stored entry, in CSR order):
//
//	out_i = Σ_{k ∈ row i} v_k · x_{p.Ind[k]}
//
// This is message passing with learned edge weights (graph attention).
// Gradients: ∂v_k = ⟨g_i, x_{p.Ind[k]}⟩ and ∂x_j = Σ_{k: p.Ind[k]=j} v_k g_i.
func (t *Tape) SpMMValues(p *tensor.CSR, v, x *Value) *Value {
	if v.Data.Rows != p.NNZ() || v.Data.Cols != 1 || p.Cols != x.Data.Rows {
		panic(fmt.Sprintf("ad.SpMMValues: pattern %s with %d entries, values %s, input %s: shapes do not fit", p.Shape(), p.NNZ(), v.Shape(), x.Shape()))
	}
	f := x.Data.Cols
	out := t.AllocUninit(p.Rows, f)
	p.MulValuesTo(out, v.Data.Data, x.Data)
	return t.record(out, func(g *tensor.Dense) {
		if gv := gradOf(v); gv != nil {
			tensor.ParallelForRows(p.Ptr, f, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					gi := g.Row(i)
					k, end := p.Ptr[i], p.Ptr[i+1]
					// four entries at a time: independent sums hide the
					// latency of the additions
					for ; k+4 <= end; k += 4 {
						x0, x1, x2, x3 := x.Data.Row(p.Ind[k]), x.Data.Row(p.Ind[k+1]), x.Data.Row(p.Ind[k+2]), x.Data.Row(p.Ind[k+3])
						var d0, d1, d2, d3 float64
						for j, gij := range gi {
							d0 += float64(gij * x0[j])
							d1 += float64(gij * x1[j])
							d2 += float64(gij * x2[j])
							d3 += float64(gij * x3[j])
						}
						gv.Data[k] += d0
						gv.Data[k+1] += d1
						gv.Data[k+2] += d2
						gv.Data[k+3] += d3
					}
					for ; k < end; k++ {
						xr := x.Data.Row(p.Ind[k])
						d := 0.0
						for j, gij := range gi {
							d += float64(gij * xr[j])
						}
						gv.Data[k] += d
					}
				}
			})
		}
		addInto(x, func(dst *tensor.Dense) { p.TMulValuesTo(dst, v.Data.Data, g) })
	}, v, x)
}
