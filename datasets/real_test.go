package datasets_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// sharedCases are the four shared files with the sizes recorded when they
// were obtained (and PyG reports): nodes, features, classes, directed edges of the
// symmetrised adjacency, and attribute non-zeros.
var sharedCases = []struct {
	name, file                   string
	nodes, feats, classes, edges int
	attrNNZ                      int
	firstClass                   string
}{
	{"CoraML", "cora_ml.npz", 2995, 2879, 7, 16316, 151171, "Artificial_Intelligence/Machine_Learning/Case-Based"},
	{"CiteSeer", "citeseer.npz", 4230, 602, 6, 10674, 19391, ""},
	{"AmazonPhotos", "amazon_electronics_photo.npz", 7650, 745, 8, 238162, 1979909, "Film Photography"},
	{"AmazonComputers", "amazon_electronics_computers.npz", 13752, 767, 10, 491722, 3675081, "Desktops"},
}

func TestLoadSharedDatasets(t *testing.T) {
	dir := testenv.RequireDatasets(t)
	for _, c := range sharedCases {
		g, err := datasets.LoadNPZ(filepath.Join(dir, c.file), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if g.N != c.nodes || g.NumFeatures() != c.feats || g.NumClasses != c.classes || g.NumEdges() != c.edges {
			t.Errorf("%s: %d nodes, %d features, %d classes, %d edges; want %d, %d, %d, %d",
				c.name, g.N, g.NumFeatures(), g.NumClasses, g.NumEdges(), c.nodes, c.feats, c.classes, c.edges)
		}
		if len(g.ClassNames) > 0 && g.ClassNames[0] != c.firstClass || len(g.ClassNames) == 0 && c.firstClass != "" {
			t.Errorf("%s: class names %q, want the first to be %q", c.name, g.ClassNames, c.firstClass)
		}
		checkSymmetric(t, g)
		checkNormalizedBinary(t, g, c.attrNNZ)
	}
}

// checkNormalizedBinary checks that the features are binarized attributes
// with each row divided by its count: every non-zero of row i equals
// 1/nnz_i, and there are wantNNZ non-zeros in all (every stored attribute
// of the shared files is positive and unique).
func checkNormalizedBinary(t *testing.T, g *graph.Graph, wantNNZ int) {
	t.Helper()
	x := toDense(g.Features)
	nnz := 0
	for i := range g.N {
		row := x.Row(i)
		k := 0
		for _, v := range row {
			if v != 0 {
				k++
			}
		}
		for j, v := range row {
			if v != 0 && math.Abs(v-1/float64(k)) > 1e-15 {
				t.Fatalf("%s: x[%d][%d] = %v, want 1/%d", g.Name, i, j, v, k)
			}
		}
		nnz += k
	}
	if nnz != wantNNZ {
		t.Errorf("%s: %d feature non-zeros, want %d", g.Name, nnz, wantNNZ)
	}
	// Sparse storage below graph.CompactDensity, dense above.
	_, sparse := g.Features.(*tensor.CSR)
	if density := float64(nnz) / float64(g.N*g.NumFeatures()); sparse != (density < graph.CompactDensity) {
		t.Errorf("%s: density %.3f stored as %T", g.Name, density, g.Features)
	}
}

func TestLoadRegistryShared(t *testing.T) {
	dir := testenv.RequireDatasets(t)
	for _, name := range []string{"cora_ml", "CiteSeer", "Photos", "amazon-computers"} {
		g, err := datasets.Load(name, datasets.FromDir(dir), datasets.NoDownload())
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := datasets.Info(name)
		if g.Name != spec.Name || g.N != spec.Nodes || g.NumEdges() != spec.Edges {
			t.Errorf("%s: loaded %q with %d nodes %d edges", name, g.Name, g.N, g.NumEdges())
		}
	}
}
