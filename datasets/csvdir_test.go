package datasets_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// writeFiles writes name → content into a new temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// smallFiles is a hand-worked graph: five nodes with string identifiers,
// string labels (one node unlabelled), a tab-separated edge file with a
// self loop, a duplicate and one-directional edges, sparse features and a
// split.
func smallFiles() map[string]string {
	return map[string]string{
		"labels.csv": "node,label\nann,zebra\nbob,ant\ncy,zebra\ndee,\neve,ant\n",
		// ann–bob given both ways, bob–cy once, cy–cy a loop, cy–dee twice
		// one way, eve–ann once.
		"edges.tsv":           "src\tdst\nann\tbob\nbob\tann\nbob\tcy\ncy\tcy\ncy\tdee\ncy\tdee\neve\tann\n",
		"sparse_features.csv": "# comment\nnode,feature,value\nann,0,1\nbob,2,0.5\ncy,1,2\neve,3,-1\n",
		"split.csv":           "ann,train\nbob,train\ncy,val\neve,test\n",
	}
}

func TestLoadCSVHandWorked(t *testing.T) {
	l, err := datasets.LoadCSV(writeFiles(t, smallFiles()))
	if err != nil {
		t.Fatal(err)
	}
	g := l.Graph
	if !slices.Equal(l.IDs, []string{"ann", "bob", "cy", "dee", "eve"}) {
		t.Errorf("IDs %q", l.IDs)
	}
	// Sorted class names: ant = 0, zebra = 1.
	if !slices.Equal(g.ClassNames, []string{"ant", "zebra"}) || !slices.Equal(g.Labels, []int{1, 0, 1, -1, 0}) {
		t.Errorf("class names %q labels %v", g.ClassNames, g.Labels)
	}
	// Undirected edges {0,1}, {1,2}, {2,3}, {0,4}.
	want := [][]int{{1, 4}, {0, 2}, {1, 3}, {2}, {0}}
	for i, nb := range want {
		if got := g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]]; !slices.Equal(got, nb) {
			t.Errorf("neighbours of %d: %v, want %v", i, got, nb)
		}
	}
	x := toDense(g.Features)
	wantX := []float64{1, 0, 0, 0, 0, 0, 0.5, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1}
	if r, c := x.Dims(); r != 5 || c != 4 || !slices.Equal(x.Data, wantX) {
		t.Errorf("features %dx%d %v, want 5x4 %v", r, c, x.Data, wantX)
	}
	wantSplit := graph.Split{Train: []int{0, 1}, Val: []int{2}, Test: []int{4}, Unused: []int{3}}
	if s := l.Split; s == nil || !slices.Equal(s.Train, wantSplit.Train) || !slices.Equal(s.Val, wantSplit.Val) || !slices.Equal(s.Test, wantSplit.Test) || !slices.Equal(s.Unused, wantSplit.Unused) {
		t.Errorf("split %+v, want %+v", l.Split, wantSplit)
	}
	// 7 rows: 1 loop, 1 duplicate (cy,dee), 5 distinct directed pairs of
	// which ann–bob is mutual: 4 undirected edges, 8 entries, 3 mirrored.
	wantRep := datasets.Report{Nodes: 5, Unlabelled: 1, EdgeRows: 7, SelfLoops: 1, Duplicates: 1, Mirrored: 3, Edges: 4, Features: 4, Sparse: true, Classes: 2, NamedClasses: true}
	if l.Report != wantRep {
		t.Errorf("report %+v, want %+v", l.Report, wantRep)
	}
	if s := l.Report.String(); !strings.Contains(s, "1 self loops dropped, 1 duplicates coalesced, 3 reverse edges added, 4 undirected edges") {
		t.Errorf("report string %q", s)
	}
}

