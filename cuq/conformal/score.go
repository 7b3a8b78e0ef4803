package conformal

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// probabilitySumTolerance is how far a row of class probabilities may sum
// from 1, and a probability exceed 1: the rounding of mixture weights, as
// in package eval.
const probabilitySumTolerance = 1e-6

// DefaultDiffusion is DAPS's weight λ of the neighbours' mean score when
// none is set: 0.5, the value of Zargarbashi et al. (2023).
const DefaultDiffusion = 0.5

// Input is what a non-conformity score is computed from: the class
// probabilities of every node of a graph, the graph, and one uniform
// random number per node for the randomised scores.
type Input struct {
	// Prob holds the class probabilities row-major: node i's in
	// Prob[i·Classes:(i+1)·Classes], for n = len(Prob)/Classes nodes.
	Prob    []float64
	Classes int
	// Adj is the graph's n×n adjacency (entry (i, j) an edge from j to i
	// of weight A_ij ≥ 0), needed by DAPS, SNAPS and NAPS; nil without a
	// graph.
	Adj *tensor.CSR
	// U holds U_i ∈ [0, 1] for each node, nil for none (then the
	// randomised scores are computed with U_i = 0, as the non-randomised).
	U []float64
}

// Nodes returns n, the number of rows of Prob.
func (in Input) Nodes() int {
	if in.Classes < 1 {
		return 0
	}
	return len(in.Prob) / in.Classes
}

// Check returns an error if Classes < 1, Prob holds no row or a partial
// one, a probability is NaN or outside [0, 1] or a row does not sum to 1
// (both within 10⁻⁶), U is not nil but not of length n or has a value
// outside [0, 1], or Adj is not nil but not a well-formed n×n CSR matrix
// with finite, non-negative weights.
func (in Input) Check() error {
	k := in.Classes
	if k < 1 {
		return fmt.Errorf("conformal: %d classes", k)
	}
	if len(in.Prob) == 0 || len(in.Prob)%k != 0 {
		return fmt.Errorf("conformal: %d probabilities are not rows of %d classes", len(in.Prob), k)
	}
	n := in.Nodes()
	for i := range n {
		var sum float64
		for c, p := range in.Prob[i*k : (i+1)*k] {
			if !(p >= 0 && p <= 1+probabilitySumTolerance) {
				return fmt.Errorf("conformal: node %d has probability %v for class %d, not in [0, 1]", i, p, c)
			}
			sum += p
		}
		if math.Abs(sum-1) > probabilitySumTolerance {
			return fmt.Errorf("conformal: probabilities of node %d sum to %v, not 1", i, sum)
		}
	}
	if in.U != nil {
		if len(in.U) != n {
			return fmt.Errorf("conformal: %d uniform numbers for %d nodes", len(in.U), n)
		}
		for i, u := range in.U {
			if !(u >= 0 && u <= 1) {
				return fmt.Errorf("conformal: uniform number %v of node %d is not in [0, 1]", u, i)
			}
		}
	}
	if in.Adj != nil {
		return checkGraph("adjacency", in.Adj, n)
	}
	return nil
}

// checkGraph reports a graph a that is not a well-formed n×n CSR matrix
// with finite, non-negative weights.
func checkGraph(name string, a *tensor.CSR, n int) error {
	if a.Rows != n || a.Cols != n {
		return fmt.Errorf("conformal: %s %s for %d nodes", a.Shape(), name, n)
	}
	if _, err := tensor.NewCSR(a.Rows, a.Cols, a.Ptr, a.Ind, a.Val); err != nil {
		return fmt.Errorf("conformal: %s: %w", name, err)
	}
	for k, w := range a.Val {
		if !(w >= 0) || math.IsInf(w, 1) {
			return fmt.Errorf("conformal: %s entry %d has weight %v, not finite and non-negative", name, k, w)
		}
	}
	return nil
}

