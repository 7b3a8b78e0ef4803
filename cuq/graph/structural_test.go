package graph

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// shiftEdges is a 10-node graph: the triangle 0–1–2, the path
// 0–3–4–5–6–7 and node 8 joined to 1 and 2, with the leaf 9 at 8.
var shiftEdges = [][2]int{{0, 1}, {1, 2}, {0, 2}, {0, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {1, 8}, {2, 8}, {8, 9}}

// shiftLabels label the nodes of shiftEdges with two classes.
var shiftLabels = []int{0, 0, 1, 0, 1, 1, 0, 0, 1, 1}

func shiftGraph(t *testing.T, labels []int, classes int) *Graph {
	t.Helper()
	g, err := New("shift", undirected(t, len(labels), shiftEdges...), tensor.New(len(labels), 2), slices.Clone(labels), classes, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// densePageRank solves (I − a·W) x = (1 − a)·p by Gaussian elimination,
// W_ij = 1/(d_j + 1) for j a neighbour of i or j = i (one self loop per
// node), from the edge list.
func densePageRank(n int, edges [][2]int, a float64, p []float64) []float64 {
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
		adj[i][i] = true
	}
	for _, e := range edges {
		adj[e[0]][e[1]], adj[e[1]][e[0]] = true, true
	}
	deg := make([]float64, n)
	for j := range deg {
		for i := range adj {
			if adj[i][j] {
				deg[j]++
			}
		}
	}
	m := make([][]float64, n) // augmented [I − aW | (1−a)p]
	for i := range m {
		m[i] = make([]float64, n+1)
		for j := 0; j < n; j++ {
			if i == j {
				m[i][j] = 1
			}
			if adj[i][j] {
				m[i][j] -= a / deg[j]
			}
		}
		m[i][n] = (1 - a) * p[i]
	}
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		m[c], m[piv] = m[piv], m[c]
		for r := 0; r < n; r++ {
			if r != c {
				f := m[r][c] / m[c][c]
				for k := c; k <= n; k++ {
					m[r][k] -= f * m[c][k]
				}
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = m[i][n] / m[i][i]
	}
	return x
}

func assertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: node %d = %.15g, want %.15g", what, i, got[i], want[i])
		}
	}
}

func TestNodeProperties(t *testing.T) {
	g := shiftGraph(t, shiftLabels, 2)
	n := g.N
	uniform := make([]float64, n)
	for i := range uniform {
		uniform[i] = 1.0 / float64(n)
	}
	wantPR := densePageRank(n, shiftEdges, 0.85, uniform)
	pr, err := PageRank(g, 0.85)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "PageRank", pr, wantPR, 1e-12)
	center := 0
	for i, v := range wantPR {
		if v > wantPR[center]+1e-12 {
			center = i
		}
	}
	e := make([]float64, n)
	e[center] = 1
	ppr, err := Locality.Score(g)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "PPR", ppr, densePageRank(n, shiftEdges, 0.85, e), 1e-12)

	// by hand: 0 has neighbours {1, 2, 3} with one edge 1–2 among them:
	// 2·1/(3·2) = 1/3; 1 and 2 see two of three pairs linked: 2/3; 8 sees
	// 1–2 among {1, 2, 9}: 1/3; the path and the leaves: 0.
	cc, err := Density.Score(g)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "clustering", cc, []float64{1.0 / 3, 2.0 / 3, 2.0 / 3, 0, 0, 0, 0, 0, 1.0 / 3, 0}, 1e-15)

	// by hand, over the closed neighbourhoods: node 0 {0,1,2,3} labels
	// 0,0,1,0 → 3/4; node 1 {1,0,2,8} → 2/4; node 3 {3,0,4} → 2/3; node 7
	// {7,6} → 1; node 8 {8,1,2,9} → 3/4; node 9 {9,8} → 1.
	h, err := Homophily.Score(g)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "homophily", h, []float64{0.75, 0.5, 0.5, 2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 1, 0.75, 1}, 1e-15)

	// a self loop in the adjacency changes nothing: every node has one
	withLoop := shiftGraph(t, shiftLabels, 2)
	withLoop.Adj = undirected(t, n, append(slices.Clone(shiftEdges), [2]int{4, 4})...)
	pr2, err := PageRank(withLoop, 0.85)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "PageRank with a self loop", pr2, wantPR, 1e-12)

	unl := shiftGraph(t, []int{0, -1, 1, 0, 1, 1, 0, 0, 1, 1}, 2)
	hu, err := NodeHomophily(unl)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(hu[1]) || hu[0] != 2.0/3 {
		t.Fatalf("homophily with node 1 unlabelled: %v", hu)
	}
	_, err = PersonalizedPageRank(g, 0.85, 10)
	assertErr(t, err, "centre 10 outside [0, 10)")
	_, err = PageRank(g, 1)
	assertErr(t, err, "damping 1 outside (0, 1)")
}

