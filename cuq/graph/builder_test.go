package graph

import (
	"math"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func TestBuilder(t *testing.T) {
	b := NewBuilder(2).Name("demo").ClassNames("left", "right")
	b.Node(0, 1, 0).Node(1, 0, 1).Nodes(2, -1, 0.5, 0.5)
	if b.Len() != 4 {
		t.Fatalf("Len = %d, want 4", b.Len())
	}
	g, err := b.Chain(0, 2, 1).Star(3, 0, 1).Edge(2, 0).Done()
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "demo" || g.N != 4 || g.NumClasses != 2 || g.ClassNames[1] != "right" {
		t.Errorf("got %q N=%d C=%d names=%v", g.Name, g.N, g.NumClasses, g.ClassNames)
	}
	// Edges 0–2, 2–1, 3–0, 3–1; the repeated 2–0 is merged.
	assertDense(t, "adjacency", g.Adj.ToDense(), 4, 4, []float64{
		0, 0, 1, 1,
		0, 0, 1, 1,
		1, 1, 0, 0,
		1, 1, 0, 0,
	}, 0)
	assertDense(t, "features", g.Features.(*tensor.Dense), 4, 2, []float64{1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5}, 0)
	want := []int{0, 1, -1, -1}
	for i, y := range g.Labels {
		if y != want[i] {
			t.Fatalf("labels = %v, want %v", g.Labels, want)
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *Builder
		want string
	}{
		{"classes", NewBuilder(0), "0 classes"},
		{"label", NewBuilder(2).Node(2), "node 0 has label 2 outside [-1, 2)"},
		{"feature count", NewBuilder(2).Node(0, 1, 2).Node(1, 3), "node 1 has 1 features, node 0 has 2"},
		{"nan feature", NewBuilder(2).Node(0, math.NaN()), "non-finite feature"},
		{"self loop", NewBuilder(2).Node(0).Edge(0, 0), "self loop on node 0"},
		{"edge range", NewBuilder(2).Node(0).Node(1).Edge(0, 2), "edge 0–2 refers to a node outside [0, 2)"},
		{"node count", NewBuilder(2).Nodes(-1, 0), "negative node count -1"},
		{"class names", NewBuilder(2).ClassNames("a").Node(0), "1 class names for 2 classes"},
		{"first error wins", NewBuilder(2).Node(5).Edge(1, 1), "label 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.Done()
			assertErr(t, err, tc.want)
		})
	}
}
