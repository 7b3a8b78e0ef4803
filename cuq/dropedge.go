package cuq

import (
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// dropEdges returns adj without the edges one DropEdge draw removes: each
// undirected edge {i, j}, i ≠ j, is dropped with probability p, its two
// entries (i, j) and (j, i) together; a one-way entry is an edge of its
// own, and self loops stay. The decision for {i, j} is a hash of the pair
// and one key drawn from rng, so both entries agree without a lookup and
// the cost is one pass over the entries. The result is a new matrix with
// the entries and weights of adj that stay, in adj's order.
func dropEdges(adj *tensor.CSR, p float64, rng *rand.Rand) *tensor.CSR {
	key := rng.Uint64()
	out := &tensor.CSR{Rows: adj.Rows, Cols: adj.Cols, Ptr: make([]int, adj.Rows+1)}
	for i := 0; i < adj.Rows; i++ {
		for e := adj.Ptr[i]; e < adj.Ptr[i+1]; e++ {
			j := adj.Ind[e]
			if i == j || !droppedPair(key, i, j, p) {
				out.Ind = append(out.Ind, j)
				out.Val = append(out.Val, adj.Val[e])
			}
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out
}

// droppedPair reports whether the draw of key drops the pair {i, j}: the
// pair's hash, read as a uniform number u in [0, 1) of 53 bits, is below p.
func droppedPair(key uint64, i, j int, p float64) bool {
	lo, hi := uint64(min(i, j)), uint64(max(i, j))
	u := mix64(key ^ mix64(lo<<32|hi))
	return float64(u>>11)/(1<<53) < p
}

// mix64 is the SplitMix64 finaliser (Steele et al. 2014), a bijection of
// 64-bit words whose output bits each depend on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