// byScore returns the nodes ordered by decreasing score and fails if two
// scores at the positions cut are within 1e-9 (no tie at a boundary).
func byScore(t *testing.T, score []float64, cuts ...int) []int {
	t.Helper()
	order := make([]int, len(score))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	for _, c := range cuts {
		if score[order[c-1]]-score[order[c]] < 1e-9 {
			t.Fatalf("tie at cut %d: %v", c, score)
		}
	}
	return order
}

func TestShiftStructureByPageRank(t *testing.T) {
	// one class, so that no inductive split lacks a training class
	g := shiftGraph(t, make([]int, len(shiftLabels)), 1)
	uniform := make([]float64, g.N)
	for i := range uniform {
		uniform[i] = 0.1
	}
	// 10 nodes: parts 3, 1, 1 (ID), 1 (OOD val), 4 (OOD test)
	order := byScore(t, densePageRank(g.N, shiftEdges, 0.85, uniform), 5, 6)
	wantID := slices.Sorted(slices.Values(order[:5]))
	wantVal := order[5:6]
	wantTest := slices.Sorted(slices.Values(order[6:]))
	for _, inductive := range []bool{false, true} {
		for seed := uint64(1); seed <= 5; seed++ {
			sh, err := ShiftStructure(g, Popularity, PaperStructuralFractions, inductive, seed)
			if err != nil {
				t.Fatal(err)
			}
			s := sh.Split
			if err := s.Validate(g.N); err != nil {
				t.Fatal(err)
			}
			if len(s.Train) != 3 || len(s.Val) != 1 || len(s.Test) != 1 {
				t.Fatalf("ID parts %d/%d/%d, want 3/1/1", len(s.Train), len(s.Val), len(s.Test))
			}
			id := slices.Sorted(slices.Values(slices.Concat(s.Train, s.Val, s.Test)))
			if !slices.Equal(id, wantID) || !slices.Equal(sh.OODVal, wantVal) || !slices.Equal(sh.OODTest, wantTest) {
				t.Fatalf("ID %v OOD val %v OOD test %v, want %v %v %v", id, sh.OODVal, sh.OODTest, wantID, wantVal, wantTest)
			}
			if !slices.Equal(s.Unused, slices.Sorted(slices.Values(slices.Concat(wantVal, wantTest)))) {
				t.Fatalf("unused %v", s.Unused)
			}
			if !slices.Equal(sh.IDTest, s.Test) || len(sh.Views) != 1 || sh.Views[0].Graph() != g ||
				!slices.Equal(sh.Views[0].ID, s.Test) || !slices.Equal(sh.Views[0].OOD, wantTest) {
				t.Fatalf("views %+v", sh.Views)
			}
			if !inductive {
				if sh.Train != g || sh.Setting != "pagerank" {
					t.Fatalf("transductive training graph changed or named %q", sh.Setting)
				}
				continue
			}
			if sh.Setting != "pagerank_inductive" {
				t.Fatalf("named %q", sh.Setting)
			}
			// edge by edge: an edge remains iff neither end is OOD
			ood := Mask(g.N, slices.Concat(wantVal, wantTest))
			full, train := g.Adj.ToDense(), sh.Train.Adj.ToDense()
			for i := 0; i < g.N; i++ {
				for j := 0; j < g.N; j++ {
					want := full.At(i, j)
					if ood[i] || ood[j] {
						want = 0
					}
					if train.At(i, j) != want {
						t.Fatalf("training edge (%d, %d) = %v, want %v", i, j, train.At(i, j), want)
					}
				}
				wantY := g.Labels[i]
				if ood[i] {
					wantY = -1
				}
				if sh.Train.Labels[i] != wantY {
					t.Fatalf("training label of %d = %d, want %d", i, sh.Train.Labels[i], wantY)
				}
			}
			if g.Labels[wantTest[0]] < 0 {
				t.Fatal("original labels changed")
			}
		}
	}
}

