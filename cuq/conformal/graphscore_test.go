package conformal

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// TestKNNSimilarityByHand checks the k-nearest-neighbour graph of five
// feature rows
//
//	x0 = (1, 1, 0), x1 = (1, 0, 0), x2 = (0, 1, 1), x3 = (0, 0, 0), x4 = (1, 0, 0)
//
// whose cosine similarities are cos(0, 1) = cos(0, 4) = 1/√2, cos(0, 2) =
// ½, cos(1, 4) = 1 and 0 for the other pairs (x3 is zero). With k = 1, node
// 0's tie between 1 and 4 goes to node 1; node 3 has no similar node; with
// k = 2 node 0 keeps both 1 and 4. Dense and CSR features agree.
func TestKNNSimilarityByHand(t *testing.T) {
	dense := &tensor.Dense{Rows: 5, Cols: 3, Data: []float64{1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0}}
	sparse, err := tensor.FromCOO(5, 3, []int{0, 0, 1, 2, 2, 4}, []int{0, 1, 0, 1, 2, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := 1 / math.Sqrt2
	for _, tc := range []struct {
		k    int
		want [][][2]float64 // per row: (j, S_ij)
	}{
		{1, [][][2]float64{{{1, r}}, {{4, 1}}, {{0, 0.5}}, {}, {{1, 1}}}},
		{2, [][][2]float64{{{1, r}, {4, r}}, {{0, r}, {4, 1}}, {{0, 0.5}}, {}, {{0, r}, {1, 1}}}},
	} {
		for _, features := range []tensor.Matrix{dense, sparse} {
			s, err := KNNSimilarity(features, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range tc.want {
				var got [][2]float64
				for e := s.Ptr[i]; e < s.Ptr[i+1]; e++ {
					got = append(got, [2]float64{float64(s.Ind[e]), s.Val[e]})
				}
				if len(got) != len(row) || !slices.EqualFunc(got, row, func(a, b [2]float64) bool { return a[0] == b[0] && closeTo(a[1], b[1]) }) {
					t.Errorf("k = %d, %T: row %d is %v, want %v", tc.k, features, i, got, row)
				}
			}
		}
	}
	for _, tc := range []struct {
		features tensor.Matrix
		k        int
		want     string
	}{
		{dense, 0, "k = 0"},
		{&tensor.Dense{Rows: 1, Cols: 2, Data: []float64{math.NaN(), 1}}, 1, "feature entry 0 is NaN"},
		{nil, 1, "features of type <nil>"},
	} {
		if _, err := KNNSimilarity(tc.features, tc.k); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("KNNSimilarity(%v, %d): error %v, want %q", tc.features, tc.k, err, tc.want)
		}
	}
}

// TestKNNSimilarityBruteForce compares KNNSimilarity with the dense
// similarity matrix of random features, some of them negative and some
// rows zero, sorted in full.
func TestKNNSimilarityBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n, d = 30, 6
	x := &tensor.Dense{Rows: n, Cols: d, Data: make([]float64, n*d)}
	for i := range x.Data {
		if rng.IntN(3) == 0 {
			x.Data[i] = float64(rng.IntN(5) - 1)
		}
	}
	for _, k := range []int{1, 3, 7, 40} {
		s, err := KNNSimilarity(x, k)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			sims := make([]float64, n) // 0 for i itself and dissimilar nodes
			var positive []float64
			for j := range n {
				var dot, ni, nj float64
				for f := range d {
					a, b := x.Data[i*d+f], x.Data[j*d+f]
					dot, ni, nj = dot+a*b, ni+a*a, nj+b*b
				}
				if sim := dot / math.Sqrt(ni*nj); j != i && sim > 0 {
					sims[j] = sim
					positive = append(positive, sim)
				}
			}
			slices.Sort(positive)
			slices.Reverse(positive)
			if got := s.Ptr[i+1] - s.Ptr[i]; got != min(k, len(positive)) {
				t.Fatalf("k = %d: row %d has %d entries, want %d", k, i, got, min(k, len(positive)))
			}
			for e := s.Ptr[i]; e < s.Ptr[i+1]; e++ {
				j, v := s.Ind[e], s.Val[e]
				// The value is the similarity, and no left-out node is more
				// similar (but for rounding: equal similarities may be
				// computed a few ulps apart).
				if math.Abs(v-sims[j]) > 1e-12 || v < positive[min(k, len(positive))-1]-1e-12 {
					t.Errorf("k = %d: S[%d][%d] = %v, similarity %v, k-th largest %v", k, i, j, v, sims[j], positive[min(k, len(positive))-1])
				}
			}
		}
	}
}

