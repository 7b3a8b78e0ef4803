package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// twoClassGraph returns the 6-node graph with class 0 = {0, 1, 2} (a
// triangle), class 1 = {3, 4, 5} (the path 3–4–5) and the bridge 2–3:
// |E| = 6, of which 5 intra-class edges; of the 15 node pairs 9 are not
// adjacent, 8 of them between the classes. Test nodes are 2, 4 and 5.
func twoClassGraph(t testing.TB) (*Graph, Split) {
	t.Helper()
	g, err := NewBuilder(2).Nodes(3, 0, 1).Nodes(3, 1, 1).
		Chain(0, 1, 2, 0).Chain(3, 4, 5).Edge(2, 3).Done()
	if err != nil {
		t.Fatal(err)
	}
	return g, Split{Train: []int{0, 3}, Val: []int{1}, Test: []int{2, 4, 5}}
}

// labelledRandomGraph returns randomGraph(n, edges, seed) with random
// labels in the given number of classes.
func labelledRandomGraph(t testing.TB, n, edges, classes int, seed uint64) *Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(classes)
	}
	g, err := New("random", randomGraph(t, n, edges, seed), tensor.New(n, 1), labels, classes, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// edgeSet returns the undirected edges {i, j}, i < j, of a dense symmetric
// adjacency, and fails on an asymmetric entry or a self loop.
func edgeSet(t *testing.T, adj *tensor.CSR) map[[2]int]bool {
	t.Helper()
	assertWellFormed(t, "adjacency", adj)
	d := adj.ToDense()
	set := map[[2]int]bool{}
	for i := 0; i < d.Rows; i++ {
		if d.At(i, i) != 0 {
			t.Fatalf("self loop on node %d", i)
		}
		for j := 0; j < d.Cols; j++ {
			if d.At(i, j) != d.At(j, i) {
				t.Fatalf("asymmetric: A[%d,%d] = %v, A[%d,%d] = %v", i, j, d.At(i, j), j, i, d.At(j, i))
			}
			if i < j && d.At(i, j) != 0 {
				set[[2]int{i, j}] = true
			}
		}
	}
	return set
}

// checkStructure checks p against g: the new edge set is the old one with
// p.Removed deleted and p.Added inserted, each edge changed once, DICE's
// deletions intra-class and insertions inter-class, and the ID/OOD test
// nodes exactly the test nodes whose adjacency row changed.
func checkStructure(t *testing.T, g *Graph, s Split, p *Perturbed) {
	t.Helper()
	if err := p.Graph.Validate(); err != nil {
		t.Fatal(err)
	}
	before, after := edgeSet(t, g.Adj), edgeSet(t, p.Graph.Adj)
	want := map[[2]int]bool{}
	for e := range before {
		want[e] = true
	}
	for _, e := range p.Removed {
		if !want[e] {
			t.Fatalf("removed %v, which is not an edge (or removed twice)", e)
		}
		if p.Structure == DICE && g.Labels[e[0]] != g.Labels[e[1]] {
			t.Fatalf("DICE removed %v between classes %d and %d", e, g.Labels[e[0]], g.Labels[e[1]])
		}
		delete(want, e)
	}
	for _, e := range p.Added {
		if e[0] >= e[1] || before[e] || want[e] {
			t.Fatalf("added %v: a self loop, an unordered pair, an existing edge or a repeat", e)
		}
		if p.Structure == DICE && (g.Labels[e[0]] == g.Labels[e[1]] || g.Labels[e[0]] < 0 || g.Labels[e[1]] < 0) {
			t.Fatalf("DICE added %v within class %d", e, g.Labels[e[0]])
		}
		want[e] = true
	}
	if len(after) != len(want) {
		t.Fatalf("%d edges after, want %d", len(after), len(want))
	}
	for e := range want {
		if !after[e] {
			t.Fatalf("edge %v missing", e)
		}
	}
	// Independent of Added and Removed: a node is perturbed iff its row
	// of the adjacency changed.
	old, cur := g.Adj.ToDense(), p.Graph.Adj.ToDense()
	var wantID, wantOOD []int
	for _, i := range s.Test {
		if slices.Equal(old.Row(i), cur.Row(i)) {
			wantID = append(wantID, i)
		} else {
			wantOOD = append(wantOOD, i)
		}
	}
	if !slices.Equal(p.IDTest, wantID) || !slices.Equal(p.OODTest, wantOOD) {
		t.Fatalf("ID %v OOD %v, want %v and %v", p.IDTest, p.OODTest, wantID, wantOOD)
	}
	if p.Graph.Features != g.Features || !slices.Equal(p.Graph.Labels, g.Labels) {
		t.Fatal("features or labels changed")
	}
}

func TestPerturbStructureSmallGraph(t *testing.T) {
	g, s := twoClassGraph(t)
	for _, c := range []struct {
		kind     Structure
		fraction float64
		want     int // ⌊fraction·6⌋
	}{
		{RandomEdges, 0.5, 3}, {RandomEdges, 1, 6}, {RandomEdges, 0.49, 2},
		{DICE, 0.5, 3}, {DICE, 1, 6}, {DICE, 0.99, 5},
	} {
		for seed := range uint64(20) {
			p, err := PerturbStructure(g, s, c.kind, c.fraction, seed)
			if err != nil {
				t.Fatal(err)
			}
			checkStructure(t, g, s, p)
			if n := len(p.Added) + len(p.Removed); n != c.want {
				t.Fatalf("%v at %v: %d edges changed, want %d", c.kind, c.fraction, n, c.want)
			}
			if c.kind == RandomEdges && len(p.Removed) != 0 {
				t.Fatalf("random edges removed %v", p.Removed)
			}
			if p.Structure != c.kind || p.Budget != c.fraction {
				t.Fatalf("Structure %v Budget %v", p.Structure, p.Budget)
			}
		}
	}
	// DICE at fraction 1 on 5 intra-class edges and 8 free inter-class
	// pairs: all 6 steps can be deletions or insertions.
	p, err := PerturbStructure(g, s, DICE, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Removed) > 5 {
		t.Errorf("%d deletions of 5 intra-class edges", len(p.Removed))
	}
}

func TestPerturbStructureFractionZero(t *testing.T) {
	g, s := twoClassGraph(t)
	// The edge 0–1 gets weight 2 in both directions: kept edges keep it.
	for i := range 2 {
		for k := g.Adj.Ptr[i]; k < g.Adj.Ptr[i+1]; k++ {
			if g.Adj.Ind[k] == 1-i {
				g.Adj.Val[k] = 2
			}
		}
	}
	for _, kind := range AllStructures {
		p, err := PerturbStructure(g, s, kind, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		a := p.Graph.Adj
		if !slices.Equal(a.Ptr, g.Adj.Ptr) || !slices.Equal(a.Ind, g.Adj.Ind) || !slices.Equal(a.Val, g.Adj.Val) {
			t.Errorf("%v at fraction 0 changed the adjacency", kind)
		}
		if len(p.Nodes) != 0 || len(p.OODTest) != 0 || !slices.Equal(p.IDTest, s.Test) {
			t.Errorf("%v at fraction 0: nodes %v, OOD %v, ID %v", kind, p.Nodes, p.OODTest, p.IDTest)
		}
	}
	p, err := PerturbStructure(g, s, DICE, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	removed := map[[2]int]bool{}
	for _, e := range p.Removed {
		removed[e] = true
	}
	if want := map[bool]float64{true: 0, false: 2}[removed[[2]int{0, 1}]]; p.Graph.Adj.ToDense().At(0, 1) != want {
		t.Errorf("weight of 0–1 is %v, want %v", p.Graph.Adj.ToDense().At(0, 1), want)
	}
	for _, e := range p.Added {
		if p.Graph.Adj.ToDense().At(e[0], e[1]) != 1 {
			t.Errorf("inserted edge %v has weight %v", e, p.Graph.Adj.ToDense().At(e[0], e[1]))
		}
	}
}

// Every admissible change is equally likely: one insertion among the 9
// free pairs; for DICE, half the time one of the 5 intra-class edges is
// deleted and half the time one of the 8 free inter-class pairs inserted.
func TestPerturbStructureUniform(t *testing.T) {
	g, s := twoClassGraph(t)
	const runs = 8000
	for _, c := range []struct {
		kind  Structure
		probs map[bool]float64 // per removed / added edge
		kinds map[bool]int     // number of candidate edges
	}{
		{RandomEdges, map[bool]float64{false: 1.0 / 9}, map[bool]int{false: 9}},
		{DICE, map[bool]float64{true: 1.0 / 10, false: 1.0 / 16}, map[bool]int{true: 5, false: 8}},
	} {
		counts := map[[2]int]int{}
		removed := map[[2]int]bool{}
		for seed := range uint64(runs) {
			p, err := PerturbStructure(g, s, c.kind, 0.2, seed) // ⌊1.2⌋ = 1 edge
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Added {
				counts[e]++
			}
			for _, e := range p.Removed {
				counts[e]++
				removed[e] = true
			}
		}
		seen := map[bool]int{}
		for e, n := range counts {
			pr := c.probs[removed[e]]
			// Binomial(runs, pr): 5 standard deviations.
			if sd := math.Sqrt(runs * pr * (1 - pr)); math.Abs(float64(n)-runs*pr) > 5*sd {
				t.Errorf("%v: edge %v changed %d times in %d runs, want ≈ %.0f", c.kind, e, n, runs, runs*pr)
			}
			seen[removed[e]]++
		}
		if seen[true] != c.kinds[true] || seen[false] != c.kinds[false] {
			t.Errorf("%v: %d edges removed and %d added over all runs, want %d and %d", c.kind, seen[true], seen[false], c.kinds[true], c.kinds[false])
		}
	}
}

func TestPerturbStructureRandomGraph(t *testing.T) {
	g := labelledRandomGraph(t, 500, 1500, 4, 7)
	s, err := g.Split(SplitSpec{})
	if err != nil {
		t.Fatal(err)
	}
	edges := g.NumEdges() / 2
	for _, kind := range AllStructures {
		p, err := PerturbStructure(g, s, kind, 0.3, 42)
		if err != nil {
			t.Fatal(err)
		}
		checkStructure(t, g, s, p)
		m := int(0.3 * float64(edges))
		if len(p.Added)+len(p.Removed) != m {
			t.Fatalf("%v: %d changes, want %d", kind, len(p.Added)+len(p.Removed), m)
		}
		if kind == DICE {
			// A fair coin per step: Binomial(m, 1/2) deletions, 5 sd.
			if sd := math.Sqrt(float64(m)) / 2; math.Abs(float64(len(p.Removed))-float64(m)/2) > 5*sd {
				t.Errorf("DICE: %d deletions in %d steps", len(p.Removed), m)
			}
		}
		again, _ := PerturbStructure(g, s, kind, 0.3, 42)
		if !slices.Equal(again.Added, p.Added) || !slices.Equal(again.Removed, p.Removed) ||
			!slices.Equal(again.Graph.Adj.Ind, p.Graph.Adj.Ind) || !slices.Equal(again.Graph.Adj.Val, p.Graph.Adj.Val) {
			t.Errorf("%v: the same seed gives different graphs", kind)
		}
		other, _ := PerturbStructure(g, s, kind, 0.3, 43)
		if slices.Equal(other.Added, p.Added) && slices.Equal(other.Removed, p.Removed) {
			t.Errorf("%v: seeds 42 and 43 give the same perturbation", kind)
		}
	}
}

// DICE takes the other kind of step when one runs out, and uses every
// candidate at the largest fraction possible.
func TestDICEExhaustsCandidates(t *testing.T) {
	// Class 0 = {0, 1}, class 1 = {2}; edges 0–1 (intra), 0–2 (inter); the
	// only free inter pair is 1–2. |E| = 2, and 2 steps use both
	// candidates, whatever the coin says.
	g, err := NewBuilder(2).Nodes(2, 0, 1).Node(1, 1).Edge(0, 1).Edge(0, 2).Done()
	if err != nil {
		t.Fatal(err)
	}
	s := Split{Test: []int{0, 1, 2}}
	for seed := range uint64(10) {
		p, err := PerturbStructure(g, s, DICE, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		checkStructure(t, g, s, p)
		if !slices.Equal(p.Removed, [][2]int{{0, 1}}) || !slices.Equal(p.Added, [][2]int{{1, 2}}) {
			t.Fatalf("seed %d: removed %v added %v, want [[0 1]] and [[1 2]]", seed, p.Removed, p.Added)
		}
		if !slices.Equal(p.Nodes, []int{0, 1, 2}) || len(p.IDTest) != 0 {
			t.Fatalf("nodes %v, ID test %v", p.Nodes, p.IDTest)
		}
	}
	// Node 3 is unlabelled: its edges are never deleted and it gets none.
	h, err := NewBuilder(2).Node(0, 1).Node(1, 1).Node(0, 1).Node(-1, 1).Edge(0, 3).Edge(1, 3).Edge(2, 3).Edge(0, 1).Done()
	if err != nil {
		t.Fatal(err)
	}
	// No intra-class edge; the free inter-class pair is 1–2; |E| = 4.
	p, err := PerturbStructure(h, Split{Test: []int{0, 1, 2, 3}}, DICE, 0.25, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Removed) != 0 || !slices.Equal(p.Added, [][2]int{{1, 2}}) || !slices.Equal(p.OODTest, []int{1, 2}) {
		t.Errorf("removed %v added %v OOD %v, want none, [[1 2]], [1 2]", p.Removed, p.Added, p.OODTest)
	}
	_, err = PerturbStructure(h, Split{Test: []int{0, 1, 2, 3}}, DICE, 0.5, 5)
	assertErr(t, err, "DICE cannot perturb 2 edges: 0 edges join nodes of one class and 1 pairs of nodes of different classes are not adjacent")
}

func TestPerturbStructureErrors(t *testing.T) {
	g, s := twoClassGraph(t)
	for _, f := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		_, err := PerturbStructure(g, s, DICE, f, 1)
		assertErr(t, err, "outside [0, 1]")
	}
	_, err := PerturbStructure(g, s, Structure(0), 0.1, 1)
	assertErr(t, err, "graph.PerturbStructure: unknown structure perturbation none (want random_edges or dice)")
	_, err = PerturbStructure(g, s, Structure(7), 0.1, 1)
	assertErr(t, err, "unknown structure perturbation Structure(7)")
	_, err = PerturbStructure(g, Split{}, DICE, 0.1, 1)
	assertErr(t, err, "the sets hold 0 of 6 nodes")
	_, err = PerturbStructure(nil, s, DICE, 0.1, 1)
	assertErr(t, err, "nil graph")

	empty, err := NewBuilder(2).Nodes(3, 0, 1).Done()
	if err != nil {
		t.Fatal(err)
	}
	_, err = PerturbStructure(empty, Split{Test: []int{0, 1, 2}}, RandomEdges, 0.5, 1)
	assertErr(t, err, `graph "built" has no edges to perturb`)
	none, err := New("none", &tensor.CSR{Ptr: []int{0}}, tensor.New(0, 1), nil, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = PerturbStructure(none, Split{}, DICE, 0.5, 1)
	assertErr(t, err, `graph "none" has no edges to perturb`)

	directed := *g
	directed.Adj = csr(t, 6, 6, [3]float64{0, 1, 1}, [3]float64{1, 0, 1}, [3]float64{4, 2, 1})
	_, err = PerturbStructure(&directed, s, RandomEdges, 0.5, 1)
	assertErr(t, err, "adjacency is not symmetric: entry (4, 2) has no (2, 4)")

	complete, err := NewBuilder(1).Nodes(4, 0, 1).Chain(0, 1, 2, 3, 0, 2).Edge(1, 3).Done()
	if err != nil {
		t.Fatal(err)
	}
	all := Split{Test: []int{0, 1, 2, 3}}
	_, err = PerturbStructure(complete, all, RandomEdges, 0.5, 1)
	assertErr(t, err, "cannot insert 3 edges: only 0 node pairs are not adjacent")
	if _, err := PerturbStructure(complete, all, RandomEdges, 0, 1); err != nil {
		t.Errorf("inserting nothing into a complete graph: %v", err)
	}
	unlabelled := complete.Clone()
	for i := range unlabelled.Labels {
		unlabelled.Labels[i] = -1
	}
	_, err = PerturbStructure(unlabelled, all, DICE, 0.5, 1)
	assertErr(t, err, "DICE has nothing to perturb")
	_, err = PerturbStructure(g, s, DICE, 1, 1)
	if err != nil {
		t.Errorf("DICE at fraction 1 with 13 candidates for 6 steps: %v", err)
	}

	if RandomEdges.String() != "random_edges" || DICE.String() != "dice" || Structure(0).String() != "none" || Structure(-1).String() != "Structure(-1)" {
		t.Error("Structure.String")
	}
}

// BenchmarkPerturbStructure perturbs 10% of the edges of a CoraML-sized
// random graph (2995 nodes, about 8200 edges, 7 classes).
func BenchmarkPerturbStructure(b *testing.B) {
	g := labelledRandomGraph(b, 2995, 8200, 7, 1)
	s, err := g.Split(SplitSpec{})
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range AllStructures {
		b.Run(kind.String(), func(b *testing.B) {
			for seed := range uint64(b.N) {
				if _, err := PerturbStructure(g, s, kind, 0.1, seed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
