package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/freelist"
)

// PPR is approximate personalised PageRank as a linear operator on node
// signals: the "APPNP-prop" recursion of the reference code with teleport t
// and K steps over a normalised adjacency Â (SymNorm or RWNorm),
//
//	h⁰ = t·X;  X⁽⁰⁾ = X;  X⁽ᵏ⁺¹⁾ = (1−t)·Â X⁽ᵏ⁾ + h⁰,
//
// so that after K steps
//
//	Π X = X⁽ᴷ⁾ = Σ_{k<K} t(1−t)^k Â^k X + (1−t)^K Â^K X.
//
// With a row-stochastic Â every row of Π sums to 1. A PPR is immutable and
// safe for concurrent use.
//
// The K steps run over the nodes in an order of better locality when
// localityOrder finds one (reverse Cuthill–McKee): the signal's rows are
// gathered into that order, propagated, and put back. Every row of every
// step is the same chain of multiply-adds as in the graph's own order, so
// the result has the same bits; only the cache sees the difference.
type PPR struct {
	adj      *tensor.CSR // Â as given
	teleport float64
	k        int
	// order maps the step matrices' rows to nodes: row k of step and
	// stepT is node order[k]. It is nil when the steps run in the graph's
	// own order.
	order []int
	// step and stepT are Â and Âᵀ in that order.
	step, stepT *tensor.CSR
	// scratch keeps apply's N-row work matrices between calls, so that
	// the steps on a large graph neither allocate nor fault in fresh
	// pages on every call (on the Arxiv-sized graph these were three
	// 21.7 MB matrices per call).
	scratch freelist.List[*tensor.Dense]
}

// NewPPR returns the K-step personalised PageRank operator over the
// normalised adjacency adj (N×N, not copied: do not modify it afterwards)
// with teleport probability t ∈ [0, 1]. The paper uses t = 0.1, K = 10.
func NewPPR(adj *tensor.CSR, teleport float64, k int) (*PPR, error) {
	if adj == nil {
		return nil, fmt.Errorf("graph.NewPPR: nil adjacency")
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("graph.NewPPR: adjacency is %dx%d, want square", adj.Rows, adj.Cols)
	}
	if err := checkCSR(adj); err != nil {
		return nil, fmt.Errorf("graph.NewPPR: adjacency: %v", err)
	}
	if !adj.AllFinite() {
		return nil, fmt.Errorf("graph.NewPPR: adjacency has NaN or Inf weights")
	}
	if !(teleport >= 0 && teleport <= 1) {
		return nil, fmt.Errorf("graph.NewPPR: teleport %v outside [0, 1]", teleport)
	}
	if k < 0 {
		return nil, fmt.Errorf("graph.NewPPR: negative number of iterations %d", k)
	}
	p := &PPR{adj: adj, teleport: teleport, k: k, step: adj, stepT: adj.Transpose()}
	if useLocalityOrder {
		if p.order = localityOrder(adj); p.order != nil {
			position := inverseOrder(p.order)
			p.step, p.stepT = reordered(adj, p.order, position), reordered(p.stepT, p.order, position)
		}
	}
	return p, nil
}

// useLocalityOrder lets NewPPR reorder the steps; the tests turn it off to
// compare the bits of both.
var useLocalityOrder = true

// N returns the number of nodes.
func (p *PPR) N() int { return p.adj.Rows }

// Teleport returns t.
func (p *PPR) Teleport() float64 { return p.teleport }

// K returns the number of propagation steps.
func (p *PPR) K() int { return p.k }

// Adj returns the normalised adjacency Â the operator propagates over.
func (p *PPR) Adj() *tensor.CSR { return p.adj }

// Apply sets dst = Π x for an N×F signal x. dst must be N×F; it may be x
// itself.
func (p *PPR) Apply(dst, x *tensor.Dense) error {
	return p.apply(p.step, dst, x, "Apply")
}

// ApplyT sets dst = Πᵀ x, the adjoint needed to back-propagate through
// Apply (Π is symmetric when Â is, as for SymNorm on an undirected graph).
// Πᵀ is the same recursion over Âᵀ.
func (p *PPR) ApplyT(dst, x *tensor.Dense) error {
	return p.apply(p.stepT, dst, x, "ApplyT")
}

