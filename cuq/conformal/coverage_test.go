package conformal

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// categoricalData draws n nodes of k classes from a known model: the class
// probabilities of each node from Dirichlet(½, …, ½) (normalised squares of
// standard normals, Gamma(½) up to scale), its label from them; and a
// random graph in which every node links to two others (both directions
// stored).
func categoricalData(t *testing.T, rng *rand.Rand, n, k int) (prob []float64, labels []int, adj *tensor.CSR) {
	t.Helper()
	prob = make([]float64, n*k)
	labels = make([]int, n)
	for i := range n {
		row := prob[i*k : (i+1)*k]
		var sum float64
		for c := range row {
			z := rng.NormFloat64()
			row[c] = z * z
			sum += row[c]
		}
		u, y := rng.Float64()*sum, k-1
		for c := range row {
			if u < row[c] && y == k-1 {
				y = c
			}
			u -= row[c]
			row[c] /= sum
		}
		labels[i] = y
	}
	var ri, ci []int
	for i := range n {
		for range 2 {
			j := (i + 1 + rng.IntN(n-1)) % n
			ri, ci = append(ri, i, j), append(ci, j, i)
		}
	}
	adj, err := tensor.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	for e := range adj.Val {
		adj.Val[e] = 1
	}
	return prob, labels, adj
}

