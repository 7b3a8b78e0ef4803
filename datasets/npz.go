package datasets

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

// MaxFeatures bounds the number of feature columns a loader accepts. A
// column of a sparse attribute matrix costs nothing until a model gives it
// a row of weights, so a file could declare any number of them; a model's
// first layer holds 64 float64 weights per feature, 8 GiB at this bound,
// while the benchmark graphs have at most a few thousand features.
const MaxFeatures = 1 << 24

// LoadNPZ reads a node-classification graph from an .npz file in either of
// the two layouts in use:
//
//   - graph2gauss / gnn-benchmark (CitationFull, Amazon): adj_data,
//     adj_indices, adj_indptr, adj_shape; attr_data, attr_indices,
//     attr_indptr, attr_shape (or a dense attr_matrix); labels;
//     class_names optional.
//   - SparseGraph (ppnp, sparse_smoothing): the same arrays named
//     adj_matrix.data, adj_matrix.indices, ... and attr_matrix.*.
//
// It processes the arrays as PyTorch Geometric does (torch_geometric.io.npz
// followed by the NormalizeFeatures transform and to_undirected):
//
//  1. the attribute matrix (duplicates summed) is binarized, x_ij = 1 where
//     x_ij > 0;
//  2. every stored adjacency entry (i, j) is an edge; self loops are removed
//     and the edge set is symmetrised and coalesced, so Adj is the 0/1
//     pattern of A + Aᵀ without diagonal;
//  3. each feature row is divided by max(row sum, 1);
//  4. features are stored as CSR or dense by density (graph.CompactFeatures).
//
// NumClasses is len(class_names) when present, else max(labels)+1. Errors
// name the file and the problem: unreadable or corrupt archives, missing
// arrays, wrong dtypes or shapes, index arrays out of range or not
// monotone, non-finite attributes, negative or out-of-range labels, more
// than MaxFeatures attribute columns.
func LoadNPZ(path, name string) (*graph.Graph, error) {
	ar, err := npy.ReadNPZFile(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	g, err := fromArchive(ar, name)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", path, err)
	}
	return g, nil
}

// fromArchive builds the graph from the decoded arrays of an npz file.
func fromArchive(ar *npy.Archive, name string) (*graph.Graph, error) {
	adjPrefix, attrPrefix := "adj_", "attr_"
	if !ar.Has("adj_data") && ar.Has("adj_matrix.data") {
		adjPrefix, attrPrefix = "adj_matrix.", "attr_matrix."
	}
	adj, err := readAdjacency(ar, adjPrefix)
	if err != nil {
		return nil, err
	}
	n := adj.Rows
	x, err := readAttributes(ar, attrPrefix, n)
	if err != nil {
		return nil, err
	}
	labels, numClasses, classNames, err := readLabels(ar, n)
	if err != nil {
		return nil, err
	}
	x = graph.CompactFeatures(graph.NormalizeFeatures(graph.Binarize(x)))
	return graph.New(name, adj, x, labels, numClasses, classNames)
}

// readAdjacency reads the square adjacency prefix+{data,...} as an
// unweighted undirected graph without self loops.
func readAdjacency(ar *npy.Archive, prefix string) (*tensor.CSR, error) {
	adj, err := readCSR(ar, prefix)
	if err != nil {
		return nil, err
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("adjacency %sshape is %dx%d, not square", prefix, adj.Rows, adj.Cols)
	}
	// Every stored entry is an edge, whatever its value (PyG reads the
	// coordinates of the COO form).
	for k := range adj.Val {
		adj.Val[k] = 1
	}
	return graph.ToUndirected(graph.RemoveSelfLoops(adj)), nil
}

// readAttributes reads the attributes of the n nodes, the CSR arrays
// prefix+{data,...} or a dense attr_matrix.
func readAttributes(ar *npy.Archive, prefix string, n int) (tensor.Matrix, error) {
	var x tensor.Matrix
	switch {
	case ar.Has(prefix + "data"):
		s, err := readCSR(ar, prefix)
		if err != nil {
			return nil, err
		}
		x = s
	case ar.Has("attr_matrix"):
		d, err := readDense(ar, "attr_matrix")
		if err != nil {
			return nil, err
		}
		x = d
	default:
		return nil, fmt.Errorf("missing array %sdata (or attr_matrix): no node attributes", prefix)
	}
	if rows, cols := x.Dims(); rows != n {
		return nil, fmt.Errorf("attributes have %d rows, adjacency has %d nodes", rows, n)
	} else if cols > MaxFeatures {
		return nil, fmt.Errorf("attributes have %d columns, more than the %d features a model can take", cols, MaxFeatures)
	}
	return x, nil
}

