package conformal

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// DefaultHops is the radius k of NAPS's neighbourhoods when none is set:
// 2, the value of Clarkson (2023).
const DefaultHops = 2

// DefaultMinCalibration is the number of calibration nodes a
// neighbourhood must hold for NAPS to calibrate on it when none is set.
// Clarkson (2023) requires 50 nodes in the k-hop neighbourhood, on graphs
// much larger than the benchmarks; 20 calibration nodes give a finite
// threshold for every α ≥ 1/21 and a quantile not too noisy. With a
// stratified 5/15/80 split and half the test nodes calibrating, 37% of
// CoraML's evaluation nodes have 20 calibration nodes within 2 hops (the
// median has 12), and 6% of CiteSeer's (median 2).
const DefaultMinCalibration = 20

// Weighting is how NAPS weighs a calibration node at distance d hops from
// the evaluation node.
type Weighting int

// The weightings of Clarkson (2023).
const (
	// UniformWeights weighs every node of the neighbourhood 1.
	UniformWeights Weighting = iota
	// LinearWeights weighs a node at distance d by 1/d.
	LinearWeights
	// GeometricWeights weighs a node at distance d by 2^−(d−1).
	GeometricWeights
)

// weight returns w(d).
func (w Weighting) weight(d int) float64 {
	switch w {
	case LinearWeights:
		return 1 / float64(d)
	case GeometricWeights:
		return math.Ldexp(1, 1-d)
	}
	return 1
}

// String returns "uniform", "linear" or "geometric".
func (w Weighting) String() string {
	switch w {
	case UniformWeights:
		return "uniform"
	case LinearWeights:
		return "linear"
	case GeometricWeights:
		return "geometric"
	}
	return fmt.Sprintf("Weighting(%d)", int(w))
}

// NAPS is the neighbourhood adaptive prediction sets of Clarkson (2023),
// "Distribution free prediction sets for node classification": not a new
// score but a calibration per node. Each evaluation node i is calibrated
// on the calibration nodes of its k-hop neighbourhood N_k(i) (the nodes j
// ≠ i within k hops along the stored entries A_ij > 0 of the adjacency),
// each weighted by w(d(i, j)) for its distance d in hops (see Weighting),
// with the weighted conformal quantile of Tibshirani et al. (2019), the
// node i itself weighing 1 at +∞:
//
//	q̂_i = WeightedQuantile({s(j, y_j) : j ∈ N_k(i) calibrating}, {w(d(i, j))}, α),
//	C(i) = {c : s(i, c) ≤ q̂_i},
//
// with s the base score (APS by default). Where the scores of a
// neighbourhood are exchangeable with the node's, P(y_i ∈ C(i)) ≥ 1−α for
// every node i, not only on average over the nodes; otherwise the
// coverage falls short of 1−α by at most Σ_j w̃_j d_TV(Z, Z^j), the
// weighted distance of the data from exchangeability when node i's
// score is swapped with node j's (Barber et al. 2023), which is small
// when neighbours are alike, as in homophilous graphs. An evaluation
// node whose neighbourhood holds fewer than MinCalibration calibration
// nodes uses the split-conformal q̂ of all calibration nodes instead
// (Result.Local tells which); Clarkson leaves such nodes out. NAPS runs
// through Predictor and Evaluate like a score: its Scores are the base
// scores and its Calibrate replaces the package's Calibrate.
type NAPS struct {
	// Hops is the radius k ≥ 1 of the neighbourhoods, 0 for DefaultHops.
	Hops int
	// Weighting weighs the calibration nodes by distance.
	Weighting Weighting
	// MinCalibration is the fewest calibration nodes a neighbourhood must
	// hold to calibrate on, 0 for DefaultMinCalibration.
	MinCalibration int
	// Base is the score calibrated, nil for APS{} (randomised).
	Base Score
}

// hops returns k with its default.
func (n NAPS) hops() int {
	if n.Hops == 0 {
		return DefaultHops
	}
	return n.Hops
}

// minCalibration returns MinCalibration with its default.
func (n NAPS) minCalibration() int {
	if n.MinCalibration == 0 {
		return DefaultMinCalibration
	}
	return n.MinCalibration
}

// base returns the calibrated score with its default.
func (n NAPS) base() Score {
	if n.Base == nil {
		return APS{}
	}
	return n.Base
}

// check reports bad parameters.
func (n NAPS) check() error {
	if n.hops() < 1 || n.minCalibration() < 1 || n.Weighting < UniformWeights || n.Weighting > GeometricWeights {
		return fmt.Errorf("conformal: %v: need k ≥ 1 hops, at least 1 calibration node and a known weighting", n)
	}
	return nil
}

// Scores returns the base scores of every class of every node. It returns
// an error without an adjacency, for bad parameters, and the errors of the
// base score.
func (n NAPS) Scores(in Input) ([]float64, error) {
	if err := n.check(); err != nil {
		return nil, err
	}
	if in.Adj == nil {
		return nil, fmt.Errorf("conformal: %v needs the graph's adjacency", n)
	}
	return n.base().Scores(in)
}

// String returns "NAPS (k hops, weighting, ≥ m)", followed by "of <base>"
// for a base other than the randomised APS.
func (n NAPS) String() string {
	name := fmt.Sprintf("NAPS (%d hops, %v, ≥ %d)", n.hops(), n.Weighting, n.minCalibration())
	if b := n.base(); b != (APS{}) {
		name += " of " + b.String()
	}
	return name
}

