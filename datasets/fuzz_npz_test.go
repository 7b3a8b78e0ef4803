package datasets

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// npzArrays are the members fromArchive reads, in the order of the fuzz
// arguments: the adjacency and attribute CSR arrays, labels and class names.
var npzArrays = []string{"data", "indices", "indptr", "shape"}

// npzLayout names the members of the three layouts fromArchive accepts:
// 0 graph2gauss / gnn-benchmark (adj_data, attr_data, ...), 1 SparseGraph
// (adj_matrix.data, attr_matrix.data, ...), 2 graph2gauss with a dense
// attr_matrix (the attribute data argument; the other three unused).
func npzLayout(layout byte) (adj, attr string, dense bool) {
	switch layout % 3 {
	case 1:
		return "adj_matrix.", "attr_matrix.", false
	case 2:
		return "adj_", "", true
	}
	return "adj_", "attr_", false
}

// npzSeed is one fuzz input: a layout and ten .npy files (empty: member
// absent).
type npzSeed struct {
	layout  byte
	members [10][]byte
}

// encodeLike encodes values in the dtype of a (numeric dtypes only).
func encodeLike(a *npy.Array, shape []int, ints []int64, floats []float64) []byte {
	var data []byte
	switch {
	case a.Dtype.Kind == npy.Float && a.Dtype.Size == 4:
		f := make([]float32, len(floats))
		for i, v := range floats {
			f[i] = float32(v)
		}
		data = npytest.F4(f...)
	case a.Dtype.Kind == npy.Float:
		data = npytest.F8(floats...)
	case a.Dtype.Size == 4:
		v := make([]int32, len(ints))
		for i, x := range ints {
			v[i] = int32(x)
		}
		data = npytest.I4(v...)
	default:
		data = npytest.I8(ints...)
	}
	return npytest.NPY(1, a.Dtype.String(), shape, data)
}

// realNPZSeed shrinks a shared benchmark file to the subgraph induced by
// the first perClass nodes of every class, keeping its layout, member
// dtypes, feature count and class names, so that the fuzzer starts from
// the arrays the loader meets in practice at a size it can mutate quickly.
func realNPZSeed(f *testing.F, file string, perClass int) (npzSeed, bool) {
	dir := testenv.DatasetsDir()
	if dir == "" {
		return npzSeed{}, false
	}
	ar, err := npy.ReadNPZFile(filepath.Join(dir, file))
	if err != nil {
		f.Fatal(err)
	}
	var s npzSeed
	adjP, attrP := "adj_", "attr_"
	if !ar.Has("adj_data") {
		s.layout, adjP, attrP = 1, "adj_matrix.", "attr_matrix."
	}
	labels, err := ints(ar, "labels")
	if err != nil {
		f.Fatal(err)
	}
	var keep []int
	count := map[int]int{}
	for i, y := range labels {
		if count[y] < perClass {
			count[y]++
			keep = append(keep, i)
		}
	}
	index := make(map[int]int, len(keep))
	for k, i := range keep {
		index[i] = k
	}
	for p, prefix := range []string{adjP, attrP} {
		m, err := readCSR(ar, prefix)
		if err != nil {
			f.Fatal(err)
		}
		cols := m.Cols
		if p == 0 {
			cols = len(keep)
		}
		ptr := []int64{0}
		var ind []int64
		var val []float64
		for _, i := range keep {
			for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
				j := m.Ind[k]
				if p == 0 {
					var ok bool
					if j, ok = index[j]; !ok {
						continue
					}
				}
				ind, val = append(ind, int64(j)), append(val, m.Val[k])
			}
			ptr = append(ptr, int64(len(ind)))
		}
		like := func(name string) *npy.Array { a, _ := ar.Get(prefix + name); return a }
		s.members[4*p] = encodeLike(like("data"), []int{len(val)}, nil, val)
		s.members[4*p+1] = encodeLike(like("indices"), []int{len(ind)}, ind, nil)
		s.members[4*p+2] = encodeLike(like("indptr"), []int{len(ptr)}, ptr, nil)
		s.members[4*p+3] = encodeLike(like("shape"), []int{2}, []int64{int64(len(keep)), int64(cols)}, nil)
	}
	y := make([]int64, len(keep))
	for k, i := range keep {
		y[k] = int64(labels[i])
	}
	la, _ := ar.Get("labels")
	s.members[8] = encodeLike(la, []int{len(y)}, y, nil)
	if a, ok := ar.Get("class_names"); ok {
		names, err := a.Strings()
		if err != nil {
			f.Fatal(err)
		}
		s.members[9] = npytest.NPY(1, a.Dtype.String(), []int{len(names)}, npytest.U(a.Dtype.Size/4, names...))
	}
	return s, true
}

