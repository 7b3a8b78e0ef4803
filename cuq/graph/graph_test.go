package graph

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func pathGraph(t *testing.T) *Graph {
	t.Helper()
	adj := undirected(t, 3, [2]int{0, 1}, [2]int{1, 2})
	x := tensor.MustFromSlice(3, 2, []float64{1, 0, 0, 1, 1, 1})
	g, err := New("path", adj, x, []int{0, -1, 1}, 2, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestNewAndAccessors(t *testing.T) {
	g := pathGraph(t)
	if g.N != 3 || g.NumFeatures() != 2 || g.NumEdges() != 4 {
		t.Errorf("N, F, edges = %d, %d, %d; want 3, 2, 4", g.N, g.NumFeatures(), g.NumEdges())
	}
	deg := g.Degrees()
	if deg[0] != 1 || deg[1] != 2 || deg[2] != 1 {
		t.Errorf("Degrees = %v, want [1 2 1]", deg)
	}
	cc := g.ClassCounts(nil)
	if cc[0] != 1 || cc[1] != 1 {
		t.Errorf("ClassCounts = %v, want [1 1]", cc)
	}
	if cc := g.ClassCounts([]int{1, 2}); cc[0] != 0 || cc[1] != 1 {
		t.Errorf("ClassCounts(1,2) = %v, want [0 1]", cc)
	}
}

func TestClone(t *testing.T) {
	g := pathGraph(t)
	c := g.Clone()
	c.Adj.Val[0] = 9
	c.Features.(*tensor.Dense).Data[0] = 9
	c.Labels[0] = 1
	c.ClassNames[0] = "z"
	if g.Adj.Val[0] != 1 || g.Features.(*tensor.Dense).Data[0] != 1 || g.Labels[0] != 0 || g.ClassNames[0] != "a" {
		t.Error("Clone shares storage with the original")
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestNewErrors(t *testing.T) {
	adj := undirected(t, 3, [2]int{0, 1})
	x := tensor.New(3, 2)
	labels := []int{0, 1, -1}
	nanX := tensor.New(3, 2)
	nanX.Data[3] = math.NaN()
	infS := tensor.DenseToCSR(tensor.MustFromSlice(3, 1, []float64{1, math.Inf(-1), 0}))
	badPtr := &tensor.CSR{Rows: 3, Cols: 3, Ptr: []int{0, 1}, Ind: []int{0}, Val: []float64{1}}
	unsorted := &tensor.CSR{Rows: 3, Cols: 3, Ptr: []int{0, 2, 2, 2}, Ind: []int{2, 1}, Val: []float64{1, 1}}
	nanAdj := adj.Clone()
	nanAdj.Val[0] = math.NaN()
	shortDense := &tensor.Dense{Rows: 3, Cols: 2, Data: make([]float64, 5)}
	for _, tc := range []struct {
		name    string
		adj     *tensor.CSR
		x       tensor.Matrix
		labels  []int
		classes int
		names   []string
		want    string
	}{
		{"nil adjacency", nil, x, labels, 2, nil, "nil adjacency"},
		{"non-square", csr(t, 3, 4), x, labels, 2, nil, "adjacency is 3x4, want 3x3"},
		{"bad pointer", badPtr, x, labels, 2, nil, "row pointer has 2 entries"},
		{"unsorted", unsorted, x, labels, 2, nil, "not strictly increasing"},
		{"nan edge", nanAdj, x, labels, 2, nil, "NaN or Inf edge weights"},
		{"nil features", adj, nil, labels, 2, nil, "nil features"},
		{"feature rows", adj, tensor.New(2, 2), labels, 2, nil, "features have 2 rows for 3 nodes"},
		{"short data", adj, shortDense, labels, 2, nil, "hold 5 values"},
		{"nan feature", adj, nanX, labels, 2, nil, "NaN or Inf"},
		{"inf sparse feature", adj, infS, labels, 2, nil, "NaN or Inf"},
		{"foreign matrix", adj, foreign{}, labels, 2, nil, "want *tensor.Dense or *tensor.CSR"},
		{"label count", adj, x, []int{0, 1}, 2, nil, "2 labels for 3 nodes"},
		{"label range", adj, x, []int{0, 2, -1}, 2, nil, "label 2 of node 1 out of range [-1, 2)"},
		{"label below -1", adj, x, []int{0, -2, -1}, 2, nil, "label -2 of node 1"},
		{"no classes", adj, x, []int{-1, -1, -1}, 0, nil, "0 classes"},
		{"class names", adj, x, labels, 2, []string{"a"}, "1 class names for 2 classes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New("g", tc.adj, tc.x, tc.labels, tc.classes, tc.names)
			assertErr(t, err, tc.want)
		})
	}
	var nilGraph *Graph
	assertErr(t, nilGraph.Validate(), "nil graph")
}

// foreign is a Matrix implementation the graph does not know.
type foreign struct{}

func (foreign) Dims() (int, int)                              { return 3, 2 }
func (foreign) MulTo(dst, b *tensor.Dense)                    {}
func (foreign) TMulTo(dst, b *tensor.Dense)                   {}
func (foreign) MulAddRowTo(dst, b *tensor.Dense, r []float64) {}

// TestNewRefusesDirected builds a path 0→1→2 stored one way only: New
// names the first entry without its mirror, CheckUndirected agrees on a
// Graph assembled by hand, and the ToUndirected adjacency is accepted.
func TestNewRefusesDirected(t *testing.T) {
	adj, err := tensor.FromCOO(3, 3, []int{0, 1}, []int{1, 2}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(3, 1)
	labels := []int{0, 1, 0}
	_, err = New("path", adj, x, labels, 2, nil)
	want := `graph "path": the adjacency is directed: entry (0, 1) has no mirror (1, 0); graph.ToUndirected(adj) adds the missing mirrors`
	if err == nil || err.Error() != want {
		t.Errorf("New on a directed adjacency: error %v, want %q", err, want)
	}
	byHand := &Graph{Name: "path", N: 3, Adj: adj, Features: x, Labels: labels, NumClasses: 2}
	if err := byHand.CheckUndirected(); err == nil || !strings.Contains(err.Error(), "entry (0, 1) has no mirror (1, 0)") {
		t.Errorf("CheckUndirected: %v", err)
	}
	g, err := New("path", ToUndirected(adj), x, labels, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckUndirected(); err != nil || g.Adj.NNZ() != 4 {
		t.Errorf("undirected path: %v, %d stored entries, want 4", err, g.Adj.NNZ())
	}
}
