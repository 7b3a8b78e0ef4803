// Package energy computes post-hoc energy scores of node classifiers from
// their class logits, for out-of-distribution detection without retraining:
// the energy score of Liu et al. (2020), its propagation over the graph by
// GNNSafe (Wu et al., ICLR 2023), and the multi-scale graph energy of GEBM
// (Fuchsgruber et al., NeurIPS 2024).
//
// Matrices are row-major slices, one row per node: logits z are N×C (node i
// in z[i*C:(i+1)*C]). Every score returned is an UNCERTAINTY: larger means
// more likely out of distribution.
//
// The free energy of node i at temperature T > 0 is
//
//	E(i) = −T · log Σ_k exp(z_ik / T),
//
// the negative of the logit's log-partition function; the energy score of
// Liu et al. is −E as a confidence, so E itself is the uncertainty.
//
// GNNSafe propagates the energies over the graph (energy belief propagation)
// with the row-normalised adjacency P = D⁻¹A, D_ii = Σ_j A_ij (no self loops;
// the row of an isolated node is zero), K times:
//
//	E⁽ᵏ⁺¹⁾ = α E⁽ᵏ⁾ + (1−α) P E⁽ᵏ⁾,  E⁽⁰⁾ = E,
//
// with α = 0.5 and K = 2 by default (the GNNSafe code's defaults).
//
// GEBM (see GEBM) combines an independent, a local and a group energy of
// logits corrected by class-conditional Gaussians on the embeddings,
// diffused with P̃ = D̃⁻¹(A+I), the label-propagation operator.
package energy

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// checkMatrix returns the number of rows of the row-major matrix x with
// cols columns, or an error naming what, if cols < 1, len(x) is not a
// multiple of cols, or x holds a non-finite value.
func checkMatrix(what string, x []float64, cols int) (int, error) {
	if cols < 1 {
		return 0, fmt.Errorf("energy: %s with %d columns, need at least 1", what, cols)
	}
	if len(x)%cols != 0 {
		return 0, fmt.Errorf("energy: %s has %d values, not a multiple of its %d columns", what, len(x), cols)
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("energy: %s: row %d, column %d is %v", what, k/cols, k%cols, v)
		}
	}
	return len(x) / cols, nil
}

// logSumExp returns log Σ_k exp(x_k / t) · t, computed with the maximum
// factored out so that large x do not overflow: t·(m + log Σ exp(x/t − m)),
// m = max x/t.
func logSumExp(x []float64, t float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v/t)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v/t - m)
	}
	return t * (m + math.Log(s))
}

// Free returns the free energies E(i) = −T · log Σ_k exp(z_ik / T) of the
// rows of the N×classes logits z at temperature T > 0 (see the package
// documentation). It is stable for logits of any magnitude. It returns an
// error for T ≤ 0 or not finite, classes < 1, a length not a multiple of
// classes, or a non-finite logit.
func Free(logits []float64, classes int, temperature float64) ([]float64, error) {
	if !(temperature > 0) || math.IsInf(temperature, 1) {
		return nil, fmt.Errorf("energy: temperature %v, need a finite T > 0", temperature)
	}
	n, err := checkMatrix("logits", logits, classes)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = -logSumExp(logits[i*classes:(i+1)*classes], temperature)
	}
	return out, nil
}

// RowNormalized returns P = D⁻¹A, P_ij = A_ij / Σ_k A_ik, without adding
// self loops: GNNSafe's propagation operator. Row i averages over the nodes
// whose messages reach i (entry (i, j) of adj is an edge from j to i). A
// row whose sum is zero (an isolated node) stays zero, as the GNNSafe code
// sets the infinite 1/d of a zero degree to 0. It returns an error for a
// nil or non-square adjacency, or a negative or non-finite weight.
func RowNormalized(adj *tensor.CSR) (*tensor.CSR, error) {
	if err := checkAdjacency(adj); err != nil {
		return nil, err
	}
	p := adj.Clone()
	for i := 0; i < p.Rows; i++ {
		row := p.Val[p.Ptr[i]:p.Ptr[i+1]]
		s := 0.0
		for _, v := range row {
			s += v
		}
		for k := range row {
			if s > 0 {
				row[k] /= s
			} else {
				row[k] = 0
			}
		}
	}
	return p, nil
}

// checkAdjacency returns an error unless adj is a square matrix with
// finite, non-negative weights.
func checkAdjacency(adj *tensor.CSR) error {
	if adj == nil {
		return fmt.Errorf("energy: nil adjacency")
	}
	if adj.Rows != adj.Cols {
		return fmt.Errorf("energy: adjacency is %dx%d, not square", adj.Rows, adj.Cols)
	}
	for _, v := range adj.Val {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("energy: adjacency weight %v, need finite weights ≥ 0", v)
		}
	}
	return nil
}

// Diffuse returns x after K steps of
//
//	x⁽ᵏ⁺¹⁾ = α x⁽ᵏ⁾ + (1−α) P x⁽ᵏ⁾,  x⁽⁰⁾ = x,
//
// for the N×cols row-major signal x and the N×N operator P (RowNormalized
// for GNNSafe, graph.RWNorm for GEBM). x is not modified. It returns an
// error for α outside [0, 1], K < 0, or a signal whose rows do not match P.
func Diffuse(p *tensor.CSR, x []float64, cols int, alpha float64, steps int) ([]float64, error) {
	if p == nil || p.Rows != p.Cols {
		return nil, fmt.Errorf("energy: diffusion needs a square operator")
	}
	if !(alpha >= 0 && alpha <= 1) {
		return nil, fmt.Errorf("energy: diffusion weight α = %v not in [0, 1]", alpha)
	}
	if steps < 0 {
		return nil, fmt.Errorf("energy: %d diffusion steps, need K ≥ 0", steps)
	}
	n, err := checkMatrix("diffused signal", x, cols)
	if err != nil {
		return nil, err
	}
	if n != p.Rows {
		return nil, fmt.Errorf("energy: signal has %d rows, the operator %d", n, p.Rows)
	}
	cur := &tensor.Dense{Rows: n, Cols: cols, Data: append([]float64(nil), x...)}
	next := tensor.New(n, cols)
	for range steps {
		p.MulTo(next, cur)
		for k, v := range cur.Data {
			next.Data[k] = float64(alpha*v) + float64((1-alpha)*next.Data[k])
		}
		cur, next = next, cur
	}
	return cur.Data, nil
}

// GNNSafe returns the GNNSafe scores of the N×classes logits on the graph
// with adjacency adj: the free energies at temperature T (Free), diffused
// K times with weight α over RowNormalized(adj) (Diffuse). GNNSafe's
// defaults are T = 1, α = 0.5, K = 2.
func GNNSafe(adj *tensor.CSR, logits []float64, classes int, temperature, alpha float64, steps int) ([]float64, error) {
	e, err := Free(logits, classes, temperature)
	if err != nil {
		return nil, err
	}
	p, err := RowNormalized(adj)
	if err != nil {
		return nil, err
	}
	return Diffuse(p, e, 1, alpha, steps)
}
