package datasets

import (
	"fmt"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

// tensorLayout names the arrays of an .npz file exported from a tensor
// library's graph object.
type tensorLayout struct {
	name             string
	edges            []string // edge_index (2×E), or src and dst (E each)
	features, labels string
	train, val, test string
}

var (
	// pygLayout is numpy.savez(path, edge_index=data.edge_index.numpy(),
	// x=data.x.numpy(), y=data.y.numpy(), train_mask=..., ...).
	pygLayout = tensorLayout{"PyG", []string{"edge_index"}, "x", "y", "train_mask", "val_mask", "test_mask"}
	// dglLayout is numpy.savez(path, src=u, dst=v, feat=g.ndata["feat"],
	// label=g.ndata["label"], train_mask=..., ...), (u, v) = g.edges().
	dglLayout = tensorLayout{"DGL", []string{"src", "dst"}, "feat", "label", "train_mask", "val_mask", "test_mask"}
)

// tensorLayoutOf returns the layout of ar, false for none of the two.
func tensorLayoutOf(ar *npy.Archive) (tensorLayout, bool) {
	switch {
	case ar.Has("edge_index"):
		return pygLayout, true
	case ar.Has("src") && ar.Has("dst"):
		return dglLayout, true
	}
	return tensorLayout{}, false
}

// fromTensorArchive reads a graph in the PyG or DGL layout (see LoadPath):
//
//	PyG: edge_index (2×E integers), x (N×F numbers), y (N or N×1 integers)
//	DGL: src, dst (E integers each), feat (N×F), label (N or N×1)
//	both: train_mask, val_mask, test_mask (N booleans or 0/1 integers,
//	      optional, all three or none), class_names (C strings, optional)
//
// N is the number of feature rows. A label of -1 marks an unlabelled node;
// NumClasses is len(class_names) when given, else max(label)+1. Edges are
// processed as LoadCSV's (self loops dropped, duplicates coalesced, made
// undirected, counted in the Report); features are kept as given.
func fromTensorArchive(ar *npy.Archive, lay tensorLayout, name string) (*Loaded, error) {
	x, err := readDense(ar, lay.features)
	if err != nil {
		return nil, err
	}
	n, cols := x.Dims()
	if cols > MaxFeatures {
		return nil, fmt.Errorf("%s has %d columns, more than the %d features a model can take", lay.features, cols, MaxFeatures)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s has no rows: no nodes", lay.features)
	}
	src, dst, err := tensorEdges(ar, lay, n)
	if err != nil {
		return nil, err
	}
	var rep Report
	adj, err := undirected(n, slices.Clone(src), slices.Clone(dst), &rep)
	if err != nil {
		return nil, err
	}
	labels, numClasses, classNames, err := tensorLabels(ar, lay, n)
	if err != nil {
		return nil, err
	}
	split, err := maskSplit(ar, lay, labels)
	if err != nil {
		return nil, err
	}
	g, err := graph.New(name, adj, graph.CompactFeatures(x), labels, numClasses, classNames)
	if err != nil {
		return nil, err
	}
	unlabelled := 0
	for _, y := range labels {
		if y < 0 {
			unlabelled++
		}
	}
	rep.Nodes, rep.Unlabelled, rep.Features = n, unlabelled, cols
	rep.Classes, rep.NamedClasses = numClasses, classNames != nil
	return &Loaded{Graph: g, Split: split, Report: rep}, nil
}

// tensorEdges reads the edges' endpoints, each a node in [0, n).
func tensorEdges(ar *npy.Archive, lay tensorLayout, n int) (src, dst []int, err error) {
	if len(lay.edges) == 1 {
		a, v, err := readArray(ar, lay.edges[0], 2, (*npy.Array).Ints)
		if err != nil {
			return nil, nil, err
		}
		if a.Shape[0] != 2 {
			return nil, nil, fmt.Errorf("%s has shape %v, want 2×E", lay.edges[0], a.Shape)
		}
		e := a.Shape[1]
		src, dst = v[:e], v[e:]
	} else {
		if src, err = ints(ar, lay.edges[0]); err != nil {
			return nil, nil, err
		}
		if dst, err = ints(ar, lay.edges[1]); err != nil {
			return nil, nil, err
		}
		if len(src) != len(dst) {
			return nil, nil, fmt.Errorf("%s has %d entries, %s %d", lay.edges[0], len(src), lay.edges[1], len(dst))
		}
	}
	for k := range src {
		for _, v := range [2]int{src[k], dst[k]} {
			if v < 0 || v >= n {
				return nil, nil, fmt.Errorf("edge %d: node %d out of range [0, %d) (the rows of %s)", k, v, n, lay.features)
			}
		}
	}
	return src, dst, nil
}

// tensorLabels reads the labels of the n nodes (-1: unlabelled) and the
// class names, and returns the number of classes.
func tensorLabels(ar *npy.Archive, lay tensorLayout, n int) (labels []int, numClasses int, classNames []string, err error) {
	if labels, err = labelColumn(ar, lay.labels, n); err != nil {
		return nil, 0, nil, err
	}
	if classNames, err = classNamesOf(ar); err != nil {
		return nil, 0, nil, err
	}
	numClasses = len(classNames)
	for i, y := range labels {
		switch {
		case y < -1:
			return nil, 0, nil, fmt.Errorf("%s: label %d of node %d, want a class index or -1 (unlabelled)", lay.labels, y, i)
		case classNames != nil && y >= numClasses:
			return nil, 0, nil, fmt.Errorf("%s: label %d of node %d beyond the %d class names", lay.labels, y, i, numClasses)
		case classNames == nil && y >= n:
			return nil, 0, nil, fmt.Errorf("%s: label %d of node %d beyond the %d classes %d nodes can have", lay.labels, y, i, n, n)
		case classNames == nil:
			numClasses = max(numClasses, y+1)
		}
	}
	labelled := slices.DeleteFunc(slices.Clone(labels), func(y int) bool { return y < 0 })
	if err := checkClasses(labelled, numClasses, classNames); err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", lay.labels, err)
	}
	return labels, numClasses, classNames, nil
}

