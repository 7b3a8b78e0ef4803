package npy_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

func TestReadDtypes(t *testing.T) {
	for _, major := range []int{1, 2, 3} {
		a := mustRead(t, npytest.NPY(major, "<f4", []int{2, 2}, npytest.F4(1.5, -2, 0.25, 3e38)))
		if a.Dtype != (npy.Dtype{Kind: npy.Float, Size: 4}) || !slices.Equal(a.Shape, []int{2, 2}) {
			t.Fatalf("v%d: dtype %v shape %v", major, a.Dtype, a.Shape)
		}
		f, err := a.Float64s()
		if err != nil || !slices.Equal(f, []float64{1.5, -2, 0.25, float64(float32(3e38))}) {
			t.Fatalf("v%d: <f4 = %v, %v", major, f, err)
		}
	}
	f := floats(t, npytest.NPY(1, "<f8", []int{3}, npytest.F8(math.Pi, -0.5, math.Inf(1))))
	if !slices.Equal(f, []float64{math.Pi, -0.5, math.Inf(1)}) {
		t.Errorf("<f8 = %v", f)
	}
	for _, c := range []struct {
		descr string
		data  []byte
		want  []int
	}{
		{"<i4", npytest.I4(-1, 7, math.MaxInt32), []int{-1, 7, math.MaxInt32}},
		{"<i8", npytest.I8(-1<<40, 0, 5), []int{-1 << 40, 0, 5}},
		{"|u1", []byte{0, 200, 255}, []int{0, 200, 255}},
		{"|b1", []byte{1, 0, 1}, []int{1, 0, 1}},
	} {
		a := mustRead(t, npytest.NPY(1, c.descr, []int{3}, c.data))
		got, err := a.Ints()
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: Ints = %v, %v; want %v", c.descr, got, err, c.want)
		}
		if a.Dtype.String() != c.descr {
			t.Errorf("Dtype.String = %q, want %q", a.Dtype.String(), c.descr)
		}
		// Integers also convert to float64.
		fl, err := a.Float64s()
		if err != nil || fl[2] != float64(c.want[2]) {
			t.Errorf("%s: Float64s = %v, %v", c.descr, fl, err)
		}
	}
	a := mustRead(t, npytest.NPY(1, "<U4", []int{3}, npytest.U(4, "ab", "Ωxyz", "")))
	s, err := a.Strings()
	if err != nil || !slices.Equal(s, []string{"ab", "Ωxyz", ""}) {
		t.Errorf("<U4 = %q, %v", s, err)
	}
	if a.Dtype.String() != "<U4" {
		t.Errorf("Dtype.String = %q", a.Dtype.String())
	}
	// A 0-d array (shape ()) holds one element, as numpy.save("x", "text").
	a = mustRead(t, npytest.NPY(1, "<U3", []int{}, npytest.U(3, "dir")))
	if s, _ := a.Strings(); a.Len() != 1 || len(a.Shape) != 0 || s[0] != "dir" {
		t.Errorf("scalar: len %d shape %v strings %q", a.Len(), a.Shape, s)
	}
	// An empty array.
	if a := mustRead(t, npytest.NPY(2, "<f8", []int{0, 5}, nil)); a.Len() != 0 {
		t.Errorf("empty: len %d", a.Len())
	}
}

func TestReadLeavesTrailingBytes(t *testing.T) {
	r := bytes.NewReader(append(npytest.NPY(1, "|u1", []int{2}, []byte{4, 5}), 9, 9))
	if _, err := npy.Read(r); err != nil {
		t.Fatal(err)
	}
	if r.Len() != 2 {
		t.Errorf("%d bytes left, want the 2 trailing bytes", r.Len())
	}
}

