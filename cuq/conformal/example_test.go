package conformal_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Prediction sets from non-randomised RAPS scores, calibrated on four of
// seven nodes. The calibration nodes' true-label scores are 0.7, 0.6, 1.05
// (class 0 of node 2 ties with class 1: mass 1, rank 3, penalty 0.05) and
// 0.9; at α = 0.4 the conformal quantile is the ⌈5·0.6⌉ = 3rd smallest,
// 0.9. Node 6's two tied classes have mass 0.9 and enter together.
func ExampleNew() {
	prob := []float64{
		0.7, 0.2, 0.1,
		0.1, 0.6, 0.3,
		0.3, 0.3, 0.4,
		0.5, 0.4, 0.1,
		0.8, 0.1, 0.1,
		0.2, 0.2, 0.6,
		0.45, 0.45, 0.1,
	}
	labels := []int{0, 1, 0, 1, 0, 1, 1}
	r, err := conformal.New(prob, 3, labels).
		Score(conformal.RAPS{Lambda: 0.05, KReg: 2, NonRandomized: true}).
		Alpha(0.4).
		Split([]int{0, 1, 2, 3}, []int{4, 5, 6}).
		Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: q̂ = %.2f\n", r.Score, r.Quantile)
	for k, node := range r.Nodes {
		fmt.Printf("node %d: set %v, covered %v\n", node, r.Sets[k], r.Covered[k])
	}
	fmt.Printf("coverage %.2f, mean size %.2f, singletons %.2f\n", r.Coverage, r.MeanSize, r.SingletonRate)
	// Output:
	// RAPS (λ 0.05, k_reg 2) (non-randomised): q̂ = 0.90
	// node 4: set [0], covered true
	// node 5: set [2], covered false
	// node 6: set [0 1], covered true
	// coverage 0.67, mean size 1.33, singletons 0.67
}

