package conformal

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// oracleTolerance is the agreement required between Go and numpy in the
// scores and q̂.
const oracleTolerance = 1e-12

// oracleCase is one input of the script.
type oracleCase struct {
	Prob        [][]float64  `json:"prob"`
	Labels      []int        `json:"labels"`
	U           []float64    `json:"u"`
	Edges       [][3]float64 `json:"edges"`
	Similar     [][3]float64 `json:"similar"`
	Calibration []int        `json:"calibration"`
	Evaluation  []int        `json:"evaluation"`
	Alpha       float64      `json:"alpha"`
	Scores      []oracleSpec `json:"scores"`

	scores   []Score
	adj, sim *tensor.CSR
}

// oracleSpec describes a Score to the script.
type oracleSpec struct {
	Kind       string      `json:"kind"`
	Lambda     float64     `json:"lambda"`
	Mu         float64     `json:"mu"`
	KReg       int         `json:"kreg"`
	Randomized bool        `json:"randomized"`
	Hops       int         `json:"hops"`
	Weighting  int         `json:"weighting"`
	Min        int         `json:"min"`
	Base       *oracleSpec `json:"base,omitempty"`
}

func specOf(s Score) oracleSpec {
	switch s := s.(type) {
	case APS:
		return oracleSpec{Kind: "aps", Randomized: !s.NonRandomized}
	case RAPS:
		return oracleSpec{Kind: "raps", Lambda: s.Lambda, KReg: s.KReg, Randomized: !s.NonRandomized}
	case DAPS:
		base := specOf(s.base())
		return oracleSpec{Kind: "daps", Lambda: s.lambda(), Base: &base}
	case SNAPS:
		base := specOf(s.base())
		lambda, mu := s.weights()
		return oracleSpec{Kind: "snaps", Lambda: lambda, Mu: mu, Base: &base}
	case NAPS:
		base := specOf(s.base())
		return oracleSpec{Kind: "naps", Hops: s.hops(), Weighting: int(s.Weighting), Min: s.minCalibration(), Base: &base}
	}
	panic("unknown score")
}

// oracleResult is the script's answer for one score; qhat is null for +∞.
type oracleResult struct {
	Scores    [][]float64 `json:"scores"`
	QHat      *float64    `json:"qhat"`
	Sets      [][]int     `json:"sets"`
	Quantiles []*float64  `json:"quantiles"`
}

// randomOracleCase draws nodes, classes, graph, split and scores. Half the
// cases have continuous probabilities; the others have probabilities,
// uniform numbers and weights that are multiples of ⅛, full of ties, all
// sums of which are exact in floating point.
func randomOracleCase(rng *rand.Rand) oracleCase {
	n, k := 4+rng.IntN(40), 2+rng.IntN(5)
	ties := rng.IntN(2) == 0
	var c oracleCase
	for range n {
		row := make([]float64, k)
		if ties {
			for range 8 {
				row[rng.IntN(k)] += 0.125
			}
		} else {
			var sum float64
			for j := range row {
				row[j] = math.Exp(2 * rng.NormFloat64())
				sum += row[j]
			}
			for j := range row {
				row[j] /= sum
			}
		}
		c.Prob = append(c.Prob, row)
		c.Labels = append(c.Labels, rng.IntN(k))
		u := rng.Float64()
		if ties {
			u = float64(rng.IntN(9)) / 8
		}
		c.U = append(c.U, u)
	}
	var ri, ci []int
	var w []float64
	for range rng.IntN(3 * n) {
		i, j, wt := rng.IntN(n), rng.IntN(n), float64(1+rng.IntN(3))
		c.Edges = append(c.Edges, [3]float64{float64(i), float64(j), wt})
		ri, ci, w = append(ri, i), append(ci, j), append(w, wt)
	}
	c.adj, _ = tensor.FromCOO(n, n, ri, ci, w)
	ri, ci, w = nil, nil, nil
	for range rng.IntN(2 * n) {
		i, j, wt := rng.IntN(n), rng.IntN(n), float64(1+rng.IntN(4))/4
		c.Similar = append(c.Similar, [3]float64{float64(i), float64(j), wt})
		ri, ci, w = append(ri, i), append(ci, j), append(w, wt)
	}
	c.sim, _ = tensor.FromCOO(n, n, ri, ci, w)
	perm := rng.Perm(n)
	split := 1 + rng.IntN(n-1)
	c.Calibration, c.Evaluation = perm[:split], perm[split:]
	c.Alpha = []float64{0.05, 0.1, 0.2, 0.25, 0.5, 0.7}[rng.IntN(6)]
	lambda := []float64{0.25, 0.5, 1}[rng.IntN(3)]
	c.scores = []Score{
		APS{}, APS{NonRandomized: true},
		RAPS{Lambda: []float64{0, 0.125, 0.5}[rng.IntN(3)], KReg: rng.IntN(3), NonRandomized: rng.IntN(2) == 0},
		DAPS{Lambda: lambda}, DAPS{Lambda: lambda, Base: RAPS{Lambda: 0.25, KReg: 1, NonRandomized: true}},
		SNAPS{Similarity: c.sim},
		SNAPS{Lambda: []float64{0, 0.25, 0.5}[rng.IntN(3)], Mu: []float64{0.125, 0.25, 0.5}[rng.IntN(3)], Similarity: c.sim,
			Base: RAPS{Lambda: 0.125, KReg: 1, NonRandomized: rng.IntN(2) == 0}},
		NAPS{Hops: 1 + rng.IntN(3), Weighting: Weighting(rng.IntN(3)), MinCalibration: 1 + rng.IntN(4)},
		NAPS{Hops: 2, MinCalibration: 2, Base: APS{NonRandomized: true}},
	}
	for _, s := range c.scores {
		c.Scores = append(c.Scores, specOf(s))
	}
	return c
}

