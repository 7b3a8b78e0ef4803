package tensor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// CSR is a sparse matrix in compressed sparse row form: the non-zeros of row
// i are Val[Ptr[i]:Ptr[i+1]] in the columns Ind[Ptr[i]:Ptr[i+1]]. Within a
// row the column indices are strictly increasing once the matrix is built by
// NewCSR or FromCOO.
//
// A CSR used as a constant operand must not be modified after its first
// product: products cache its column indices as 32-bit integers, and
// TMulTo caches Sᵀ.
type CSR struct {
	Rows, Cols int
	Ptr        []int
	Ind        []int
	Val        []float64

	// The cached transpose is derived from the fields above: content
	// digests (kernelext.KeyOf) skip it, so a matrix hashes alike before
	// and after its first transposed product.
	transOnce sync.Once `digest:"-"`
	trans     *CSR      `digest:"-"`
	// The transposed pattern and, for each of its entries, the index of
	// the entry of S it comes from (TMulValuesTo).
	patOnce sync.Once `digest:"-"`
	patT    *CSR      `digest:"-"`
	patSrc  []int     `digest:"-"`
	// Ind as 32-bit integers, for the narrow product kernels (index32).
	idxOnce sync.Once `digest:"-"`
	idx32   []int32   `digest:"-"`
}

// NewCSR validates the three CSR arrays and wraps them (not copied). Column
// indices must be in range and strictly increasing within each row.
func NewCSR(rows, cols int, ptr, ind []int, val []float64) (*CSR, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("tensor.NewCSR: negative shape %dx%d", rows, cols)
	}
	if len(ptr) != rows+1 {
		return nil, fmt.Errorf("tensor.NewCSR: row pointer has %d entries, want rows+1 = %d", len(ptr), rows+1)
	}
	if ptr[0] != 0 {
		return nil, fmt.Errorf("tensor.NewCSR: row pointer starts at %d, want 0", ptr[0])
	}
	if len(ind) != len(val) || ptr[rows] != len(ind) {
		return nil, fmt.Errorf("tensor.NewCSR: %d indices, %d values, row pointer ends at %d", len(ind), len(val), ptr[rows])
	}
	for i := 0; i < rows; i++ {
		if ptr[i+1] < ptr[i] {
			return nil, fmt.Errorf("tensor.NewCSR: row pointer decreases at row %d (%d > %d)", i, ptr[i], ptr[i+1])
		}
		for k := ptr[i]; k < ptr[i+1]; k++ {
			if ind[k] < 0 || ind[k] >= cols {
				return nil, fmt.Errorf("tensor.NewCSR: column index %d out of range [0,%d) in row %d", ind[k], cols, i)
			}
			if k > ptr[i] && ind[k] <= ind[k-1] {
				return nil, fmt.Errorf("tensor.NewCSR: column indices of row %d not strictly increasing (%d after %d)", i, ind[k], ind[k-1])
			}
		}
	}
	return &CSR{Rows: rows, Cols: cols, Ptr: ptr, Ind: ind, Val: val}, nil
}

// FromCOO builds a CSR matrix from coordinate triplets; duplicate entries
// are summed. val may be nil, meaning all ones.
func FromCOO(rows, cols int, ri, ci []int, val []float64) (*CSR, error) {
	if len(ri) != len(ci) || (val != nil && len(val) != len(ri)) {
		return nil, fmt.Errorf("tensor.FromCOO: %d row indices, %d column indices, %d values", len(ri), len(ci), len(val))
	}
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("tensor.FromCOO: negative shape %dx%d", rows, cols)
	}
	ptr := make([]int, rows+1)
	for k := range ri {
		if ri[k] < 0 || ri[k] >= rows || ci[k] < 0 || ci[k] >= cols {
			return nil, fmt.Errorf("tensor.FromCOO: entry %d at (%d,%d) out of range for %dx%d", k, ri[k], ci[k], rows, cols)
		}
		ptr[ri[k]+1]++
	}
	for i := 0; i < rows; i++ {
		ptr[i+1] += ptr[i]
	}
	ind := make([]int, len(ri))
	vals := make([]float64, len(ri))
	next := slices.Clone(ptr[:rows])
	for k := range ri {
		p := next[ri[k]]
		next[ri[k]]++
		ind[p] = ci[k]
		if val == nil {
			vals[p] = 1
		} else {
			vals[p] = val[k]
		}
	}
	// Sort each row by column and merge duplicates.
	out := 0
	newPtr := make([]int, rows+1)
	for i := 0; i < rows; i++ {
		lo, hi := ptr[i], ptr[i+1]
		sort.Sort(rowSorter{ind[lo:hi], vals[lo:hi]})
		start := out
		for k := lo; k < hi; k++ {
			if out > start && ind[out-1] == ind[k] {
				vals[out-1] += vals[k]
				continue
			}
			ind[out], vals[out] = ind[k], vals[k]
			out++
		}
		newPtr[i+1] = out
	}
	return &CSR{Rows: rows, Cols: cols, Ptr: newPtr, Ind: ind[:out:out], Val: vals[:out:out]}, nil
}

