package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets"
)

// committed is the sample in the repository, relative to this package.
const committed = "../../../notebooks/data/smallgraph"

// TestCommittedSample checks that the committed files are byte for byte
// what the command writes, and that LoadPath reads them into the graph
// the command generated.
func TestCommittedSample(t *testing.T) {
	want, err := sample()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := datasets.WriteCSV(dir, want); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(names) != 5 {
		t.Fatalf("wrote %v (%v), want 5 files", names, err)
	}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(committed, filepath.Base(name)))
		if err != nil {
			t.Fatalf("%v: regenerate with go run ./datasets/internal/mksample -out notebooks/data/smallgraph", err)
		}
		if gen, _ := os.ReadFile(name); !bytes.Equal(got, gen) {
			t.Errorf("%s differs from what mksample writes: regenerate it", filepath.Base(name))
		}
	}
	l, err := datasets.LoadPath(committed)
	if err != nil {
		t.Fatal(err)
	}
	g, w := l.Graph, want.Graph
	if g.N != 300 || g.NumClasses != 4 || !slices.Equal(g.ClassNames, w.ClassNames) || !slices.Equal(g.Labels, w.Labels) || !slices.Equal(l.IDs, want.IDs) {
		t.Fatalf("read %d nodes, %d classes %q", g.N, g.NumClasses, g.ClassNames)
	}
	if !slices.Equal(g.Adj.Ind, w.Adj.Ind) || !slices.Equal(l.Split.Test, want.Split.Test) || l.Report.Unlabelled != 15 || !l.Report.Sparse {
		t.Errorf("adjacency, split or report differ: %v", l.Report)
	}
}