// TestConformalAgreesWithPython compares the scores, q̂ (NAPS's per node)
// and sets of every score with an independent numpy implementation on 150 random cases,
// skipping where no Python with numpy is installed. A class whose score
// lies within the tolerance of q̂ may fall on either side by rounding when
// the two computations of its score or of q̂ differ in the last bits; it
// is left out of the comparison of sets then (in the cases of exact
// multiples of ⅛ nothing is left out).
func TestConformalAgreesWithPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2026))
	cases := make([]oracleCase, 150)
	for i := range cases {
		cases[i] = randomOracleCase(rng)
	}
	var want [][]oracleResult
	testenv.NumpyOracle(t, "conformal-oracle.py", cases, &want)
	if len(want) != len(cases) {
		t.Fatalf("%d results for %d cases", len(want), len(cases))
	}
	var worst float64
	var borderline, sets int
	for i, c := range cases {
		k := len(c.Prob[0])
		prob := slices.Concat(c.Prob...)
		for j, s := range c.scores {
			w := want[i][j]
			scores, err := s.Scores(Input{Prob: prob, Classes: k, Adj: c.adj, U: c.U})
			if err != nil {
				t.Fatalf("case %d, %v: %v", i, s, err)
			}
			for e, v := range scores {
				d := math.Abs(v - w.Scores[e/k][e%k])
				worst = max(worst, d)
				if !(d <= oracleTolerance) {
					t.Errorf("case %d, %v: s(%d, %d) = %.17g, numpy %.17g", i, s, e/k, e%k, v, w.Scores[e/k][e%k])
				}
			}
			var r Result
			if naps, ok := s.(NAPS); ok {
				r, err = naps.Calibrate(scores, k, c.Labels, c.adj, c.Calibration, c.Evaluation, c.Alpha)
			} else {
				r, err = Calibrate(scores, k, c.Labels, c.Calibration, c.Evaluation, c.Alpha)
			}
			if err != nil {
				t.Fatalf("case %d, %v: %v", i, s, err)
			}
			if w.QHat == nil {
				if !math.IsInf(r.Quantile, 1) {
					t.Errorf("case %d, %v: q̂ = %v, numpy +Inf", i, s, r.Quantile)
				}
			} else if d := math.Abs(r.Quantile - *w.QHat); !(d <= oracleTolerance) {
				t.Errorf("case %d, %v: q̂ = %.17g, numpy %.17g", i, s, r.Quantile, *w.QHat)
			}
			if (r.Quantiles != nil) != (w.Quantiles != nil) || (r.Quantiles != nil && len(r.Quantiles) != len(w.Quantiles)) {
				t.Fatalf("case %d, %v: %d thresholds, numpy %d", i, s, len(r.Quantiles), len(w.Quantiles))
			}
			for m, node := range r.Nodes {
				sets++
				// q is the node's threshold and wq numpy's, nil for +∞.
				q, wq := r.Quantile, w.QHat
				if r.Quantiles != nil {
					q, wq = r.Quantiles[m], w.Quantiles[m]
					if wq == nil && !math.IsInf(q, 1) || wq != nil && !(math.Abs(q-*wq) <= oracleTolerance) {
						t.Errorf("case %d, %v: node %d has q̂ = %v, numpy %v", i, s, node, q, wq)
					}
				}
				var got, exp []int
				for cl, v := range scores[node*k : (node+1)*k] {
					if math.Abs(v-q) <= oracleTolerance && (v != w.Scores[node][cl] || wq == nil || q != *wq) {
						borderline++
						continue
					}
					if slices.Contains(r.Sets[m], cl) {
						got = append(got, cl)
					}
					if slices.Contains(w.Sets[m], cl) {
						exp = append(exp, cl)
					}
				}
				if !slices.Equal(got, exp) {
					t.Errorf("case %d, %v: node %d has set %v, numpy %v", i, s, node, r.Sets[m], w.Sets[m])
				}
			}
		}
	}
	t.Logf("%d cases, %d sets; largest difference from numpy %.3g; %d classes on q̂ left out", len(cases), sets, worst, borderline)
}
