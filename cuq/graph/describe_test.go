package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// TestDescribeHandWorked checks every field of the summary of a six-node
// graph against values worked out by hand:
//
//	0(a) ─ 1(a)      edges 0–1, 0–2, 1–2, 2–3, 3–4; node 5 (a) isolated,
//	  \   /          node 4 unlabelled.
//	   2(b) ─ 3(b) ─ 4(?)
func TestDescribeHandWorked(t *testing.T) {
	g, err := NewBuilder(2).Name("toy").ClassNames("a", "b").
		Node(0, 1, 0, 0, 0).Node(0, 1, 1, 0, 0).Node(1, 0, 0, 0, 0).
		Node(1, 1, 1, 1, 1).Node(-1, 0, 0, 2, 0).Node(0, 0, 0, 0, 1).
		Chain(0, 1, 2, 3, 4).Edge(0, 2).Edge(1, 0). // 1–0 repeats 0–1
		Done()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Describe(g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "toy" || s.Nodes != 6 || s.Edges != 5 || s.Features != 4 || s.Classes != 2 {
		t.Errorf("nodes, edges, features, classes = %d, %d, %d, %d, want 6, 5, 4, 2", s.Nodes, s.Edges, s.Features, s.Classes)
	}
	if !slices.Equal(s.ClassNames, []string{"a", "b"}) || !slices.Equal(s.ClassCounts, []int{3, 2}) || s.Unlabelled != 1 {
		t.Errorf("classes %v %v, %d unlabelled; want [a b] [3 2], 1", s.ClassNames, s.ClassCounts, s.Unlabelled)
	}
	if !slices.Equal(s.Degrees, []int{2, 2, 3, 2, 1, 0}) || s.Isolated != 1 || math.Abs(s.MeanDegree-10.0/6) > 1e-15 {
		t.Errorf("degrees %v, %d isolated, mean %v; want [2 2 3 2 1 0], 1, 10/6", s.Degrees, s.Isolated, s.MeanDegree)
	}
	// Edges between labelled nodes: 0–1 and 2–3 agree, 0–2 and 1–2 do
	// not; 3–4 has an unlabelled end.
	if s.EdgeHomophily != 0.5 {
		t.Errorf("edge homophily %v, want 2/4", s.EdgeHomophily)
	}
	nan := math.NaN()
	wantH := []float64{0.5, 0.5, 1.0 / 3, 1, nan, nan}
	if !slices.EqualFunc(s.NodeHomophily, wantH, func(a, b float64) bool {
		return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-15
	}) {
		t.Errorf("node homophily %v, want %v", s.NodeHomophily, wantH)
	}
	if !slices.Equal(s.FeatureDensity, []float64{0.25, 0.5, 0, 1, 0.25, 0.25}) || s.Density != 9.0/24 {
		t.Errorf("feature density %v, overall %v; want [0.25 0.5 0 1 0.25 0.25], 9/24", s.FeatureDensity, s.Density)
	}
	want := "toy: 6 nodes (1 unlabelled), 5 undirected edges (mean degree 1.67, 1 isolated nodes), 2 classes, 4 features (density 0.375); edge homophily 0.500"
	if s.String() != want {
		t.Errorf("String\n got %s\nwant %s", s, want)
	}
}

// TestDescribeEdgeHomophilyIsWeightedNodeHomophily checks on a graph with
// unlabelled nodes the identity of Summary's documentation: edge
// homophily is the mean of the node homophilies weighted by the number of
// labelled neighbours.
func TestDescribeEdgeHomophilyIsWeightedNodeHomophily(t *testing.T) {
	b := NewBuilder(3)
	labels := []int{0, 1, 2, -1, 0, 0, 1, 2, 2, -1, 1, 0}
	for _, y := range labels {
		b.Node(y, 1)
	}
	g, err := b.Chain(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).Star(4, 0, 8, 10).Edge(5, 11).Done()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Describe(g)
	if err != nil {
		t.Fatal(err)
	}
	nbrs := neighbourSets(g)
	var num, den float64
	for i, h := range s.NodeHomophily {
		if math.IsNaN(h) {
			continue
		}
		w := 0.0
		for _, j := range nbrs[i] {
			if labels[j] >= 0 {
				w++
			}
		}
		num += w * h
		den += w
	}
	if math.Abs(s.EdgeHomophily-num/den) > 1e-12 {
		t.Errorf("edge homophily %v, weighted node homophily %v", s.EdgeHomophily, num/den)
	}
}

// TestDescribeSparseSelfLoopsUnnamed checks a graph assembled with New: a
// self loop counts neither as a neighbour nor as an edge, a stored zero
// of sparse features is not a non-zero, classes without names are named
// by their index, and a graph without labelled edges has NaN edge
// homophily.
func TestDescribeSparseSelfLoopsUnnamed(t *testing.T) {
	adj := csr(t, 3, 3, [3]float64{0, 0, 1}, [3]float64{0, 1, 1}, [3]float64{1, 0, 1})
	x := csr(t, 3, 5, [3]float64{0, 1, 2}, [3]float64{0, 3, 0}, [3]float64{2, 4, 1})
	g, err := New("sparse", adj, x, []int{0, -1, 1}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Describe(g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Degrees, []int{1, 1, 0}) || s.Edges != 1 || s.Isolated != 1 {
		t.Errorf("degrees %v, %d edges, %d isolated; want [1 1 0], 1, 1", s.Degrees, s.Edges, s.Isolated)
	}
	if !slices.Equal(s.ClassNames, []string{"0", "1"}) {
		t.Errorf("class names %q, want [0 1]", s.ClassNames)
	}
	if !slices.Equal(s.FeatureDensity, []float64{0.2, 0, 0.2}) || math.Abs(s.Density-2.0/15) > 1e-15 {
		t.Errorf("feature density %v, overall %v; want [0.2 0 0.2], 2/15", s.FeatureDensity, s.Density)
	}
	if !math.IsNaN(s.EdgeHomophily) {
		t.Errorf("edge homophily %v without an edge between labelled nodes, want NaN", s.EdgeHomophily)
	}
}

func TestDescribeErrors(t *testing.T) {
	if _, err := Describe(nil); err == nil || err.Error() != "graph.Describe: graph: nil graph" {
		t.Errorf("nil graph: %v", err)
	}
	g := &Graph{Name: "bad", N: 2, Adj: &tensor.CSR{Rows: 2, Cols: 2, Ptr: []int{0, 0, 0}}, Features: tensor.New(2, 1),
		Labels: []int{0, 3}, NumClasses: 2}
	if _, err := Describe(g); err == nil || !strings.Contains(err.Error(), "label 3 of node 1 out of range") {
		t.Errorf("label out of range: %v", err)
	}
}

// TestLocalHomophilyMatchesEval compares Describe's node homophily with
// eval.LocalHomophily on a random graph with unlabelled nodes, repeated
// edges and nodes without neighbours.
func TestLocalHomophilyMatchesEval(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const n, classes = 60, 3
	b := NewBuilder(classes).Name("random")
	for range n {
		b.Node(r.IntN(classes+1)-1, 0)
	}
	for range 150 {
		if i, j := r.IntN(n), r.IntN(n); i != j {
			b.Edge(i, j)
		}
	}
	g, err := b.Done()
	if err != nil {
		t.Fatal(err)
	}
	u := ToUndirected(g.Adj)
	want, err := eval.LocalHomophily(u.Ptr, u.Ind, g.Labels, g.NumClasses)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Describe(g)
	if err != nil {
		t.Fatal(err)
	}
	got := sum.NodeHomophily
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("node %d: h = %v, eval.LocalHomophily %v", i, got[i], want[i])
		}
	}
}