func TestLoadCSVDenseIntegerLabelsAndClasses(t *testing.T) {
	// Integer labels without a classes file are class indices; dense rows
	// may come in any order; a header of column names is skipped.
	l, err := datasets.LoadCSV(writeFiles(t, map[string]string{
		"labels.csv":   "10,1\n20,0\n30,1\n",
		"edges.csv":    "10,20\n",
		"features.csv": "id,a,b\n30,5,6\n10,1,2\n20,3,4\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if g := l.Graph; g.ClassNames != nil || !slices.Equal(g.Labels, []int{1, 0, 1}) || !slices.Equal(toDense(g.Features).Data, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("names %q labels %v features %v", g.ClassNames, g.Labels, toDense(g.Features).Data)
	}
	// A classes file fixes the order and accepts names or indices.
	l, err = datasets.LoadCSV(writeFiles(t, map[string]string{
		"classes.csv":  "zebra\nant\n",
		"labels.csv":   "a,ant\nb,0\nc,zebra\n",
		"edges.csv":    "a,b\n",
		"features.csv": "a,1\nb,2\nc,3\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if g := l.Graph; !slices.Equal(g.ClassNames, []string{"zebra", "ant"}) || !slices.Equal(g.Labels, []int{1, 0, 0}) {
		t.Errorf("names %q labels %v", g.ClassNames, g.Labels)
	}
}

func TestLoadCSVErrors(t *testing.T) {
	base := map[string]string{
		"labels.csv":   "a,x\nb,y\nc,x\n",
		"edges.csv":    "a,b\nb,c\n",
		"features.csv": "a,1,2\nb,3,4\nc,5,6\n",
	}
	cases := []struct {
		name, file, text string
		drop             string // a file of base to remove
		want             string
	}{
		{"non-numeric feature", "features.csv", "a,1,2\nb,3,four\nc,5,6\n", "", `line 2: feature 2 of node "b": "four" is not a number`},
		{"non-finite feature", "features.csv", "a,1,2\nb,3,NaN\nc,5,6\n", "", `line 2: feature 2 of node "b": "NaN" is not a finite number`},
		{"ragged features", "features.csv", "a,1,2\nb,3\nc,5,6\n", "", "line 2: 2 fields, the first row has 3"},
		{"missing feature row", "features.csv", "a,1,2\nc,5,6\n", "", "no row for node 1"},
		{"second feature row", "features.csv", "a,1,2\nb,3,4\na,5,6\n", "", `line 3: second row of node "a" (first on line 1)`},
		{"feature of unknown node", "features.csv", "a,1,2\nb,3,4\nq,5,6\n", "", `line 3: unknown node "q"`},
		{"edge to unknown node", "edges.csv", "a,b\nb,zed\n", "", `edges.csv line 2: destination: unknown node "zed"`},
		{"edge missing column", "edges.csv", "a,b\nc\n", "", "edges.csv line 2: 1 fields, want src,dst"},
		{"label missing column", "labels.csv", "a,x\nb\nc,x\n", "", "labels.csv line 2: 1 fields, want node,label"},
		{"node twice", "labels.csv", "a,x\nb,y\na,x\n", "", `labels.csv line 3: node "a" given twice`},
		{"label beyond classes", "classes.csv", "x\ny\n", "", ""},
		{"label beyond node count", "labels.csv", "a,0\nb,1\nc,7\n", "", "labels.csv line 3: label 7 beyond the 3 classes 3 nodes can have"},
		{"empty class", "classes.csv", "x\ny\nw\n", "", `class 2 ("w") has no nodes`},
		{"unknown class", "classes.csv", "x\nz\n", "", `labels.csv line 2: label "y" is not a class of the classes file`},
		{"bad split set", "split.csv", "a,train\nb,holdout\n", "", `split.csv line 2: set "holdout", want train, val or test`},
		{"node in two sets", "split.csv", "a,train\na,test\n", "", "split.csv"},
		{"sparse index", "sparse_features.csv", "a,0,1\nb,-1,1\n", "features.csv", `sparse_features.csv line 2: feature "-1", want a column index`},
		{"sparse twice", "sparse_features.csv", "a,0,1\na,0,2\n", "features.csv", `line 2: feature 0 of node "a" given twice (first on line 1)`},
		{"sparse ragged", "sparse_features.csv", "a,0,1\nb,1\n", "features.csv", "line 2: 2 fields, want node,feature,value"},
		{"both feature files", "sparse_features.csv", "a,0,1\n", "", "want exactly one of features.csv"},
		{"no edges", "", "", "edges.csv", "no edges.csv or edges.tsv"},
		{"csv and tsv", "edges.tsv", "a\tb\n", "", "both edges.csv and edges.tsv"},
		{"bad quote", "edges.csv", "a,b\n\"b,c\n", "", "edges.csv line 2"},
	}
	for _, c := range cases {
		files := map[string]string{}
		for k, v := range base {
			if k != c.drop {
				files[k] = v
			}
		}
		if c.file != "" {
			files[c.file] = c.text
		}
		want := c.want
		if c.name == "label beyond classes" {
			files["labels.csv"] = "a,x\nb,5\nc,y\n"
			want = "labels.csv line 2: label 5 beyond the 2 classes of the classes file"
		}
		dir := writeFiles(t, files)
		_, err := datasets.LoadCSV(dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: err = %v, want it to name %s and contain %q", c.name, err, dir, want)
		}
	}
}

func sameSplit(t *testing.T, a, b *graph.Split) {
	t.Helper()
	if (a == nil) != (b == nil) {
		t.Fatalf("split %v and %v", a, b)
	}
	if a != nil && (!slices.Equal(a.Train, b.Train) || !slices.Equal(a.Val, b.Val) || !slices.Equal(a.Test, b.Test) || !slices.Equal(a.Unused, b.Unused)) {
		t.Fatalf("split %+v and %+v differ", *a, *b)
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	l, err := datasets.LoadCSV(writeFiles(t, smallFiles()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := datasets.WriteCSV(dir, l); err != nil {
		t.Fatal(err)
	}
	back, err := datasets.LoadCSV(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameGraph(l.Graph, back.Graph); d != "" {
		t.Fatal(d)
	}
	sameSplit(t, l.Split, back.Split)
	if !slices.Equal(l.IDs, back.IDs) {
		t.Errorf("IDs %q, read back %q", l.IDs, back.IDs)
	}

	// Dense real-valued features, integer labels, no names, no split.
	g, err := datasets.CSBM(60, 3).Features(5).Seed(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := datasets.WriteCSV(dir, &datasets.Loaded{Graph: g}); err != nil {
		t.Fatal(err)
	}
	back, err = datasets.LoadCSV(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, dense := g.Features.(*tensor.Dense); !dense || back.Report.Sparse {
		t.Fatalf("CSBM features %T read back sparse=%v", g.Features, back.Report.Sparse)
	}
	if d := sameGraph(g, back.Graph); d != "" {
		t.Fatal(d)
	}
	sameSplit(t, nil, back.Split)
}

func TestWriteCSVSharedRoundTrip(t *testing.T) {
	data := testenv.RequireDatasets(t)
	for _, name := range []string{"CoraML", "CiteSeer"} {
		g, err := datasets.Load(name, datasets.FromDir(data), datasets.NoDownload())
		if err != nil {
			t.Fatal(err)
		}
		s, err := g.Split(graph.Stratified(0.1, 0.1, 0.8))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := datasets.WriteCSV(dir, &datasets.Loaded{Graph: g, Split: &s}); err != nil {
			t.Fatal(err)
		}
		back, err := datasets.LoadCSV(dir)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameGraph(g, back.Graph); d != "" {
			t.Fatal(d)
		}
		sameSplit(t, &s, back.Split)
		if r := back.Report; r.SelfLoops != 0 || r.Duplicates != 0 || r.Mirrored != g.NumEdges()/2 {
			t.Errorf("%s: report %v, want each edge once and mirrored", name, r)
		}
	}
}

// TestLoadCSVHostileSizes: a sparse feature index near MaxFeatures makes a
// graph of that many columns without reserving memory for them.
func TestLoadCSVHostileSizes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"labels.csv":          "a,0\nb,0\n",
		"edges.csv":           "a,b\n",
		"sparse_features.csv": "a,16777215,1\n",
	})
	var l *datasets.Loaded
	var err error
	alloc := testenv.AllocatedBy(func() { l, err = datasets.LoadCSV(dir) })
	if err != nil {
		t.Fatal(err)
	}
	if l.Graph.NumFeatures() != datasets.MaxFeatures {
		t.Errorf("%d features, want %d", l.Graph.NumFeatures(), datasets.MaxFeatures)
	}
	if alloc > 1<<20 {
		t.Errorf("allocated %d bytes for a 2-node graph", alloc)
	}
	if _, err := datasets.LoadCSV(writeFiles(t, map[string]string{
		"labels.csv": "a,0\nb,0\n", "edges.csv": "a,b\n", "sparse_features.csv": "a,16777216,1\n",
	})); err == nil || !strings.Contains(err.Error(), "sparse_features.csv line 1: feature \"16777216\", want a column index in [0, 16777216)") {
		t.Errorf("feature beyond MaxFeatures: %v", err)
	}
}
