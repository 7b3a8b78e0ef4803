package ad

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// broadcast describes how the operands of a binary op map onto the output:
// each dimension of an operand either equals the output's or is 1.
type broadcast struct {
	rows, cols         int
	aRow, aCol         int // strides of a (0 where broadcast)
	bRow, bCol         int
	sameShape, bScalar bool
}

func newBroadcast(op string, a, b *tensor.Dense) broadcast {
	dim := func(x, y int) (int, bool) {
		switch {
		case x == y:
			return x, true
		case x == 1:
			return y, true
		case y == 1:
			return x, true
		}
		return 0, false
	}
	r, okR := dim(a.Rows, b.Rows)
	c, okC := dim(a.Cols, b.Cols)
	if !okR || !okC {
		panic(fmt.Sprintf("ad.%s: shapes %s and %s do not broadcast", op, a.Shape(), b.Shape()))
	}
	stride := func(d *tensor.Dense) (int, int) {
		rs, cs := d.Cols, 1
		if d.Rows == 1 {
			rs = 0
		}
		if d.Cols == 1 {
			cs = 0
		}
		return rs, cs
	}
	bc := broadcast{rows: r, cols: c}
	bc.aRow, bc.aCol = stride(a)
	bc.bRow, bc.bCol = stride(b)
	bc.sameShape = a.Rows == r && a.Cols == c && b.Rows == r && b.Cols == c
	bc.bScalar = a.Rows == r && a.Cols == c && b.Rows == 1 && b.Cols == 1
	return bc
}

// each calls f(o, ia, ib) for every output index o and the operand indices.
func (bc broadcast) each(f func(o, ia, ib int)) {
	o := 0
	for i := 0; i < bc.rows; i++ {
		ia, ib := i*bc.aRow, i*bc.bRow
		for j := 0; j < bc.cols; j++ {
			f(o, ia+j*bc.aCol, ib+j*bc.bCol)
			o++
		}
	}
}

// Add returns a + b with broadcasting: each dimension of a and b must be
// equal or 1 (a 1×C row adds to every row, an N×1 column to every column, a
// 1×1 scalar everywhere).
func (t *Tape) Add(a, b *Value) *Value { return t.addSub("Add", a, b, 1) }

// Sub returns a − b with broadcasting (see Add).
func (t *Tape) Sub(a, b *Value) *Value { return t.addSub("Sub", a, b, -1) }

// addSub computes a + sign·b. Its gradients need no operand values: g
// summed over the broadcast dimensions of each operand.
func (t *Tape) addSub(op string, a, b *Value, sign float64) *Value {
	bc := newBroadcast(op, a.Data, b.Data)
	out := t.AllocUninit(bc.rows, bc.cols)
	ad, bd, od := a.Data.Data, b.Data.Data, out.Data
	tensor.ParallelFor(bc.rows, len(od), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ra, rb, ro := i*bc.aRow, i*bc.bRow, od[i*bc.cols:(i+1)*bc.cols]
			if bc.aCol == 1 && bc.bCol == 1 { // both rows whole, as a bias added to every row
				ar, br := ad[ra:ra+len(ro)], bd[rb:rb+len(ro)]
				for j := range ro {
					ro[j] = ar[j] + float64(sign*br[j])
				}
				continue
			}
			for j := range ro {
				ro[j] = ad[ra+j*bc.aCol] + float64(sign*bd[rb+j*bc.bCol])
			}
		}
	})
	return t.record(out, func(g *tensor.Dense) {
		bc.reduceInto(gradOf(a), g, bc.aRow, bc.aCol, 1)
		bc.reduceInto(gradOf(b), g, bc.bRow, bc.bCol, sign)
	}, a, b)
}

// reduceInto adds s·g into dst, summing over the dimensions where dst is
// broadcast (stride 0). dst may be nil.
func (bc broadcast) reduceInto(dst, g *tensor.Dense, rowStride, colStride int, s float64) {
	if dst == nil {
		return
	}
	dd := dst.Data
	for i := 0; i < bc.rows; i++ {
		r, gr := i*rowStride, g.Data[i*bc.cols:(i+1)*bc.cols]
		if colStride == 1 {
			row := dd[r : r+bc.cols]
			for j, v := range gr {
				row[j] += float64(s * v)
			}
			continue
		}
		sum := 0.0
		for _, v := range gr {
			sum += v
		}
		dd[r] += float64(s * sum)
	}
}

// Mul returns the elementwise product a ⊙ b with broadcasting (see Add).
func (t *Tape) Mul(a, b *Value) *Value {
	return t.binary("Mul", a, b,
		func(x, y float64) float64 { return x * y },
		func(x, y, g float64) (float64, float64) { return g * y, g * x })
}