// APS, RAPS and DAPS compared on the same random split of a graph's
// labelled nodes: a path of eight nodes whose neighbours share their label,
// half of them calibrating at α = 0.2. With four evaluation nodes the
// coverage of one split is coarse; the guarantee, coverage ≥ 0.8, holds
// on average over the splits.
func ExampleEvaluate() {
	prob := []float64{
		0.6, 0.4,
		0.7, 0.3,
		0.45, 0.55,
		0.8, 0.2,
		0.3, 0.7,
		0.4, 0.6,
		0.6, 0.4,
		0.2, 0.8,
	}
	labels := []int{0, 0, 0, 0, 1, 1, 1, 1}
	adj, _ := tensor.FromCOO(8, 8, []int{0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7}, []int{1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6}, nil)
	nodes := []int{0, 1, 2, 3, 4, 5, 6, 7}
	res, err := conformal.Evaluate(prob, 2, labels, adj, nodes, conformal.Options{Alpha: 0.2, Seed: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%-22s calibration %v: coverage %.2f, mean size %.2f\n", r.Score, r.Calibration, r.Coverage, r.MeanSize)
	}
	// Output:
	// APS                    calibration [1 2 3 6]: coverage 1.00, mean size 1.75
	// RAPS (λ 0.1, k_reg 1)  calibration [1 2 3 6]: coverage 1.00, mean size 1.75
	// DAPS (λ 0.5)           calibration [1 2 3 6]: coverage 0.50, mean size 0.75
}

// The conformal quantile of ten calibration scores at α = 0.1 is the
// ⌈11·0.9⌉ = 10th smallest, the largest; eight are too few for α = 0.1
// (rank ⌈9·0.9⌉ = 9), and the sets hold every class.
func ExampleQuantile() {
	scores := []float64{0.2, 0.9, 0.4, 0.1, 0.8, 0.3, 0.7, 0.5, 0.6, 0.95}
	q, _ := conformal.Quantile(scores, 0.1)
	fmt.Println(q)
	q, _ = conformal.Quantile(scores[:8], 0.1)
	fmt.Println(q)
	// Output:
	// 0.95
	// +Inf
}

// NAPS calibrates each evaluation node on the calibration nodes near it.
// On the graph 4 – 0 – 1 – 2 – 3 (node 5 isolated), node 0 sees the
// calibration scores 0.3 and 0.5 at one hop, 0.6 at two and 0.1 at three.
// Within three hops and weights 1/d, the weighted quantile at α = 0.6 is
// 0.5, so node 0's set takes both classes; node 5 has no neighbour and
// falls back to the split-conformal q̂ of all four calibration nodes, 0.3.
func ExampleNAPS_Calibrate() {
	scores := []float64{0.2, 0.4, 0.3, 0.7, 0.8, 0.6, 0.1, 0.2, 0.9, 0.5, 0.35, 0.25}
	labels := []int{1, 0, 1, 0, 1, 0}
	adj, err := tensor.FromCOO(6, 6, []int{0, 1, 0, 4, 1, 2, 2, 3}, []int{1, 0, 4, 0, 2, 1, 3, 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	naps := conformal.NAPS{Hops: 3, Weighting: conformal.LinearWeights, MinCalibration: 2}
	r, err := naps.Calibrate(scores, 2, labels, adj, []int{1, 2, 3, 4}, []int{0, 5}, 0.6)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: split-conformal q̂ = %.1f\n", naps, r.Quantile)
	for k, node := range r.Nodes {
		fmt.Printf("node %d: q̂ = %.1f (local %v), set %v\n", node, r.Quantiles[k], r.Local[k], r.Sets[k])
	}
	// Output:
	// NAPS (3 hops, linear, ≥ 2): split-conformal q̂ = 0.3
	// node 0: q̂ = 0.5 (local true), set [0 1]
	// node 5: q̂ = 0.3 (local false), set [1]
}

// The conditional-coverage diagnostics of a hand-made result at α = 0.2:
// six nodes of three classes, covered ✓ ✗ ✓ ✓ ✗ ✗ with set sizes 1, 0, 2,
// 3, 1, 2. The classes are covered ½, 1 and 0; the strata of sizes 0–1, 2
// and 3 ⅓, ½ and 1.
func ExampleSizeStratified() {
	r := conformal.Result{Alpha: 0.2, Classes: 3, Nodes: []int{0, 1, 2, 3, 4, 5},
		Sizes: []int{1, 0, 2, 3, 1, 2}, Covered: []bool{true, false, true, true, false, false}}
	perClass, covGap, err := conformal.ClassCoverage(r, []int{0, 0, 1, 1, 2, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	strata, sscv, err := conformal.SizeStratified(r, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("class coverage %.2f, CovGap %.3f\n", perClass, covGap)
	for _, s := range strata {
		fmt.Printf("sizes %d–%d: %d nodes, coverage %.2f\n", s.Lo, s.Hi, s.Count, s.Coverage)
	}
	fmt.Printf("SSCV %.3f\n", sscv)
	// Output:
	// class coverage [0.50 1.00 0.00], CovGap 0.433
	// sizes 0–1: 3 nodes, coverage 0.33
	// sizes 2–2: 2 nodes, coverage 0.50
	// sizes 3–3: 1 nodes, coverage 1.00
	// SSCV 0.467
}

// SNAPS averages each node's scores with those of the nodes of most
// similar features and of its graph neighbours. Four nodes on the path
// 0 – 1 – 2 – 3 with features such that node 0 is most like node 3; the
// non-randomised APS scores of node 0, (0.5, 0.8, 1), mix equally with
// node 3's, (1, 1, 0.6), and its neighbour 1's, (1, 0.6, 0.9).
func ExampleSNAPS() {
	prob := []float64{0.5, 0.3, 0.2, 0.1, 0.6, 0.3, 0.4, 0.4, 0.2, 0.2, 0.2, 0.6}
	features := &tensor.Dense{Rows: 4, Cols: 2, Data: []float64{1, 0, 0, 1, 0.5, 1, 1, 0.1}}
	similar, err := conformal.KNNSimilarity(features, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	adj, err := tensor.FromCOO(4, 4, []int{0, 1, 1, 2, 2, 3}, []int{1, 0, 2, 1, 3, 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	snaps := conformal.SNAPS{Similarity: similar, Base: conformal.APS{NonRandomized: true}}
	s, err := snaps.Scores(conformal.Input{Prob: prob, Classes: 3, Adj: adj})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("node 0's most similar node: %d\n", similar.Ind[similar.Ptr[0]])
	fmt.Printf("%v of node 0: %.3f\n", snaps, s[:3])
	// Output:
	// node 0's most similar node: 3
	// SNAPS (λ 0.333, μ 0.333) of APS (non-randomised) of node 0: [0.833 0.800 0.833]
}