func TestShiftStructureByLocalityDensityHomophily(t *testing.T) {
	g := shiftGraph(t, shiftLabels, 2)
	for _, k := range []Structural{Locality, Density, Homophily} {
		score, err := k.Score(g)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := ShiftStructure(g, k, PaperStructuralFractions, false, 11)
		if err != nil {
			t.Fatal(err)
		}
		// every ID node scores at least every OOD node, and every OOD
		// validation node at least every OOD test node
		id := slices.Concat(sh.Split.Train, sh.Split.Val, sh.Split.Test)
		for _, pair := range [][2][]int{{id, slices.Concat(sh.OODVal, sh.OODTest)}, {sh.OODVal, sh.OODTest}} {
			for _, i := range pair[0] {
				for _, j := range pair[1] {
					if score[i] < score[j] {
						t.Fatalf("%v: node %d (%v) before node %d (%v)", k, i, score[i], j, score[j])
					}
				}
			}
		}
		if len(id) != 5 || len(sh.OODVal) != 1 || len(sh.OODTest) != 4 || sh.Setting != k.String() {
			t.Fatalf("%v: sizes %d/%d/%d", k, len(id), len(sh.OODVal), len(sh.OODTest))
		}
	}
	// locality: with no tie at the cuts, the sets are exact
	ppr, _ := Locality.Score(g)
	order := byScore(t, ppr, 5, 6)
	sh, err := ShiftStructure(g, Locality, PaperStructuralFractions, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sh.OODTest, slices.Sorted(slices.Values(order[6:]))) || !slices.Equal(sh.OODVal, order[5:6]) {
		t.Fatalf("locality OOD %v %v, order %v", sh.OODVal, sh.OODTest, order)
	}
	// density: the four nodes with a triangle are ID, a fifth node of
	// clustering 0 joins them
	sh, err = ShiftStructure(g, Density, PaperStructuralFractions, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	id := Mask(g.N, slices.Concat(sh.Split.Train, sh.Split.Val, sh.Split.Test))
	for _, i := range []int{0, 1, 2, 8} {
		if !id[i] {
			t.Fatalf("density: node %d is not ID", i)
		}
	}
	// homophily: the two nodes of homophily 1/2 are the far end, in the
	// OOD test part
	sh, err = ShiftStructure(g, Homophily, PaperStructuralFractions, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sh.OODTest, 1) || !slices.Contains(sh.OODTest, 2) {
		t.Fatalf("homophily OOD test %v lacks nodes 1 and 2", sh.OODTest)
	}
}

func TestShiftStructureUnlabelledAndErrors(t *testing.T) {
	// an unlabelled node is in no part
	labels := slices.Clone(shiftLabels)
	labels[4] = -1
	g := shiftGraph(t, labels, 2)
	sh, err := ShiftStructure(g, Popularity, PaperStructuralFractions, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	// 9 labelled nodes: round(2.7) = 3, round(0.9) = 1 ×3, round(3.6) = 4
	all := slices.Concat(sh.Split.Train, sh.Split.Val, sh.Split.Test, sh.OODVal, sh.OODTest)
	if len(all) != 9 || slices.Contains(all, 4) {
		t.Fatalf("parts hold %v", all)
	}
	if !slices.Contains(sh.Split.Unused, 4) || sh.Train.Labels[4] != -1 {
		t.Fatal("unlabelled node 4 not unused")
	}

	g = shiftGraph(t, shiftLabels, 2)
	for _, tc := range []struct {
		fr   StructuralFractions
		want string
	}{
		{StructuralFractions{0.3, 0.1, 0.1, 0.1, 0.3}, "sum to 0.8999999999999999, want 1"},
		{StructuralFractions{-0.1, 0.2, 0.1, 0.4, 0.4}, "each must be finite and ≥ 0"},
		{StructuralFractions{0, 0.3, 0.3, 0, 0.4}, "leave no ID training node"},
		{StructuralFractions{0.5, 0.2, 0.2, 0.1, 0}, "leave no OOD test node"},
	} {
		_, err := ShiftStructure(g, Popularity, tc.fr, false, 1)
		assertErr(t, err, tc.want)
	}
	_, err = ShiftStructure(g, Structural(9), PaperStructuralFractions, false, 1)
	assertErr(t, err, "unknown structural shift Structural(9)")

	// class 2 lives only at the leaves 7 and 9, of lowest PageRank: OOD
	three := slices.Clone(shiftLabels)
	three[7], three[9] = 2, 2
	g3 := shiftGraph(t, three, 3)
	if _, err := ShiftStructure(g3, Popularity, PaperStructuralFractions, false, 1); err != nil {
		t.Fatalf("transductive: %v", err)
	}
	_, err = ShiftStructure(g3, Popularity, PaperStructuralFractions, true, 1)
	assertErr(t, err, "inductive pagerank split leaves class 2 (2 labelled nodes) without training nodes")
}

func TestShiftByScore(t *testing.T) {
	g := shiftGraph(t, shiftLabels, 2)
	// score i ↦ −|i − 4|: node 4 first, then 3 and 5 (tied), …, 1 and 7
	// (tied at −3), 0 and 8 (tied at −4), and 9 last
	score := make([]float64, g.N)
	for i := range score {
		score[i] = -math.Abs(float64(i - 4))
	}
	sh, err := ShiftByScore(g, "distance_to_4", score, PaperStructuralFractions, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	id := slices.Sorted(slices.Values(slices.Concat(sh.Split.Train, sh.Split.Val, sh.Split.Test)))
	// parts 3, 1, 1 | 1 | 4: ID {2..6}; the next is 1 or 7 (tied at −3),
	// the OOD test nodes the other of them and 0, 8, 9
	if !slices.Equal(id, []int{2, 3, 4, 5, 6}) || len(sh.OODVal) != 1 || (sh.OODVal[0] != 1 && sh.OODVal[0] != 7) {
		t.Fatalf("ID %v, OOD validation %v", id, sh.OODVal)
	}
	other := 8 - sh.OODVal[0]
	if want := slices.Sorted(slices.Values([]int{0, other, 8, 9})); !slices.Equal(sh.OODTest, want) {
		t.Fatalf("OOD test %v, want %v", sh.OODTest, want)
	}
	if sh.Setting != "distance_to_4_inductive" || sh.Train.Name != "shift, distance to 4 inductive" {
		t.Fatalf("setting %q, training graph %q", sh.Setting, sh.Train.Name)
	}
	// the same score as a Structural's gives ShiftStructure's split
	pr, err := PageRank(g, PageRankDamping)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ShiftByScore(g, "pagerank", pr, PaperStructuralFractions, false, 8)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ShiftStructure(g, Popularity, PaperStructuralFractions, false, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Split.Train, b.Split.Train) || !slices.Equal(a.OODTest, b.OODTest) || a.Setting != b.Setting {
		t.Fatalf("ShiftByScore %+v, ShiftStructure %+v", a.Split, b.Split)
	}

	_, err = ShiftByScore(g, "short", score[:9], PaperStructuralFractions, false, 1)
	assertErr(t, err, "graph.ShiftByScore: 9 scores for 10 nodes")
	score[6] = math.NaN()
	_, err = ShiftByScore(g, "nan", score, PaperStructuralFractions, false, 1)
	assertErr(t, err, "score of labelled node 6 is NaN")
	labels := slices.Clone(shiftLabels)
	labels[6] = -1
	if _, err := ShiftByScore(shiftGraph(t, labels, 2), "nan_unlabelled", score, PaperStructuralFractions, false, 1); err != nil {
		t.Fatalf("NaN at an unlabelled node: %v", err)
	}
}

func TestLeaveOutClassListAndRandom(t *testing.T) {
	// 8 nodes of 4 classes, two each; leave out classes 3 and 1
	labels := []int{0, 1, 2, 3, 0, 1, 2, 3}
	adj := undirected(t, 8, [2]int{0, 1})
	g, err := New("loc", adj, tensor.New(8, 1), labels, 4, []string{"a", "b", "c", "d"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := FixedSplit([]int{0, 1, 2, 3}, []int{4}, []int{5, 6, 7}, 8)
	if err != nil {
		t.Fatal(err)
	}
	l, err := LeaveOutClassList(g, s, []int{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	// renumbered: 0→0, 2→1, then left out 1→2, 3→3
	if !slices.Equal(l.Labels, []int{0, 2, 1, 3, 0, 2, 1, 3}) ||
		!slices.Equal(l.Graph.Labels, []int{0, -1, 1, -1, 0, -1, 1, -1}) ||
		l.Graph.NumClasses != 2 || !slices.Equal(l.Graph.ClassNames, []string{"a", "c"}) ||
		!slices.Equal(l.LeftOut, []int{1, 3}) {
		t.Fatalf("LOC %+v, graph labels %v names %v", l, l.Graph.Labels, l.Graph.ClassNames)
	}
	if !slices.Equal(l.Split.Train, []int{0, 2}) || !slices.Equal(l.Split.Val, []int{4}) ||
		!slices.Equal(l.IDTest, []int{6}) || !slices.Equal(l.OODTest, []int{5, 7}) {
		t.Fatalf("split %+v OOD %v", l.Split, l.OODTest)
	}
	if l.Graph.Adj != g.Adj || g.Labels[1] != 1 {
		t.Fatal("graph not shared or original changed")
	}
	// the last classes give LeaveOutClasses
	last, err := LeaveOutClassList(g, s, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := LeaveOutClasses(g, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(last.Labels, ref.Labels) || !slices.Equal(last.Graph.Labels, ref.Graph.Labels) || !slices.Equal(last.OODTest, ref.OODTest) {
		t.Fatal("LeaveOutClassList of the last classes differs from LeaveOutClasses")
	}
	for _, tc := range []struct {
		classes []int
		want    string
	}{
		{nil, "cannot leave out 0 of 4 classes"},
		{[]int{0, 1, 2, 3}, "cannot leave out 4 of 4"},
		{[]int{4}, "class 4 outside [0, 4)"},
		{[]int{1, 1}, "class 1 left out twice"},
	} {
		_, err := LeaveOutClassList(g, s, tc.classes)
		assertErr(t, err, tc.want)
	}
	// random classes: the last k of a Fisher–Yates shuffle of 0..C−1
	seen := map[[2]int]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		order := []int{0, 1, 2, 3}
		rng := rand.New(rand.NewPCG(seed, 0x6c6f63))
		for j := 3; j > 0; j-- {
			q := rng.IntN(j + 1)
			order[j], order[q] = order[q], order[j]
		}
		want := slices.Sorted(slices.Values(order[2:]))
		l, err := LeaveOutRandomClasses(g, s, 2, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.LeftOut, want) {
			t.Fatalf("seed %d: left out %v, want %v", seed, l.LeftOut, want)
		}
		seen[[2]int{want[0], want[1]}] = true
	}
	if len(seen) < 3 {
		t.Fatalf("20 seeds chose only %v", seen)
	}
	_, err = LeaveOutRandomClasses(g, s, 4, 1)
	assertErr(t, err, "cannot leave out 4 of 4 classes")
}

// ringGraph is featureGraph with a ring and random chords as edges.
func ringGraph(t *testing.T) (*Graph, Split) {
	g := featureGraph(t, []int{120, 100, 80}, 10, 30)
	rng := rand.New(rand.NewPCG(5, 5))
	var edges [][2]int
	for i := 0; i < g.N; i++ {
		edges = append(edges, [2]int{i, (i + 1) % g.N}, [2]int{i, rng.IntN(g.N)})
	}
	g.Adj = RemoveSelfLoops(undirected(t, g.N, edges...))
	s, err := g.Split(SplitSpec{})
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

func TestSettingsRegistry(t *testing.T) {
	g, s := ringGraph(t)
	name := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen, titles := map[string]bool{}, map[string]bool{}
	for _, st := range Settings() {
		if !name.MatchString(st.Name) || seen[st.Name] || st.Doc == "" {
			t.Fatalf("setting %q: bad, repeated or undocumented name", st.Name)
		}
		if st.Title == "" || titles[st.Title] {
			t.Errorf("setting %q: empty or repeated title %q", st.Name, st.Title)
		}
		seen[st.Name], titles[st.Title] = true, true
		got, err := LookupSetting(st.Name)
		if err != nil || got.Name != st.Name {
			t.Fatalf("LookupSetting(%q): %v", st.Name, err)
		}
		sh, err := st.Apply(g, s, ShiftOptions{Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if sh.Setting != st.Name {
			t.Fatalf("%s: built %q", st.Name, sh.Setting)
		}
		if err := sh.Split.Validate(g.N); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if err := sh.Train.Validate(); err != nil || sh.Train.N != g.N {
			t.Fatalf("%s: training graph: %v", st.Name, err)
		}
		if len(sh.OODTest) == 0 || len(sh.IDTest) == 0 || len(sh.Labels) != g.N {
			t.Fatalf("%s: %d ID and %d OOD test nodes", st.Name, len(sh.IDTest), len(sh.OODTest))
		}
		var id, ood []int
		for _, v := range sh.Views {
			vg := v.Graph()
			if err := vg.Validate(); err != nil || vg.N != g.N {
				t.Fatalf("%s: view graph: %v", st.Name, err)
			}
			id, ood = append(id, v.ID...), append(ood, v.OOD...)
		}
		if !slices.Equal(slices.Sorted(slices.Values(id)), sh.IDTest) || !slices.Equal(slices.Sorted(slices.Values(ood)), sh.OODTest) {
			t.Fatalf("%s: the views' nodes are not IDTest and OODTest", st.Name)
		}
		// An evasion setting trains on the dataset's graph and split; a
		// poisoning one changes one of them.
		same := sh.Train == g && slices.Equal(sh.Split.Train, s.Train) && slices.Equal(sh.Split.Val, s.Val)
		if same == st.Poisoning {
			t.Fatalf("%s: poisoning %v, but trains on the dataset's graph and split: %v", st.Name, st.Poisoning, same)
		}
		train := Mask(g.N, sh.Split.Train)
		for _, i := range sh.OODTest {
			if train[i] {
				t.Fatalf("%s: OOD node %d trained on", st.Name, i)
			}
		}
	}
	// The GPN code's perturbations, leave-out classes and the structural
	// shifts are all registered; every feature perturbation also isolated
	// and every structural shift also inductive, including any added later.
	for _, base := range []string{"gaussian", "bernoulli", "bernoulli_0_05", "bernoulli_0_95", "bernoulli_most_common",
		"bernoulli_least_common", "uniform", "dense", "not_normalized", "scaled", "reference"} {
		if !seen[base] {
			t.Errorf("feature perturbation %q is not registered", base)
		}
	}
	for _, st := range namedFeatureShifts() {
		if !strings.HasSuffix(st.Name, "_isolated") && !seen[st.Name+"_isolated"] {
			t.Errorf("feature perturbation %q has no isolated variant", st.Name)
		}
	}
	for _, name := range []string{"loc", "loc_random", "pagerank", "ppr_locality", "clustering", "homophily_shift"} {
		if !seen[name] {
			t.Errorf("setting %q is not registered", name)
		}
	}
	for _, st := range structuralSettings() {
		if !strings.HasSuffix(st.Name, "_inductive") && !seen[st.Name+"_inductive"] {
			t.Errorf("structural shift %q has no inductive variant", st.Name)
		}
	}
	_, err := LookupSetting("nope")
	assertErr(t, err, `graph: unknown setting "nope" (want one of gaussian, bernoulli,`)
}
