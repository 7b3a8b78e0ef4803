package datasets

import (
	"bytes"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// csvFS builds a CSV-layout directory: labels and edges always, the
// features as features.csv or (layout bit 0) sparse_features.csv, and
// classes.csv (bit 1) and split.tsv (bit 2) when asked for.
func csvFS(layout byte, labels, edges, features, classes, split []byte) fstest.MapFS {
	fsys := fstest.MapFS{
		"labels.csv": {Data: labels},
		"edges.csv":  {Data: edges},
	}
	if layout&1 == 0 {
		fsys["features.csv"] = &fstest.MapFile{Data: features}
	} else {
		fsys["sparse_features.csv"] = &fstest.MapFile{Data: features}
	}
	if layout&2 != 0 {
		fsys["classes.csv"] = &fstest.MapFile{Data: classes}
	}
	if layout&4 != 0 {
		fsys["split.tsv"] = &fstest.MapFile{Data: split}
	}
	return fsys
}

// checkLoaded fails unless l is a valid graph with consistent identifiers,
// split and report.
func checkLoaded(t *testing.T, l *Loaded) {
	g := l.Graph
	if err := g.Validate(); err != nil {
		t.Fatalf("invalid graph: %v", err)
	}
	if err := g.CheckUndirected(); err != nil {
		t.Fatalf("directed graph: %v", err)
	}
	if l.IDs != nil && len(l.IDs) != g.N {
		t.Fatalf("%d IDs for %d nodes", len(l.IDs), g.N)
	}
	if l.Split != nil {
		if err := l.Split.Validate(g.N); err != nil {
			t.Fatalf("invalid split: %v", err)
		}
	}
	if slices.ContainsFunc(g.Labels, func(y int) bool { return y < -1 || y >= g.NumClasses }) {
		t.Fatalf("labels %v out of range for %d classes", g.Labels, g.NumClasses)
	}
	if r := l.Report; r.Nodes != g.N || 2*r.Edges != g.NumEdges() || r.EdgeRows != r.SelfLoops+r.Duplicates+r.Edges*2-r.Mirrored {
		t.Fatalf("report %+v for %d nodes, %d stored edges", r, g.N, g.NumEdges())
	}
}

// FuzzLoadCSV feeds the CSV directory loader with arbitrary file contents:
// it returns a valid graph or an error, never panics, and allocates in
// proportion to the text it is given.
func FuzzLoadCSV(f *testing.F) {
	seeds := [][6][]byte{
		{{5}, []byte("node,label\nann,zebra\nbob,ant\ncy,zebra\ndee,\neve,ant\n"),
			[]byte("ann,bob\nbob,ann\nbob,cy\ncy,cy\ncy,dee\ncy,dee\neve,ann\n"),
			[]byte("node,feature,value\nann,0,1\nbob,2,0.5\ncy,1,2\neve,3,-1\n"), nil,
			[]byte("ann\ttrain\nbob\ttrain\ncy\tval\neve\ttest\n")},
		{{2}, []byte("a,x\nb,1\nc,\"y,z\"\n"), []byte("a\tb\nb\tc\n"),
			[]byte("id,f1,f2\nc,5,6\na,1,2e-3\nb,-3,4\n"), []byte("x\ny\n\"y,z\"\n"), nil},
	}
	for _, s := range seeds {
		if _, err := loadCSV(csvFS(s[0][0], s[1], s[2], s[3], s[4], s[5]), "seed"); err != nil {
			f.Fatalf("seed: %v", err)
		}
		f.Add(s[0][0], s[1], s[2], s[3], s[4], s[5])
	}
	f.Fuzz(func(t *testing.T, layout byte, labels, edges, features, classes, split []byte) {
		fsys := csvFS(layout, labels, edges, features, classes, split)
		size := len(labels) + len(edges) + len(features) + len(classes) + len(split)
		alloc := testenv.AllocatedBy(func() {
			l, err := loadCSV(fsys, "fuzz")
			if err != nil {
				return
			}
			checkLoaded(t, l)
		})
		// A short row (a node, an edge, a triple) becomes a few words in
		// maps and slices, a few times over while the graph is built.
		if limit := uint64(256*size + 1<<20); alloc > limit {
			t.Fatalf("%d bytes of text allocated %d bytes (limit %d)", size, alloc, limit)
		}
	})
}

// tensorNames are the members of FuzzLoadTensorNPZ's archive in its
// argument order, for the PyG and the DGL layout.
var tensorNames = [2][8]string{
	{"edge_index", "", "x", "y", "train_mask", "val_mask", "test_mask", "class_names"},
	{"src", "dst", "feat", "label", "train_mask", "val_mask", "test_mask", "class_names"},
}

// FuzzLoadTensorNPZ feeds the PyG and DGL npz readers with well-formed
// archives of arbitrary arrays (layout bit 0 picks DGL; an empty member is
// left out): they return a valid graph or an error, never panic, and
// allocate in proportion to the arrays.
func FuzzLoadTensorNPZ(f *testing.F) {
	i8 := func(shape []int, v ...int64) []byte { return npytest.NPY(1, "<i8", shape, npytest.I8(v...)) }
	mask := func(b ...byte) []byte { return npytest.NPY(1, "|b1", []int{len(b)}, b) }
	x := npytest.NPY(1, "<f4", []int{3, 2}, npytest.F4(1, 0, 0.5, 2, 0, -1))
	seeds := [][9][]byte{
		{{0}, i8([]int{2, 3}, 0, 1, 1, 1, 0, 2), nil, x, i8([]int{3, 1}, 0, 1, -1),
			mask(1, 0, 0), mask(0, 1, 0), mask(0, 0, 0), npytest.NPY(1, "<U1", []int{2}, npytest.U(1, "a", "b"))},
		{{1}, i8([]int{3}, 0, 1, 2), i8([]int{3}, 1, 2, 2), x, i8([]int{3}, 1, 0, 1), nil, nil, nil, nil},
	}
	for _, s := range seeds {
		if _, err := fromNPZ(tensorArchive(f, s[0][0], [8][]byte(s[1:])), "seed"); err != nil {
			f.Fatalf("seed: %v", err)
		}
		f.Add(s[0][0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8])
	}
	f.Fuzz(func(t *testing.T, layout byte, e0, e1, feat, label, train, val, test, names []byte) {
		ar := tensorArchive(nil, layout, [8][]byte{e0, e1, feat, label, train, val, test, names})
		if ar == nil {
			return
		}
		size := len(e0) + len(e1) + len(feat) + len(label) + len(train) + len(val) + len(test) + len(names)
		alloc := testenv.AllocatedBy(func() {
			l, err := fromNPZ(ar, "fuzz")
			if err != nil {
				return
			}
			checkLoaded(t, l)
		})
		if limit := uint64(64*size + 1<<20); alloc > limit {
			t.Fatalf("%d bytes of arrays allocated %d bytes (limit %d)", size, alloc, limit)
		}
	})
}

// tensorArchive decodes an archive of the given members (an empty one is
// left out) named for the PyG (layout bit 0 clear) or DGL layout; nil when
// a member is not a well-formed .npy array, a failure of tb when tb is set.
func tensorArchive(tb testing.TB, layout byte, data [8][]byte) *npy.Archive {
	var members []npytest.Member
	for k, d := range data {
		if name := tensorNames[layout&1][k]; name != "" && len(d) > 0 {
			members = append(members, npytest.Member{Name: name, Data: d})
		}
	}
	b := npytest.NPZ(0, members...)
	ar, err := npy.ReadNPZ(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		if tb != nil {
			tb.Fatal(err)
		}
		return nil
	}
	return ar
}
