package datasets_test

import (
	"archive/zip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// tinyArrays is a 4-node graph in graph2gauss layout (as pubmed.npz):
//
//	stored adjacency entries (0,1) (1,0) (1,2) (2,2) (3,0)
//	attributes [2 0 1; 0 0 0; .3 .3 .3; 0 2+3 0] (row 3 holds a duplicate)
//	labels 0 1 2 0
//
// After processing: undirected edges {0,1} {1,2} {0,3} (6 entries, self loop
// gone) and features [.5 0 .5; 0 0 0; 1/3 1/3 1/3; 0 1 0].
func tinyArrays(prefixAdj, prefixAttr string) []npytest.Member {
	return []npytest.Member{
		{Name: prefixAdj + "data", Data: npytest.NPY(1, "<f8", []int{5}, npytest.F8(1, 1, 1, 1, 1))},
		{Name: prefixAdj + "indices", Data: npytest.NPY(1, "<i4", []int{5}, npytest.I4(1, 0, 2, 2, 0))},
		{Name: prefixAdj + "indptr", Data: npytest.NPY(1, "<i4", []int{5}, npytest.I4(0, 1, 3, 4, 5))},
		{Name: prefixAdj + "shape", Data: npytest.NPY(1, "<i8", []int{2}, npytest.I8(4, 4))},
		{Name: prefixAttr + "data", Data: npytest.NPY(1, "<f4", []int{7}, npytest.F4(2, 1, 0.3, 0.3, 0.3, 2, 3))},
		{Name: prefixAttr + "indices", Data: npytest.NPY(1, "<i4", []int{7}, npytest.I4(0, 2, 0, 1, 2, 1, 1))},
		{Name: prefixAttr + "indptr", Data: npytest.NPY(1, "<i4", []int{5}, npytest.I4(0, 2, 2, 5, 7))},
		{Name: prefixAttr + "shape", Data: npytest.NPY(1, "<i8", []int{2}, npytest.I8(4, 3))},
		{Name: "labels", Data: npytest.NPY(1, "<i8", []int{4}, npytest.I8(0, 1, 2, 0))},
		{Name: "idx_to_node", Data: npytest.NPY(1, "|O", []int{}, []byte("\x80\x04N."))},
	}
}

// withArray returns tinyArrays("adj_", "attr_") with the array name holding
// data: replaced, or added when there is none.
func withArray(name string, data []byte) []npytest.Member {
	m := tinyArrays("adj_", "attr_")
	for k := range m {
		if m[k].Name == name {
			m[k].Data = data
			return m
		}
	}
	return append(m, npytest.Member{Name: name, Data: data})
}

// i4 and i8 encode a 1-D little-endian int32 or int64 npy array.
func i4(v ...int32) []byte { return npytest.NPY(1, "<i4", []int{len(v)}, npytest.I4(v...)) }
func i8(v ...int64) []byte { return npytest.NPY(1, "<i8", []int{len(v)}, npytest.I8(v...)) }

func writeNPZ(t *testing.T, method uint16, members []npytest.Member) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "g.npz")
	if err := os.WriteFile(path, npytest.NPZ(method, members...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadNPZTiny(t *testing.T) {
	wantAdj := [][]int{{1, 3}, {0, 2}, {1}, {0}}
	wantX := [][]float64{{.5, 0, .5}, {0, 0, 0}, {1. / 3, 1. / 3, 1. / 3}, {0, 1, 0}}
	withNames := append(tinyArrays("adj_matrix.", "attr_matrix."),
		npytest.Member{Name: "class_names", Data: npytest.NPY(1, "<U5", []int{3}, npytest.U(5, "a", "bb", "Theor"))})
	for _, c := range []struct {
		name    string
		method  uint16
		members []npytest.Member
		classes []string
	}{
		{"graph2gauss deflate", zip.Deflate, tinyArrays("adj_", "attr_"), nil},
		{"graph2gauss stored", zip.Store, tinyArrays("adj_", "attr_"), nil},
		{"SparseGraph with class names", zip.Store, withNames, []string{"a", "bb", "Theor"}},
	} {
		g, err := datasets.LoadNPZ(writeNPZ(t, c.method, c.members), "PubMed")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if g.Name != "PubMed" || g.N != 4 || g.NumClasses != 3 || !slices.Equal(g.Labels, []int{0, 1, 2, 0}) || !slices.Equal(g.ClassNames, c.classes) {
			t.Errorf("%s: name %q N %d C %d labels %v classes %q", c.name, g.Name, g.N, g.NumClasses, g.Labels, g.ClassNames)
		}
		for i, want := range wantAdj {
			got := g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]]
			if !slices.Equal(got, want) || slices.ContainsFunc(g.Adj.Val[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]], func(v float64) bool { return v != 1 }) {
				t.Errorf("%s: adjacency row %d = %v %v, want %v of ones", c.name, i, got, g.Adj.Val, want)
			}
		}
		x := toDense(g.Features)
		for i, want := range wantX {
			for j, w := range want {
				if math.Abs(x.At(i, j)-w) > 1e-15 {
					t.Errorf("%s: x[%d][%d] = %v, want %v", c.name, i, j, x.At(i, j), w)
				}
			}
		}
	}
}