// TestSNAPSOnPathByHand checks SNAPS (λ ¼, μ ½) of the non-randomised APS
// scores of TestDAPSOnPathByHand,
//
//	s0 = (0.5, 0.8, 1), s1 = (1, 0.6, 0.9), s2 = (0.8, 0.8, 1), s3 = (1, 1, 0.6), s4 = (0.7, 0.9, 1),
//
// on the path 0 – 1 – 2 – 3 with node 4 isolated, and the similarity rows
// 0: {4: 1}, 1: {3: 1, 4: 3}, 2: {}, 3: {0: 2}, 4: {0: 1}. By hand,
// ŝ = ¼·s + ¼·(similar mean) + ½·(neighbour mean), with the own score in
// place of a missing mean:
//
//	ŝ0 = ¼ s0 + ¼ s4 + ½ s1                 = (0.8, 0.725, 0.95)
//	ŝ1 = ¼ s1 + ¼ (s3 + 3 s4)/4 + ½ (s0+s2)/2 = (0.76875, 0.78125, 0.95)
//	ŝ2 = ¼ s2 + ¼ s2 + ½ (s1+s3)/2           = (0.9, 0.8, 0.875)
//	ŝ3 = ¼ s3 + ¼ s0 + ½ s2                 = (0.775, 0.85, 0.9)
//	ŝ4 = ¼ s4 + ¼ s0 + ½ s4                 = (0.65, 0.875, 1)
func TestSNAPSOnPathByHand(t *testing.T) {
	prob := append(slices.Clone(handProb), 0.7, 0.2, 0.1)
	sim, err := tensor.FromCOO(5, 5, []int{0, 1, 1, 3, 4}, []int{4, 3, 4, 0, 0}, []float64{1, 1, 3, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Prob: prob, Classes: 3, Adj: pathAdj(t)}
	s := SNAPS{Lambda: 0.25, Mu: 0.5, Similarity: sim, Base: APS{NonRandomized: true}}
	got, err := s.Scores(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.8, 0.725, 0.95, 0.76875, 0.78125, 0.95, 0.9, 0.8, 0.875, 0.775, 0.85, 0.9, 0.65, 0.875, 1}
	if !slices.EqualFunc(got, want, closeTo) {
		t.Errorf("SNAPS scores %v, want %v", got, want)
	}
	if name := s.String(); name != "SNAPS (λ 0.25, μ 0.5) of APS (non-randomised)" {
		t.Errorf("name %q", name)
	}
	// λ = 0 is DAPS with diffusion μ.
	u := Uniforms(5, 1)
	in.U = u
	a, err := SNAPS{Mu: 0.5, Similarity: sim}.Scores(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := DAPS{Lambda: 0.5}.Scores(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(a, b, closeTo) {
		t.Errorf("SNAPS (λ 0, μ ½) %v, DAPS (λ ½) %v", a, b)
	}
	if name := (SNAPS{Similarity: sim}).String(); name != "SNAPS (λ 0.333, μ 0.333)" {
		t.Errorf("default name %q", name)
	}
	for _, tc := range []struct {
		s    SNAPS
		in   Input
		want string
	}{
		{SNAPS{Lambda: 0.6, Mu: 0.5, Similarity: sim}, in, "λ + μ ≤ 1"},
		{SNAPS{Lambda: -0.1, Similarity: sim}, in, "λ, μ ≥ 0"},
		{SNAPS{}, in, "needs a feature-similarity graph"},
		{SNAPS{Similarity: sim}, Input{Prob: prob, Classes: 3}, "needs the graph's adjacency"},
		{SNAPS{Similarity: pathAdj(t)}, Input{Prob: handProb, Classes: 3, Adj: pathAdj(t)}, "adjacency for 4 nodes"},
		{SNAPS{Similarity: &tensor.CSR{Rows: 5, Cols: 5, Ptr: []int{0, 1, 1, 1, 1, 1}, Ind: []int{1}, Val: []float64{-1}}}, in, "similarity graph entry 0 has weight -1"},
	} {
		if _, err := tc.s.Scores(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.s, err, tc.want)
		}
	}
}

// TestWeightedQuantileByHand checks the weighted quantile of the scores
// (0.3, 0.1, 0.2) with weights (1, ½, 2): total 3.5, so the test point
// weighs 1/4.5 and q̂ is the smallest score whose cumulative weight in
// score order (0.5, 2.5, 3.5) reaches 4.5·(1−α): 2.7 at α = 0.4 gives 0.3,
// 2.25 at α = ½ gives 0.2, 4.05 at α = 0.1 gives +∞. A zero weight does
// not count.
func TestWeightedQuantileByHand(t *testing.T) {
	scores, weights := []float64{0.3, 0.1, 0.2}, []float64{1, 0.5, 2}
	for alpha, want := range map[float64]float64{0.4: 0.3, 0.5: 0.2, 0.1: math.Inf(1), 0.9: 0.1} {
		if q, err := WeightedQuantile(scores, weights, alpha); err != nil || q != want {
			t.Errorf("α %v: q̂ = %v, %v; want %v", alpha, q, err, want)
		}
	}
	if q, err := WeightedQuantile([]float64{0.1, 0.2, 0.3}, []float64{0, 1, 1}, 0.4); err != nil || q != 0.3 {
		t.Errorf("zero weight: q̂ = %v, %v; want 0.3 (need 1.8 of weight)", q, err)
	}
	for _, tc := range []struct {
		s, w  []float64
		alpha float64
		want  string
	}{
		{scores, weights, 1, "need 0 < α < 1"},
		{nil, nil, 0.1, "no calibration nodes"},
		{scores, weights[:2], 0.1, "2 weights for 3 scores"},
		{[]float64{math.NaN()}, []float64{1}, 0.1, "score 0 is NaN"},
		{[]float64{1}, []float64{-1}, 0.1, "weight 0 is -1"},
		{[]float64{1}, []float64{math.Inf(1)}, 0.1, "weight 0 is +Inf"},
	} {
		if _, err := WeightedQuantile(tc.s, tc.w, tc.alpha); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WeightedQuantile(%v, %v, %v): error %v, want %q", tc.s, tc.w, tc.alpha, err, tc.want)
		}
	}
}

// TestWeightedQuantileUnitWeights checks that unit weights give Quantile,
// the conformal quantile, on random scores with ties, for many n and α
// (1.0/3 among them, where the tolerance decides).
func TestWeightedQuantileUnitWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for range 2000 {
		n := 1 + rng.IntN(30)
		s, w := make([]float64, n), make([]float64, n)
		for j := range s {
			s[j], w[j] = float64(rng.IntN(8))/8, 1
		}
		alpha := []float64{0.05, 0.1, 1.0 / 3, 0.2, 0.5, 0.9, rng.Float64()*0.98 + 0.01}[rng.IntN(7)]
		want, err := Quantile(s, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := WeightedQuantile(s, w, alpha); err != nil || got != want {
			t.Fatalf("n %d, α %v: weighted %v, %v; Quantile %v", n, alpha, got, err, want)
		}
	}
}

// napsScores are base scores of six nodes of two classes on the graph
// 4 – 0 – 1 – 2 – 3 with node 5 isolated; labels napsLabels. The true-label
// scores of the calibration nodes 1, 2, 3, 4 are 0.3, 0.6, 0.1 and 0.5, at
// distances 1, 2, 3 and 1 from node 0.
var (
	napsScores = []float64{0.2, 0.4, 0.3, 0.7, 0.8, 0.6, 0.1, 0.2, 0.9, 0.5, 0.35, 0.25}
	napsLabels = []int{1, 0, 1, 0, 1, 0}
)

func napsAdj(t *testing.T) *tensor.CSR {
	t.Helper()
	a, err := tensor.FromCOO(6, 6, []int{0, 1, 0, 4, 1, 2, 2, 3}, []int{1, 0, 4, 0, 2, 1, 3, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestNAPSByHand checks the thresholds of NAPS at α = 0.6 for evaluation
// nodes 0 and 5, calibration nodes 1 – 4, by hand. Node 0 within 3 hops
// sees the scores 0.1 (d 3), 0.3 (d 1), 0.5 (d 1), 0.6 (d 2) in order:
//
//   - uniform weights, total 4: need 5·0.4 = 2 of weight, reached at 0.3;
//   - linear weights ⅓, 1, 1, ½, total 2⅚: need 3⅚·0.4 = 1.53, cumulative
//     ⅓, 1⅓, 2⅓, reached at 0.5;
//   - geometric weights ¼, 1, 1, ½, total 2¾: need 1.5, reached at 0.5;
//   - within 1 hop (0.3 and 0.5, uniform): need 3·0.4 = 1.2, at 0.5.
//
// Node 5 has no neighbour and falls back to the split-conformal q̂ of all
// four, rank ⌈5·0.4⌉ = 2: 0.3. Node 0's scores (0.2, 0.4) give the set {0}
// at q̂ 0.3 (its label 1 uncovered) and {0, 1} at 0.5; node 5's (0.35,
// 0.25) give {1} at 0.3, its label 0 uncovered.
func TestNAPSByHand(t *testing.T) {
	adj := napsAdj(t)
	cal, eval := []int{4, 1, 2, 3}, []int{5, 0}
	for _, tc := range []struct {
		naps    NAPS
		q0      float64
		covered float64
	}{
		{NAPS{Hops: 3, MinCalibration: 2}, 0.3, 0},
		{NAPS{Hops: 3, MinCalibration: 2, Weighting: LinearWeights}, 0.5, 0.5},
		{NAPS{Hops: 3, MinCalibration: 2, Weighting: GeometricWeights}, 0.5, 0.5},
		{NAPS{Hops: 1, MinCalibration: 2}, 0.5, 0.5},
		{NAPS{Hops: 1, MinCalibration: 3}, 0.3, 0}, // two calibration nodes: falls back
	} {
		r, err := tc.naps.Calibrate(napsScores, 2, napsLabels, adj, cal, eval, 0.6)
		if err != nil {
			t.Fatalf("%v: %v", tc.naps, err)
		}
		local := tc.naps.MinCalibration == 2
		if !slices.Equal(r.Nodes, []int{0, 5}) || !closeTo(r.Quantile, 0.3) || !slices.EqualFunc(r.Quantiles, []float64{tc.q0, 0.3}, closeTo) ||
			!slices.Equal(r.Local, []bool{local, false}) || r.Coverage != tc.covered || !slices.Equal(r.Sets[1], []int{1}) {
			t.Errorf("%v: %+v", tc.naps, r)
		}
		if wantSet := map[float64][]int{0.3: {0}, 0.5: {0, 1}}[tc.q0]; !slices.Equal(r.Sets[0], wantSet) {
			t.Errorf("%v: node 0 has set %v, want %v", tc.naps, r.Sets[0], wantSet)
		}
	}
	if name := (NAPS{}).String(); name != "NAPS (2 hops, uniform, ≥ 20)" {
		t.Errorf("default name %q", name)
	}
	for _, tc := range []struct {
		naps NAPS
		adj  *tensor.CSR
		want string
	}{
		{NAPS{Hops: -1}, adj, "need k ≥ 1 hops"},
		{NAPS{Weighting: 7}, adj, "Weighting(7)"},
		{NAPS{}, nil, "needs the graph's adjacency"},
		{NAPS{}, pathAdj(t), "5x5 adjacency for 6 nodes"},
	} {
		if _, err := tc.naps.Calibrate(napsScores, 2, napsLabels, tc.adj, cal, eval, 0.6); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.naps, err, tc.want)
		}
	}
}

// TestNAPSThroughPredictor checks that Predictor runs NAPS's calibration:
// its result is NAPS.Calibrate of the APS scores with the seed's uniform
// numbers, and a nil graph is an error.
func TestNAPSThroughPredictor(t *testing.T) {
	prob, labels, adj := categoricalData(t, rand.New(rand.NewPCG(1, 7)), 60, 3)
	all := make([]int, 60)
	for i := range all {
		all[i] = i
	}
	naps := NAPS{MinCalibration: 3, Weighting: GeometricWeights}
	got, err := New(prob, 3, labels).Graph(adj).Score(naps).Nodes(all).Seed(5).Done()
	if err != nil {
		t.Fatal(err)
	}
	scores, err := APS{}.Scores(Input{Prob: prob, Classes: 3, U: Uniforms(60, 5)})
	if err != nil {
		t.Fatal(err)
	}
	cal, eval, err := RandomSplit(all, 0.5, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, err := naps.Calibrate(scores, 3, labels, adj, cal, eval, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	want.Score = naps.String()
	if !sameResult(got, want) || !slices.Equal(got.Quantiles, want.Quantiles) || !slices.Equal(got.Local, want.Local) || !slices.Contains(got.Local, true) {
		t.Errorf("Predictor %+v, NAPS.Calibrate %+v", got, want)
	}
	if _, err := New(prob, 3, labels).Score(naps).Nodes(all).Done(); err == nil || !strings.Contains(err.Error(), "needs the graph's adjacency") {
		t.Errorf("NAPS without a graph: %v", err)
	}
}
