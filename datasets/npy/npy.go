// Package npy reads NumPy arrays: single .npy files and .npz archives of
// them, as written by numpy.save, numpy.savez and numpy.savez_compressed.
// It also writes them (Write, WriteNPZ) in the same formats.
//
// The reader is strict and small. It accepts format versions 1.0, 2.0 and
// 3.0, C-order arrays (fortran_order False) of the little-endian dtypes
// <f4, <f8, <i4, <i8, |u1, |b1 and fixed-width unicode <U n. Object arrays
// (|O, pickled Python objects) are never unpickled: an .npz archive lists
// them as skipped. Every size in a header or a zip directory is checked
// against what the input can hold before memory is reserved for it (the
// archive's length; at most 1032 bytes per compressed byte for Deflate), so
// corrupt, truncated or hostile input gives an error, never a panic or an
// allocation beyond what its bytes can decode to.
//
// github.com/sbinet/npyio was considered: its header parser slices without
// bounds checks (it panics on some corrupt headers), it lacks format 3.0 and
// it decodes through reflection into caller-chosen types, so this package
// owns its reader.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is the element kind of a dtype.
type Kind byte

// The element kinds this package reads.
const (
	Float   Kind = 'f' // IEEE 754 binary32 (<f4) or binary64 (<f8)
	Int     Kind = 'i' // two's complement int32 (<i4) or int64 (<i8)
	Uint    Kind = 'u' // uint8 (|u1)
	Bool    Kind = 'b' // one byte, 0 or 1 (|b1)
	Unicode Kind = 'U' // fixed width UTF-32LE strings, NUL padded (<U n)
	Object  Kind = 'O' // pickled Python objects (|O); never decoded
)

// Dtype is a NumPy element type: its kind and its item size in bytes.
type Dtype struct {
	Kind Kind
	// Size is the item size in bytes; for Unicode it is 4·n for <U n.
	Size int
}

// String returns the dtype in NumPy's descr notation, e.g. "<f8" or "<U17".
func (d Dtype) String() string {
	switch d.Kind {
	case Unicode:
		return "<U" + strconv.Itoa(d.Size/4)
	case Uint, Bool, Object:
		return "|" + string(rune(d.Kind)) + strconv.Itoa(d.Size)
	default:
		return "<" + string(rune(d.Kind)) + strconv.Itoa(d.Size)
	}
}

// ErrObject reports an object (pickled) array, which this package does not
// decode.
var ErrObject = errors.New("object dtype |O (pickled) not supported")

// maxHeaderLen bounds the header dictionary; NumPy's own limit is 10000
// bytes for headers it writes, far below this.
const maxHeaderLen = 1 << 20

// maxElems bounds the element count of one array (2^48), far above any real
// array and low enough that the byte count cannot overflow.
const maxElems = 1 << 48

// Array is one decoded .npy array: the raw little-endian element bytes with
// their dtype and shape. Element i of a C-order array with shape (d0, d1) is
// at row i/d1, column i%d1.
type Array struct {
	Dtype Dtype
	Shape []int
	data  []byte
}

// Len returns the number of elements, the product of Shape (1 for a scalar).
func (a *Array) Len() int {
	if a.Dtype.Size == 0 {
		return 0
	}
	return len(a.data) / a.Dtype.Size
}

// Float64s returns the elements converted to float64. Float, integer and
// boolean dtypes convert (integers beyond ±2^53 round); strings do not.
func (a *Array) Float64s() ([]float64, error) {
	n := a.Len()
	out := make([]float64, n)
	b := a.data
	switch {
	case a.Dtype.Kind == Float && a.Dtype.Size == 4:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case a.Dtype.Kind == Float && a.Dtype.Size == 8:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	default:
		ints, err := a.Int64s()
		if err != nil {
			return nil, fmt.Errorf("npy: dtype %v is not numeric", a.Dtype)
		}
		for i, v := range ints {
			out[i] = float64(v)
		}
	}
	return out, nil
}

// Int64s returns the elements of an integer or boolean array as int64. Float
// and string arrays give an error: indices and labels must be stored as
// integers.
func (a *Array) Int64s() ([]int64, error) {
	n := a.Len()
	b := a.data
	out := make([]int64, n)
	switch {
	case a.Dtype.Kind == Int && a.Dtype.Size == 4:
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case a.Dtype.Kind == Int && a.Dtype.Size == 8:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case a.Dtype.Kind == Uint || a.Dtype.Kind == Bool:
		for i := range out {
			out[i] = int64(b[i])
		}
	default:
		return nil, fmt.Errorf("npy: dtype %v is not an integer type", a.Dtype)
	}
	return out, nil
}