// labelColumn reads the labels, a vector of n integers or an n×1 matrix.
func labelColumn(ar *npy.Archive, name string, n int) ([]int, error) {
	a, ok := ar.Get(name)
	if !ok {
		return nil, fmt.Errorf("missing array %s", name)
	}
	if len(a.Shape) != 1 && !(len(a.Shape) == 2 && a.Shape[1] == 1) {
		return nil, fmt.Errorf("%s has shape %v, want N or N×1", name, a.Shape)
	}
	if a.Shape[0] != n {
		return nil, fmt.Errorf("%s has %d labels for %d nodes", name, a.Shape[0], n)
	}
	v, err := a.Ints()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// maskSplit reads the three masks into a split; nil when there are none.
func maskSplit(ar *npy.Archive, lay tensorLayout, labels []int) (*graph.Split, error) {
	names := []string{lay.train, lay.val, lay.test}
	have := 0
	for _, m := range names {
		if ar.Has(m) {
			have++
		}
	}
	if have == 0 {
		return nil, nil
	}
	if have != 3 {
		return nil, fmt.Errorf("want all of %v or none", names)
	}
	n := len(labels)
	var sets [3][]int
	for s, m := range names {
		a, _ := ar.Get(m)
		if len(a.Shape) != 1 || a.Shape[0] != n {
			return nil, fmt.Errorf("%s has shape %v, want %d", m, a.Shape, n)
		}
		v, err := a.Float64s()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		for i, b := range v {
			switch {
			case b == 0:
			case b == 1 && labels[i] < 0:
				return nil, fmt.Errorf("%s: node %d is unlabelled and cannot be in a split", m, i)
			case b == 1:
				sets[s] = append(sets[s], i)
			default:
				return nil, fmt.Errorf("%s: entry %d is %v, want 0 or 1", m, i, b)
			}
		}
	}
	split, err := graph.FixedSplit(sets[0], sets[1], sets[2], n)
	if err != nil {
		return nil, fmt.Errorf("masks: %w", err)
	}
	return &split, nil
}
