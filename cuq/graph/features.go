package graph

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// CompactDensity is the density (fraction of non-zero entries) below which
// CompactFeatures stores a feature matrix as CSR. Bag-of-words features (1–10%
// dense) multiply faster as CSR than through dense BLAS; above a quarter of
// non-zeros the index overhead of CSR (an int per value) outweighs the
// skipped zeros.
const CompactDensity = 0.25

// Binarize returns the matrix with entries 1 where x > 0 and 0 elsewhere,
// as PyG does when reading the npz attribute matrices. A *tensor.CSR stays
// sparse (entries ≤ 0 are dropped); any other Matrix becomes a
// *tensor.Dense. x is not modified.
func Binarize(x tensor.Matrix) tensor.Matrix {
	if s, ok := x.(*tensor.CSR); ok {
		ptr := make([]int, s.Rows+1)
		ind := make([]int, 0, s.NNZ())
		for i := 0; i < s.Rows; i++ {
			for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
				if s.Val[k] > 0 {
					ind = append(ind, s.Ind[k])
				}
			}
			ptr[i+1] = len(ind)
		}
		val := make([]float64, len(ind))
		for k := range val {
			val[k] = 1
		}
		return &tensor.CSR{Rows: s.Rows, Cols: s.Cols, Ptr: ptr, Ind: ind, Val: val}
	}
	d := denseCopy(x)
	for k, v := range d.Data {
		if v > 0 {
			d.Data[k] = 1
		} else {
			d.Data[k] = 0
		}
	}
	return d
}

// NormalizeFeatures is PyG's NormalizeFeatures transform: with m the global
// minimum of all N·F entries of x (implicit zeros of a sparse matrix
// included),
//
//	x'_ij = (x_ij − m) / max(Σ_k (x_ik − m), 1).
//
// Rows whose shifted sum is at most 1 are only shifted, so a row that is all
// m (all zero for non-negative x) stays zero. For non-negative features
// (m = 0) a *tensor.CSR stays a CSR with the same pattern; when m ≠ 0 the
// shift fills the implicit zeros and the result is a *tensor.Dense. Any other
// Matrix becomes a *tensor.Dense. x is not modified.
func NormalizeFeatures(x tensor.Matrix) tensor.Matrix {
	if s, ok := x.(*tensor.CSR); ok {
		m := 0.0 // implicit zeros take part in the minimum
		if s.NNZ() > 0 && s.NNZ() == s.Rows*s.Cols {
			m = s.Val[0]
		}
		for _, v := range s.Val {
			m = min(m, v)
		}
		if m == 0 {
			out := s.Clone()
			for i := 0; i < out.Rows; i++ {
				row := out.Val[out.Ptr[i]:out.Ptr[i+1]]
				scaleRow(row, rowScale(row))
			}
			return out
		}
	}
	d := denseCopy(x)
	if len(d.Data) == 0 {
		return d
	}
	m := math.Inf(1)
	for _, v := range d.Data {
		m = math.Min(m, v)
	}
	for k := range d.Data {
		d.Data[k] -= m
	}
	for i := 0; i < d.Rows; i++ {
		row := d.Row(i)
		scaleRow(row, rowScale(row))
	}
	return d
}

// rowScale returns 1 / max(Σ row, 1).
func rowScale(row []float64) float64 {
	s := 0.0
	for _, v := range row {
		s += v
	}
	return 1 / math.Max(s, 1)
}

func scaleRow(row []float64, f float64) {
	for k := range row {
		row[k] *= f
	}
}

// CompactFeatures returns x stored the way products with it are fastest: a
// *tensor.CSR when its density (non-zero fraction) is below CompactDensity,
// a *tensor.Dense otherwise. An x already in the chosen form is returned as
// it is; conversions copy. An empty matrix becomes an empty CSR.
func CompactFeatures(x tensor.Matrix) tensor.Matrix {
	switch f := x.(type) {
	case *tensor.CSR:
		if f.Density() < CompactDensity {
			return f
		}
		return f.ToDense()
	case *tensor.Dense:
		if density(f) < CompactDensity {
			return tensor.DenseToCSR(f)
		}
		return f
	}
	return CompactFeatures(denseCopy(x))
}

// density returns the fraction of non-zero entries of d (0 when empty).
func density(d *tensor.Dense) float64 {
	if len(d.Data) == 0 {
		return 0
	}
	nz := 0
	for _, v := range d.Data {
		if v != 0 {
			nz++
		}
	}
	return float64(nz) / float64(len(d.Data))
}

// denseCopy returns x as a new *tensor.Dense. Matrix implementations other
// than Dense and CSR are read through their product with the identity.
func denseCopy(x tensor.Matrix) *tensor.Dense {
	switch f := x.(type) {
	case *tensor.Dense:
		return f.Clone()
	case *tensor.CSR:
		return f.ToDense()
	}
	r, c := x.Dims()
	eye := tensor.New(c, c)
	for j := 0; j < c; j++ {
		eye.Set(j, j, 1)
	}
	d := tensor.New(r, c)
	x.MulTo(d, eye)
	return d
}