// Div returns the elementwise quotient a / b with broadcasting (see Add).
func (t *Tape) Div(a, b *Value) *Value {
	return t.binary("Div", a, b,
		func(x, y float64) float64 { return x / y },
		func(x, y, g float64) (float64, float64) { return g / y, -g * x / (y * y) })
}

func (t *Tape) binary(op string, a, b *Value, f func(x, y float64) float64, df func(x, y, g float64) (float64, float64)) *Value {
	bc := newBroadcast(op, a.Data, b.Data)
	out := t.AllocUninit(bc.rows, bc.cols)
	ad, bd, od := a.Data.Data, b.Data.Data, out.Data
	switch {
	case bc.sameShape:
		for i := range od {
			od[i] = f(ad[i], bd[i])
		}
	case bc.bScalar:
		y := bd[0]
		for i := range od {
			od[i] = f(ad[i], y)
		}
	default:
		bc.each(func(o, ia, ib int) { od[o] = f(ad[ia], bd[ib]) })
	}
	return t.record(out, func(g *tensor.Dense) {
		ga, gb := gradOf(a), gradOf(b)
		gd := g.Data
		bc.each(func(o, ia, ib int) {
			da, db := df(ad[ia], bd[ib], gd[o])
			if ga != nil {
				ga.Data[ia] += da
			}
			if gb != nil {
				gb.Data[ib] += db
			}
		})
	}, a, b)
}

// Scale returns c·x for a constant c.
func (t *Tape) Scale(x *Value, c float64) *Value {
	return t.unary(x, func(v float64) float64 { return c * v }, func(v, y float64) float64 { return c })
}

// AddConst returns x + c for a constant c.
func (t *Tape) AddConst(x *Value, c float64) *Value {
	return t.unary(x, func(v float64) float64 { return v + c }, func(v, y float64) float64 { return 1 })
}

// Neg returns −x.
func (t *Tape) Neg(x *Value) *Value { return t.Scale(x, -1) }

// Exp returns eˣ elementwise.
func (t *Tape) Exp(x *Value) *Value {
	return t.chunked(x, 2, tensor.Exp, 1, func(gx, gd, _, od []float64) {
		for i, y := range od {
			gx[i] += float64(gd[i] * y)
		}
	})
}

// Log returns ln x elementwise.
func (t *Tape) Log(x *Value) *Value {
	return t.unary(x, math.Log, func(v, y float64) float64 { return 1 / v })
}

// Log1p returns ln(1 + x) elementwise.
func (t *Tape) Log1p(x *Value) *Value {
	return t.unary(x, math.Log1p, func(v, y float64) float64 { return 1 / (1 + v) })
}

// Softplus returns ln(1 + eˣ) elementwise, computed stably; its derivative
// is the logistic sigmoid.
func (t *Tape) Softplus(x *Value) *Value {
	return t.unary(x, Softplus, func(v, y float64) float64 { return Sigmoid(v) })
}

// Sqrt returns √x elementwise.
func (t *Tape) Sqrt(x *Value) *Value {
	return t.unary(x, math.Sqrt, func(v, y float64) float64 { return 0.5 / y })
}

// Pow returns xᵖ elementwise for a constant exponent p.
func (t *Tape) Pow(x *Value, p float64) *Value {
	return t.unary(x, func(v float64) float64 { return math.Pow(v, p) },
		func(v, y float64) float64 { return p * math.Pow(v, p-1) })
}

// Abs returns |x| elementwise (subgradient 0 at 0).
func (t *Tape) Abs(x *Value) *Value {
	return t.unary(x, math.Abs, func(v, y float64) float64 {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	})
}

// Clamp limits x to [lo, hi] elementwise; the gradient is 1 strictly inside
// the interval and 0 where the bound is active, as torch.clamp.
func (t *Tape) Clamp(x *Value, lo, hi float64) *Value {
	return t.unary(x, func(v float64) float64 {
		switch {
		case v < lo:
			return lo
		case v > hi:
			return hi
		}
		return v
	},
		func(v, y float64) float64 {
			if v < lo || v > hi {
				return 0
			}
			return 1
		})
}

// ReLU returns max(x, 0) elementwise (NaN stays NaN, as in torch). Its
// loops are tensor.ReLU and tensor.AddReLUGrad, vector kernels where the
// processor has them: activations run over every hidden feature of every
// node.
func (t *Tape) ReLU(x *Value) *Value {
	return t.chunked(x, 1, tensor.ReLU, 1, func(gx, gd, xd, _ []float64) {
		tensor.AddReLUGrad(gx, gd, xd)
	})
}

