package conformal

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// handProb holds four nodes of three classes, with ties in nodes 2 and 3,
// labels handLabels:
//
//	node  p               label  order of classes  U
//	0     0.5  0.3  0.2   0      0, 1, 2           0.5
//	1     0.1  0.6  0.3   2      1, 2, 0           0.2
//	2     0.4  0.4  0.2   1      {0, 1}, 2         1
//	3     0.2  0.2  0.6   0      2, {0, 1}         0
var (
	handProb   = []float64{0.5, 0.3, 0.2, 0.1, 0.6, 0.3, 0.4, 0.4, 0.2, 0.2, 0.2, 0.6}
	handLabels = []int{0, 2, 1, 0}
	handU      = []float64{0.5, 0.2, 1, 0}
)

// handScores are the scores of handProb by hand. The cumulative masses
// Σ_{p_c′ ≥ p_c} p_c′ are (0.5, 0.8, 1), (1, 0.6, 0.9), (0.8, 0.8, 1) and
// (1, 1, 0.6), the ranks (1, 2, 3), (3, 1, 2), (2, 2, 3) and (3, 3, 1).
var handScores = []struct {
	score Score
	want  []float64
}{
	// mass − U·p.
	{APS{}, []float64{0.25, 0.65, 0.9, 0.98, 0.48, 0.84, 0.4, 0.4, 0.8, 1, 1, 0.6}},
	{APS{NonRandomized: true}, []float64{0.5, 0.8, 1, 1, 0.6, 0.9, 0.8, 0.8, 1, 1, 1, 0.6}},
	// APS + 0.1·max(0, rank − 1).
	{RAPS{Lambda: 0.1, KReg: 1}, []float64{0.25, 0.75, 1.1, 1.18, 0.48, 0.94, 0.5, 0.5, 1, 1.2, 1.2, 0.6}},
	// APS + 0.5·max(0, rank − 2).
	{RAPS{Lambda: 0.5, KReg: 2, NonRandomized: true}, []float64{0.5, 0.8, 1.5, 1.5, 0.6, 0.9, 0.8, 0.8, 1.5, 1.5, 1.5, 0.6}},
	{RAPS{}, []float64{0.25, 0.65, 0.9, 0.98, 0.48, 0.84, 0.4, 0.4, 0.8, 1, 1, 0.6}},
}

func closeTo(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12 }

func TestScoresByHand(t *testing.T) {
	in := Input{Prob: handProb, Classes: 3, U: handU}
	for _, tc := range handScores {
		got, err := tc.score.Scores(in)
		if err != nil {
			t.Fatalf("%v: %v", tc.score, err)
		}
		if !slices.EqualFunc(got, tc.want, closeTo) {
			t.Errorf("%v: scores %v, want %v", tc.score, got, tc.want)
		}
	}
	// Without U the randomised scores are the non-randomised ones.
	a, _ := APS{}.Scores(Input{Prob: handProb, Classes: 3})
	b, _ := APS{NonRandomized: true}.Scores(in)
	if !slices.Equal(a, b) {
		t.Errorf("APS without U %v, non-randomised %v", a, b)
	}
}