// readLabels reads the labels of the n nodes and the class names, and
// returns the number of classes: len(class_names) when present, else
// max(labels)+1.
func readLabels(ar *npy.Archive, n int) (labels []int, numClasses int, classNames []string, err error) {
	if labels, err = ints(ar, "labels"); err != nil {
		return nil, 0, nil, err
	}
	if len(labels) != n {
		return nil, 0, nil, fmt.Errorf("labels has %d entries for %d nodes", len(labels), n)
	}
	if classNames, err = classNamesOf(ar); err != nil {
		return nil, 0, nil, err
	}
	numClasses = len(classNames)
	for i, y := range labels {
		if y < 0 {
			return nil, 0, nil, fmt.Errorf("label %d of node %d is negative", y, i)
		}
		if classNames != nil && y >= numClasses {
			return nil, 0, nil, fmt.Errorf("label %d of node %d out of range: %d class names", y, i, numClasses)
		}
		if classNames == nil {
			if y >= n {
				return nil, 0, nil, fmt.Errorf("label %d of node %d out of range [0, %d): more classes than nodes", y, i, n)
			}
			numClasses = max(numClasses, y+1)
		}
	}
	if err := checkClasses(labels, numClasses, classNames); err != nil {
		return nil, 0, nil, err
	}
	return labels, numClasses, classNames, nil
}

// readCSR reads the CSR arrays prefix+{data,indices,indptr,shape}, checking
// them fully: shape is two non-negative integers, indptr has rows+1
// non-decreasing entries from 0 to nnz, indices lie in [0, cols) and data
// is finite with one value per index. Duplicate or unsorted column indices
// (allowed by scipy) are summed and sorted.
func readCSR(ar *npy.Archive, prefix string) (*tensor.CSR, error) {
	shape, err := ints(ar, prefix+"shape")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] < 0 || shape[1] < 0 {
		return nil, fmt.Errorf("%sshape is %v, want two non-negative sizes", prefix, shape)
	}
	rows, cols := shape[0], shape[1]
	ptr, err := ints(ar, prefix+"indptr")
	if err != nil {
		return nil, err
	}
	ind, err := ints(ar, prefix+"indices")
	if err != nil {
		return nil, err
	}
	val, err := floats(ar, prefix+"data")
	if err != nil {
		return nil, err
	}
	if len(ptr) != rows+1 {
		return nil, fmt.Errorf("%sindptr has %d entries, want rows+1 = %d", prefix, len(ptr), rows+1)
	}
	if len(val) != len(ind) {
		return nil, fmt.Errorf("%sdata has %d values for %d indices", prefix, len(val), len(ind))
	}
	if ptr[0] != 0 || ptr[rows] != len(ind) {
		return nil, fmt.Errorf("%sindptr runs from %d to %d, want 0 to nnz = %d", prefix, ptr[0], ptr[rows], len(ind))
	}
	// Monotone from 0 to nnz, indptr indexes within the indices; check it
	// whole before using it.
	for i := range rows {
		if ptr[i+1] < ptr[i] {
			return nil, fmt.Errorf("%sindptr is not monotone: decreases at row %d (%d > %d)", prefix, i, ptr[i], ptr[i+1])
		}
	}
	for i := range rows {
		for k := ptr[i]; k < ptr[i+1]; k++ {
			if j := ind[k]; j < 0 || j >= cols {
				return nil, fmt.Errorf("%sindices: column %d of row %d out of range [0, %d)", prefix, j, i, cols)
			}
			if v := val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%sdata: non-finite value %v at (%d, %d)", prefix, v, i, ind[k])
			}
		}
	}
	if sortedUnique(ptr, ind) {
		return tensor.NewCSR(rows, cols, ptr, ind, val)
	}
	return canonical(&tensor.CSR{Rows: rows, Cols: cols, Ptr: ptr, Ind: ind, Val: val})
}