func TestReadErrors(t *testing.T) {
	good := npytest.NPY(1, "<f8", []int{2}, npytest.F8(1, 2))
	hdr := func(dict string, data []byte) []byte { return npytest.NPYHeader(1, dict, data) }
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "reading magic"},
		{"bad magic", append([]byte("\x93NUMPX"), good[6:]...), "bad magic"},
		{"version 4", append(append([]byte{}, good[:6]...), append([]byte{4, 0}, good[8:]...)...), "unsupported format version 4.0"},
		{"version 1.1", append(append([]byte{}, good[:6]...), append([]byte{1, 1}, good[8:]...)...), "unsupported format version 1.1"},
		{"truncated header", good[:20], "reading 118-byte header"},
		{"truncated data", good[:len(good)-3], "data truncated: 13 bytes"},
		{"big endian", npytest.NPY(1, ">f8", []int{1}, npytest.F8(1)), `unsupported dtype ">f8"`},
		{"float16", npytest.NPY(1, "<f2", []int{1}, []byte{0, 0}), `unsupported dtype "<f2"`},
		{"fortran", hdr("{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }", npytest.F8(1)), "fortran_order arrays are not supported"},
		{"structured", hdr("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", npytest.F8(1)), "structured dtypes are not supported"},
		{"missing shape", hdr("{'descr': '<f8', 'fortran_order': False, }", npytest.F8(1)), "lacks one of"},
		{"unknown key", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", npytest.F8(1)), `unknown key "x"`},
		{"negative dim", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", npytest.F8(1)), "non-negative integer"},
		{"huge shape", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", npytest.F8(1)), "too large"},
		{"not a dict", hdr("['descr']", nil), "not a dictionary"},
		{"trailing", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x", npytest.F8(1)), "trailing bytes"},
		{"object", npytest.NPY(1, "|O", []int{1}, []byte("pickle")), "object dtype"},
	} {
		_, err := npy.Read(bytes.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestConversionErrors(t *testing.T) {
	f := mustRead(t, npytest.NPY(1, "<f8", []int{1}, npytest.F8(1)))
	if _, err := f.Ints(); err == nil || !strings.Contains(err.Error(), "<f8 is not an integer type") {
		t.Errorf("Ints on <f8: %v", err)
	}
	if _, err := f.Strings(); err == nil || !strings.Contains(err.Error(), "not a unicode string type") {
		t.Errorf("Strings on <f8: %v", err)
	}
	u := mustRead(t, npytest.NPY(1, "<U1", []int{1}, npytest.I4(0xD800)))
	if _, err := u.Strings(); err == nil || !strings.Contains(err.Error(), "invalid code point 0xd800") {
		t.Errorf("surrogate: %v", err)
	}
	if _, err := u.Float64s(); err == nil || !strings.Contains(err.Error(), "not numeric") {
		t.Errorf("Float64s on <U1: %v", err)
	}
}

func TestReadNPZ(t *testing.T) {
	members := []npytest.Member{
		{Name: "adj_matrix.indptr", Data: npytest.NPY(1, "<i4", []int{3}, npytest.I4(0, 1, 2))},
		{Name: "meta", Data: npytest.NPY(1, "|O", []int{}, []byte("\x80\x04pickled"))},
		{Name: "labels", Data: npytest.NPY(1, "<i8", []int{2}, npytest.I8(1, 0))},
	}
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		b := npytest.NPZ(method, members...)
		a, err := npy.ReadNPZ(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("method %d: %v", method, err)
		}
		if !slices.Equal(a.Names(), []string{"adj_matrix.indptr", "labels"}) || !slices.Equal(a.Skipped(), []string{"meta"}) {
			t.Fatalf("names %v skipped %v", a.Names(), a.Skipped())
		}
		l, _ := a.Get("labels")
		if v, err := l.Ints(); err != nil || !slices.Equal(v, []int{1, 0}) {
			t.Errorf("labels = %v, %v", v, err)
		}
		if a.Has("meta") || !a.Has("labels") {
			t.Error("Has is wrong")
		}
	}
}

func TestReadNPZErrors(t *testing.T) {
	one := npytest.Member{Name: "x", Data: npytest.NPY(1, "<f8", []int{2}, npytest.F8(1, 2))}
	good := npytest.NPZ(zip.Store, one)
	// Flip a stored data byte so the member no longer matches its CRC-32.
	corrupt := bytes.Clone(good)
	corrupt[bytes.Index(corrupt, npytest.F8(1, 2))] ^= 0xff
	var txt bytes.Buffer
	zw := zip.NewWriter(&txt)
	zw.Create("x.txt")
	zw.Close()
	long := npytest.NPZ(zip.Deflate, npytest.Member{Name: "x", Data: append(bytes.Clone(one.Data), 0)})
	short := npytest.NPZ(zip.Deflate, npytest.Member{Name: "x", Data: one.Data[:len(one.Data)-1]})
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"not zip", []byte("hello"), "not a valid zip archive"},
		{"truncated", good[:len(good)-10], "not a valid zip archive"},
		{"crc", corrupt, `member "x.npy": zip: checksum error`},
		{"extra data", long, "member holds 17"},
		{"short data", short, "member holds 15"},
		{"not npy", txt.Bytes(), `member "x.txt" is not a .npy file`},
		{"duplicate", npytest.NPZ(zip.Store, one, one), `duplicate member "x.npy"`},
		{"bad member", npytest.NPZ(zip.Store, npytest.Member{Name: "y", Data: []byte("junk")}), `member "y.npy": npy: reading magic`},
	} {
		_, err := npy.ReadNPZ(bytes.NewReader(c.in), int64(len(c.in)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := npy.ReadNPZFile("/nonexistent/x.npz"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func mustRead(t *testing.T, b []byte) *npy.Array {
	t.Helper()
	a, err := npy.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func floats(t *testing.T, b []byte) []float64 {
	t.Helper()
	f, err := mustRead(t, b).Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return f
}
