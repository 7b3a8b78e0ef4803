// Package tensor provides the numerical storage of cuqgnn: row-major dense
// matrices, compressed sparse row (CSR) matrices and the parallel kernels the
// models need: dense and sparse matrix products; Exp, the exponential of
// a slice, which the row-wise softmaxes call; and the ReLU and dropout of
// a hidden layer with their gradients.
//
// Storage is float64. The kernels that dominate a training epoch are memory
// bound on small working sets (CoraML: 2995×64 hidden features, 1.5 MB in
// float64), where float32's halved bytes gain little (the sparse feature
// product, see docs/records/performance.md). Special functions (lgamma,
// digamma, Dirichlet entropies with α up to 1e13) and the summed losses
// need float64 anyway, and float64 makes finite-difference gradient checks
// exact to 1e-7, so one float64 storage type keeps every op simple.
//
// Rank-1 tensors are 1×n (row) or n×1 (column) matrices; a scalar is 1×1.
package tensor

import (
	"fmt"
	"math"
)

// Dense is a row-major matrix of float64 values. The element (i, j) is
// Data[i*Cols+j].
type Dense struct {
	Rows, Cols int
	Data       []float64
}

// New returns a zero rows×cols matrix. It panics if a dimension is negative.
// On Linux the pages of a large matrix are mapped when it is made, in one
// system call, rather than faulted in one by one as it is first written.
func New(rows, cols int) *Dense {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("tensor.New: negative shape %dx%d", rows, cols))
	}
	d := make([]float64, rows*cols)
	populate(d)
	return &Dense{Rows: rows, Cols: cols, Data: d}
}

// FromSlice wraps data (not copied) as a rows×cols matrix.
func FromSlice(rows, cols int, data []float64) (*Dense, error) {
	if rows < 0 || cols < 0 || rows*cols != len(data) {
		return nil, fmt.Errorf("tensor.FromSlice: %d values do not fill a %dx%d matrix", len(data), rows, cols)
	}
	return &Dense{Rows: rows, Cols: cols, Data: data}, nil
}

// MustFromSlice is FromSlice that panics on a shape mismatch; for literals in
// tests and examples.
func MustFromSlice(rows, cols int, data []float64) *Dense {
	d, err := FromSlice(rows, cols, data)
	if err != nil {
		panic(err)
	}
	return d
}

// Scalar returns a 1×1 matrix holding v.
func Scalar(v float64) *Dense { return &Dense{Rows: 1, Cols: 1, Data: []float64{v}} }

// Dims returns the number of rows and columns.
func (d *Dense) Dims() (rows, cols int) { return d.Rows, d.Cols }

// At returns element (i, j).
func (d *Dense) At(i, j int) float64 { return d.Data[i*d.Cols+j] }

// Set sets element (i, j) to v.
func (d *Dense) Set(i, j int, v float64) { d.Data[i*d.Cols+j] = v }

// Row returns row i as a slice sharing storage with d.
func (d *Dense) Row(i int) []float64 { return d.Data[i*d.Cols : (i+1)*d.Cols] }

// Clone returns a deep copy.
func (d *Dense) Clone() *Dense {
	c := &Dense{Rows: d.Rows, Cols: d.Cols, Data: make([]float64, len(d.Data))}
	copy(c.Data, d.Data)
	return c
}

// SameShape reports whether d and e have equal dimensions.
func (d *Dense) SameShape(e *Dense) bool { return d.Rows == e.Rows && d.Cols == e.Cols }

// Shape formats the dimensions as "RxC" for error messages.
func (d *Dense) Shape() string { return fmt.Sprintf("%dx%d", d.Rows, d.Cols) }

// Zero sets every element to 0.
func (d *Dense) Zero() { clear(d.Data) }

// Fill sets every element to v.
func (d *Dense) Fill(v float64) {
	for i := range d.Data {
		d.Data[i] = v
	}
}

// AddScaled adds s·e to d elementwise (d += s·e). Shapes must match.
func (d *Dense) AddScaled(s float64, e *Dense) {
	if !d.SameShape(e) {
		panic(fmt.Sprintf("tensor.AddScaled: shapes %s and %s differ", d.Shape(), e.Shape()))
	}
	axpy(d.Data, e.Data, s)
}

// Sum returns the sum of all elements.
func (d *Dense) Sum() float64 {
	s := 0.0
	for _, v := range d.Data {
		s += v
	}
	return s
}

// AllFinite reports whether no element is NaN or ±Inf.
func (d *Dense) AllFinite() bool {
	for _, v := range d.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// T returns the transpose as a new matrix.
func (d *Dense) T() *Dense {
	t := New(d.Cols, d.Rows)
	transposeTo(t.Data, d.Data, d.Rows, d.Cols)
	return t
}

// transposeTo writes the transpose of the row-major rows×cols matrix src
// into dst (cols×rows).
func transposeTo(dst, src []float64, rows, cols int) {
	for i := 0; i < rows; i++ {
		for j, v := range src[i*cols : (i+1)*cols] {
			dst[j*rows+i] = v
		}
	}
}

// String formats small matrices for debugging.
func (d *Dense) String() string {
	if d.Rows*d.Cols > 64 {
		return fmt.Sprintf("Dense(%s)", d.Shape())
	}
	s := "["
	for i := 0; i < d.Rows; i++ {
		if i > 0 {
			s += "; "
		}
		for j := 0; j < d.Cols; j++ {
			if j > 0 {
				s += " "
			}
			s += fmt.Sprintf("%.4g", d.At(i, j))
		}
	}
	return s + "]"
}

// SameBits reports whether a and b hold the same float64 values bit for bit
// (nil and empty alike): the test of the results and caches that must not
// change a bit.
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
