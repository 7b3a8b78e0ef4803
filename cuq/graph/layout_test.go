package graph

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestForceLayoutSeparatesNodesAndKeepsEdgesShort(t *testing.T) {
	// Two triangles joined by one edge.
	edges := [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {2, 3}}
	x, y, err := ForceLayout(6, edges)
	if err != nil {
		t.Fatal(err)
	}
	x2, y2, _ := ForceLayout(6, edges)
	for i := range x {
		if x[i] != x2[i] || y[i] != y2[i] {
			t.Fatal("the layout differs between two calls")
		}
		for j := range i {
			if math.Hypot(x[i]-x[j], y[i]-y[j]) < 0.05 {
				t.Errorf("nodes %d and %d overlap", i, j)
			}
		}
	}
	within := math.Hypot(x[0]-x[1], y[0]-y[1])
	across := math.Hypot(x[0]-x[4], y[0]-y[4])
	if within >= across {
		t.Errorf("linked nodes 0, 1 are %.2f apart, unlinked 0, 4 only %.2f", within, across)
	}
	if _, _, err := ForceLayout(3, [][2]int{{0, 3}}); err == nil || !strings.Contains(err.Error(), "edge 0 (0, 3) out of range for 3 nodes") {
		t.Errorf("bad edge: error %v", err)
	}
	if x, y, err := ForceLayout(1, nil); err != nil || x[0] != 0 || y[0] != 0 {
		t.Errorf("one node at (%v, %v), %v; want the origin", x, y, err)
	}
}

func TestDepths(t *testing.T) {
	// 0 – 1 – 2 and 1 – 3, a self loop on 3, node 4 apart.
	d, err := Depths(5, [][2]int{{0, 1}, {1, 2}, {3, 1}, {3, 3}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 1, 0, 2, -1}; !slices.Equal(d, want) {
		t.Errorf("depths %v, want %v", d, want)
	}
	if _, err := Depths(2, nil, 2); err == nil || !strings.Contains(err.Error(), "start 2 out of range [0, 2)") {
		t.Errorf("bad start: error %v", err)
	}
}

func TestBreadthFirst(t *testing.T) {
	// The star 0 – {1, 2, 3} with 3 – 4.
	g, err := NewBuilder(1).Nodes(5, 0, 1).Star(0, 1, 2, 3).Edge(3, 4).Done()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		start, limit int
		want         []int
	}{
		{4, 0, []int{4, 3, 0, 1, 2}},
		{0, 0, []int{0, 1, 2, 3, 4}},
		{0, 3, []int{0, 1, 2}},
		{2, 1, []int{2}},
	} {
		got, err := g.BreadthFirst(tc.start, tc.limit)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("BreadthFirst(%d, %d) = %v, %v; want %v", tc.start, tc.limit, got, err, tc.want)
		}
	}
	if _, err := g.BreadthFirst(5, 0); err == nil || !strings.Contains(err.Error(), "start 5 out of range [0, 5)") {
		t.Errorf("bad start: error %v", err)
	}
}
