package npy_test

import (
	"archive/zip"
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
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

// maxRealSeed bounds the members of the real files used as seeds, which
// keeps the corpus small.
const maxRealSeed = 2 << 10

// realMembers returns the members of at most maxRealSeed bytes of the
// shared benchmark files (shapes, class names, pickled metadata: the
// headers and dtypes the loaders meet), or none when the files are not
// present. The seeds depend on the files, not on a committed corpus.
func realMembers(f *testing.F, file string) []npytest.Member {
	dir := testenv.DatasetsDir()
	if dir == "" {
		return nil
	}
	z, err := zip.OpenReader(filepath.Join(dir, file))
	if err != nil {
		f.Fatalf("seed file: %v", err)
	}
	defer z.Close()
	var ms []npytest.Member
	for _, m := range z.File {
		if m.UncompressedSize64 > maxRealSeed {
			continue
		}
		r, err := m.Open()
		if err != nil {
			f.Fatalf("seed %s/%s: %v", file, m.Name, err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			f.Fatalf("seed %s/%s: %v", file, m.Name, err)
		}
		ms = append(ms, npytest.Member{Name: m.Name, Data: b})
	}
	return ms
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
	for _, file := range []string{"cora_ml.npz", "citeseer.npz"} {
		for _, m := range realMembers(f, file) {
			f.Add(m.Data)
		}
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
	if ms := realMembers(f, "cora_ml.npz"); len(ms) > 0 {
		f.Add(npytest.NPZ(zip.Store, ms...)) // graph2gauss layout, stored
	}
	if ms := realMembers(f, "citeseer.npz"); len(ms) > 0 {
		f.Add(npytest.NPZ(zip.Deflate, ms...)) // deflated members
	}
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