// ELU returns x for x > 0 and eˣ − 1 otherwise (α = 1; math.Expm1's bits,
// see tensor.ELU); its derivative is 1 and y + 1. Like ReLU, its loops are
// written out.
func (t *Tape) ELU(x *Value) *Value {
	return t.chunked(x, 8, tensor.ELU, 2, func(gx, gd, xd, od []float64) {
		for i, v := range xd {
			d := gd[i]
			if v <= 0 {
				d *= od[i] + 1
			}
			gx[i] += d
		}
	})
}

// GELU returns x·Φ(x) = ½x(1 + erf(x/√2)) elementwise, with Φ the
// standard normal distribution function (the exact GELU of Hendrycks and
// Gimpel, torch's default); its derivative is Φ(x) + x·φ(x), with φ the
// standard normal density.
// A recording tape keeps Φ(x) from the forward pass for the backward one,
// so that erf is computed once per element.
func (t *Tape) GELU(x *Value) *Value {
	out := t.AllocUninit(x.Data.Rows, x.Data.Cols)
	var cdf []float64
	if t.recording {
		cdf = t.AllocUninit(x.Data.Rows, x.Data.Cols).Data
	}
	xd, od := x.Data.Data, out.Data
	tensor.ParallelFor(len(od), 20*len(od), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := normalCDF(xd[i])
			od[i] = xd[i] * c
			if cdf != nil {
				cdf[i] = c
			}
		}
	})
	return t.CustomUnary(out, x, func(dst, g *tensor.Dense) {
		gd, dd := g.Data, dst.Data
		tensor.ParallelFor(len(dd), 20*len(dd), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v := xd[i]
				phi := math.Exp(float64(-0.5*v)*v) / math.Sqrt(2*math.Pi)
				dd[i] = gd[i] * (cdf[i] + float64(v*phi))
			}
		})
	})
}

// LeakyReLU returns x for x > 0 and slope·x otherwise.
func (t *Tape) LeakyReLU(x *Value, slope float64) *Value {
	return t.unary(x, func(v float64) float64 { return LeakyReLU(v, slope) },
		func(v, y float64) float64 {
			if v > 0 {
				return 1
			}
			return slope
		})
}

// Tanh returns tanh x elementwise.
func (t *Tape) Tanh(x *Value) *Value {
	return t.unary(x, math.Tanh, func(v, y float64) float64 { return 1 - float64(y*y) })
}

// Sigmoid returns 1/(1 + e⁻ˣ) elementwise.
func (t *Tape) Sigmoid(x *Value) *Value {
	return t.unary(x, Sigmoid, func(v, y float64) float64 { return y * (1 - y) })
}

// unary applies f elementwise; df(x, y) is f'(x) given y = f(x).
func (t *Tape) unary(x *Value, f func(float64) float64, df func(v, y float64) float64) *Value {
	return t.chunked(x, 8, func(od, xd []float64) {
		for i, v := range xd {
			od[i] = f(v)
		}
	}, 8, func(gx, gd, xd, od []float64) {
		for i, v := range xd {
			gx[i] += float64(gd[i] * df(v, od[i]))
		}
	})
}

// chunked records an elementwise op of x whose passes run over contiguous
// chunks, in parallel when the per-element costs warrant it: forward fills
// the chunk od of the output from the chunk xd of x; backward adds into the
// chunk gx of x's gradient given the chunks gd of the output gradient, xd
// and od. Each is called once per chunk, so its loop stays a plain loop.
func (t *Tape) chunked(x *Value, forwardCost int, forward func(od, xd []float64),
	backwardCost int, backward func(gx, gd, xd, od []float64)) *Value {
	out := t.AllocUninit(x.Data.Rows, x.Data.Cols)
	xd, od := x.Data.Data, out.Data
	tensor.ParallelFor(len(od), forwardCost*len(od), func(lo, hi int) {
		forward(od[lo:hi], xd[lo:hi])
	})
	return t.record(out, func(g *tensor.Dense) {
		gx, gd := gradOf(x).Data, g.Data
		tensor.ParallelFor(len(od), backwardCost*len(od), func(lo, hi int) {
			backward(gx[lo:hi], gd[lo:hi], xd[lo:hi], od[lo:hi])
		})
	}, x)
}

// Softplus returns ln(1 + eˣ) without overflow.
func Softplus(x float64) float64 {
	if x > 30 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// Sigmoid returns 1/(1 + e⁻ˣ) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// GELU returns x·Φ(x) = ½x(1 + erf(x/√2)).
func GELU(x float64) float64 { return x * normalCDF(x) }

// normalCDF returns Φ(x) = ½(1 + erf(x/√2)).
func normalCDF(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }

// LeakyReLU returns x for x > 0 and slope·x otherwise.
func LeakyReLU(x, slope float64) float64 {
	if x > 0 {
		return x
	}
	return slope * x
}
