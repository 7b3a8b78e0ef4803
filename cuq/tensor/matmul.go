package tensor

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MulTo computes dst = op(a)·op(b), where op transposes its operand when the
// matching flag is set. dst is overwritten. It panics with the three shapes
// when they do not fit. The product runs on gonum's parallel pure-Go BLAS.
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
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	blas64.Gemm(ta, tb, 1, general(a), general(b), 0, general(dst))
}

// Mul returns a·b.
func Mul(a, b *Dense) *Dense {
	dst := New(a.Rows, b.Cols)
	MulTo(dst, a, false, b, false)
	return dst
}

// MulTo computes dst = d·b, making Dense a Matrix.
func (d *Dense) MulTo(dst, b *Dense) { MulTo(dst, d, false, b, false) }

// TMulTo computes dst = dᵀ·b.
func (d *Dense) TMulTo(dst, b *Dense) { MulTo(dst, d, true, b, false) }

func general(d *Dense) blas64.General {
	stride := d.Cols
	if stride == 0 {
		stride = 1
	}
	return blas64.General{Rows: d.Rows, Cols: d.Cols, Stride: stride, Data: d.Data}
}

func tMark(t bool) string {
	if t {
		return "ᵀ"
	}
	return ""
}