func (p *PPR) apply(a *tensor.CSR, dst, x *tensor.Dense, op string) error {
	n := a.Rows
	if x == nil || dst == nil {
		return fmt.Errorf("graph.PPR.%s: nil matrix", op)
	}
	if x.Rows != n || len(x.Data) != x.Rows*x.Cols {
		return fmt.Errorf("graph.PPR.%s: signal is %s, want %d rows", op, x.Shape(), n)
	}
	if !dst.SameShape(x) || len(dst.Data) != len(x.Data) {
		return fmt.Errorf("graph.PPR.%s: destination is %s, want %s", op, dst.Shape(), x.Shape())
	}
	if p.k == 0 || len(x.Data) == 0 {
		copy(dst.Data, x.Data)
		return nil
	}
	w := sliceWidth(n, x.Cols)
	if w == x.Cols && p.order == nil {
		if len(dst.Data) > 0 && &dst.Data[0] == &x.Data[0] {
			in := p.getScratch(n, x.Cols)
			defer p.scratch.Put(in)
			copy(in.Data, x.Data)
			x = in
		}
		p.steps(a, dst, x)
		return nil
	}
	// Columns propagate independently: a wide signal on a large graph
	// goes through the K steps a slice of w columns at a time, so that
	// the rows the steps gather stay in cache. Every element is computed
	// as it would be in one piece. The slices are gathered in the steps'
	// order of the nodes, and each is read whole before its columns of
	// dst are written, so dst may be x.
	xs, ds := p.getScratch(n, w), p.getScratch(n, w)
	defer p.scratch.Put(xs)
	defer p.scratch.Put(ds)
	for c := 0; c < x.Cols; c += w {
		cw := min(w, x.Cols-c)
		if cw < w {
			xs.Cols, xs.Data = cw, xs.Data[:n*cw]
			ds.Cols, ds.Data = cw, ds.Data[:n*cw]
		}
		copyColumns(xs, x, c, p.order)
		p.steps(a, ds, xs)
		pasteColumns(dst, ds, c, p.order)
	}
	return nil
}

// getScratch returns an n×cols matrix with unspecified contents, from
// p.scratch when it holds one large enough; give it back with
// p.scratch.Put.
func (p *PPR) getScratch(n, cols int) *tensor.Dense {
	if d, ok := p.scratch.Get(); ok && cap(d.Data) >= n*cols {
		d.Rows, d.Cols, d.Data = n, cols, d.Data[:n*cols]
		return d
	}
	return tensor.New(n, cols)
}

// pprCacheBytes is the largest signal slice that apply lets the K steps
// gather from, so that it stays in the last-level cache beside the
// streamed adjacency. Slices of about this size train faster than
// narrower ones, which stream the adjacency more often, and than wider ones
// or the whole signal, whose gathered rows no longer stay in the cache; see
// docs/records/performance.md.
const pprCacheBytes = 22 << 20

// sliceWidth returns the number of columns of an n×cols signal that apply
// propagates at a time: all of them when the signal fits pprCacheBytes,
// else a multiple of 4 (the narrow kernels' granularity), at least 4.
func sliceWidth(n, cols int) int {
	if n*cols*8 <= pprCacheBytes || cols <= 8 {
		return cols
	}
	return max(4, pprCacheBytes/(8*n)&^3)
}

// steps sets dst = Π x with A as the adjacency, alternating between dst
// and a scratch buffer so that the last step writes dst.
func (p *PPR) steps(a *tensor.CSR, dst, x *tensor.Dense) {
	scratch := p.getScratch(x.Rows, x.Cols)
	defer p.scratch.Put(scratch)
	bufs := [2]*tensor.Dense{dst, scratch}
	cur := x
	for step := 0; step < p.k; step++ {
		out := bufs[(p.k-1-step)%2]
		pprStep(a, out, cur, x, p.teleport)
		cur = out
	}
}

// copyColumns sets row k of dst (n×w) to the columns c…c+w−1 of row
// order[k] of x (of row k when order is nil).
func copyColumns(dst, x *tensor.Dense, c int, order []int) {
	w := dst.Cols
	tensor.ParallelFor(dst.Rows, dst.Rows*w, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(dst.Row(k), x.Row(node(order, k))[c:c+w])
		}
	})
}

// pasteColumns sets the columns c…c+w−1 of row order[k] of dst (of row k
// when order is nil) to row k of src (n×w).
func pasteColumns(dst, src *tensor.Dense, c int, order []int) {
	w := src.Cols
	tensor.ParallelFor(src.Rows, src.Rows*w, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(dst.Row(node(order, k))[c:c+w], src.Row(k))
		}
	})
}

// node returns order[k], or k when order is nil.
func node(order []int, k int) int {
	if order == nil {
		return k
	}
	return order[k]
}

// pprStep sets out = (1−t)·A·cur + t·x0 in one pass over out.
func pprStep(a *tensor.CSR, out, cur, x0 *tensor.Dense, t float64) {
	a.MulAddTo(out, cur, 1-t, x0, t)
}

// Dense returns the N×N matrix Π = APPNP-prop(I_N), exactly (no pruning).
// It needs N² values: use it for small graphs (CoraML: 2995² ≈ 72 MB).
func (p *PPR) Dense() *tensor.Dense {
	n := p.N()
	eye := tensor.New(n, n)
	for i := 0; i < n; i++ {
		eye.Set(i, i, 1)
	}
	// Shapes match by construction.
	_ = p.Apply(eye, eye)
	return eye
}

