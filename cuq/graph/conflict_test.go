package graph

import (
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func TestConflicting(t *testing.T) {
	// 0 has neighbours labelled 0 and 1 (conflict); 1 has one labelled
	// neighbour and one unlabelled (no conflict); 4 has a self loop with
	// its own label 1 and one neighbour labelled 0 (no conflict: the self
	// loop is not a neighbour); 3 is isolated.
	//
	//	labels: 0:-1  1:0  2:1  3:0  4:1  5:0
	adj := undirected(t, 6, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 0}, [2]int{4, 5})
	adj = AddRemainingSelfLoops(adj, 1) // every node gets a self loop
	g, err := New("conflicts", adj, tensor.New(6, 1), []int{-1, 0, 1, 0, 1, 0}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.Conflicting(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, false, false, false}; !slices.Equal(got, want) {
		t.Errorf("Conflicting(nil) = %v, want %v", got, want)
	}
	if got, err := g.Conflicting([]int{0, 0}); err != nil || !slices.Equal(got, []bool{true, true}) {
		t.Errorf("Conflicting([0 0]) = %v, %v; want [true true]", got, err)
	}
	// Node 2 with neighbours 0 (unlabelled), 5 and 1 (label 0) and 4
	// (label 1): a conflict found after several agreeing neighbours.
	adj2 := undirected(t, 6, [2]int{2, 0}, [2]int{2, 5}, [2]int{2, 1}, [2]int{2, 4})
	g2, err := New("conflicts2", adj2, tensor.New(6, 1), g.Labels, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := g2.Conflicting([]int{2}); !got[0] {
		t.Errorf("node 2 with neighbours labelled -1, 0, 0, 1: no conflict reported")
	}
	if _, err := g.Conflicting([]int{6}); err == nil || !strings.Contains(err.Error(), "node 6 outside [0, 6)") {
		t.Errorf("Conflicting([6]) error = %v, want node 6 outside [0, 6)", err)
	}
}