// archiveOf zips the seed's members under the names of its layout.
func archiveOf(layout byte, members [10][]byte) []byte {
	adj, attr, dense := npzLayout(layout)
	var ms []npytest.Member
	add := func(name string, b []byte) {
		if len(b) > 0 {
			ms = append(ms, npytest.Member{Name: name, Data: b})
		}
	}
	for k, a := range npzArrays {
		add(adj+a, members[k])
		if !dense {
			add(attr+a, members[4+k])
		}
	}
	if dense {
		add("attr_matrix", members[4])
	}
	add("labels", members[8])
	add("class_names", members[9])
	return npytest.NPZ(zip.Store, ms...)
}

// FuzzLoadNPZ feeds fromArchive, the step from an npz file's arrays to a
// Graph, with well-formed archives of arbitrary arrays: whatever their
// shapes, dtypes and values, it returns a valid graph or an error, never
// panics, and allocates in proportion to its input.
func FuzzLoadNPZ(f *testing.F) {
	tiny := func(v ...int64) []byte { return npytest.NPY(1, "<i8", []int{len(v)}, npytest.I8(v...)) }
	// A 3-node path with 2 features, labels 0 1 0.
	var hand npzSeed
	hand.members = [10][]byte{
		npytest.NPY(1, "<f4", []int{2}, npytest.F4(1, 1)), tiny(1, 2), tiny(0, 1, 2, 2), tiny(3, 3),
		npytest.NPY(1, "<f8", []int{3}, npytest.F8(1, 0.5, 2)), tiny(0, 1, 1), tiny(0, 1, 2, 3), tiny(3, 2),
		tiny(0, 1, 0), npytest.NPY(1, "<U1", []int{2}, npytest.U(1, "a", "b")),
	}
	seeds := []npzSeed{hand}
	dense := hand
	dense.layout, dense.members[4] = 2, npytest.NPY(1, "<f8", []int{3, 2}, npytest.F8(1, 0, 0, 1, 1, 1))
	seeds = append(seeds, dense)
	for _, file := range []string{"cora_ml.npz", "citeseer.npz", "amazon_electronics_photo.npz"} {
		if s, ok := realNPZSeed(f, file, 3); ok {
			seeds = append(seeds, s)
		}
	}
	for _, s := range seeds {
		m := s.members
		f.Add(s.layout, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9])
	}
	f.Fuzz(func(t *testing.T, layout byte, adjData, adjIndices, adjIndptr, adjShape, attrData, attrIndices, attrIndptr, attrShape, labels, classNames []byte) {
		b := archiveOf(layout, [10][]byte{adjData, adjIndices, adjIndptr, adjShape, attrData, attrIndices, attrIndptr, attrShape, labels, classNames})
		ar, err := npy.ReadNPZ(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		var g any
		alloc := testenv.AllocatedBy(func() {
			gr, err := fromArchive(ar, "Fuzz")
			if err != nil {
				return
			}
			if verr := gr.Validate(); verr != nil {
				t.Fatalf("fromArchive returned an invalid graph: %v", verr)
			}
			if len(gr.Labels) != gr.N || slices.ContainsFunc(gr.Labels, func(y int) bool { return y < 0 || y >= gr.NumClasses }) {
				t.Fatalf("labels %v for %d nodes, %d classes", gr.Labels, gr.N, gr.NumClasses)
			}
			g = gr
		})
		// The loader may convert each input byte to a few 8-byte values and
		// build the symmetric adjacency and the features from them.
		if limit := uint64(64*len(b) + 1<<20); alloc > limit {
			t.Fatalf("%d bytes of arrays allocated %d bytes (limit %d); graph %s", len(b), alloc, limit, fmt.Sprint(g != nil))
		}
	})
}