// SparsePruned returns a sparse approximation of Π, the reference's sparse
// LOP-GPN propagation: starting from X = I it runs the K steps
// X ← (1−t)·Â X + t·I as sparse products, and after each step it removes
// the entries below threshold and adds each row's lost mass
// 1 − Σ_j X_ij (over the kept entries) to that row's diagonal. Rows
// therefore sum to exactly 1 after every step (up to rounding), which is
// the mass Π has when Â is row-stochastic (RWNorm); with threshold 0
// nothing is pruned and the result equals Dense for such Â. The reference
// uses threshold 0.01 on the larger graphs. A NaN threshold is treated as
// 0 (nothing pruned).
func (p *PPR) SparsePruned(threshold float64) *tensor.CSR {
	if math.IsNaN(threshold) {
		threshold = 0
	}
	n := p.N()
	x := identityCSR(n)
	for step := 0; step < p.k; step++ {
		x = pprSparseStep(p.adj, x, p.teleport, threshold)
	}
	return x
}

func identityCSR(n int) *tensor.CSR {
	ptr := make([]int, n+1)
	ind := make([]int, n)
	val := make([]float64, n)
	for i := 0; i < n; i++ {
		ptr[i+1] = i + 1
		ind[i] = i
		val[i] = 1
	}
	return &tensor.CSR{Rows: n, Cols: n, Ptr: ptr, Ind: ind, Val: val}
}

// pprSparseStep returns prune((1−t)·A·X + t·I) with the lost mass of every
// row moved to its diagonal. Rows are computed with a dense accumulator per
// worker (Gustavson's algorithm).
func pprSparseStep(a, x *tensor.CSR, t, threshold float64) *tensor.CSR {
	n := a.Rows
	rowInd := make([][]int, n)
	rowVal := make([][]float64, n)
	s := 1 - t
	tensor.ParallelFor(n, a.NNZ()+x.NNZ()+n, func(lo, hi int) {
		acc := newRowAccumulator(x.Cols)
		for i := lo; i < hi; i++ {
			acc.touched = acc.touched[:0]
			for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
				av := s * a.Val[k]
				r := a.Ind[k]
				for q := x.Ptr[r]; q < x.Ptr[r+1]; q++ {
					acc.add(x.Ind[q], float64(av*x.Val[q]))
				}
			}
			acc.add(i, t)
			rowInd[i], rowVal[i] = acc.prunedRow(i, threshold)
		}
	})
	return stackRows(rowInd, rowVal, x.Cols)
}

// rowAccumulator is a dense accumulator of one sparse row: acc holds the
// sums of the columns touched.
type rowAccumulator struct {
	acc     []float64
	seen    []bool
	touched []int
}

func newRowAccumulator(cols int) *rowAccumulator {
	return &rowAccumulator{acc: make([]float64, cols), seen: make([]bool, cols)}
}

// add adds v to column j.
func (r *rowAccumulator) add(j int, v float64) {
	if !r.seen[j] {
		r.seen[j] = true
		r.touched = append(r.touched, j)
	}
	r.acc[j] += v
}

// prunedRow returns row i's entries not below threshold, in column order,
// with the lost mass added to the diagonal, and clears the accumulator.
func (r *rowAccumulator) prunedRow(i int, threshold float64) ([]int, []float64) {
	slices.Sort(r.touched)
	ind := make([]int, 0, len(r.touched))
	val := make([]float64, 0, len(r.touched))
	kept, diag := 0.0, -1
	for _, j := range r.touched {
		v := r.acc[j]
		r.acc[j], r.seen[j] = 0, false
		if !(v >= threshold) {
			continue
		}
		if j == i {
			diag = len(ind)
		}
		ind = append(ind, j)
		val = append(val, v)
		kept += v
	}
	if diag < 0 {
		// i is among touched (t was added), so it was pruned:
		// reinsert it in column order.
		diag, _ = slices.BinarySearch(ind, i)
		ind = slices.Insert(ind, diag, i)
		val = slices.Insert(val, diag, 0)
	}
	val[diag] += 1 - kept
	return ind, val
}

// stackRows returns the CSR matrix of the given rows.
func stackRows(rowInd [][]int, rowVal [][]float64, cols int) *tensor.CSR {
	n := len(rowInd)
	ptr := make([]int, n+1)
	for i := 0; i < n; i++ {
		ptr[i+1] = ptr[i] + len(rowInd[i])
	}
	ind := make([]int, 0, ptr[n])
	val := make([]float64, 0, ptr[n])
	for i := 0; i < n; i++ {
		ind = append(ind, rowInd[i]...)
		val = append(val, rowVal[i]...)
	}
	return &tensor.CSR{Rows: n, Cols: cols, Ptr: ptr, Ind: ind, Val: val}
}
