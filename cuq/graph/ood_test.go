package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// featureGraph returns a labelled graph with random sparse non-negative
// features (CSR) over the class sizes given.
func featureGraph(t testing.TB, sizes []int, unlabelled, f int) *Graph {
	g := labelledGraph(t, sizes, unlabelled)
	rng := rand.New(rand.NewPCG(4, 4))
	x := tensor.New(g.N, f)
	for k := range x.Data {
		if rng.Float64() < 0.1 {
			x.Data[k] = 1
		}
	}
	g.Features = NormalizeFeatures(tensor.DenseToCSR(x))
	g.ClassNames = make([]string, len(sizes))
	for c := range g.ClassNames {
		g.ClassNames[c] = string(rune('A' + c))
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// featureSetting returns featureGraph, with dense features when dense is
// set, and its default split.
func featureSetting(t testing.TB, sizes []int, unlabelled, f int, dense bool) (*Graph, Split) {
	t.Helper()
	g := featureGraph(t, sizes, unlabelled, f)
	if dense {
		g.Features = g.Features.(*tensor.CSR).ToDense()
	}
	s, err := g.Split(SplitSpec{})
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

func TestLeaveOutClasses(t *testing.T) {
	g := featureGraph(t, []int{100, 80, 60, 40, 30}, 20, 8)
	s, err := g.Split(SplitSpec{})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := LeaveOutClasses(g, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := loc.Graph.Validate(); err != nil {
		t.Fatal(err)
	}
	if loc.Graph.NumClasses != 3 || len(loc.Graph.ClassNames) != 3 || !slices.Equal(loc.LeftOut, []int{3, 4}) {
		t.Errorf("C = %d, names %v, left out %v", loc.Graph.NumClasses, loc.Graph.ClassNames, loc.LeftOut)
	}
	if err := loc.Split.Validate(g.N); err != nil {
		t.Fatal(err)
	}
	for i, y := range g.Labels {
		if loc.Labels[i] != y {
			t.Fatal("LOC.Labels differ from the original labels")
		}
		switch {
		case y >= 3 && loc.Graph.Labels[i] != -1:
			t.Fatalf("node %d of left-out class %d keeps label %d", i, y, loc.Graph.Labels[i])
		case y < 3 && loc.Graph.Labels[i] != y:
			t.Fatalf("ID node %d relabelled from %d to %d", i, y, loc.Graph.Labels[i])
		}
	}
	for _, set := range [][]int{loc.Split.Train, loc.Split.Val, loc.Split.Test} {
		for _, i := range set {
			if g.Labels[i] >= 3 {
				t.Fatalf("left-out node %d kept in the ID split", i)
			}
		}
	}
	// The ID training set keeps all ID training nodes.
	if want := g.ClassCounts(s.Train)[0] + g.ClassCounts(s.Train)[1] + g.ClassCounts(s.Train)[2]; len(loc.Split.Train) != want {
		t.Errorf("%d ID training nodes, want %d", len(loc.Split.Train), want)
	}
	// ID and OOD test nodes partition the original test set.
	both := append(slices.Clone(loc.IDTest), loc.OODTest...)
	slices.Sort(both)
	if !slices.Equal(both, s.Test) {
		t.Error("IDTest ∪ OODTest is not the original test set")
	}
	if !slices.Equal(loc.IDTest, loc.Split.Test) {
		t.Error("IDTest differs from the ID split's test set")
	}
	// Class 3 (40 nodes) has 2/5/26 and class 4 (30 nodes) 1/4/20 test nodes.
	if len(loc.OODTest) != 26+20 {
		t.Errorf("%d OOD test nodes, want 46", len(loc.OODTest))
	}
	if loc.Graph.Adj != g.Adj || loc.Graph.Features != g.Features {
		t.Error("the LOC graph should share adjacency and features")
	}

	_, err = LeaveOutClasses(g, s, 5)
	assertErr(t, err, "cannot leave out 5 of 5 classes")
	_, err = LeaveOutClasses(g, s, 0)
	assertErr(t, err, "cannot leave out 0 of 5 classes")
	_, err = LeaveOutClasses(g, Split{Train: []int{0}}, 1)
	assertErr(t, err, "the sets hold 1 of")
}

func TestPerturbFeaturesInvariants(t *testing.T) {
	g, s := featureSetting(t, []int{300, 200, 150}, 50, 200, false)
	for _, noise := range []Noise{Gaussian, Bernoulli} {
		p, err := PerturbFeatures(g, s, noise, 0.1, 42)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Graph.Validate(); err != nil {
			t.Fatal(err)
		}
		perturbed := Mask(g.N, p.Nodes)
		for _, group := range []struct {
			name string
			idx  []int
		}{{"val", s.Val}, {"test", s.Test}, {"unused", s.Unused}, {"train", s.Train}} {
			n := 0
			for _, i := range group.idx {
				if perturbed[i] {
					n++
				}
			}
			if want := len(group.idx) / 10; n != want {
				t.Errorf("%v: %d of %d %s nodes perturbed, want %d", noise, n, len(group.idx), group.name, want)
			}
		}
		both := append(slices.Clone(p.IDTest), p.OODTest...)
		slices.Sort(both)
		if !slices.Equal(both, s.Test) {
			t.Errorf("%v: IDTest ∪ OODTest is not the test set", noise)
		}
		for _, i := range p.OODTest {
			if !perturbed[i] {
				t.Fatalf("%v: OOD test node %d is not perturbed", noise, i)
			}
		}
		orig := g.Features.(*tensor.CSR).ToDense()
		x, ok := p.Graph.Features.(*tensor.CSR)
		if !ok {
			t.Fatalf("%v: features became %T, want CSR", noise, p.Graph.Features)
		}
		got := x.ToDense()
		var values []float64
		for i := 0; i < g.N; i++ {
			if !perturbed[i] {
				if !slices.Equal(got.Row(i), orig.Row(i)) {
					t.Fatalf("%v: unperturbed row %d changed", noise, i)
				}
				continue
			}
			row := got.Row(i)
			values = append(values, row...)
			if noise == Bernoulli {
				sum, ones := 0.0, 0
				for _, v := range row {
					sum += v
					if v != 0 {
						ones++
					}
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Fatalf("Bernoulli row %d sums to %v", i, sum)
				}
				for _, v := range row {
					if v != 0 && math.Abs(v-1/float64(ones)) > 1e-12 {
						t.Fatalf("Bernoulli row %d holds %v, want 0 or 1/%d", i, v, ones)
					}
				}
			}
		}
		mean, variance := moments(values)
		switch noise {
		case Gaussian: // ~70×200 N(0,1) values: standard error of the mean ≈ 0.008
			if math.Abs(mean) > 0.05 || math.Abs(variance-1) > 0.05 {
				t.Errorf("Gaussian noise mean %v variance %v, want 0 and 1", mean, variance)
			}
		case Bernoulli: // entries 1/m with m ≈ F/2 ones per row
			if math.Abs(mean-1/200.0) > 1e-9 {
				t.Errorf("Bernoulli mean entry %v, want 1/200", mean)
			}
		}
	}
}

func moments(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v)-1)
}

// noiseRows returns the perturbed rows of p sorted lexicographically.
func noiseRows(p *Perturbed) [][]float64 {
	x := p.Graph.Features.(*tensor.Dense)
	var rows [][]float64
	for _, i := range p.Nodes {
		rows = append(rows, slices.Clone(x.Row(i)))
	}
	sort.Slice(rows, func(a, b int) bool { return slices.Compare(rows[a], rows[b]) < 0 })
	return rows
}

func TestPerturbFeaturesRandomness(t *testing.T) {
	g := featureGraph(t, []int{120, 90}, 30, 5)
	g.Features = g.Features.(*tensor.CSR).ToDense()
	s1, err := g.SplitK(SplitSpec{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := g.SplitK(SplitSpec{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	before := g.Features.(*tensor.Dense).Clone()
	p1, err := PerturbFeatures(g, s1, Gaussian, 0.1, 42)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p1.Graph.Features.(*tensor.Dense); !ok {
		t.Fatalf("dense features became %T", p1.Graph.Features)
	}
	again, _ := PerturbFeatures(g, s1, Gaussian, 0.1, 42)
	if !slices.Equal(p1.Nodes, again.Nodes) || !slices.Equal(p1.Graph.Features.(*tensor.Dense).Data, again.Graph.Features.(*tensor.Dense).Data) {
		t.Error("the same split and seed give different perturbations")
	}
	p2, err := PerturbFeatures(g, s2, Gaussian, 0.1, 42)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(p1.Nodes, p2.Nodes) {
		t.Error("two splits perturb the same nodes")
	}
	r1, r2 := noiseRows(p1), noiseRows(p2)
	if len(r1) != len(r2) {
		t.Fatalf("%d and %d perturbed nodes", len(r1), len(r2))
	}
	for k := range r1 {
		if !slices.Equal(r1[k], r2[k]) {
			t.Fatal("the noise values differ between splits with the same seed")
		}
	}
	p3, _ := PerturbFeatures(g, s1, Gaussian, 0.1, 43)
	if slices.Equal(noiseRows(p3)[0], r1[0]) {
		t.Error("seeds 42 and 43 give the same noise")
	}
	if !slices.Equal(g.Features.(*tensor.Dense).Data, before.Data) {
		t.Error("the original features were modified in place")
	}
}

func TestPerturbFeaturesErrors(t *testing.T) {
	g, s := featureSetting(t, []int{20, 20}, 0, 3, false)
	var err error
	_, err = PerturbFeatures(g, s, Gaussian, 1.5, 1)
	assertErr(t, err, "budget 1.5 outside [0, 1]")
	_, err = PerturbFeatures(g, s, Noise(70), 0.1, 1)
	assertErr(t, err, "unknown noise Noise(70)")
	_, err = PerturbFeatures(g, Split{}, Gaussian, 0.1, 1)
	assertErr(t, err, "the sets hold 0 of 40 nodes")
	bad := *g
	bad.Labels = bad.Labels[:3]
	_, err = PerturbFeatures(&bad, s, Gaussian, 0.1, 1)
	assertErr(t, err, "3 labels for 40 nodes")
	for _, c := range []struct {
		shift FeatureShift
		want  string
	}{
		{FeatureShift{Noise: Gaussian, Budget: 0.1}, "graph.PerturbFeaturesWith: Gaussian severity σ = 0, want a finite σ > 0"},
		{FeatureShift{Noise: Gaussian, Budget: 0.1, Severity: -1}, "σ = -1, want"},
		{FeatureShift{Noise: Gaussian, Budget: 0.1, Severity: math.NaN()}, "σ = NaN, want"},
		{FeatureShift{Noise: Gaussian, Budget: 0.1, Severity: math.Inf(1)}, "σ = +Inf, want"},
		{FeatureShift{Noise: Bernoulli, Budget: 0.1}, "Bernoulli severity p = 0 outside (0, 1]"},
		{FeatureShift{Noise: Bernoulli, Budget: 0.1, Severity: 1.5}, "Bernoulli severity p = 1.5 outside (0, 1]"},
		{FeatureShift{Noise: Bernoulli, Budget: -0.5, Severity: 0.5}, "budget -0.5 outside [0, 1]"},
		{FeatureShift{Noise: Noise(30), Budget: 0.1, Severity: 1}, "unknown noise Noise(30)"},
	} {
		_, err = PerturbFeaturesWith(g, s, c.shift)
		assertErr(t, err, c.want)
	}
	if Gaussian.String() != "gaussian" || Bernoulli.String() != "bernoulli" {
		t.Error("Noise.String")
	}
}

// bitsEqual reports whether a and b hold the same float64 bit patterns.
func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// The paper's severity gives PerturbFeatures' result bit for bit, on dense
// and sparse features, for both noises, budgets and seeds.
func TestPerturbFeaturesWithPaperSeverity(t *testing.T) {
	if Gaussian.PaperSeverity() != 1 || Bernoulli.PaperSeverity() != 0.5 || !math.IsNaN(Noise(70).PaperSeverity()) {
		t.Fatal("PaperSeverity")
	}
	sparse, s := featureSetting(t, []int{150, 100}, 20, 70, false)
	dense := *sparse
	dense.Features = sparse.Features.(*tensor.CSR).ToDense()
	for _, g := range []*Graph{sparse, &dense} {
		for _, noise := range []Noise{Gaussian, Bernoulli} {
			for _, budget := range []float64{0.1, 0.3} {
				for _, seed := range []uint64{42, 7} {
					want, err := PerturbFeatures(g, s, noise, budget, seed)
					if err != nil {
						t.Fatal(err)
					}
					got, err := PerturbFeaturesWith(g, s, FeatureShift{Noise: noise, Budget: budget, Severity: noise.PaperSeverity(), Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					same := slices.Equal(got.Nodes, want.Nodes) && slices.Equal(got.IDTest, want.IDTest) && slices.Equal(got.OODTest, want.OODTest)
					switch x := want.Graph.Features.(type) {
					case *tensor.Dense:
						same = same && bitsEqual(got.Graph.Features.(*tensor.Dense).Data, x.Data)
					case *tensor.CSR:
						y := got.Graph.Features.(*tensor.CSR)
						same = same && slices.Equal(y.Ptr, x.Ptr) && slices.Equal(y.Ind, x.Ind) && bitsEqual(y.Val, x.Val)
					}
					if !same {
						t.Fatalf("%T features, %v, budget %v, seed %d: PerturbFeaturesWith at the paper's severity differs from PerturbFeatures", g.Features, noise, budget, seed)
					}
					if want.Severity != noise.PaperSeverity() || want.Structure != 0 {
						t.Fatalf("PerturbFeatures records severity %v, structure %v", want.Severity, want.Structure)
					}
				}
			}
		}
	}
}

// perturbedEntries returns the entries of the perturbed rows of p.
func perturbedEntries(p *Perturbed) [][]float64 {
	x := p.Graph.Features.(*tensor.Dense)
	rows := make([][]float64, len(p.Nodes))
	for k, i := range p.Nodes {
		rows[k] = x.Row(i)
	}
	return rows
}

func TestGaussianSeverity(t *testing.T) {
	g, s := featureSetting(t, []int{300, 200, 150}, 50, 200, true)
	unit, err := PerturbFeatures(g, s, Gaussian, 0.1, 42)
	if err != nil {
		t.Fatal(err)
	}
	base := perturbedEntries(unit)
	prev := 0.0
	for _, sigma := range GaussianSeverities {
		p, err := PerturbFeaturesWith(g, s, FeatureShift{Noise: Gaussian, Budget: 0.1, Severity: sigma, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Nodes, unit.Nodes) {
			t.Fatalf("σ = %v perturbs other nodes than σ = 1", sigma)
		}
		var values []float64
		for k, row := range perturbedEntries(p) {
			for j, v := range row {
				if v != sigma*base[k][j] {
					t.Fatalf("σ = %v: entry %v is not σ times the N(0, 1) entry %v", sigma, v, base[k][j])
				}
			}
			values = append(values, row...)
		}
		// 70 rows × 200 entries: the sample std is within about 1% of σ.
		mean, variance := moments(values)
		if sd := math.Sqrt(variance); math.Abs(sd/sigma-1) > 0.03 || math.Abs(mean) > 0.03*sigma {
			t.Errorf("σ = %v: sample mean %v, std %v", sigma, mean, sd)
		}
		if sigma <= prev {
			t.Errorf("GaussianSeverities not increasing at %v", sigma)
		}
		prev = sigma
	}
	if !slices.Contains(GaussianSeverities, 1) {
		t.Error("GaussianSeverities lacks the paper's σ = 1")
	}
}

func TestBernoulliSeverity(t *testing.T) {
	g, s := featureSetting(t, []int{300, 200, 150}, 50, 200, true)
	prev := 0.0
	for _, prob := range BernoulliSeverities {
		p, err := PerturbFeaturesWith(g, s, FeatureShift{Noise: Bernoulli, Budget: 0.1, Severity: prob, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		ones, total := 0, 0
		for k, row := range perturbedEntries(p) {
			sum, m := 0.0, 0
			for _, v := range row {
				if v != 0 {
					m++
					sum += v
				}
			}
			for _, v := range row {
				if v != 0 && math.Abs(v*float64(m)-1) > 1e-9 { // 1/(m + 1e-10)
					t.Fatalf("p = %v: row %d holds %v, want 0 or 1/%d", prob, k, v, m)
				}
			}
			if m > 0 && math.Abs(sum-1) > 1e-9 {
				t.Fatalf("p = %v: row %d sums to %v", prob, k, sum)
			}
			ones += m
			total += len(row)
		}
		// Binomial(total, p) non-zero entries: 5 standard deviations.
		if sd := math.Sqrt(float64(total) * prob * (1 - prob)); math.Abs(float64(ones)-float64(total)*prob) > 5*sd+1e-9 {
			t.Errorf("p = %v: %d of %d entries non-zero", prob, ones, total)
		}
		if prob <= prev || prob > 1 {
			t.Errorf("BernoulliSeverities not increasing in (0, 1] at %v", prob)
		}
		prev = prob
	}
	if !slices.Contains(BernoulliSeverities, 0.5) {
		t.Error("BernoulliSeverities lacks the paper's p = 1/2")
	}
}

// The paper's noise rows are the documented draws of the stream seeded by
// the seed alone: N(0, 1) entries, or Bernoulli(1/2) entries taken bit by
// bit from 64-bit draws, the row scaled by 1/(ones + 1e-10).
func TestPaperNoiseStream(t *testing.T) {
	const f = 70 // two 64-bit draws per Bernoulli row
	g, s := featureSetting(t, []int{120, 90}, 30, f, true)
	for _, noise := range []Noise{Gaussian, Bernoulli} {
		p, err := PerturbFeatures(g, s, noise, 0.2, 9)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, noiseStream))
		var want [][]float64
		for range p.Nodes {
			row := make([]float64, f)
			var bits uint64
			ones := 0.0
			for j := range row {
				if noise == Gaussian {
					row[j] = rng.NormFloat64()
					continue
				}
				if j == 0 || j == 64 {
					bits = rng.Uint64()
				}
				row[j] = float64(bits >> (j % 64) & 1)
				ones += row[j]
			}
			if noise == Bernoulli {
				scaleRow(row, 1/(ones+1e-10))
			}
			want = append(want, row)
		}
		sort.Slice(want, func(a, b int) bool { return slices.Compare(want[a], want[b]) < 0 })
		got := noiseRows(p)
		if !slices.EqualFunc(got, want, bitsEqual) {
			t.Errorf("%v: the noise rows are not the documented draws", noise)
		}
	}
}
