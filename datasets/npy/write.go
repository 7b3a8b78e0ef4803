package npy

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// Float64Array returns a <f8 array of the given shape holding v, which must
// have as many elements as the shape's product.
func Float64Array(shape []int, v []float64) (*Array, error) {
	data := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(x))
	}
	return newArray(Dtype{Kind: Float, Size: 8}, shape, data)
}

// Int64Array returns an <i8 array of the given shape holding v.
func Int64Array(shape []int, v []int64) (*Array, error) {
	data := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(x))
	}
	return newArray(Dtype{Kind: Int, Size: 8}, shape, data)
}

func newArray(d Dtype, shape []int, data []byte) (*Array, error) {
	n, err := elements(shape)
	if err != nil {
		return nil, err
	}
	if n*d.Size != len(data) {
		return nil, fmt.Errorf("npy: %d elements for shape %v", len(data)/d.Size, shape)
	}
	return &Array{Dtype: d, Shape: append([]int(nil), shape...), data: data}, nil
}

// Write writes a as a .npy file: format 1.0 when its header dictionary
// fits a 16-bit length, else 2.0, the header padded with spaces and a
// newline so that the data starts at a multiple of 64 bytes, as numpy.save
// writes it.
func Write(w io.Writer, a *Array) error {
	dims := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = fmt.Sprint(d)
	}
	shape := strings.Join(dims, ", ")
	if len(a.Shape) == 1 {
		shape += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.Dtype, shape)
	// The magic string and version take 8 bytes, the header length 2
	// (format 1.0) or 4 (2.0).
	major, prefix := 1, 10
	padded := (prefix + len(dict) + 1 + 63) / 64 * 64
	if padded-prefix > math.MaxUint16 {
		major, prefix = 2, 12
		padded = (prefix + len(dict) + 1 + 63) / 64 * 64
	}
	header := make([]byte, 0, padded)
	header = append(header, "\x93NUMPY"...)
	header = append(header, byte(major), 0)
	if major == 1 {
		header = binary.LittleEndian.AppendUint16(header, uint16(padded-prefix))
	} else {
		header = binary.LittleEndian.AppendUint32(header, uint32(padded-prefix))
	}
	header = append(header, dict...)
	for len(header) < padded-1 {
		header = append(header, ' ')
	}
	header = append(header, '\n')
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err := w.Write(a.data)
	return err
}

// Member is one array of an .npz archive and its name (without ".npy").
type Member struct {
	Name  string
	Array *Array
}

// WriteNPZ writes the members as an uncompressed .npz archive, as
// numpy.savez does; ReadNPZ reads it back.
func WriteNPZ(w io.Writer, members ...Member) error {
	zw := zip.NewWriter(w)
	for _, m := range members {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: m.Name + ".npy", Method: zip.Store})
		if err != nil {
			return fmt.Errorf("npz: member %q: %w", m.Name, err)
		}
		if err := Write(f, m.Array); err != nil {
			return fmt.Errorf("npz: member %q: %w", m.Name, err)
		}
	}
	return zw.Close()
}

// StringArray returns a 1-D <U n array of v, n the longest string's
// length in code points.
func StringArray(v []string) (*Array, error) {
	width := 1
	for _, s := range v {
		width = max(width, utf8.RuneCountInString(s))
	}
	data := make([]byte, 4*width*len(v))
	for i, s := range v {
		k := 4 * width * i
		for _, r := range s {
			binary.LittleEndian.PutUint32(data[k:], uint32(r))
			k += 4
		}
	}
	return newArray(Dtype{Kind: Unicode, Size: 4 * width}, []int{len(v)}, data)
}