type rowSorter struct {
	ind []int
	val []float64
}

func (r rowSorter) Len() int           { return len(r.ind) }
func (r rowSorter) Less(i, j int) bool { return r.ind[i] < r.ind[j] }
func (r rowSorter) Swap(i, j int) {
	r.ind[i], r.ind[j] = r.ind[j], r.ind[i]
	r.val[i], r.val[j] = r.val[j], r.val[i]
}

// Dims returns the number of rows and columns.
func (s *CSR) Dims() (rows, cols int) { return s.Rows, s.Cols }

// NNZ returns the number of stored entries.
func (s *CSR) NNZ() int { return len(s.Ind) }

// Shape formats the dimensions as "RxC" for error messages.
func (s *CSR) Shape() string { return fmt.Sprintf("%dx%d", s.Rows, s.Cols) }

// At returns element (i, j), zero when not stored.
func (s *CSR) At(i, j int) float64 {
	lo, hi := s.Ptr[i], s.Ptr[i+1]
	k := lo + sort.SearchInts(s.Ind[lo:hi], j)
	if k < hi && s.Ind[k] == j {
		return s.Val[k]
	}
	return 0
}

// Clone returns a deep copy.
func (s *CSR) Clone() *CSR {
	return &CSR{Rows: s.Rows, Cols: s.Cols, Ptr: slices.Clone(s.Ptr), Ind: slices.Clone(s.Ind), Val: slices.Clone(s.Val)}
}

// Transpose returns Sᵀ as a new CSR matrix.
func (s *CSR) Transpose() *CSR {
	ptr := make([]int, s.Cols+1)
	for _, j := range s.Ind {
		ptr[j+1]++
	}
	for j := 0; j < s.Cols; j++ {
		ptr[j+1] += ptr[j]
	}
	ind := make([]int, len(s.Ind))
	val := make([]float64, len(s.Val))
	next := slices.Clone(ptr[:s.Cols])
	for i := 0; i < s.Rows; i++ {
		for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
			p := next[s.Ind[k]]
			next[s.Ind[k]]++
			ind[p] = i
			val[p] = s.Val[k]
		}
	}
	return &CSR{Rows: s.Cols, Cols: s.Rows, Ptr: ptr, Ind: ind, Val: val}
}

// ToDense returns the matrix as a dense one.
func (s *CSR) ToDense() *Dense {
	d := New(s.Rows, s.Cols)
	for i := 0; i < s.Rows; i++ {
		row := d.Row(i)
		for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
			row[s.Ind[k]] = s.Val[k]
		}
	}
	return d
}

// Density returns NNZ / (Rows·Cols).
func (s *CSR) Density() float64 {
	if s.Rows == 0 || s.Cols == 0 {
		return 0
	}
	return float64(s.NNZ()) / (float64(s.Rows) * float64(s.Cols))
}

// AllFinite reports whether no stored value is NaN or ±Inf.
func (s *CSR) AllFinite() bool {
	for _, v := range s.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// DenseToCSR converts d, dropping exact zeros.
func DenseToCSR(d *Dense) *CSR {
	ptr := make([]int, d.Rows+1)
	nnz := 0
	for _, v := range d.Data {
		if v != 0 {
			nnz++
		}
	}
	ind := make([]int, 0, nnz)
	val := make([]float64, 0, nnz)
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			if v != 0 {
				ind = append(ind, j)
				val = append(val, v)
			}
		}
		ptr[i+1] = len(ind)
	}
	return &CSR{Rows: d.Rows, Cols: d.Cols, Ptr: ptr, Ind: ind, Val: val}
}

// Matrix is a constant left operand of a product: a Dense or a CSR. Models
// accept node features as a Matrix so that bag-of-words features stay sparse.
type Matrix interface {
	Dims() (rows, cols int)
	// MulTo computes dst = M·b.
	MulTo(dst, b *Dense)
	// TMulTo computes dst = Mᵀ·b.
	TMulTo(dst, b *Dense)
	// MulAddRowTo computes dst = M·b + 1·rᵀ, the row r added to every row.
	MulAddRowTo(dst, b *Dense, r []float64)
}