// pathAdj returns the adjacency of the path 0 – 1 – 2 – 3 and an isolated
// node 4 (both directions stored, weight 1).
func pathAdj(t *testing.T) *tensor.CSR {
	t.Helper()
	a, err := tensor.FromCOO(5, 5, []int{0, 1, 1, 2, 2, 3}, []int{1, 0, 2, 1, 3, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDAPSOnPathByHand(t *testing.T) {
	// handProb's four nodes on the path, node 4 isolated with p = (0.7,
	// 0.2, 0.1): non-randomised APS scores
	//
	//	s0 = (0.5, 0.8, 1), s1 = (1, 0.6, 0.9), s2 = (0.8, 0.8, 1),
	//	s3 = (1, 1, 0.6), s4 = (0.7, 0.9, 1).
	//
	// With λ = ½: ŝ0 = ½s0 + ½s1, ŝ1 = ½s1 + ¼(s0+s2), ŝ2 = ½s2 + ¼(s1+s3),
	// ŝ3 = ½s3 + ½s2, ŝ4 = s4 (no neighbours).
	prob := append(slices.Clone(handProb), 0.7, 0.2, 0.1)
	in := Input{Prob: prob, Classes: 3, Adj: pathAdj(t)}
	base := APS{NonRandomized: true}
	got, err := DAPS{Base: base}.Scores(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.75, 0.7, 0.95, 0.825, 0.7, 0.95, 0.9, 0.8, 0.875, 0.9, 0.9, 0.8, 0.7, 0.9, 1}
	if !slices.EqualFunc(got, want, closeTo) {
		t.Errorf("DAPS λ ½: %v, want %v", got, want)
	}
	// λ = 1: the neighbours' mean alone, ŝ1 = ½(s0+s2) = (0.65, 0.8, 1).
	got, _ = DAPS{Lambda: 1, Base: base}.Scores(in)
	if !slices.EqualFunc(got[3:6], []float64{0.65, 0.8, 1}, closeTo) || !slices.EqualFunc(got[12:], []float64{0.7, 0.9, 1}, closeTo) {
		t.Errorf("DAPS λ 1: node 1 %v, node 4 %v", got[3:6], got[12:])
	}
	// An edge of weight 3 from node 2 to node 1: ŝ1 = ½s1 + ½(s0 + 3s2)/4.
	weighted, _ := tensor.FromCOO(5, 5, []int{0, 1, 1, 2, 2, 3}, []int{1, 0, 2, 1, 3, 2}, []float64{1, 1, 3, 1, 1, 1})
	got, _ = DAPS{Base: base}.Scores(Input{Prob: prob, Classes: 3, Adj: weighted})
	if !slices.EqualFunc(got[3:6], []float64{0.5 + 0.125*2.9, 0.3 + 0.125*3.2, 0.45 + 0.125*4}, closeTo) {
		t.Errorf("DAPS weighted: node 1 %v", got[3:6])
	}
	// The default is randomised APS with λ = ½.
	in.U = append(slices.Clone(handU), 0.5)
	def, _ := DAPS{}.Scores(in)
	explicit, _ := DAPS{Lambda: 0.5, Base: APS{}}.Scores(in)
	if !slices.Equal(def, explicit) {
		t.Errorf("DAPS{} %v, DAPS{0.5, APS{}} %v", def, explicit)
	}
	// Calibrated on nodes 0–2 (true scores 0.75, 0.95, 0.8) at α = ½, rank
	// ⌈4·½⌉ = 2: q̂ = 0.8, node 3's set {2} misses its label 0.
	r, err := New(prob, 3, []int{0, 2, 1, 0, -1}).Score(DAPS{Base: base}).Graph(pathAdj(t)).Alpha(0.5).
		Split([]int{2, 0, 1}, []int{3}).Done()
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(r.Quantile, 0.8) || !slices.Equal(r.Sets[0], []int{2}) || r.Coverage != 0 || !slices.Equal(r.Calibration, []int{0, 1, 2}) {
		t.Errorf("DAPS result %+v", r)
	}
}

func TestQuantileRule(t *testing.T) {
	for _, tc := range []struct {
		n     int
		alpha float64
		rank  int
	}{
		{5, 0.2, 5}, {5, 0.5, 3}, {5, 0.1, 6}, {9, 0.1, 9}, {19, 0.05, 19}, {99, 0.01, 99},
		{9, 0.3, 7}, {1, 0.5, 1}, {1, 0.4, 2}, {100, 0.1, 91}, {4, 0.99, 1},
	} {
		k, err := QuantileRank(tc.n, tc.alpha)
		if err != nil || k != tc.rank {
			t.Errorf("QuantileRank(%d, %v) = %d, %v; want %d", tc.n, tc.alpha, k, err, tc.rank)
		}
	}
	scores := []float64{0.3, 0.1, 0.5, 0.2, 0.4}
	for alpha, want := range map[float64]float64{0.2: 0.5, 0.5: 0.3, 0.7: 0.2, 0.1: math.Inf(1)} {
		if q, err := Quantile(scores, alpha); err != nil || q != want {
			t.Errorf("Quantile(α %v) = %v, %v; want %v", alpha, q, err, want)
		}
	}
	if !slices.Equal(scores, []float64{0.3, 0.1, 0.5, 0.2, 0.4}) {
		t.Errorf("Quantile sorted its input: %v", scores)
	}
}

// TestQuantileRankTolerance pins the tolerance of QuantileRank: with α =
// 1.0/3, a float64 a little below ⅓, the exact product 3·(1−α) exceeds 2
// (checked in exact rational arithmetic), so the exact rule would give
// rank 3 of 2 scores and q̂ = +∞; the tolerance gives rank 2 and q̂ = 0.7,
// the value of the ⅓ meant. A level 10⁻⁶ below ⅓ is beyond the tolerance
// and keeps q̂ = +∞.
func TestQuantileRankTolerance(t *testing.T) {
	alpha := 1.0 / 3
	exact := new(big.Rat).Mul(big.NewRat(3, 1), new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).SetFloat64(alpha)))
	if exact.Cmp(big.NewRat(2, 1)) <= 0 {
		t.Fatalf("3·(1−α) = %v exactly, want it above 2 for this test", exact.FloatString(20))
	}
	if k, err := QuantileRank(2, alpha); err != nil || k != 2 {
		t.Errorf("QuantileRank(2, 1.0/3) = %d, %v; want 2", k, err)
	}
	if q, err := Quantile([]float64{0.2, 0.7}, alpha); err != nil || q != 0.7 {
		t.Errorf("Quantile([0.2, 0.7], 1.0/3) = %v, %v; want 0.7", q, err)
	}
	if q, err := Quantile([]float64{0.2, 0.7}, 1.0/3-1e-6); err != nil || !math.IsInf(q, 1) {
		t.Errorf("Quantile([0.2, 0.7], ⅓ − 10⁻⁶) = %v, %v; want +Inf", q, err)
	}
}

func TestCalibrateByHand(t *testing.T) {
	aps, _ := APS{}.Scores(Input{Prob: handProb, Classes: 3, U: handU})
	// Calibration nodes 1 and 2 (true scores 0.84 and 0.4); α = ½, rank
	// ⌈3·½⌉ = 2: q̂ = 0.84. Node 0 (0.25, 0.65, 0.9) gets {0, 1}, covered;
	// node 3 (1, 1, 0.6) gets {2}, not.
	r, err := Calibrate(aps, 3, handLabels, []int{2, 1}, []int{3, 0}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Alpha: 0.5, Classes: 3, Quantile: 0.84, Calibration: []int{1, 2}, Nodes: []int{0, 3},
		Sets: [][]int{{0, 1}, {2}}, Sizes: []int{2, 1}, Covered: []bool{true, false},
		Coverage: 0.5, MeanSize: 1.5, SingletonRate: 0.5, EmptyRate: 0}
	if !sameResult(r, want) {
		t.Errorf("α ½:\n got %+v\nwant %+v", r, want)
	}
	if c := r.SizeCounts(); !slices.Equal(c, []int{0, 1, 1, 0}) {
		t.Errorf("size counts %v", c)
	}
	// α = ¼: rank ⌈3·¾⌉ = 3 > 2 calibration nodes, every set is full.
	r, _ = Calibrate(aps, 3, handLabels, []int{1, 2}, []int{0, 3}, 0.25)
	if !math.IsInf(r.Quantile, 1) || r.Coverage != 1 || r.MeanSize != 3 || r.SingletonRate != 0 || !slices.Equal(r.Sets[1], []int{0, 1, 2}) {
		t.Errorf("α ¼: %+v", r)
	}
	// Calibrated on 0–2 (0.25, 0.84, 0.4) at α = ½: q̂ = 0.4, and node 3's
	// scores are all above it: an empty set.
	r, _ = Calibrate(aps, 3, handLabels, []int{0, 1, 2}, []int{3}, 0.5)
	if !closeTo(r.Quantile, 0.4) || r.EmptyRate != 1 || r.MeanSize != 0 || len(r.Sets[0]) != 0 || r.Sets[0] == nil {
		t.Errorf("empty set: %+v", r)
	}
	// The same split with RAPS λ 0.1, k_reg 1: node 0 scores (0.25, 0.75,
	// 1.1), q̂ from 0.94 and 0.5 at rank 2 = 0.94: {0, 1}.
	rap, _ := RAPS{Lambda: 0.1, KReg: 1}.Scores(Input{Prob: handProb, Classes: 3, U: handU})
	r, _ = Calibrate(rap, 3, handLabels, []int{1, 2}, []int{0, 3}, 0.5)
	if !closeTo(r.Quantile, 0.94) || !slices.Equal(r.Sets[0], []int{0, 1}) || !slices.Equal(r.Sets[1], []int{2}) {
		t.Errorf("RAPS: %+v", r)
	}
}

func sameResult(a, b Result) bool {
	return a.Score == b.Score && a.Alpha == b.Alpha && a.Classes == b.Classes && closeTo(a.Quantile, b.Quantile) &&
		slices.Equal(a.Calibration, b.Calibration) && slices.Equal(a.Nodes, b.Nodes) &&
		slices.EqualFunc(a.Sets, b.Sets, slices.Equal) && slices.Equal(a.Sizes, b.Sizes) &&
		slices.Equal(a.Covered, b.Covered) && a.Coverage == b.Coverage && a.MeanSize == b.MeanSize &&
		a.SingletonRate == b.SingletonRate && a.EmptyRate == b.EmptyRate
}

func TestRandomSplit(t *testing.T) {
	nodes := []int{9, 3, 7, 1, 5, 11, 13}
	cal, ev, err := RandomSplit(nodes, 0.5, 4)
	if err != nil {
		t.Fatal(err)
	}
	// round(3.5) = 4 calibrate, sorted; together they are the nodes.
	if len(cal) != 4 || len(ev) != 3 || !slices.IsSorted(cal) || !slices.IsSorted(ev) {
		t.Fatalf("split %v / %v", cal, ev)
	}
	all := slices.Sorted(slices.Values(slices.Concat(cal, ev)))
	if !slices.Equal(all, []int{1, 3, 5, 7, 9, 11, 13}) {
		t.Errorf("split %v / %v does not partition %v", cal, ev, nodes)
	}
	cal2, _, _ := RandomSplit(nodes, 0.5, 4)
	if !slices.Equal(cal, cal2) {
		t.Errorf("same seed, different splits %v, %v", cal, cal2)
	}
	differs := false
	for seed := range uint64(10) {
		c, _, _ := RandomSplit(nodes, 0.5, seed+5)
		differs = differs || !slices.Equal(c, cal)
	}
	if !differs {
		t.Error("ten seeds give the same split")
	}
	if !slices.Equal(nodes, []int{9, 3, 7, 1, 5, 11, 13}) {
		t.Errorf("RandomSplit changed its input: %v", nodes)
	}
}

func TestBadInput(t *testing.T) {
	adj := pathAdj(t)
	prob5 := append(slices.Clone(handProb), 0.7, 0.2, 0.1)
	labels5 := []int{0, 2, 1, 0, -1}
	all := []int{0, 1, 2, 3}
	run := func(p *Predictor) error { _, err := p.Done(); return err }
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"rows", "11 probabilities are not rows of 3 classes", run(New(handProb[:11], 3, handLabels).Nodes(all))},
		{"classes", "0 classes", run(New(handProb, 0, handLabels).Nodes(all))},
		{"sum", "probabilities of node 1 sum to 1.1, not 1",
			run(New([]float64{0.5, 0.5, 0.2, 0.9}, 2, []int{0, 1}).Split([]int{0}, []int{1}))},
		{"NaN", "node 0 has probability NaN for class 1",
			run(New([]float64{0.5, math.NaN(), 0.2, 0.8}, 2, []int{0, 1}).Split([]int{0}, []int{1}))},
		{"negative", "node 1 has probability -0.2 for class 0",
			run(New([]float64{0.5, 0.5, -0.2, 1.2}, 2, []int{0, 1}).Split([]int{0}, []int{1}))},
		{"labels", "3 labels for 4 nodes", run(New(handProb, 3, handLabels[:3]).Split([]int{0}, []int{1}))},
		{"unlabelled", "node 4 is unlabelled (label -1, not in [0, 3))",
			run(New(prob5, 3, labels5).Graph(adj).Nodes([]int{0, 1, 4}))},
		{"unlabelled in split", "node 4 is unlabelled",
			run(New(prob5, 3, labels5).Graph(adj).Split([]int{0, 1}, []int{4}))},
		{"out of range", "node 7 outside [0, 4)", run(New(handProb, 3, handLabels).Split([]int{0, 7}, []int{1}))},
		{"twice", "node 1 given twice", run(New(handProb, 3, handLabels).Split([]int{0, 1}, []int{1}))},
		{"no calibration", "no calibration nodes", run(New(handProb, 3, handLabels).Split([]int{}, []int{1}))},
		{"no evaluation", "no evaluation nodes", run(New(handProb, 3, handLabels).Split([]int{1}, nil))},
		{"no nodes", "no nodes: set Nodes or Split", run(New(handProb, 3, handLabels))},
		{"too few nodes", "leaves 1 to calibrate and 0 to evaluate", run(New(handProb, 3, handLabels).Nodes([]int{2}))},
		{"fraction", "calibration fraction 1, need 0 < fraction < 1",
			run(New(handProb, 3, handLabels).Nodes(all).CalibrationFraction(1))},
		{"alpha 0", "α = 0, need 0 < α < 1", run(New(handProb, 3, handLabels).Nodes(all).Alpha(0))},
		{"alpha 1", "α = 1, need 0 < α < 1", run(New(handProb, 3, handLabels).Nodes(all).Alpha(1))},
		{"alpha NaN", "α = NaN", run(New(handProb, 3, handLabels).Nodes(all).Alpha(math.NaN()))},
		{"nil score", "nil score", run(New(handProb, 3, handLabels).Nodes(all).Score(nil))},
		{"DAPS without graph", "DAPS (λ 0.5) needs the graph's adjacency", run(New(handProb, 3, handLabels).Nodes(all).Score(DAPS{}))},
		{"DAPS λ", "DAPS (λ 1.5): λ must be in (0, 1]", run(New(prob5, 3, labels5).Graph(adj).Nodes(all).Score(DAPS{Lambda: 1.5}))},
		{"adjacency shape", "5x5 adjacency for 4 nodes", run(New(handProb, 3, handLabels).Graph(adj).Nodes(all).Score(DAPS{}))},
		{"negative weight", "adjacency entry 0 has weight -1",
			run(New(prob5, 3, labels5).Graph(&tensor.CSR{Rows: 5, Cols: 5, Ptr: []int{0, 1, 1, 1, 1, 1}, Ind: []int{1}, Val: []float64{-1}}).Nodes(all).Score(DAPS{}))},
		{"RAPS λ", "need λ ≥ 0 finite and k_reg ≥ 0", run(New(handProb, 3, handLabels).Nodes(all).Score(RAPS{Lambda: -1}))},
		{"RAPS k_reg", "need λ ≥ 0 finite and k_reg ≥ 0", run(New(handProb, 3, handLabels).Nodes(all).Score(RAPS{KReg: -2}))},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if _, err := (APS{}).Scores(Input{Prob: handProb, Classes: 3, U: []float64{0.5}}); err == nil || !strings.Contains(err.Error(), "1 uniform numbers for 4 nodes") {
		t.Errorf("short U: %v", err)
	}
	if _, err := (APS{}).Scores(Input{Prob: handProb, Classes: 3, U: []float64{0, 0, 2, 0}}); err == nil || !strings.Contains(err.Error(), "uniform number 2 of node 2") {
		t.Errorf("U out of range: %v", err)
	}
	if _, err := Calibrate([]float64{math.NaN(), 0, 1, 0}, 2, []int{0, 1}, []int{0}, []int{1}, 0.1); err == nil || !strings.Contains(err.Error(), "node 0 has a NaN score for class 0") {
		t.Errorf("NaN score: %v", err)
	}
	if _, err := Quantile(nil, 0.1); err == nil || !strings.Contains(err.Error(), "no calibration nodes") {
		t.Errorf("Quantile of nothing: %v", err)
	}
}

func TestScoreNames(t *testing.T) {
	for s, want := range map[Score]string{
		APS{}:                                "APS",
		APS{NonRandomized: true}:             "APS (non-randomised)",
		DefaultRAPS:                          "RAPS (λ 0.1, k_reg 1)",
		DAPS{}:                               "DAPS (λ 0.5)",
		DAPS{Lambda: 0.3, Base: DefaultRAPS}: "DAPS (λ 0.3) of RAPS (λ 0.1, k_reg 1)",
	} {
		if got := s.String(); got != want {
			t.Errorf("%#v named %q, want %q", s, got, want)
		}
	}
}
