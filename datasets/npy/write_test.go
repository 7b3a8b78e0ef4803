package npy_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets/npy"
)

func TestWriteNPZRoundTrip(t *testing.T) {
	f, err := npy.Float64Array([]int{2, 3}, []float64{1.5, -2, 0, 3.25, 1e-300, 7})
	if err != nil {
		t.Fatal(err)
	}
	i, err := npy.Int64Array([]int{4}, []int64{0, -1, 1 << 40, 3})
	if err != nil {
		t.Fatal(err)
	}
	s, err := npy.Int64Array([]int{}, []int64{42})
	if err != nil {
		t.Fatal(err)
	}
	u, err := npy.StringArray([]string{"Case_Based", "", "Théorie"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := npy.WriteNPZ(&b, npy.Member{Name: "f", Array: f}, npy.Member{Name: "i", Array: i}, npy.Member{Name: "scalar", Array: s}, npy.Member{Name: "u", Array: u}); err != nil {
		t.Fatal(err)
	}
	ar, err := npy.ReadNPZ(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if got := ar.Names(); !slices.Equal(got, []string{"f", "i", "scalar", "u"}) {
		t.Fatalf("names %v", got)
	}
	gf, _ := ar.Get("f")
	if v, err := gf.Float64s(); err != nil || !slices.Equal(v, []float64{1.5, -2, 0, 3.25, 1e-300, 7}) || !slices.Equal(gf.Shape, []int{2, 3}) {
		t.Errorf("f: %v %v shape %v", v, err, gf.Shape)
	}
	gi, _ := ar.Get("i")
	if v, err := gi.Int64s(); err != nil || !slices.Equal(v, []int64{0, -1, 1 << 40, 3}) || gi.Dtype.String() != "<i8" {
		t.Errorf("i: %v %v %v", v, err, gi.Dtype)
	}
	gu, _ := ar.Get("u")
	if v, err := gu.Strings(); err != nil || !slices.Equal(v, []string{"Case_Based", "", "Théorie"}) || gu.Dtype.String() != "<U10" {
		t.Errorf("u: %q %v %v", v, err, gu.Dtype)
	}
	gs, _ := ar.Get("scalar")
	if v, err := gs.Int64s(); err != nil || !slices.Equal(v, []int64{42}) || len(gs.Shape) != 0 {
		t.Errorf("scalar: %v %v shape %v", v, err, gs.Shape)
	}
}

// TestWriteHeaderLayout checks the bytes numpy.save writes for a 1-D
// float64 array: format 1.0, the dictionary padded so that the data starts
// at a multiple of 64 bytes (NumPy's alignment; here byte 128, a header
// length of 118), ending in a newline.
func TestWriteHeaderLayout(t *testing.T) {
	a, err := npy.Float64Array([]int{3}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := npy.Write(&b, a); err != nil {
		t.Fatal(err)
	}
	got := b.Bytes()
	const dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
	if len(got) != 128+24 || string(got[:8]) != "\x93NUMPY\x01\x00" || got[8] != 118 || got[9] != 0 {
		t.Fatalf("header prefix % x, %d bytes", got[:10], len(got))
	}
	if h := string(got[10:128]); !strings.HasPrefix(h, dict) || h[len(h)-1] != '\n' || strings.TrimSpace(h[len(dict):]) != "" {
		t.Errorf("header %q", h)
	}
	back, err := npy.Read(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := back.Float64s(); !slices.Equal(v, []float64{1, 2, 3}) {
		t.Errorf("read back %v", v)
	}
}

func TestArrayShapeErrors(t *testing.T) {
	for _, tc := range []struct {
		shape []int
		n     int
		want  string
	}{
		{[]int{2, 2}, 3, "3 elements for shape [2 2]"},
		{[]int{-1}, 0, "shape [-1] has a dimension out of"},
		{[]int{1 << 30, 1 << 30}, 0, "more than 2^48 elements"},
	} {
		if _, err := npy.Float64Array(tc.shape, make([]float64, tc.n)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("shape %v with %d values: error %v, want %q", tc.shape, tc.n, err, tc.want)
		}
	}
}