// A Score is a non-conformity score s(i, c): how unusual class c is as the
// label of node i given the model's prediction, larger meaning less
// conforming. The prediction set of node i is {c : s(i, c) ≤ q̂}.
type Score interface {
	// Scores returns s(i, c) for every node i and class c of in, row-major
	// n×Classes, or the error of in.Check, or of what the score needs.
	Scores(in Input) ([]float64, error)
	// String names the score and its parameters.
	String() string
}

// APS is the adaptive-prediction-set score of Romano, Sesia and Candès
// (2020): the probability mass of the classes at least as probable as c,
//
//	s(i, c) = Σ_{c′ : p_ic′ ≥ p_ic} p_ic′ − U_i·p_ic,
//
// so that the set {c : s(i, c) ≤ q̂} holds the most probable classes until
// their mass reaches q̂. Classes of equal probability have equal scores, so
// a set holds all of them or none. The uniform U_i, one per node and the
// same for every class, makes the scores continuous and the coverage
// exact in expectation, 1−α ≤ P(y ∈ C) ≤ 1−α + 1/(n+1) for n calibration
// nodes without ties; the randomised set may be empty. NonRandomized sets
// U_i = 0: then the most probable class is always in the set when q̂ ≥ its
// probability, and the sets are larger.
type APS struct {
	NonRandomized bool
}

// Scores returns the APS scores of every class of every node.
func (a APS) Scores(in Input) ([]float64, error) {
	return RAPS{NonRandomized: a.NonRandomized}.Scores(in)
}

// String returns "APS", with "(non-randomised)" when so.
func (a APS) String() string { return "APS" + randomisation(a.NonRandomized) }

// RAPS is the regularised APS of Angelopoulos, Bates, Malik and Jordan
// (2021): APS plus a penalty on classes of low rank,
//
//	s(i, c) = APS(i, c) + λ·max(0, o(i, c) − k_reg),  o(i, c) = |{c′ : p_ic′ ≥ p_ic}|,
//
// with o(i, c) the rank of c (1 for the most probable class; tied classes
// share the lowest rank of their group, its size counted). The penalty
// keeps classes beyond the k_reg most probable ones out of the sets unless
// the model is unsure. Lambda = 0 is APS. Lambda must be ≥ 0 and KReg ≥ 0.
type RAPS struct {
	Lambda        float64
	KReg          int
	NonRandomized bool
}

// DefaultRAPS is the RAPS of DefaultScores: λ = 0.1 and k_reg = 1, which
// penalises every class after the first, for graphs of few classes.
var DefaultRAPS = RAPS{Lambda: 0.1, KReg: 1}

// Scores returns the RAPS scores of every class of every node.
func (r RAPS) Scores(in Input) ([]float64, error) {
	if !(r.Lambda >= 0) || math.IsInf(r.Lambda, 1) || r.KReg < 0 {
		return nil, fmt.Errorf("conformal: %v: need λ ≥ 0 finite and k_reg ≥ 0", r)
	}
	if err := in.Check(); err != nil {
		return nil, err
	}
	k := in.Classes
	out := make([]float64, len(in.Prob))
	order := make([]int, k)
	for i := range in.Nodes() {
		p := in.Prob[i*k : (i+1)*k]
		s := out[i*k : (i+1)*k]
		var u float64
		if in.U != nil && !r.NonRandomized {
			u = in.U[i]
		}
		for c := range order {
			order[c] = c
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[b], p[a]) })
		// Walk the groups of equal probability from the most probable:
		// every class of a group has the mass and the rank up to the
		// group's end.
		var mass float64
		for lo := 0; lo < k; {
			hi := lo
			for hi < k && p[order[hi]] == p[order[lo]] {
				mass += p[order[hi]]
				hi++
			}
			penalty := float64(r.Lambda * float64(max(0, hi-r.KReg)))
			for _, c := range order[lo:hi] {
				s[c] = mass - float64(u*p[c]) + penalty
			}
			lo = hi
		}
	}
	return out, nil
}

