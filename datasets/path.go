package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

// IsPath reports whether name, as given to a command that takes a dataset,
// is a path rather than a registry name (see Names): when it contains a
// path separator, starts with a dot or ends in .npz. It does not look at
// the file system, so a directory in the working directory is named
// ./mygraph.
func IsPath(name string) bool {
	return strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) ||
		strings.HasPrefix(name, ".") || strings.EqualFold(filepath.Ext(name), ".npz")
}

// LoadPath reads the graph at path, deciding the format from what it finds:
//
//   - a directory with labels.csv (or .tsv): the CSV layout of LoadCSV;
//   - a directory with raw/node-label.csv.gz: an OGB node-property
//     dataset, read by LoadOGBArxiv (its split is returned);
//   - an .npz file with edge_index: the layout of
//     numpy.savez(path, edge_index=..., x=..., y=..., train_mask=...,
//     val_mask=..., test_mask=...) from a PyTorch Geometric Data object;
//   - an .npz file with src and dst: the layout of
//     numpy.savez(path, src=..., dst=..., feat=..., label=..., masks)
//     from a DGL graph (src, dst = g.edges());
//   - any other .npz file: the gnn-benchmark layout of LoadNPZ.
//
// In the PyG and DGL layouts (masks optional, all three or none; labels N
// or N×1 integers, -1 for unlabelled nodes; class_names optional) N is the
// number of feature rows, features are kept as given and edges are
// processed as in LoadCSV. The graph is named after the file or directory.
// IDs is nil except for the CSV layout (node i is then called i). The
// Report's edge counts (rows, self loops, duplicates, reverse edges) are
// filled by the CSV, PyG and DGL readers; the others report the sizes of
// the graph.
func LoadPath(path string) (*Loaded, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(filepath.Clean(path)), filepath.Ext(path))
	if st.IsDir() {
		fsys := os.DirFS(path)
		if csv, err := findTable(fsys, path, "labels"); err != nil {
			return nil, fmt.Errorf("datasets: %w", err)
		} else if csv != "" {
			return LoadCSV(path)
		}
		if _, err := fs.Stat(fsys, "raw/node-label.csv.gz"); err == nil {
			g, split, err := LoadOGBArxiv(path)
			if err != nil {
				return nil, err
			}
			g.Name = name
			return &Loaded{Graph: g, Split: &split, Report: sizes(g)}, nil
		}
		return nil, fmt.Errorf("datasets: %s: a directory without labels.csv (the CSV layout of LoadCSV) or raw/node-label.csv.gz (an OGB dataset)", path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".npz") {
		return nil, fmt.Errorf("datasets: %s: neither a directory nor an .npz file", path)
	}
	ar, err := npy.ReadNPZFile(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	l, err := fromNPZ(ar, name)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", path, err)
	}
	return l, nil
}

// fromNPZ reads an archive in any of the npz layouts LoadPath accepts.
func fromNPZ(ar *npy.Archive, name string) (*Loaded, error) {
	if lay, ok := tensorLayoutOf(ar); ok {
		l, err := fromTensorArchive(ar, lay, name)
		if err != nil {
			return nil, fmt.Errorf("%s layout: %w", lay.name, err)
		}
		return l, nil
	}
	g, err := fromArchive(ar, name)
	if err != nil {
		if !ar.Has("adj_data") && !ar.Has("adj_matrix.data") {
			return nil, errors.New("no arrays of a known layout: want edge_index (PyG), src and dst (DGL) or adj_data (gnn-benchmark)")
		}
		return nil, err
	}
	return &Loaded{Graph: g, Report: sizes(g)}, nil
}

// sizes is the Report of a graph loaded without edge counts.
func sizes(g *graph.Graph) Report {
	r := Report{Nodes: g.N, Features: g.NumFeatures(), Classes: g.NumClasses, NamedClasses: g.ClassNames != nil}
	_, r.Sparse = g.Features.(*tensor.CSR)
	for i := range g.N {
		for _, j := range g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]] {
			if i <= j {
				r.Edges++
			}
		}
		if g.Labels[i] < 0 {
			r.Unlabelled++
		}
	}
	return r
}