// MulTo computes dst = S·b (dst is overwritten). It panics with both shapes
// when they do not fit.
func (s *CSR) MulTo(dst, b *Dense) {
	if s.Cols != b.Rows || dst.Rows != s.Rows || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: CSR product %s · %s into %s: shapes do not fit", s.Shape(), b.Shape(), dst.Shape()))
	}
	spmm(s, s.Val, b.Data, dst.Data, b.Cols, nil, blend{})
}

// MulAddRowTo computes dst = S·b + 1·rᵀ (dst is overwritten): the row
// vector r, of length b.Cols, is added to every row of the product while
// the row is in cache (a layer's bias after a sparse product), with the
// rounding of the two-pass S·b + 1·rᵀ. It panics with the shapes when they
// do not fit.
func (s *CSR) MulAddRowTo(dst, b *Dense, r []float64) {
	if s.Cols != b.Rows || dst.Rows != s.Rows || dst.Cols != b.Cols || len(r) != b.Cols {
		panic(fmt.Sprintf("tensor: CSR product %s · %s plus a row of %d into %s: shapes do not fit", s.Shape(), b.Shape(), len(r), dst.Shape()))
	}
	spmm(s, s.Val, b.Data, dst.Data, b.Cols, func(_ int, row []float64) { addRow(row, r) }, blend{})
}

// TMulTo computes dst = Sᵀ·b (dst is overwritten). The transpose is built
// on first use and cached, so that the product is a row-parallel gather
// like MulTo rather than a scatter.
func (s *CSR) TMulTo(dst, b *Dense) {
	if s.Rows != b.Rows || dst.Rows != s.Cols || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: CSR transposed product %sᵀ · %s into %s: shapes do not fit", s.Shape(), b.Shape(), dst.Shape()))
	}
	s.transOnce.Do(func() { s.trans = s.Transpose() })
	t := s.trans
	spmm(t, t.Val, b.Data, dst.Data, b.Cols, nil, blend{})
}

// TMulValuesTo computes dst = S'ᵀ·b (dst is overwritten), where S' has the
// pattern of S and the values val (one per stored entry; S's own values
// are not read): the transposed product of a matrix whose values change
// from call to call on a fixed pattern, such as attention coefficients.
// The transposed pattern is built on first use and cached, and only the
// values are permuted per call; the result is that of S'.TMulTo. It
// panics with the shapes when they do not fit.
func (s *CSR) TMulValuesTo(dst *Dense, val []float64, b *Dense) {
	if s.Rows != b.Rows || dst.Rows != s.Cols || dst.Cols != b.Cols || len(val) != s.NNZ() {
		panic(fmt.Sprintf("tensor: CSR transposed product %sᵀ (%d values for %d entries) · %s into %s: shapes do not fit",
			s.Shape(), len(val), s.NNZ(), b.Shape(), dst.Shape()))
	}
	s.patOnce.Do(func() {
		src := make([]float64, s.NNZ())
		for k := range src {
			src[k] = float64(k)
		}
		s.patT = (&CSR{Rows: s.Rows, Cols: s.Cols, Ptr: s.Ptr, Ind: s.Ind, Val: src}).Transpose()
		s.patSrc = make([]int, len(src))
		for q, k := range s.patT.Val {
			s.patSrc[q] = int(k)
		}
	})
	t := s.patT
	tval := getScratch(len(val))
	defer putScratch(tval)
	ParallelFor(len(tval), len(tval), func(lo, hi int) {
		for q := lo; q < hi; q++ {
			tval[q] = val[s.patSrc[q]]
		}
	})
	spmm(t, tval, b.Data, dst.Data, b.Cols, nil, blend{})
}

// MulValuesTo computes dst = S'·b (dst is overwritten), where S' has the
// pattern of S and the values val (one per stored entry; S's own values
// are not read): the product of a matrix whose values change from call to
// call on a fixed pattern, such as attention coefficients. It shares S's
// cached index arrays and panics with the shapes when they do not fit.
func (s *CSR) MulValuesTo(dst *Dense, val []float64, b *Dense) {
	if s.Cols != b.Rows || dst.Rows != s.Rows || dst.Cols != b.Cols || len(val) != s.NNZ() {
		panic(fmt.Sprintf("tensor: CSR product %s (%d values for %d entries) · %s into %s: shapes do not fit",
			s.Shape(), len(val), s.NNZ(), b.Shape(), dst.Shape()))
	}
	spmm(s, val, b.Data, dst.Data, b.Cols, nil, blend{})
}