// String returns "RAPS (λ …, k_reg …)", with "(non-randomised)" when so.
func (r RAPS) String() string {
	return fmt.Sprintf("RAPS (λ %g, k_reg %d)", r.Lambda, r.KReg) + randomisation(r.NonRandomized)
}

// DAPS is the diffusion-adaptive score of Zargarbashi, Antonelli and
// Bojchevski (2023), "Conformal prediction sets for graph neural
// networks": the base scores s (APS by default) of every class of every
// node, diffused once over the graph,
//
//	ŝ(i, c) = (1−λ)·s(i, c) + λ·(D⁻¹A s)(i, c),  (D⁻¹A s)(i, c) = Σ_j A_ij s(j, c) / Σ_j A_ij,
//
// the weighted mean of the neighbours' scores (a self loop stored in A
// counts as a neighbour); an isolated node, Σ_j A_ij = 0, keeps its own
// score. Neighbours in homophilous graphs tend to share their label, so
// the diffused scores are less noisy and the sets smaller at the same
// coverage. The scores of a node depend on its neighbours' predictions
// but not on any label, so the guarantee of split conformal prediction
// still holds.
type DAPS struct {
	// Lambda is the weight λ ∈ (0, 1] of the neighbours' mean; 0 means
	// DefaultDiffusion (λ = 0 would be the base score itself).
	Lambda float64
	// Base is the diffused score, nil for APS{} (randomised).
	Base Score
}

// lambda returns λ with its default.
func (d DAPS) lambda() float64 {
	if d.Lambda == 0 {
		return DefaultDiffusion
	}
	return d.Lambda
}

// base returns the diffused score with its default.
func (d DAPS) base() Score {
	if d.Base == nil {
		return APS{}
	}
	return d.Base
}

// Scores returns the diffused scores of every class of every node. It
// returns an error without an adjacency or for λ outside [0, 1].
func (d DAPS) Scores(in Input) ([]float64, error) {
	lambda := d.lambda()
	if !(lambda > 0 && lambda <= 1) {
		return nil, fmt.Errorf("conformal: %v: λ must be in (0, 1]", d)
	}
	if in.Adj == nil {
		return nil, fmt.Errorf("conformal: %v needs the graph's adjacency", d)
	}
	s, err := d.base().Scores(in)
	if err != nil {
		return nil, err
	}
	k := in.Classes
	out := make([]float64, len(s))
	sum := make([]float64, k)
	for i := range in.Nodes() {
		own, diffused := s[i*k:(i+1)*k], out[i*k:(i+1)*k]
		degree := neighbourSum(in.Adj, s, k, i, sum)
		if degree == 0 {
			copy(diffused, own)
			continue
		}
		for c := range diffused {
			diffused[c] = float64((1-lambda)*own[c]) + lambda*sum[c]/degree
		}
	}
	return out, nil
}

// neighbourSum sets sum[c] = Σ_j A_ij s(j, c) over the entries of row i of
// a, for the row-major scores s of k classes, and returns Σ_j A_ij.
func neighbourSum(a *tensor.CSR, s []float64, k, i int, sum []float64) float64 {
	var degree float64
	clear(sum)
	for e := a.Ptr[i]; e < a.Ptr[i+1]; e++ {
		w, j := a.Val[e], a.Ind[e]
		degree += w
		for c, v := range s[j*k : (j+1)*k] {
			sum[c] += float64(w * v)
		}
	}
	return degree
}

// String returns "DAPS (λ …)", followed by "of <base>" for a base other
// than the randomised APS.
func (d DAPS) String() string {
	name := fmt.Sprintf("DAPS (λ %g)", d.lambda())
	if b := d.base(); b != (APS{}) {
		name += " of " + b.String()
	}
	return name
}

// randomisation returns the suffix naming a non-randomised score.
func randomisation(nonRandomized bool) string {
	if nonRandomized {
		return " (non-randomised)"
	}
	return ""
}
