package datasets_test

import (
	"archive/zip"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// tensorMembers returns the arrays a PyG (dgl false) or DGL (dgl true)
// export of l would hold: PyG's edge_index lists every stored entry of
// the adjacency (both directions, as PyG stores undirected graphs), DGL's
// src and dst each undirected edge once (i < j); float32 features, int64
// labels, bool masks, class names when present.
func tensorMembers(l *datasets.Loaded, dgl bool) []npytest.Member {
	g := l.Graph
	var src, dst []int64
	for i := range g.N {
		for _, j := range g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]] {
			if !dgl || i < j {
				src, dst = append(src, int64(i)), append(dst, int64(j))
			}
		}
	}
	x := toDense(g.Features)
	f4 := make([]float32, len(x.Data))
	for k, v := range x.Data {
		f4[k] = float32(v)
	}
	y := make([]int64, g.N)
	for i, c := range g.Labels {
		y[i] = int64(c)
	}
	feat, label := "x", "y"
	var m []npytest.Member
	if dgl {
		feat, label = "feat", "label"
		m = append(m,
			npytest.Member{Name: "src", Data: npytest.NPY(1, "<i8", []int{len(src)}, npytest.I8(src...))},
			npytest.Member{Name: "dst", Data: npytest.NPY(1, "<i8", []int{len(dst)}, npytest.I8(dst...))})
	} else {
		m = append(m, npytest.Member{Name: "edge_index", Data: npytest.NPY(1, "<i8", []int{2, len(src)}, npytest.I8(append(src, dst...)...))})
	}
	_, cols := x.Dims()
	m = append(m,
		npytest.Member{Name: feat, Data: npytest.NPY(1, "<f4", []int{g.N, cols}, npytest.F4(f4...))},
		npytest.Member{Name: label, Data: npytest.NPY(1, "<i8", []int{g.N, 1}, npytest.I8(y...))})
	if g.ClassNames != nil {
		m = append(m, npytest.Member{Name: "class_names", Data: npytest.NPY(1, "<U8", []int{len(g.ClassNames)}, npytest.U(8, g.ClassNames...))})
	}
	if s := l.Split; s != nil {
		for _, set := range []struct {
			name  string
			nodes []int
		}{{"train_mask", s.Train}, {"val_mask", s.Val}, {"test_mask", s.Test}} {
			b := make([]byte, g.N)
			for _, i := range set.nodes {
				b[i] = 1
			}
			m = append(m, npytest.Member{Name: set.name, Data: npytest.NPY(1, "|b1", []int{g.N}, b)})
		}
	}
	return m
}

func TestLoadPathTensorLayouts(t *testing.T) {
	// The hand-worked CSV graph, features exact in float32.
	l, err := datasets.LoadCSV(writeFiles(t, smallFiles()))
	if err != nil {
		t.Fatal(err)
	}
	for _, dgl := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "small.npz")
		if err := os.WriteFile(path, npytest.NPZ(zip.Deflate, tensorMembers(l, dgl)...), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := datasets.LoadPath(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameGraph(l.Graph, back.Graph); d != "" {
			t.Fatalf("dgl=%v: %s", dgl, d)
		}
		sameSplit(t, l.Split, back.Split)
		// PyG lists both directions: nothing mirrored; DGL one: all 4.
		wantMirrored := map[bool]int{false: 0, true: 4}[dgl]
		if r := back.Report; back.Graph.Name != "small" || r.Edges != 4 || r.Mirrored != wantMirrored || r.Unlabelled != 1 || r.Sparse {
			t.Errorf("dgl=%v: name %q report %+v", dgl, back.Graph.Name, r)
		}
	}
}