// canonical sorts the column indices of each row of s (whose indices are
// in range but may be unsorted or repeated) and sums repeated entries, as
// scipy's sum_duplicates. Rows are sorted in place, so nothing is
// allocated in proportion to the number of columns, which a file may
// declare as large as it likes.
func canonical(s *tensor.CSR) (*tensor.CSR, error) {
	type entry struct {
		j int
		v float64
	}
	var row []entry
	out := 0
	ptr := make([]int, s.Rows+1)
	for i := range s.Rows {
		row = row[:0]
		for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
			row = append(row, entry{s.Ind[k], s.Val[k]})
		}
		slices.SortStableFunc(row, func(a, b entry) int { return cmp.Compare(a.j, b.j) })
		start := out
		for _, e := range row {
			if out > start && s.Ind[out-1] == e.j {
				s.Val[out-1] += e.v
				continue
			}
			s.Ind[out], s.Val[out] = e.j, e.v
			out++
		}
		ptr[i+1] = out
	}
	return tensor.NewCSR(s.Rows, s.Cols, ptr, s.Ind[:out:out], s.Val[:out:out])
}

// sortedUnique reports whether every row's column indices strictly
// increase, the canonical scipy format.
func sortedUnique(ptr, ind []int) bool {
	for i := 0; i+1 < len(ptr); i++ {
		for k := ptr[i] + 1; k < ptr[i+1]; k++ {
			if ind[k] <= ind[k-1] {
				return false
			}
		}
	}
	return true
}

// readDense reads a 2-D finite numeric array as a dense matrix.
func readDense(ar *npy.Archive, name string) (*tensor.Dense, error) {
	a, v, err := readArray(ar, name, 2, (*npy.Array).Float64s)
	if err != nil {
		return nil, err
	}
	if i := slices.IndexFunc(v, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }); i >= 0 {
		return nil, fmt.Errorf("%s: non-finite value %v at (%d, %d)", name, v[i], i/a.Shape[1], i%a.Shape[1])
	}
	return tensor.FromSlice(a.Shape[0], a.Shape[1], v)
}

// ints reads a 1-D integer array.
func ints(ar *npy.Archive, name string) ([]int, error) {
	_, v, err := readArray(ar, name, 1, (*npy.Array).Ints)
	return v, err
}

// floats reads a 1-D numeric array.
func floats(ar *npy.Archive, name string) ([]float64, error) {
	_, v, err := readArray(ar, name, 1, (*npy.Array).Float64s)
	return v, err
}

// readArray returns the array name of ar, which must have dims dimensions,
// and its values converted by read.
func readArray[T any](ar *npy.Archive, name string, dims int, read func(*npy.Array) ([]T, error)) (*npy.Array, []T, error) {
	a, ok := ar.Get(name)
	if !ok {
		return nil, nil, fmt.Errorf("missing array %s", name)
	}
	if len(a.Shape) != dims {
		return nil, nil, fmt.Errorf("%s has shape %v, want %d-D", name, a.Shape, dims)
	}
	v, err := read(a)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, v, nil
}

// checkClasses returns an error naming the first class without nodes.
func checkClasses(labels []int, numClasses int, classNames []string) error {
	if numClasses > len(labels) {
		return fmt.Errorf("%d classes for %d nodes: some class has no nodes", numClasses, len(labels))
	}
	count := make([]int, numClasses)
	for _, y := range labels {
		if y >= 0 && y < numClasses {
			count[y]++
		}
	}
	for c, k := range count {
		if k == 0 {
			if classNames != nil {
				return fmt.Errorf("class %d (%q) has no nodes", c, classNames[c])
			}
			return fmt.Errorf("class %d has no nodes", c)
		}
	}
	return nil
}

// classNamesOf returns the archive's optional 1-D class_names array, nil
// when it has none.
func classNamesOf(ar *npy.Archive) ([]string, error) {
	a, ok := ar.Get("class_names")
	if !ok {
		return nil, nil
	}
	if len(a.Shape) != 1 {
		return nil, fmt.Errorf("class_names has shape %v, want 1-D", a.Shape)
	}
	names, err := a.Strings()
	if err != nil {
		return nil, fmt.Errorf("class_names: %w", err)
	}
	return names, nil
}