// Calibrate runs NAPS on scores, the n×classes base scores of every node
// row-major (from Scores): each evaluation node gets the threshold q̂_i of
// its neighbourhood in adj, or the split-conformal q̂ of all calibration
// nodes when the neighbourhood holds fewer than MinCalibration of them,
// and the set {c : s(i, c) ≤ q̂_i}. The Result's Quantile is that
// split-conformal q̂, its Quantiles the q̂_i and its Local whether each
// was local. The errors are those of the package's Calibrate, and an error
// for bad parameters or an adjacency that is not n×n.
func (n NAPS) Calibrate(scores []float64, classes int, labels []int, adj *tensor.CSR, calibration, evaluation []int, alpha float64) (Result, error) {
	if err := n.check(); err != nil {
		return Result{}, err
	}
	if adj == nil {
		return Result{}, fmt.Errorf("conformal: %v needs the graph's adjacency", n)
	}
	if err := checkGraph("adjacency", adj, len(labels)); err != nil {
		return Result{}, err
	}
	r, err := calibrated(scores, classes, labels, calibration, evaluation, alpha)
	if err != nil {
		return Result{}, err
	}
	q := r.Quantile
	calibrating := make([]bool, len(labels))
	for _, j := range calibration {
		calibrating[j] = true
	}
	r.Quantiles, r.Local = make([]float64, len(r.Nodes)), make([]bool, len(r.Nodes))
	hood := newNeighbourhoods(adj)
	var local, weights []float64
	for k, i := range r.Nodes {
		local, weights = local[:0], weights[:0]
		for _, jd := range hood.within(i, n.hops()) {
			if j := jd[0]; calibrating[j] {
				local = append(local, scores[j*classes+labels[j]])
				weights = append(weights, n.Weighting.weight(jd[1]))
			}
		}
		r.Quantiles[k] = q
		if len(local) >= n.minCalibration() {
			if r.Quantiles[k], err = WeightedQuantile(local, weights, alpha); err != nil {
				return Result{}, err
			}
			r.Local[k] = true
		}
	}
	r.predict(scores, labels, func(k int) float64 { return r.Quantiles[k] })
	return r, nil
}

// neighbourhoods finds the nodes within k hops of a node by breadth-first
// search, reusing its buffers.
type neighbourhoods struct {
	adj   *tensor.CSR
	dist  []int // hops from the current node, −1 unseen
	found [][2]int
}

func newNeighbourhoods(adj *tensor.CSR) *neighbourhoods {
	dist := make([]int, adj.Rows)
	for i := range dist {
		dist[i] = -1
	}
	return &neighbourhoods{adj: adj, dist: dist}
}

// within returns the nodes j ≠ i at distance d(i, j) ≤ k along the entries
// A_ij > 0, as pairs (j, d), nearest first. The slice is reused by the next
// call.
func (h *neighbourhoods) within(i, k int) [][2]int {
	a := h.adj
	h.found = append(h.found[:0], [2]int{i, 0})
	h.dist[i] = 0
	for head := 0; head < len(h.found); head++ {
		u, d := h.found[head][0], h.found[head][1]
		if d == k {
			continue
		}
		for e := a.Ptr[u]; e < a.Ptr[u+1]; e++ {
			if j := a.Ind[e]; a.Val[e] > 0 && h.dist[j] < 0 {
				h.dist[j] = d + 1
				h.found = append(h.found, [2]int{j, d + 1})
			}
		}
	}
	for _, jd := range h.found {
		h.dist[jd[0]] = -1
	}
	return h.found[1:]
}

// WeightedQuantile returns the weighted conformal quantile of Tibshirani,
// Barber, Candès and Ramdas (2019) of scores s_j with weights w_j ≥ 0,
// the test point weighing 1 at +∞: the (1−α)-quantile of the distribution
//
//	Σ_j w̃_j δ_{s_j} + w̃_{n+1} δ_{+∞},   w̃_j = w_j / (Σ_l w_l + 1),  w̃_{n+1} = 1 / (Σ_l w_l + 1),
//
// that is, the smallest s_j with Σ_{l : s_l ≤ s_j} w_l ≥ (1−α)(Σ_l w_l + 1),
// and +∞ when no score has enough weight below it. The comparison allows
// the tolerance of QuantileRank, 10⁻⁹ in units of weight, so that with all
// weights 1 it is Quantile. It returns an error for α outside (0, 1), no
// scores, lengths that differ, a NaN score or a weight negative or not
// finite.
func WeightedQuantile(scores, weights []float64, alpha float64) (float64, error) {
	if !(alpha > 0 && alpha < 1) {
		return 0, fmt.Errorf("conformal: α = %v, need 0 < α < 1", alpha)
	}
	if len(scores) == 0 {
		return 0, fmt.Errorf("conformal: no calibration nodes")
	}
	if len(weights) != len(scores) {
		return 0, fmt.Errorf("conformal: %d weights for %d scores", len(weights), len(scores))
	}
	order := make([]int, len(scores))
	var total float64
	for j, s := range scores {
		if math.IsNaN(s) {
			return 0, fmt.Errorf("conformal: calibration score %d is NaN", j)
		}
		if w := weights[j]; !(w >= 0) || math.IsInf(w, 1) {
			return 0, fmt.Errorf("conformal: weight %d is %v, not finite and non-negative", j, w)
		}
		order[j] = j
		total += weights[j]
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	need := float64((total+1)*(1-alpha)) - quantileRankSlack
	var cum float64
	for _, j := range order {
		if cum += weights[j]; cum >= need {
			return scores[j], nil
		}
	}
	return math.Inf(1), nil
}