func TestLoadPathTensorErrors(t *testing.T) {
	l, err := datasets.LoadCSV(writeFiles(t, smallFiles()))
	if err != nil {
		t.Fatal(err)
	}
	replace := func(name string, data []byte) []npytest.Member {
		m := tensorMembers(l, false)
		for k := range m {
			if m[k].Name == name {
				if data == nil {
					return append(m[:k], m[k+1:]...)
				}
				m[k].Data = data
			}
		}
		return m
	}
	cases := []struct {
		name    string
		members []npytest.Member
		want    string
	}{
		{"edge out of range", replace("edge_index", npytest.NPY(1, "<i8", []int{2, 1}, npytest.I8(0, 5))), "PyG layout: edge 0: node 5 out of range [0, 5)"},
		{"edge_index 3 rows", replace("edge_index", npytest.NPY(1, "<i8", []int{3, 1}, npytest.I8(0, 1, 2))), "edge_index has shape [3 1], want 2×E"},
		{"float edges", replace("edge_index", npytest.NPY(1, "<f8", []int{2, 1}, npytest.F8(0, 1))), "edge_index: npy: dtype <f8 is not an integer type"},
		{"missing x", replace("x", nil), "missing array x"},
		{"non-finite x", replace("x", npytest.NPY(1, "<f8", []int{5, 1}, npytest.F8(0, 1, 2, 3, math.NaN()))), "x: non-finite value NaN at (4, 0)"},
		{"labels short", replace("y", npytest.NPY(1, "<i8", []int{4}, npytest.I8(0, 1, 0, 1))), "y has 4 labels for 5 nodes"},
		{"label beyond names", replace("y", npytest.NPY(1, "<i8", []int{5}, npytest.I8(0, 1, 2, -1, 0))), "y: label 2 of node 2 beyond the 2 class names"},
		{"label below -1", replace("y", npytest.NPY(1, "<i8", []int{5}, npytest.I8(0, 1, -2, -1, 0))), "label -2 of node 2"},
		{"mask length", replace("val_mask", npytest.NPY(1, "|b1", []int{4}, []byte{0, 0, 1, 0})), "val_mask has shape [4], want 5"},
		{"mask value", replace("val_mask", npytest.NPY(1, "<i8", []int{5}, npytest.I8(0, 0, 2, 0, 0))), "val_mask: entry 2 is 2, want 0 or 1"},
		{"two masks", replace("test_mask", nil), "want all of [train_mask val_mask test_mask] or none"},
		{"node in two sets", replace("test_mask", npytest.NPY(1, "|b1", []int{5}, []byte{1, 0, 0, 0, 0})), "masks:"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "g.npz")
		if err := os.WriteFile(path, npytest.NPZ(zip.Store, c.members...), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := datasets.LoadPath(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want it to name the file and contain %q", c.name, err, c.want)
		}
	}
}

func TestLoadPathFormats(t *testing.T) {
	// A CSV directory.
	dir := writeFiles(t, smallFiles())
	l, err := datasets.LoadPath(dir)
	if err != nil || l.IDs == nil || l.Graph.N != 5 {
		t.Fatalf("CSV directory: %v", err)
	}
	// An OGB directory.
	ogb := filepath.Join(t.TempDir(), "tinyogb")
	testenv.WriteGzipFiles(t, ogb, testenv.TinyOGB())
	want, wantSplit, err := datasets.LoadOGBArxiv(ogb)
	if err != nil {
		t.Fatal(err)
	}
	l, err = datasets.LoadPath(ogb)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameGraph(want, l.Graph); d != "" || l.Graph.Name != "tinyogb" {
		t.Fatalf("OGB: %s, name %q", d, l.Graph.Name)
	}
	sameSplit(t, &wantSplit, l.Split)
	// A gnn-benchmark npz file, written by WriteNPZ.
	path := filepath.Join(t.TempDir(), "mine.npz")
	if err := datasets.WriteNPZ(path, l.Graph); err != nil {
		t.Fatal(err)
	}
	l2, err := datasets.LoadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := datasets.LoadNPZ(path, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if d := sameGraph(g, l2.Graph); d != "" || l2.Split != nil || l2.Report.Nodes != g.N || 2*l2.Report.Edges != g.NumEdges() {
		t.Fatalf("gnn-benchmark npz: %s, report %+v", d, l2.Report)
	}
	// Errors.
	for _, c := range []struct{ path, want string }{
		{t.TempDir(), "a directory without labels.csv"},
		{filepath.Join(dir, "labels.csv"), "neither a directory nor an .npz file"},
		{filepath.Join(dir, "nothing.npz"), "no such file"},
	} {
		if _, err := datasets.LoadPath(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadPath(%s): %v, want %q", c.path, err, c.want)
		}
	}
	other := filepath.Join(t.TempDir(), "other.npz")
	os.WriteFile(other, npytest.NPZ(zip.Store, npytest.Member{Name: "a", Data: npytest.NPY(1, "<i8", []int{1}, npytest.I8(1))}), 0o644)
	if _, err := datasets.LoadPath(other); err == nil || !strings.Contains(err.Error(), "no arrays of a known layout") {
		t.Errorf("unknown layout: %v", err)
	}
}

func TestIsPath(t *testing.T) {
	for name, want := range map[string]bool{
		"CoraML": false, "cora_ml": false, "ogbn-arxiv": false,
		"./mygraph": true, "data/g": true, "g.npz": true, "G.NPZ": true, "/abs/dir": true, "..": true,
	} {
		if got := datasets.IsPath(name); got != want {
			t.Errorf("IsPath(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLoadPathSharedCSV(t *testing.T) {
	// CiteSeer through WriteCSV and LoadPath: the registry's graph.
	data := testenv.RequireDatasets(t)
	g, err := datasets.Load("CiteSeer", datasets.FromDir(data), datasets.NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "citeseer")
	if err := datasets.WriteCSV(dir, &datasets.Loaded{Graph: g}); err != nil {
		t.Fatal(err)
	}
	l, err := datasets.LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameGraph(g, l.Graph); d != "" {
		t.Fatal(d)
	}
}