func TestLoadNPZDenseAttributes(t *testing.T) {
	m := tinyArrays("adj_", "attr_")[:4]
	m = append(m,
		npytest.Member{Name: "attr_matrix", Data: npytest.NPY(1, "<f8", []int{4, 2}, npytest.F8(1, 3, 0, 0, -1, 2, 4, 0))},
		npytest.Member{Name: "labels", Data: npytest.NPY(1, "|u1", []int{4}, []byte{1, 0, 1, 0})})
	g, err := datasets.LoadNPZ(writeNPZ(t, zip.Deflate, m), "dense")
	if err != nil {
		t.Fatal(err)
	}
	// Binarized [1 1; 0 0; 0 1; 1 0], then rows divided by their sums.
	want := []float64{.5, .5, 0, 0, 0, 1, 1, 0}
	if x := toDense(g.Features); !slices.Equal(x.Data, want) || g.NumClasses != 2 {
		t.Errorf("features %v, classes %d; want %v, 2", x.Data, g.NumClasses, want)
	}
}

func TestLoadNPZErrors(t *testing.T) {
	drop := func(name string) []npytest.Member {
		return slices.DeleteFunc(tinyArrays("adj_", "attr_"), func(m npytest.Member) bool { return m.Name == name })
	}
	for _, c := range []struct {
		name    string
		members []npytest.Member
		want    string
	}{
		{"missing labels", drop("labels"), "missing array labels"},
		{"missing adjacency", drop("adj_indices"), "missing array adj_indices"},
		{"missing attributes", drop("attr_data"), "missing array attr_data (or attr_matrix)"},
		{"float labels", withArray("labels", npytest.NPY(1, "<f8", []int{4}, npytest.F8(0, 1, 2, 0))), "labels: npy: dtype <f8 is not an integer type"},
		{"2-D labels", withArray("labels", npytest.NPY(1, "<i8", []int{2, 2}, npytest.I8(0, 1, 2, 0))), "labels has shape [2 2], want 1-D"},
		{"negative label", withArray("labels", i8(0, 1, -1, 2)), "label -1 of node 2 is negative"},
		{"label beyond class names", append(tinyArrays("adj_", "attr_"), npytest.Member{Name: "class_names", Data: npytest.NPY(1, "<U1", []int{2}, npytest.U(1, "a", "b"))}), "label 2 of node 2 out of range: 2 class names"},
		{"empty class", withArray("labels", i8(0, 2, 2, 0)), "class 1 has no nodes"},
		{"huge label", withArray("labels", i8(0, 1, 1<<40, 0)), "label 1099511627776 of node 2 out of range [0, 4): more classes than nodes"},
		{"label count", withArray("labels", i8(0, 1, 2)), "labels has 3 entries for 4 nodes"},
		{"NaN attribute", withArray("attr_data", npytest.NPY(1, "<f4", []int{7}, npytest.F4(2, 1, float32(math.NaN()), 0.3, 0.3, 2, 3))), "attr_data: non-finite value NaN at (2, 0)"},
		{"Inf attribute", withArray("attr_data", npytest.NPY(1, "<f4", []int{7}, npytest.F4(2, 1, 0.3, 0.3, 0.3, 2, float32(math.Inf(1))))), "non-finite value +Inf at (3, 1)"},
		{"edge out of range", withArray("adj_indices", i4(1, 0, 4, 2, 0)), "adj_indices: column 4 of row 1 out of range [0, 4)"},
		{"negative index", withArray("attr_indices", i4(0, 2, 0, -1, 2, 1, 1)), "attr_indices: column -1 of row 2"},
		{"indptr not monotone", withArray("adj_indptr", i4(0, 3, 1, 4, 5)), "adj_indptr is not monotone: decreases at row 1 (3 > 1)"},
		// Found by FuzzLoadNPZ: row 0 would index past the 5 indices.
		{"indptr beyond nnz", withArray("adj_indptr", i4(0, 6, 3, 4, 5)), "adj_indptr is not monotone: decreases at row 1 (6 > 3)"},
		{"indptr end", withArray("adj_indptr", i4(0, 1, 3, 4, 4)), "adj_indptr runs from 0 to 4, want 0 to nnz = 5"},
		{"indptr length", withArray("adj_indptr", i4(0, 1, 3, 5)), "adj_indptr has 4 entries, want rows+1 = 5"},
		{"data length", withArray("adj_data", npytest.NPY(1, "<f8", []int{4}, npytest.F8(1, 1, 1, 1))), "adj_data has 4 values for 5 indices"},
		{"bad shape", withArray("adj_shape", i8(4, 4, 1)), "adj_shape is [4 4 1], want two non-negative sizes"},
		{"not square", withArray("adj_shape", i8(4, 5)), "adj_shape is 4x5, not square"},
		{"attribute rows", withArray("attr_shape", i8(3, 3)), "attr_indptr has 5 entries, want rows+1 = 4"},
		{"string indices", withArray("adj_indices", npytest.NPY(1, "<U1", []int{5}, npytest.U(1, "a", "b", "c", "d", "e"))), "adj_indices: npy: dtype <U1 is not an integer type"},
	} {
		path := writeNPZ(t, zip.Deflate, c.members)
		_, err := datasets.LoadNPZ(path, "x")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want it to name the file and contain %q", c.name, err, c.want)
		}
	}
}

