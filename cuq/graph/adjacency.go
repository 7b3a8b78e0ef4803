package graph

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The adjacency transforms take a well-formed CSR matrix (as built by
// tensor.NewCSR or tensor.FromCOO) and return a new one; their input is not
// modified. Entry (i, j) is an edge whose messages flow from node j to node
// i. A non-square adj is read as the adjacency of n = max(Rows, Cols) nodes
// whose missing rows or columns are empty, and the result is n×n (like an
// edge list whose node count is the largest index + 1).

// squareSize returns n = max(Rows, Cols).
func squareSize(adj *tensor.CSR) int { return max(adj.Rows, adj.Cols) }

// rowRange returns the stored range of row i, empty for rows beyond adj.
func rowRange(adj *tensor.CSR, i int) (lo, hi int) {
	if i >= adj.Rows {
		return 0, 0
	}
	return adj.Ptr[i], adj.Ptr[i+1]
}

// ToUndirected returns the symmetric 0/1 pattern of adj: an n×n matrix with
// a 1 at (i, j) and at (j, i) for every stored entry (i, j) of adj, duplicates
// coalesced (PyG to_undirected without edge attributes). Every stored entry
// counts as an edge, whatever its value. Self loops are kept, once.
func ToUndirected(adj *tensor.CSR) *tensor.CSR {
	n := squareSize(adj)
	nnz := adj.NNZ()
	ri := make([]int, 0, 2*nnz)
	ci := make([]int, 0, 2*nnz)
	for i := 0; i < adj.Rows; i++ {
		for k := adj.Ptr[i]; k < adj.Ptr[i+1]; k++ {
			j := adj.Ind[k]
			ri = append(ri, i, j)
			ci = append(ci, j, i)
		}
	}
	// Indices come from a well-formed CSR and lie in [0, n): no error.
	out, _ := tensor.FromCOO(n, n, ri, ci, nil)
	for k := range out.Val {
		out.Val[k] = 1
	}
	return out
}

// RemoveSelfLoops returns adj without its diagonal entries, as an n×n
// matrix.
func RemoveSelfLoops(adj *tensor.CSR) *tensor.CSR {
	n := squareSize(adj)
	ptr := make([]int, n+1)
	ind := make([]int, 0, adj.NNZ())
	val := make([]float64, 0, adj.NNZ())
	for i := 0; i < n; i++ {
		lo, hi := rowRange(adj, i)
		for k := lo; k < hi; k++ {
			if adj.Ind[k] != i {
				ind = append(ind, adj.Ind[k])
				val = append(val, adj.Val[k])
			}
		}
		ptr[i+1] = len(ind)
	}
	return &tensor.CSR{Rows: n, Cols: n, Ptr: ptr, Ind: ind, Val: val}
}

// AddRemainingSelfLoops returns adj with a self loop of the given weight on
// every node that has none (PyG add_remaining_self_loops): an existing
// diagonal entry keeps its value, even when it is an explicit zero.
func AddRemainingSelfLoops(adj *tensor.CSR, weight float64) *tensor.CSR {
	n := squareSize(adj)
	ptr := make([]int, n+1)
	ind := make([]int, 0, adj.NNZ()+n)
	val := make([]float64, 0, adj.NNZ()+n)
	for i := 0; i < n; i++ {
		lo, hi := rowRange(adj, i)
		placed := false
		for k := lo; k < hi; k++ {
			j := adj.Ind[k]
			if !placed && j >= i {
				if j > i {
					ind = append(ind, i)
					val = append(val, weight)
				}
				placed = true
			}
			ind = append(ind, j)
			val = append(val, adj.Val[k])
		}
		if !placed {
			ind = append(ind, i)
			val = append(val, weight)
		}
		ptr[i+1] = len(ind)
	}
	return &tensor.CSR{Rows: n, Cols: n, Ptr: ptr, Ind: ind, Val: val}
}

// SymNorm returns the symmetric GCN normalisation
//
//	Â = D^{-1/2} (A + I) D^{-1/2},  Â_ij = d_i^{-1/2} (A+I)_ij d_j^{-1/2},
//
// where the self loops are added by AddRemainingSelfLoops(adj, 1) and
// d_i = Σ_j (A+I)_ij is the weighted in-degree of node i (the sum over the
// edges whose messages reach i, PyG gcn_norm). A node with d_i ≤ 0 has
// d_i^{-1/2} = 0, so its edges get weight 0 (PyG replaces the infinite
// power of a zero degree by 0).
func SymNorm(adj *tensor.CSR) *tensor.CSR {
	a := AddRemainingSelfLoops(adj, 1)
	dinv := make([]float64, a.Rows)
	for i := range dinv {
		d := 0.0
		for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
			d += a.Val[k]
		}
		if d > 0 {
			dinv[i] = 1 / math.Sqrt(d)
		}
	}
	for i := 0; i < a.Rows; i++ {
		for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
			a.Val[k] *= dinv[i] * dinv[a.Ind[k]]
		}
	}
	return a
}

// RWNorm returns the random-walk (row-stochastic) normalisation
//
//	Â = D^{-1} (A + I),  Â_ij = (A+I)_ij / Σ_k (A+I)_ik,
//
// with the self loops added by AddRemainingSelfLoops(adj, 1). Every row of a
// non-negative adj then sums to 1; a row whose sum is 0 becomes 0.
//
// Row i averages over the nodes whose messages reach i. The reference builds
// its rw matrix with the edge sources as rows, which is this normalisation
// of Aᵀ; the two agree on undirected graphs, the only ones the paper uses.
func RWNorm(adj *tensor.CSR) *tensor.CSR {
	a := AddRemainingSelfLoops(adj, 1)
	for i := 0; i < a.Rows; i++ {
		row := a.Val[a.Ptr[i]:a.Ptr[i+1]]
		s := 0.0
		for _, v := range row {
			s += v
		}
		f := 0.0
		if s != 0 {
			f = 1 / s
		}
		scaleRow(row, f)
	}
	return a
}
