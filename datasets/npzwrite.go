package datasets

import (
	"bufio"
	"fmt"
	"os"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

// WriteNPZ writes g to the file at path as an uncompressed .npz archive in
// the gnn-benchmark layout that LoadNPZ, PyTorch Geometric and the
// project's PyTorch baselines read: adj_data, adj_indices, adj_indptr and
// adj_shape, the CSR arrays of the adjacency pattern (data all 1);
// attr_data, attr_indices, attr_indptr and attr_shape, those of the
// features' non-zero entries; labels; and class_names when g has them.
// Index arrays are int64, values float64.
//
// Loaders of this layout binarize the features and normalise their rows,
// so LoadNPZ returns g itself for a graph whose features already are
// binary rows scaled to sum 1 (every graph LoadNPZ returned); other
// features, such as datasets.ArxivLike's real-valued ones, are written as
// they are and read back as the 0/1 pattern of their positive entries,
// scaled. Every node needs a label in [0, g.NumClasses).
func WriteNPZ(path string, g *graph.Graph) (err error) {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("datasets: WriteNPZ: %w", err)
	}
	for i, y := range g.Labels {
		if y < 0 {
			return fmt.Errorf("datasets: WriteNPZ %s: node %d has no label, and the npz layout has none for unlabelled nodes", g.Name, i)
		}
	}
	var x *tensor.CSR
	switch f := g.Features.(type) {
	case *tensor.CSR:
		x = f
	case *tensor.Dense:
		x = tensor.DenseToCSR(f)
	default:
		return fmt.Errorf("datasets: WriteNPZ %s: features of type %T", g.Name, g.Features)
	}
	members, err := csrMembers("adj_", g.Adj, true)
	if err != nil {
		return err
	}
	attr, err := csrMembers("attr_", x, false)
	if err != nil {
		return err
	}
	members = append(members, attr...)
	a, err := npy.Int64Array([]int{len(g.Labels)}, int64s(g.Labels))
	if err != nil {
		return err
	}
	members = append(members, npy.Member{Name: "labels", Array: a})
	if len(g.ClassNames) > 0 {
		a, err := npy.StringArray(g.ClassNames)
		if err != nil {
			return err
		}
		members = append(members, npy.Member{Name: "class_names", Array: a})
	}

	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("datasets: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := npy.WriteNPZ(w, members...); err != nil {
		return fmt.Errorf("datasets: %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	return nil
}

// csrMembers returns the four arrays of s's CSR form named with prefix:
// data (all ones when pattern is set), indices, indptr and shape.
func csrMembers(prefix string, s *tensor.CSR, pattern bool) ([]npy.Member, error) {
	val := s.Val
	if pattern {
		val = make([]float64, s.NNZ())
		for k := range val {
			val[k] = 1
		}
	}
	data, err := npy.Float64Array([]int{len(val)}, val)
	if err != nil {
		return nil, err
	}
	indices, err := npy.Int64Array([]int{len(s.Ind)}, int64s(s.Ind))
	if err != nil {
		return nil, err
	}
	indptr, err := npy.Int64Array([]int{len(s.Ptr)}, int64s(s.Ptr))
	if err != nil {
		return nil, err
	}
	shape, err := npy.Int64Array([]int{2}, []int64{int64(s.Rows), int64(s.Cols)})
	if err != nil {
		return nil, err
	}
	return []npy.Member{
		{Name: prefix + "data", Array: data},
		{Name: prefix + "indices", Array: indices},
		{Name: prefix + "indptr", Array: indptr},
		{Name: prefix + "shape", Array: shape},
	}, nil
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