// Arrays of a well-formed archive that declare sizes far beyond their data
// give an error, allocating little: a label of 2⁶³−1 used to index a
// per-class count (a panic), and a sparse attribute matrix of 2⁴⁰ or 2⁶²
// columns with one row's indices repeated used to be sorted through a
// transpose with a row pointer per column (out of memory, a panic).
func TestLoadNPZHostileArrays(t *testing.T) {
	for _, c := range []struct {
		name    string
		members []npytest.Member
		want    string
	}{
		{"largest_label", withArray("labels", i8(0, 1, math.MaxInt64, 0)), "label 9223372036854775807 of node 2 out of range [0, 4): more classes than nodes"},
		{"2^40_feature_columns", withArray("attr_shape", i8(4, 1<<40)), "attributes have 1099511627776 columns, more than the 16777216 features"},
		{"2^62_feature_columns", withArray("attr_shape", i8(4, 1<<62)), "attributes have 4611686018427387904 columns"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeNPZ(t, zip.Deflate, c.members)
			var err error
			alloc := testenv.AllocatedBy(func() { _, err = datasets.LoadNPZ(path, "x") })
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want it to name the file and contain %q", err, c.want)
			}
			if alloc > hostileLimit {
				t.Errorf("allocated %d bytes, want at most %d", alloc, hostileLimit)
			}
		})
	}
}

// hostileLimit bounds what loading a hostile file of a few hundred bytes
// may allocate.
const hostileLimit = 4 << 20

func TestLoadNPZFileErrors(t *testing.T) {
	dir := t.TempDir()
	good := npytest.NPZ(zip.Deflate, tinyArrays("adj_", "attr_")...)
	truncated := filepath.Join(dir, "truncated.npz")
	os.WriteFile(truncated, good[:len(good)/2], 0o644)
	corrupt := filepath.Join(dir, "corrupt.npz")
	bad := slices.Clone(good)
	// Damage the middle of the compressed stream of the first member.
	bad[60] ^= 0x55
	bad[61] ^= 0x55
	os.WriteFile(corrupt, bad, 0o644)
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "missing.npz"), "no such file"},
		{dir, "npz: not a regular file"},
		{truncated, "not a valid zip archive"},
		{corrupt, `member "adj_data.npy"`},
	}
	if fifo := filepath.Join(dir, "fifo.npz"); testenv.MakeFIFO(t, fifo) {
		cases = append(cases, struct{ path, want string }{fifo, "npz: not a regular file"})
	}
	for _, c := range cases {
		_, err := datasets.LoadNPZ(c.path, "x")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: err = %v, want it to name the file and contain %q", filepath.Base(c.path), err, c.want)
		}
	}
}

func toDense(x tensor.Matrix) *tensor.Dense {
	switch f := x.(type) {
	case *tensor.Dense:
		return f
	case *tensor.CSR:
		return f.ToDense()
	}
	return nil
}

// checkSymmetric fails unless g.Adj is symmetric with unit weights and no
// self loops.
func checkSymmetric(t *testing.T, g *graph.Graph) {
	t.Helper()
	a := g.Adj
	for i := range g.N {
		for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
			j := a.Ind[k]
			if j == i || a.Val[k] != 1 || a.At(j, i) != 1 {
				t.Fatalf("%s: adjacency entry (%d,%d)=%v: not a symmetric 0/1 pattern without loops", g.Name, i, j, a.Val[k])
			}
		}
	}
}
