package conformal

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// DefaultSimilarNodes is the number k of most similar nodes of
// KNNSimilarity that SNAPS averages over when the caller does not choose:
// 20, the value of Song et al. (2024).
const DefaultSimilarNodes = 20

// DefaultSNAPSWeight is SNAPS's weight λ of the similar nodes and μ of the
// neighbours when neither is set: ⅓ each, so that a node's own score, its
// similar nodes' and its neighbours' weigh alike, as in Song et al.
// (2024).
const DefaultSNAPSWeight = 1.0 / 3

// SNAPS is the similarity-navigated adaptive score of Song, Huang, Jiang,
// Zhang, Li and Wang (2024), "Similarity-navigated conformal prediction
// for graph neural networks": the base scores s (APS by default) of every
// class, averaged with those of the nodes of most similar features and
// with those of the graph neighbours,
//
//	ŝ(i, c) = (1−λ−μ)·s(i, c) + λ·Σ_j S_ij s(j, c) / Σ_j S_ij + μ·Σ_j A_ij s(j, c) / Σ_j A_ij,
//
// with S the feature-similarity graph (S_ij the cosine similarity of the
// features of i and j for j among the k nodes most similar to i, 0
// otherwise: see KNNSimilarity; the similarity-weighted mean is the
// authors' code's) and A the adjacency, as in DAPS. A node without
// similar nodes or without neighbours keeps its own score in place of
// that mean. Nodes of similar features and neighbours in homophilous
// graphs tend to share the label, so their scores denoise the node's. The
// scores mix in other nodes' predictions and features but no label, so
// split conformal prediction keeps its guarantee, as for DAPS. λ = 0 is
// DAPS with diffusion μ.
type SNAPS struct {
	// Lambda is the weight λ of the similar nodes' mean and Mu the weight
	// μ of the neighbours' mean, λ, μ ≥ 0, λ + μ ≤ 1; both 0 means
	// DefaultSNAPSWeight each.
	Lambda, Mu float64
	// Similarity is the n×n feature-similarity graph S, as KNNSimilarity
	// returns it. Prediction.Conformal fills it in from the graph's
	// features with DefaultSimilarNodes when it is nil.
	Similarity *tensor.CSR
	// Base is the aggregated score, nil for APS{} (randomised).
	Base Score
}

// weights returns λ and μ with their defaults.
func (s SNAPS) weights() (lambda, mu float64) {
	if s.Lambda == 0 && s.Mu == 0 {
		return DefaultSNAPSWeight, DefaultSNAPSWeight
	}
	return s.Lambda, s.Mu
}

// base returns the aggregated score with its default.
func (s SNAPS) base() Score {
	if s.Base == nil {
		return APS{}
	}
	return s.Base
}

// Scores returns the aggregated scores of every class of every node. It
// returns an error without an adjacency or a similarity graph, for a
// similarity graph that is not n×n with finite non-negative weights, for
// λ or μ negative or λ + μ > 1, and the errors of the base score.
func (s SNAPS) Scores(in Input) ([]float64, error) {
	lambda, mu := s.weights()
	if !(lambda >= 0 && mu >= 0 && lambda+mu <= 1) {
		return nil, fmt.Errorf("conformal: %v: need λ, μ ≥ 0 and λ + μ ≤ 1", s)
	}
	if in.Adj == nil {
		return nil, fmt.Errorf("conformal: %v needs the graph's adjacency", s)
	}
	if s.Similarity == nil {
		return nil, fmt.Errorf("conformal: %v needs a feature-similarity graph (see KNNSimilarity)", s)
	}
	base, err := s.base().Scores(in)
	if err != nil {
		return nil, err
	}
	if err := checkGraph("similarity graph", s.Similarity, in.Nodes()); err != nil {
		return nil, err
	}
	k := in.Classes
	out := make([]float64, len(base))
	similar, neighbours := make([]float64, k), make([]float64, k)
	for i := range in.Nodes() {
		own := base[i*k : (i+1)*k]
		sw := neighbourSum(s.Similarity, base, k, i, similar)
		aw := neighbourSum(in.Adj, base, k, i, neighbours)
		for c := range own {
			v := float64((1 - lambda - mu) * own[c])
			if sw > 0 {
				v += lambda * similar[c] / sw
			} else {
				v += float64(lambda * own[c])
			}
			if aw > 0 {
				v += mu * neighbours[c] / aw
			} else {
				v += float64(mu * own[c])
			}
			out[i*k+c] = v
		}
	}
	return out, nil
}

// String returns "SNAPS (λ …, μ …)", followed by "of <base>" for a base
// other than the randomised APS.
func (s SNAPS) String() string {
	lambda, mu := s.weights()
	name := fmt.Sprintf("SNAPS (λ %.3g, μ %.3g)", lambda, mu)
	if b := s.base(); b != (APS{}) {
		name += " of " + b.String()
	}
	return name
}