// TestCoverageGuarantee checks 1−α ≤ P(y ∈ C) ≤ 1−α + 1/(n+1) for every
// score: the mean coverage over 200 random splits of 400 nodes drawn from
// a known categorical model (200 calibrate, 200 are evaluated) at α = 0.1
// and α = 0.2. The coverage of one split has variance about
// α(1−α)(1/n + 1/m) (the binomial variance of the m evaluated nodes plus
// that of the quantile of the n calibration scores), so the mean of 200
// has standard error sqrt(α(1−α)(1/n + 1/m)/200) ≈ 0.0021 at α = 0.1; the
// slack is four of them.
func TestCoverageGuarantee(t *testing.T) {
	const nodes, classes, splits = 400, 4, 200
	rng := rand.New(rand.NewPCG(3, 14))
	prob, labels, adj := categoricalData(t, rng, nodes, classes)
	all := make([]int, nodes)
	for i := range all {
		all[i] = i
	}
	scores := []Score{APS{}, APS{NonRandomized: true}, DefaultRAPS, DAPS{}}
	for _, alpha := range []float64{0.1, 0.2} {
		sums := make([]float64, len(scores))
		var n, m int
		for seed := range uint64(splits) {
			res, err := Evaluate(prob, classes, labels, adj, all, Options{Scores: scores, Alpha: alpha, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range res {
				sums[k] += r.Coverage
			}
			n, m = len(res[0].Calibration), len(res[0].Nodes)
		}
		se := math.Sqrt(alpha * (1 - alpha) * (1/float64(n) + 1/float64(m)) / splits)
		lo, hi := 1-alpha-4*se, 1-alpha+1/float64(n+1)+4*se
		for k, s := range scores {
			mean := sums[k] / splits
			t.Logf("α %.1f %-22v mean coverage %.4f in [%.4f, %.4f]", alpha, s, mean, lo, hi)
			if !(mean >= lo && mean <= hi) {
				t.Errorf("α %.1f, %v: mean coverage %.4f over %d splits, want it in [%.4f, %.4f]", alpha, s, mean, splits, lo, hi)
			}
		}
	}
}

// TestGraphCoverageGuarantee extends TestCoverageGuarantee to SNAPS and
// NAPS on the same known categorical model, 200 random splits of 400
// nodes at α = 0.1 and 0.2. SNAPS averages over the graph's neighbours and
// a k-nearest-neighbour graph of random features; its scores use no
// label, so the split-conformal bounds hold as for DAPS. NAPS calibrates
// each node on the calibration nodes within 2 hops (at least 5 of them,
// else the split-conformal q̂). Here the labels and probabilities are
// drawn independently of the graph, so a node's score is exchangeable
// with its neighbours' and each node's coverage is known exactly: with
// n_i calibration nodes of continuous (randomised) scores,
// min(1, ⌈(n_i+1)(1−α)⌉/(n_i+1)) ≥ 1−α. The mean coverage must lie
// within four standard errors of the mean of these exact values for
// uniform weights, and above 1−α minus four for linear weights (weighted
// conformal prediction keeps 1−α under exchangeability). The standard
// error is the larger of TestCoverageGuarantee's and the spread of the
// 200 coverages over √200: the local quantiles of few nodes vary more.
func TestGraphCoverageGuarantee(t *testing.T) {
	const nodes, classes, splits = 400, 4, 200
	rng := rand.New(rand.NewPCG(3, 14))
	prob, labels, adj := categoricalData(t, rng, nodes, classes)
	features := &tensor.Dense{Rows: nodes, Cols: 8, Data: make([]float64, nodes*8)}
	for i := range features.Data {
		features.Data[i] = rng.NormFloat64()
	}
	sim, err := KNNSimilarity(features, 10)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, nodes)
	for i := range all {
		all[i] = i
	}
	uniform, linear := NAPS{MinCalibration: 5}, NAPS{MinCalibration: 5, Weighting: LinearWeights}
	scores := []Score{SNAPS{Similarity: sim}, SNAPS{Lambda: 0.5, Mu: 0.2, Similarity: sim, Base: DefaultRAPS}, uniform, linear}
	exact := func(n int, alpha float64) float64 {
		k, err := QuantileRank(n, alpha)
		if err != nil {
			t.Fatal(err)
		}
		return min(1, float64(k)/float64(n+1))
	}
	hood := newNeighbourhoods(adj)
	for _, alpha := range []float64{0.1, 0.2} {
		coverages := make([][]float64, len(scores))
		var expected float64 // mean exact coverage of uniform NAPS
		var n, m int
		for seed := range uint64(splits) {
			res, err := Evaluate(prob, classes, labels, adj, all, Options{Scores: scores, Alpha: alpha, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range res {
				coverages[k] = append(coverages[k], r.Coverage)
			}
			r := res[2]
			n, m = len(r.Calibration), len(r.Nodes)
			var sum float64
			for k, i := range r.Nodes {
				local := 0
				for _, jd := range hood.within(i, 2) {
					if _, ok := slices.BinarySearch(r.Calibration, jd[0]); ok {
						local++
					}
				}
				if (local >= 5) != r.Local[k] {
					t.Fatalf("node %d has %d calibration nodes within 2 hops, local %v", i, local, r.Local[k])
				}
				if !r.Local[k] {
					local = n
				}
				sum += exact(local, alpha)
			}
			expected += sum / float64(m) / splits
		}
		se := math.Sqrt(alpha * (1 - alpha) * (1/float64(n) + 1/float64(m)) / splits)
		for k, s := range scores {
			mean, spread := meanSD(coverages[k])
			se := max(se, spread/math.Sqrt(splits))
			lo, hi := 1-alpha-4*se, 1-alpha+1/float64(n+1)+4*se
			switch s {
			case uniform:
				lo, hi = expected-4*se, expected+4*se
			case linear:
				hi = 1
			}
			t.Logf("α %.1f %-40v mean coverage %.4f in [%.4f, %.4f]", alpha, s, mean, lo, hi)
			if !(mean >= lo && mean <= hi) {
				t.Errorf("α %.1f, %v: mean coverage %.4f over %d splits, want it in [%.4f, %.4f]", alpha, s, mean, splits, lo, hi)
			}
		}
	}
}

// meanSD returns the mean and the sample standard deviation of x.
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// TestEvaluateDefaults checks that the zero Options (and an empty list of
// scores) mean α = 0.1, half the nodes calibrating and DefaultScores, and
// that every score sees the same split.
func TestEvaluateDefaults(t *testing.T) {
	prob, labels, adj := categoricalData(t, rand.New(rand.NewPCG(1, 2)), 40, 4)
	all := make([]int, 40)
	for i := range all {
		all[i] = i
	}
	got, err := Evaluate(prob, 4, labels, adj, all, Options{Scores: []Score{}, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Evaluate(prob, 4, labels, adj, all,
		Options{Scores: []Score{APS{}, DefaultRAPS, DAPS{}}, Alpha: 0.1, CalibrationFraction: 0.5, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("%d and %d results, want 3", len(got), len(want))
	}
	for k := range got {
		if want[k].Score = got[k].Score; !sameResult(got[k], want[k]) || got[k].Alpha != 0.1 || len(got[k].Calibration) != 20 || math.IsInf(got[k].Quantile, 1) {
			t.Errorf("defaults %+v, explicit %+v", got[k], want[k])
		}
		if !slices.Equal(got[k].Calibration, got[0].Calibration) {
			t.Errorf("%s calibrates on %v, %s on %v", got[k].Score, got[k].Calibration, got[0].Score, got[0].Calibration)
		}
	}
}
