package npy_test

import (
	"archive/zip"
	"bytes"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

// seeds are small well-formed .npy files of every supported dtype and
// format version.
func seeds() [][]byte {
	return [][]byte{
		npytest.NPY(1, "<f4", []int{2, 2}, npytest.F4(1, 2, 3, 4)),
		npytest.NPY(2, "<f8", []int{2}, npytest.F8(1, -1)),
		npytest.NPY(3, "<i4", []int{3}, npytest.I4(0, 1, 3)),
		npytest.NPY(1, "<i8", []int{}, npytest.I8(7)),
		npytest.NPY(1, "|u1", []int{2}, []byte{1, 2}),
		npytest.NPY(1, "|b1", []int{1}, []byte{1}),
		npytest.NPY(1, "<U3", []int{2}, npytest.U(3, "abc", "d")),
		npytest.NPY(1, "|O", []int{}, []byte("\x80\x04N.")),
	}
}

// exercise decodes a successfully read array in every way; none may panic.
func exercise(t *testing.T, a *npy.Array) {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	if a.Len() != n {
		t.Fatalf("Len %d, shape %v", a.Len(), a.Shape)
	}
	a.Float64s()
	a.Ints()
	a.Strings()
}

func FuzzReadNPY(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := npy.Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		exercise(t, a)
	})
}

func FuzzReadNPZ(f *testing.F) {
	s := seeds()
	f.Add(npytest.NPZ(zip.Store, npytest.Member{Name: "adj_indptr", Data: s[2]}, npytest.Member{Name: "o", Data: s[7]}))
	f.Add(npytest.NPZ(zip.Deflate, npytest.Member{Name: "attr_data", Data: s[0]}, npytest.Member{Name: "class_names", Data: s[6]}))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := npy.ReadNPZ(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, name := range a.Names() {
			arr, ok := a.Get(name)
			if !ok {
				t.Fatalf("listed member %q missing", name)
			}
			exercise(t, arr)
		}
	})
}