// Ints is Int64s converted to int, with an error for values that do not fit
// (only possible on 32-bit platforms).
func (a *Array) Ints() ([]int, error) {
	if a.Dtype.Kind == Int && a.Dtype.Size == 4 {
		// The common index dtype: convert without an int64 copy.
		out := make([]int, a.Len())
		for i := range out {
			out[i] = int(int32(binary.LittleEndian.Uint32(a.data[4*i:])))
		}
		return out, nil
	}
	v, err := a.Int64s()
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, x := range v {
		if int64(int(x)) != x {
			return nil, fmt.Errorf("npy: element %d = %d overflows int", i, x)
		}
		out[i] = int(x)
	}
	return out, nil
}

// Strings returns the elements of a unicode array with the NUL padding
// removed. Invalid code points (surrogates, values above U+10FFFF) give an
// error.
func (a *Array) Strings() ([]string, error) {
	if a.Dtype.Kind != Unicode {
		return nil, fmt.Errorf("npy: dtype %v is not a unicode string type", a.Dtype)
	}
	n, w := a.Len(), a.Dtype.Size
	out := make([]string, n)
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		item := a.data[i*w : (i+1)*w]
		for k := 0; k+4 <= len(item); k += 4 {
			r := rune(binary.LittleEndian.Uint32(item[k:]))
			if r == 0 {
				break
			}
			if !utf8.ValidRune(r) {
				return nil, fmt.Errorf("npy: element %d holds invalid code point %#x", i, uint32(r))
			}
			sb.WriteRune(r)
		}
		out[i] = sb.String()
	}
	return out, nil
}

// Header is the parsed header of a .npy file.
type Header struct {
	Major, Minor int
	Dtype        Dtype
	Shape        []int
	// DataLen is the number of data bytes the header declares.
	DataLen int
}

// Read reads one .npy array from r. It reads exactly the declared data and
// no further; trailing bytes in r are not consumed.
func Read(r io.Reader) (*Array, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	if h.Dtype.Kind == Object {
		return nil, ErrObject
	}
	return readData(r, h, 0)
}

// readData reads the h.DataLen data bytes that follow header h into a
// buffer of initial capacity min(hint, h.DataLen). The buffer grows only as
// bytes arrive, so a header that lies about its size cannot make us
// allocate much more than the input holds.
func readData(r io.Reader, h *Header, hint int64) (*Array, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(hint, int64(h.DataLen))))
	_, err := buf.ReadFrom(io.LimitReader(r, int64(h.DataLen)))
	if err != nil {
		return nil, fmt.Errorf("npy: reading data: %w", err)
	}
	data := buf.Bytes()
	if len(data) != h.DataLen {
		return nil, fmt.Errorf("npy: data truncated: %d bytes, shape %v of %v needs %d", len(data), h.Shape, h.Dtype, h.DataLen)
	}
	return &Array{Dtype: h.Dtype, Shape: h.Shape, data: data}, nil
}

// ReadHeader reads the magic string, version and header dictionary of a
// .npy file and leaves r at the first data byte. Object dtypes are returned
// without error (with DataLen 0) so that callers can skip them.
func ReadHeader(r io.Reader) (*Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: reading magic: %w", err)
	}
	if !bytes.Equal(pre[:6], []byte("\x93NUMPY")) {
		return nil, fmt.Errorf("npy: bad magic %q, not a .npy file", pre[:6])
	}
	h := &Header{Major: int(pre[6]), Minor: int(pre[7])}
	var hlen int
	switch h.Major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", err)
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > maxHeaderLen {
			return nil, fmt.Errorf("npy: header length %d exceeds %d", n, maxHeaderLen)
		}
		hlen = int(n)
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", h.Major, h.Minor)
	}
	if h.Minor != 0 {
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", h.Major, h.Minor)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("npy: reading %d-byte header: %w", hlen, err)
	}
	if err := parseDict(string(buf), h); err != nil {
		return nil, err
	}
	return h, nil
}