// MulPickTo sets dst[i] to the element (i, cols[i]) of S·b: one element
// of each row of the product, with the bits MulTo gives it, the chain
// Σ_q val[q]·b[ind[q], cols[i]] over the row's entries in order, each term
// added with one rounding (madd) except in the trailing columns whose
// products MulTo rounds first (unfusedTail). A loss that reads one column
// of each row (the label's) needs only these, a b.Cols-th of the
// product's work. It panics with the shapes when they do not fit and with
// the row when a column is out of range.
func (s *CSR) MulPickTo(dst []float64, b *Dense, cols []int) {
	if s.Cols != b.Rows || len(dst) != s.Rows || len(cols) != s.Rows {
		panic(fmt.Sprintf("tensor: CSR product %s · %s picked by %d columns into %d elements: shapes do not fit",
			s.Shape(), b.Shape(), len(cols), len(dst)))
	}
	f := b.Cols
	for i, j := range cols {
		if j < 0 || j >= f {
			panic(fmt.Sprintf("tensor: CSR product %s · %s: column %d of row %d out of range", s.Shape(), b.Shape(), j, i))
		}
	}
	fused := f - unfusedTail(f)
	ParallelForRows(s.Ptr, 1, func(lo, hi int) {
		// Four rows at a time where their columns are fused: four
		// independent chains keep the multiply-adds from waiting on each
		// other's latency.
		for i := lo; i < hi; {
			if i+4 <= hi && max(cols[i], cols[i+1], cols[i+2], cols[i+3]) < fused {
				s.pick4(dst[i:i+4], b.Data, f, cols[i:i+4], i)
				i += 4
				continue
			}
			dst[i] = s.pickElement(i, b.Data, f, cols[i], cols[i] < fused)
			i++
		}
	})
}

// pickElement returns element (i, j) of S·b for b of f columns, its terms
// fused or rounded first.
func (s *CSR) pickElement(i int, b []float64, f, j int, fused bool) float64 {
	k, end := s.Ptr[i], s.Ptr[i+1]
	val, ind := s.Val[k:end], s.Ind[k:end]
	var sum float64
	if fused {
		for q, v := range val {
			sum = madd(v, b[ind[q]*f+j], sum)
		}
		return sum
	}
	for q, v := range val {
		sum += float64(v * b[ind[q]*f+j])
	}
	return sum
}

// pick4 sets o[r] to the fused element (i+r, cols[r]) of S·b for r < 4:
// the four chains side by side for as many entries as all four rows have,
// then each row's rest.
func (s *CSR) pick4(o, b []float64, f int, cols []int, i int) {
	p := s.Ptr[i : i+5]
	n := min(p[1]-p[0], p[2]-p[1], p[3]-p[2], p[4]-p[3])
	v0, v1, v2, v3 := s.Val[p[0]:p[1]], s.Val[p[1]:p[2]], s.Val[p[2]:p[3]], s.Val[p[3]:p[4]]
	x0, x1, x2, x3 := s.Ind[p[0]:p[1]], s.Ind[p[1]:p[2]], s.Ind[p[2]:p[3]], s.Ind[p[3]:p[4]]
	c0, c1, c2, c3 := cols[0], cols[1], cols[2], cols[3]
	var s0, s1, s2, s3 float64
	for q := range n {
		s0 = madd(v0[q], b[x0[q]*f+c0], s0)
		s1 = madd(v1[q], b[x1[q]*f+c1], s1)
		s2 = madd(v2[q], b[x2[q]*f+c2], s2)
		s3 = madd(v3[q], b[x3[q]*f+c3], s3)
	}
	for q := n; q < len(v0); q++ {
		s0 = madd(v0[q], b[x0[q]*f+c0], s0)
	}
	for q := n; q < len(v1); q++ {
		s1 = madd(v1[q], b[x1[q]*f+c1], s1)
	}
	for q := n; q < len(v2); q++ {
		s2 = madd(v2[q], b[x2[q]*f+c2], s2)
	}
	for q := n; q < len(v3); q++ {
		s3 = madd(v3[q], b[x3[q]*f+c3], s3)
	}
	o[0], o[1], o[2], o[3] = s0, s1, s2, s3
}

// Mul returns S·b.
func (s *CSR) Mul(b *Dense) *Dense {
	dst := New(s.Rows, b.Cols)
	s.MulTo(dst, b)
	return dst
}

