// Package npytest writes small .npy and .npz files byte by byte, following
// the NumPy format specification, so that the readers in datasets/npy and
// datasets can be tested on hand-built input (well-formed and corrupt)
// without shipping binary files.
package npytest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// NPY returns a .npy file of format version major.0 holding data (raw
// little-endian bytes) with the given descr and shape. The header is padded
// with spaces to a multiple of 64 bytes and ends in a newline, as NumPy
// writes it.
func NPY(major int, descr string, shape []int, data []byte) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	return NPYHeader(major, fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple), data)
}

// NPYHeader returns a .npy file with a verbatim header dictionary dict, for
// corrupt-header tests.
func NPYHeader(major int, dict string, data []byte) []byte {
	pre := 10
	if major >= 2 {
		pre = 12
	}
	hlen := len(dict) + 1
	if pad := (pre + hlen) % 64; pad != 0 {
		hlen += 64 - pad
	}
	hdr := dict + strings.Repeat(" ", hlen-len(dict)-1) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(byte(major))
	b.WriteByte(0)
	if major >= 2 {
		binary.Write(&b, binary.LittleEndian, uint32(len(hdr)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	}
	b.WriteString(hdr)
	b.Write(data)
	return b.Bytes()
}

// F8 encodes float64 values as <f8.
func F8(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// F4 encodes values as <f4.
func F4(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// I8 encodes values as <i8.
func I8(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// I4 encodes values as <i4.
func I4(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// U encodes strings as <U width: UTF-32LE code points, NUL padded.
func U(width int, v ...string) []byte {
	b := make([]byte, 4*width*len(v))
	for i, s := range v {
		k := 0
		for _, r := range s {
			binary.LittleEndian.PutUint32(b[4*(i*width+k):], uint32(r))
			k++
		}
	}
	return b
}

// Member is one .npz member: its name without ".npy" and its file bytes.
type Member struct {
	Name string
	Data []byte
}

// NPZ returns a zip archive of the members with the given zip method
// (zip.Store or zip.Deflate), as numpy.savez and savez_compressed write.
func NPZ(method uint16, members ...Member) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.Name + ".npy", Method: method})
		if err != nil {
			panic(err) // writing to memory cannot fail
		}
		w.Write(m.Data)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}