// KNNSimilarity returns the k-nearest-neighbour feature-similarity graph of
// SNAPS: the n×n matrix S whose row i holds, for the k nodes j ≠ i of
// largest cosine similarity
//
//	cos(x_i, x_j) = x_iᵀx_j / (‖x_i‖ ‖x_j‖)
//
// to node i, S_ij = cos(x_i, x_j), and 0 elsewhere. Only positive
// similarities count: a node has fewer than k entries when fewer other
// nodes share a feature with it (none for a zero feature row). Ties are
// broken towards the smaller node index. features is n×d, a *tensor.CSR
// or a *tensor.Dense. Song et al. (2024) binarise the features first
// (x ≠ 0 becomes 1), which changes nothing for binary bag-of-words
// features such as those of the benchmark graphs and is left to the
// caller otherwise. The cost is that of the sparse product X Xᵀ. It
// returns an error for k < 1, features of another type or a non-finite
// feature.
func KNNSimilarity(features tensor.Matrix, k int) (*tensor.CSR, error) {
	if k < 1 {
		return nil, fmt.Errorf("conformal: KNNSimilarity: k = %d, need k ≥ 1", k)
	}
	ptr, ind, val, n, d, err := sparseRows(features)
	if err != nil {
		return nil, err
	}
	s := newCosines(ptr, ind, val, n, d)
	outPtr := make([]int, n+1)
	var outInd []int
	var outVal []float64
	for i := range n {
		for _, c := range s.nearest(i, k) {
			outInd, outVal = append(outInd, c.j), append(outVal, c.sim)
		}
		outPtr[i+1] = len(outInd)
	}
	return tensor.NewCSR(n, n, outPtr, outInd, outVal)
}

// cosines computes the cosine similarities of a feature row with the
// others: the rows (ptr, ind, val), the same features by column, for the
// products x_iᵀx_j of row i with every row sharing a feature with it, the
// rows' norms, and scratch space.
type cosines struct {
	ptr, ind        []int
	val             []float64
	colPtr, colNode []int
	colVal, norm    []float64
	dot             []float64
	seen            []bool
	touched         []int
	cands           []knnCandidate
}

// knnCandidate is a node j of similarity sim.
type knnCandidate struct {
	j   int
	sim float64
}

func newCosines(ptr, ind []int, val []float64, n, d int) *cosines {
	colPtr := make([]int, d+1)
	for _, f := range ind {
		colPtr[f+1]++
	}
	for f := range d {
		colPtr[f+1] += colPtr[f]
	}
	colNode, colVal := make([]int, len(ind)), make([]float64, len(ind))
	next := slices.Clone(colPtr[:d])
	norm := make([]float64, n)
	for i := range n {
		var sq float64
		for e := ptr[i]; e < ptr[i+1]; e++ {
			f := ind[e]
			colNode[next[f]], colVal[next[f]] = i, val[e]
			next[f]++
			sq += float64(val[e] * val[e])
		}
		norm[i] = math.Sqrt(sq)
	}
	return &cosines{ptr: ptr, ind: ind, val: val, colPtr: colPtr, colNode: colNode, colVal: colVal,
		norm: norm, dot: make([]float64, n), seen: make([]bool, n)}
}

// nearest returns the k nodes j ≠ i of largest positive cosine similarity
// to node i (ties towards the smaller index), in the order of j. The
// slice is reused by the next call.
func (s *cosines) nearest(i, k int) []knnCandidate {
	s.touched = s.touched[:0]
	for e := s.ptr[i]; e < s.ptr[i+1]; e++ {
		f, x := s.ind[e], s.val[e]
		for q := s.colPtr[f]; q < s.colPtr[f+1]; q++ {
			j := s.colNode[q]
			if !s.seen[j] {
				s.seen[j], s.touched = true, append(s.touched, j)
			}
			s.dot[j] += float64(x * s.colVal[q])
		}
	}
	cands := s.cands[:0]
	for _, j := range s.touched {
		if sim := s.dot[j] / (s.norm[i] * s.norm[j]); j != i && sim > 0 {
			cands = append(cands, knnCandidate{j, sim})
		}
		s.dot[j], s.seen[j] = 0, false
	}
	slices.SortFunc(cands, func(a, b knnCandidate) int {
		if c := cmp.Compare(b.sim, a.sim); c != 0 {
			return c
		}
		return cmp.Compare(a.j, b.j)
	})
	cands = cands[:min(k, len(cands))]
	slices.SortFunc(cands, func(a, b knnCandidate) int { return cmp.Compare(a.j, b.j) })
	s.cands = cands
	return cands
}

// sparseRows returns the non-zero entries of a feature matrix row by row
// (CSR arrays) and its shape.
func sparseRows(features tensor.Matrix) (ptr, ind []int, val []float64, n, d int, err error) {
	switch x := features.(type) {
	case *tensor.CSR:
		if x == nil {
			return nil, nil, nil, 0, 0, fmt.Errorf("conformal: KNNSimilarity: nil features")
		}
		if _, err := tensor.NewCSR(x.Rows, x.Cols, x.Ptr, x.Ind, x.Val); err != nil {
			return nil, nil, nil, 0, 0, fmt.Errorf("conformal: KNNSimilarity: %w", err)
		}
		ptr, ind, val, n, d = x.Ptr, x.Ind, x.Val, x.Rows, x.Cols
	case *tensor.Dense:
		if x == nil || len(x.Data) != x.Rows*x.Cols {
			return nil, nil, nil, 0, 0, fmt.Errorf("conformal: KNNSimilarity: nil or malformed dense features")
		}
		n, d = x.Rows, x.Cols
		ptr = make([]int, n+1)
		for i := range n {
			for f, v := range x.Data[i*d : (i+1)*d] {
				if v != 0 {
					ind, val = append(ind, f), append(val, v)
				}
			}
			ptr[i+1] = len(ind)
		}
	default:
		return nil, nil, nil, 0, 0, fmt.Errorf("conformal: KNNSimilarity: features of type %T, want *tensor.CSR or *tensor.Dense", features)
	}
	for e, v := range val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, nil, 0, 0, fmt.Errorf("conformal: KNNSimilarity: feature entry %d is %v", e, v)
		}
	}
	return ptr, ind, val, n, d, nil
}
