package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// wordGraph is a path of 10 nodes, labels alternating 0/1, with 22 binary
// feature columns: column j is non-zero in rows 0, …, cnt(j)−1 where
// cnt(j) = (7·j) mod 11, so the word counts are varied and tied.
func wordGraph(t *testing.T) (*Graph, Split) {
	t.Helper()
	const n, f = 10, 22
	x := tensor.New(n, f)
	for j := 0; j < f; j++ {
		for i := 0; i < (7*j)%11 && i < n; i++ {
			x.Set(i, j, 1)
		}
	}
	labels := make([]int, n)
	var edges [][2]int
	for i := range labels {
		labels[i] = i % 2
		if i > 0 {
			edges = append(edges, [2]int{i - 1, i})
		}
	}
	g, err := New("words", undirected(t, n, edges...), x, labels, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FixedSplit([]int{0, 1}, []int{2, 3}, []int{4, 5, 6, 7, 8, 9}, n)
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

// rankedWords ranks the columns of x by decreasing non-zero count, ties by
// column, by counting column by column.
func rankedWords(x *tensor.Dense) []int {
	counts := make([]int, x.Cols)
	for j := range counts {
		for i := 0; i < x.Rows; i++ {
			if x.At(i, j) != 0 {
				counts[j]++
			}
		}
	}
	words := make([]int, x.Cols)
	for j := range words {
		words[j] = j
	}
	sort.Slice(words, func(a, b int) bool {
		if counts[words[a]] != counts[words[b]] {
			return counts[words[a]] > counts[words[b]]
		}
		return words[a] < words[b]
	})
	return words
}

// expectedRow draws the replacement row of noise at severity sev from
// rng, transcribing the documented draws.
func expectedRow(rng *rand.Rand, noise Noise, sev float64, width int, orig []float64, words []int) []float64 {
	row := make([]float64, width)
	switch noise {
	case Uniform, Dense:
		sum := 0.0
		for j := range row {
			row[j] = rng.Float64()
			sum += row[j]
		}
		for j := range row {
			if noise == Dense {
				row[j] = row[j] / (sum + 1e-10)
			}
			row[j] *= sev
		}
	case BernoulliMostCommon, BernoulliLeastCommon:
		m := []int{5, 10, 20}[rng.IntN(3)]
		pool := slices.Clone(words)
		for p := 0; p < m; p++ {
			q := p + rng.IntN(len(pool)-p)
			pool[p], pool[q] = pool[q], pool[p]
			row[pool[p]] = sev / (float64(m) + 1e-10)
		}
	case NotNormalized:
		for j, v := range orig {
			if v != 0 {
				row[j] = sev
			}
		}
	case Scaled, Reference:
		for j, v := range orig {
			row[j] = sev * v
		}
	}
	return row
}

func TestGPNFeaturePerturbations(t *testing.T) {
	g, s := wordGraph(t)
	x := g.Features.(*tensor.Dense)
	ranked := rankedWords(x)
	// counts (7j mod 11) for j = 0..21: 0 7 3 10 6 2 9 5 1 8 4 0 7 3 10 6 2 9 5 1 8 4,
	// capped at 10 rows: the most common words are 3 and 14 (10 rows).
	if ranked[0] != 3 || ranked[1] != 14 || ranked[20] != 0 || ranked[21] != 11 {
		t.Fatalf("ranking by hand: got %v", ranked)
	}
	most, least := ranked, ranked[:21] // fewer than 100 words: all, or all but the last
	for _, tc := range []struct {
		noise Noise
		sev   float64
		words []int
	}{
		{Uniform, 1, nil}, {Uniform, 3, nil}, {Dense, 1, nil}, {Dense, 2, nil},
		{BernoulliMostCommon, 1, most}, {BernoulliLeastCommon, 1, least},
		{NotNormalized, 1, nil}, {NotNormalized, 2, nil}, {Scaled, 10, nil}, {Reference, 1, nil},
	} {
		const seed = 7
		p, err := PerturbFeaturesWith(g, s, FeatureShift{Noise: tc.noise, Budget: 0.5, Severity: tc.sev, Seed: seed})
		if err != nil {
			t.Fatalf("%v: %v", tc.noise, err)
		}
		// int(0.5·|group|) nodes of each group: val 1, test 3, unused 0, train 1
		in := Mask(g.N, p.Nodes)
		count := func(set []int) int {
			c := 0
			for _, i := range set {
				if in[i] {
					c++
				}
			}
			return c
		}
		if len(p.Nodes) != 5 || count(s.Val) != 1 || count(s.Test) != 3 || count(s.Train) != 1 {
			t.Fatalf("%v: perturbed %v", tc.noise, p.Nodes)
		}
		if len(p.OODTest) != 3 || len(p.IDTest) != 3 {
			t.Fatalf("%v: OOD test %v, ID test %v", tc.noise, p.OODTest, p.IDTest)
		}
		// every edge remains
		if p.Graph.Adj != g.Adj {
			t.Fatalf("%v: adjacency changed", tc.noise)
		}
		// the chosen nodes get the successive rows of the noise stream, in
		// their draw order (val, test, unused, train groups; within a group
		// the shuffle's order), so each perturbed row is one of them
		rng := rand.New(rand.NewPCG(seed, 0x6e6f697365))
		want := make([][]float64, len(p.Nodes))
		got := p.Graph.Features.(*tensor.Dense)
		for r := range want {
			want[r] = expectedRow(rng, tc.noise, tc.sev, x.Cols, nil, tc.words)
		}
		for i := 0; i < g.N; i++ {
			orig := x.Row(i)
			row := got.Row(i)
			if !in[i] {
				if !slices.Equal(row, orig) {
					t.Fatalf("%v: unperturbed node %d changed", tc.noise, i)
				}
				continue
			}
			switch tc.noise {
			case NotNormalized, Scaled, Reference:
				w := expectedRow(nil, tc.noise, tc.sev, x.Cols, orig, nil)
				assertRow(t, tc.noise.String(), row, w)
			default:
				found := false
				for _, w := range want {
					if closeRows(row, w, 1e-15) {
						found = true
					}
				}
				if !found {
					t.Fatalf("%v: row %d = %v is none of the drawn rows", tc.noise, i, row)
				}
			}
			if tc.noise == Dense && math.Abs(sum(row)-tc.sev) > 1e-9 {
				t.Fatalf("dense row %d sums to %v, want %v", i, sum(row), tc.sev)
			}
		}
	}
}

func sum(row []float64) float64 {
	s := 0.0
	for _, v := range row {
		s += v
	}
	return s
}

func closeRows(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for j := range a {
		if math.Abs(a[j]-b[j]) > tol {
			return false
		}
	}
	return true
}

func assertRow(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if !closeRows(got, want, 1e-15) {
		t.Fatalf("%s: row %v, want %v", what, got, want)
	}
}

func TestGPNFeaturePerturbationErrors(t *testing.T) {
	g, s := wordGraph(t)
	for _, tc := range []struct {
		f    FeatureShift
		want string
	}{
		{FeatureShift{Noise: Scaled, Budget: 0.1, Severity: 1}, "scaled severity s = 1, want a finite s > 1"},
		{FeatureShift{Noise: Reference, Budget: 0.1, Severity: 2}, "reference severity s = 2, want 1"},
		{FeatureShift{Noise: Uniform, Budget: 0.1, Severity: 0}, "uniform severity s = 0, want a finite s > 0"},
		{FeatureShift{Noise: Dense, Budget: 0.1, Severity: math.Inf(1)}, "dense severity s = +Inf"},
	} {
		_, err := PerturbFeaturesWith(g, s, tc.f)
		assertErr(t, err, tc.want)
	}
	// with 20 columns the most common words are 20, enough; the least
	// common are 19, too few
	narrow := g.Clone()
	d := narrow.Features.(*tensor.Dense)
	cut := tensor.New(d.Rows, 20)
	for i := 0; i < d.Rows; i++ {
		copy(cut.Row(i), d.Row(i)[:20])
	}
	narrow.Features = cut
	_, err := PerturbFeaturesWith(narrow, s, FeatureShift{Noise: BernoulliLeastCommon, Budget: 0.5, Severity: 1})
	assertErr(t, err, "bernoulli_least_common noise draws up to 20 words from 19 candidate words (20 feature columns)")
	if _, err := PerturbFeaturesWith(narrow, s, FeatureShift{Noise: BernoulliMostCommon, Budget: 0.5, Severity: 1}); err != nil {
		t.Fatal(err)
	}
	if Scaled.PaperSeverity() != ScaledSeverity || Uniform.PaperSeverity() != 1 || Noise(70).String() != "Noise(70)" {
		t.Fatal("PaperSeverity or String")
	}
	for _, n := range AllNoises {
		if n.String() == "" || math.IsNaN(n.PaperSeverity()) {
			t.Fatalf("noise %d has no name or severity", n)
		}
	}
}

func TestPerturbFeaturesIsolated(t *testing.T) {
	g, s := wordGraph(t)
	const seed = 3
	p, err := PerturbFeaturesIsolated(g, s, FeatureShift{Noise: Uniform, Severity: 2, Seed: seed}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 4 || !slices.IsSorted(p.Nodes) {
		t.Fatalf("nodes %v", p.Nodes)
	}
	test := Mask(g.N, s.Test)
	for _, i := range p.Nodes {
		if !test[i] {
			t.Fatalf("node %d is not a test node", i)
		}
	}
	// the k-th node (ascending) gets the k-th row of the noise stream
	rng := rand.New(rand.NewPCG(seed, 0x6e6f697365))
	x := g.Features.(*tensor.Dense)
	for k, i := range p.Nodes {
		want := expectedRow(rng, Uniform, 2, x.Cols, x.Row(i), nil)
		assertRow(t, "Row", p.Row(k), want)
		gk, err := p.Graph(k)
		if err != nil {
			t.Fatal(err)
		}
		if gk.Adj != g.Adj {
			t.Fatal("adjacency changed")
		}
		xk := gk.Features.(*tensor.Dense)
		for j := 0; j < g.N; j++ {
			if j == i {
				assertRow(t, "perturbed row", xk.Row(j), want)
			} else if !slices.Equal(xk.Row(j), x.Row(j)) {
				t.Fatalf("graph %d: node %d changed too", k, j)
			}
		}
	}
	if _, err := p.Graph(4); err == nil {
		t.Fatal("Graph(4) of 4 nodes: no error")
	}
	sh := p.Shifted("uniform_isolated")
	if len(sh.Views) != 5 || !slices.Equal(sh.Views[0].ID, s.Test) || sh.Views[0].OOD != nil || sh.Views[0].Graph() != g {
		t.Fatalf("clean view %+v", sh.Views[0])
	}
	for k, v := range sh.Views[1:] {
		if len(v.ID) != 0 || !slices.Equal(v.OOD, []int{p.Nodes[k]}) {
			t.Fatalf("view %d: ID %v OOD %v", k+1, v.ID, v.OOD)
		}
		if !slices.Equal(v.Graph().Features.(*tensor.Dense).Row(p.Nodes[k]), p.Row(k)) {
			t.Fatalf("view %d: wrong graph", k+1)
		}
	}
	_, err = PerturbFeaturesIsolated(g, s, FeatureShift{Noise: Uniform, Severity: 1}, 7)
	assertErr(t, err, "graph.PerturbFeaturesIsolated: cannot perturb 7 of 6 test nodes")
	_, err = PerturbFeaturesIsolated(g, s, FeatureShift{Noise: Scaled, Severity: 1}, 2)
	assertErr(t, err, "scaled severity")
}