// parseDict parses the header dictionary, a Python literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }, padded with
// spaces and a final newline.
func parseDict(s string, h *Header) error {
	p := &parser{s: s}
	if !p.eat('{') {
		return fmt.Errorf("npy: header %q is not a dictionary", trim(s))
	}
	have := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return fmt.Errorf("npy: header key: %w", err)
		}
		if !p.eat(':') {
			return fmt.Errorf("npy: header: missing ':' after key %q", key)
		}
		if err := p.value(key, h); err != nil {
			return err
		}
		have[key] = true
		if !p.eat(',') {
			if !p.eat('}') {
				return errors.New("npy: header: expected ',' or '}' after a value")
			}
			break
		}
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return fmt.Errorf("npy: header: trailing bytes %q after the dictionary", trim(p.s[p.i:]))
	}
	if !have["descr"] || !have["fortran_order"] || !have["shape"] {
		return errors.New("npy: header lacks one of descr, fortran_order, shape")
	}
	return setDataLen(h)
}

// value parses the value of the header key key into h.
func (p *parser) value(key string, h *Header) error {
	var err error
	switch key {
	case "descr":
		d, err := p.str()
		if err != nil {
			return fmt.Errorf("npy: header descr: %w (structured dtypes are not supported)", err)
		}
		if h.Dtype, err = parseDtype(d); err != nil {
			return err
		}
	case "fortran_order":
		switch {
		case p.word("False"):
		case p.word("True"):
			return errors.New("npy: fortran_order arrays are not supported")
		default:
			return errors.New("npy: header fortran_order is not True or False")
		}
	case "shape":
		if h.Shape, err = p.tuple(); err != nil {
			return fmt.Errorf("npy: header shape: %w", err)
		}
	default:
		return fmt.Errorf("npy: header has unknown key %q", key)
	}
	return nil
}

// setDataLen sets h.DataLen, the size in bytes of the array's data (0
// for objects), or returns an error for a shape too large.
func setDataLen(h *Header) error {
	n, err := elements(h.Shape)
	if err != nil {
		return err
	}
	if h.Dtype.Kind != Object {
		hi, lo := bits.Mul(uint(n), uint(h.Dtype.Size))
		if hi != 0 || lo > math.MaxInt64/2 {
			return fmt.Errorf("npy: shape %v of %v too large", h.Shape, h.Dtype)
		}
		h.DataLen = int(lo)
	}
	return nil
}

// elements returns the number of elements of an array of the given shape,
// or an error when a dimension is negative or there are more than
// maxElems.
func elements(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("npy: shape %v has a dimension out of [0, 2^48]", shape)
		}
		hi, lo := bits.Mul(uint(n), uint(d))
		if hi != 0 || lo > maxElems {
			return 0, fmt.Errorf("npy: shape %v too large: more than 2^48 elements", shape)
		}
		n = int(lo)
	}
	return n, nil
}

func trim(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// fixedDtypes are the descr strings of the fixed-size dtypes.
var fixedDtypes = map[string]Dtype{
	"<f4": {Float, 4}, "<f8": {Float, 8}, "<i4": {Int, 4}, "<i8": {Int, 8},
	"|u1": {Uint, 1}, "|b1": {Bool, 1}, "|O": {Object, 8},
}

// parseDtype accepts the descr strings listed in the package comment.
func parseDtype(d string) (Dtype, error) {
	if t, ok := fixedDtypes[d]; ok {
		return t, nil
	}
	if rest, ok := strings.CutPrefix(d, "<U"); ok {
		n, err := strconv.Atoi(rest)
		if err == nil && n > 0 && n <= 1<<20 && rest[0] != '+' {
			return Dtype{Unicode, 4 * n}, nil
		}
	}
	return Dtype{}, fmt.Errorf("npy: unsupported dtype %q", d)
}

// parser scans the restricted Python literal syntax of .npy headers.
type parser struct {
	s string
	i int
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *parser) eat(c byte) bool {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) word(w string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str scans a single- or double-quoted string without escapes.
func (p *parser) str() (string, error) {
	p.skipSpace()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

// tuple scans a tuple of non-negative integers: (), (n,), (n, m), ...
func (p *parser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected '('")
	}
	shape := []int{}
	for {
		if p.eat(')') {
			return shape, nil
		}
		p.skipSpace()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("expected a non-negative integer")
		}
		v, err := strconv.Atoi(p.s[p.i:j])
		if err != nil {
			return nil, fmt.Errorf("dimension %q: %w", p.s[p.i:j], err)
		}
		p.i = j
		// Python tolerates an 'L' suffix written by Python 2 numpy.
		if p.i < len(p.s) && p.s[p.i] == 'L' {
			p.i++
		}
		shape = append(shape, v)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, errors.New("expected ',' or ')'")
			}
			return shape, nil
		}
	}
}
