package datasets_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// sameGraph reports the first difference between two graphs, "" when they
// are equal to the bit.
func sameGraph(a, b *graph.Graph) string {
	switch {
	case a.N != b.N || a.NumClasses != b.NumClasses:
		return "sizes differ"
	case !slices.Equal(a.Labels, b.Labels):
		return "labels differ"
	case !slices.Equal(a.ClassNames, b.ClassNames):
		return "class names differ"
	case !slices.Equal(a.Adj.Ptr, b.Adj.Ptr) || !slices.Equal(a.Adj.Ind, b.Adj.Ind) || !slices.Equal(a.Adj.Val, b.Adj.Val):
		return "adjacency differs"
	}
	x, y := toDense(a.Features), toDense(b.Features)
	if !slices.Equal(x.Data, y.Data) {
		return "features differ"
	}
	return ""
}

// TestWriteNPZRoundTrip writes graphs LoadNPZ returned and reads them back:
// the same graph to the bit, CoraML's real file included when present.
func TestWriteNPZRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tiny, err := datasets.LoadNPZ(writeNPZ(t, 0, tinyArrays("adj_", "attr_")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	graphs := []*graph.Graph{tiny}
	if data := testenv.DatasetsDir(); data != "" {
		cora, err := datasets.LoadNPZ(filepath.Join(data, "cora_ml.npz"), "CoraML")
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, cora)
	}
	for _, g := range graphs {
		path := filepath.Join(dir, g.Name+".npz")
		if err := datasets.WriteNPZ(path, g); err != nil {
			t.Fatal(err)
		}
		back, err := datasets.LoadNPZ(path, g.Name)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameGraph(g, back); d != "" {
			t.Errorf("%s: %s after the round trip", g.Name, d)
		}
	}
}

// TestWriteNPZRealFeatures writes a graph with real-valued features: they
// are read back as the row-scaled pattern of their positive entries, as
// the npz loaders of PyG and the reference read them.
func TestWriteNPZRealFeatures(t *testing.T) {
	g, err := datasets.CSBM(60, 3).Features(5).AvgDegree(4).Seed(3).Done()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "csbm.npz")
	if err := datasets.WriteNPZ(path, g); err != nil {
		t.Fatal(err)
	}
	back, err := datasets.LoadNPZ(path, "csbm")
	if err != nil {
		t.Fatal(err)
	}
	x, y := toDense(g.Features), toDense(back.Features)
	for i := range g.N {
		positive := 0
		for j := range x.Cols {
			if x.At(i, j) > 0 {
				positive++
			}
		}
		for j := range x.Cols {
			want := 0.0
			if x.At(i, j) > 0 {
				want = 1 / float64(positive)
			}
			if y.At(i, j) != want {
				t.Fatalf("node %d feature %d: read back %v, want %v (from %v)", i, j, y.At(i, j), want, x.At(i, j))
			}
		}
	}
	if !slices.Equal(g.Labels, back.Labels) || !slices.Equal(g.Adj.Ind, back.Adj.Ind) {
		t.Error("labels or adjacency differ after the round trip")
	}
}

func TestWriteNPZErrors(t *testing.T) {
	tiny, err := datasets.LoadNPZ(writeNPZ(t, 0, tinyArrays("adj_", "attr_")), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	tiny.Labels[2] = -1
	path := filepath.Join(t.TempDir(), "x.npz")
	if err := datasets.WriteNPZ(path, tiny); err == nil || !strings.Contains(err.Error(), "node 2 has no label") {
		t.Errorf("unlabelled node: error %v", err)
	}
	tiny.Labels[2] = 0
	if err := datasets.WriteNPZ(filepath.Join(t.TempDir(), "missing", "x.npz"), tiny); err == nil {
		t.Error("writing into a missing directory gave no error")
	}
}