// MulAddTo computes dst = α·S·b + β·c (dst is overwritten) in one pass:
// each row of the product is blended with the row of c while it is in
// cache, with the rounding of the two-pass α·(S·b) + β·c. dst must not
// share storage with b or c. It panics with the shapes when they do not
// fit.
func (s *CSR) MulAddTo(dst, b *Dense, alpha float64, c *Dense, beta float64) {
	if s.Cols != b.Rows || dst.Rows != s.Rows || dst.Cols != b.Cols || !c.SameShape(dst) {
		panic(fmt.Sprintf("tensor: CSR product %s · %s plus %s into %s: shapes do not fit", s.Shape(), b.Shape(), c.Shape(), dst.Shape()))
	}
	spmm(s, s.Val, b.Data, dst.Data, b.Cols, nil, blend{c: c.Data, alpha: alpha, beta: beta})
}

// index32 returns Ind as 32-bit integers, built on first use and cached,
// or nil when an index is negative or does not fit (the product then takes
// the path that reads Ind).
func (s *CSR) index32() []int32 {
	s.idxOnce.Do(func() {
		idx := make([]int32, len(s.Ind))
		for q, j := range s.Ind {
			if j < 0 || j > math.MaxInt32 {
				return
			}
			idx[q] = int32(j)
		}
		s.idx32 = idx
	})
	return s.idx32
}

// blend is the epilogue o = α·o + β·c of CSR.MulAddTo, c laid out as the
// product; a nil c means none.
type blend struct {
	c           []float64
	alpha, beta float64
}

// apply blends row i of a product with f columns.
func (bl blend) apply(i, f int, row []float64) {
	ci := bl.c[i*f : (i+1)*f]
	ci = ci[:len(row)]
	for j, v := range row {
		row[j] = float64(bl.alpha*v) + float64(bl.beta*ci[j])
	}
}

// spmmChunk is the number of rows spmm computes before it hands them to
// the epilogue: 64 rows of 16 columns take 8 KB, so they are still in L1.
const spmmChunk = 64

// spmm computes out = S·b for the pattern of s with the values val (s.Val,
// or a product's own), blended by bl; rows are split among workers. When
// epilogue is not nil it is called with each output row (and its index)
// soon after the row is computed, in chunks of spmmChunk rows, while the
// rows are in cache.
func spmm(s *CSR, val, b, out []float64, f int, epilogue func(i int, row []float64), bl blend) {
	ptr, ind := s.Ptr, s.Ind
	var ind32 []int32
	if narrowColumns(f) {
		ind32 = s.index32()
	}
	ParallelForRows(ptr, f, func(lo, hi int) {
		for i0 := lo; i0 < hi; i0 += spmmChunk {
			i1 := min(i0+spmmChunk, hi)
			switch {
			case spmmRowsNarrow(out, ptr, ind32, val, b, f, i0, i1, bl):
			case spmmRowsWide(out, ptr, ind, val, b, f, i0, i1):
				if bl.c != nil {
					for i := i0; i < i1; i++ {
						bl.apply(i, f, out[i*f:(i+1)*f])
					}
				}
			default:
				for i := i0; i < i1; i++ {
					k, end := ptr[i], ptr[i+1]
					row := out[i*f : (i+1)*f]
					spmmRow(row, val[k:end], ind[k:end], b, f)
					if bl.c != nil {
						bl.apply(i, f, row)
					}
				}
			}
			if epilogue != nil {
				for i := i0; i < i1; i++ {
					epilogue(i, out[i*f:(i+1)*f])
				}
			}
		}
	})
}

// spmmRow computes one output row o = Σ_q val[q]·b[ind[q]·f : …]. On amd64
// with AVX2/FMA, blocks of 32 (64 with AVX-512) columns and a remainder
// of 4 to 31 columns are accumulated in registers by the assembly
// kernels; the portable kernels compute whatever they leave. Every
// element is the chain of fused multiply-adds over the row's entries in
// order, but for the last f mod 32 columns when there are fewer than
// four of them (every column of a product of one to three columns): the
// amd64 kernels have always rounded each product there before adding it
// (unfusedTail), and the portable kernels do the same, so that every
// path, and every result recorded before, keeps its bits.
func spmmRow(row, val []float64, ind []int, b []float64, f int) {
	c := spmmRowBlocks(row, val, ind, b, f)
	o := row[c:]
	if spmmRowNarrow(o, val, ind, b, c, f) {
		return
	}
	t := min(unfusedTail(f), len(o))
	spmmRowGo(o[:len(o)-t], val, ind, b, c, f)
	spmmRowUnfused(o[len(o)-t:], val, ind, b, c+len(o)-t, f)
}

// unfusedTail is the number of trailing columns of a CSR product of f
// columns whose products are rounded before they are added: f mod 32 when
// that is below 4, else 0.
func unfusedTail(f int) int {
	if r := f % 32; r < 4 {
		return r
	}
	return 0
}
