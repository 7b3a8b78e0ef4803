// Package digest computes SHA-256 digests of Go values' whole contents,
// reached by following pointers, slices, maps, interfaces and struct fields,
// exported or not: the keys under which kernelext caches results across
// notebook cells and package cuq shares trainings between models that train
// alike.
//
// Numbers are written as 8 little-endian bytes, strings and type names as
// their length and bytes, and every value is preceded by its type's name,
// so values of different types never write the same bytes. Slices of
// numbers are written as their memory, which makes a graph's features and
// adjacency fast to digest. Functions and channels contribute only their
// type and whether they are nil. Struct fields tagged `digest:"-"` are
// skipped: caches derived from the other fields, such as the transpose a
// tensor.CSR builds on its first transposed product. Map entries are
// written in the order of their own digests, independent of iteration
// order, and a pointer met a second time is written as a back reference,
// so cyclic structures end.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"maps"
	"math"
	"reflect"
	"slices"
	"unsafe"
)

// Sum returns the SHA-256 digest of parts' contents, written one after the
// other. Pointers shared between the parts are written once and referred
// back to after.
func Sum(parts ...any) [sha256.Size]byte {
	h := sha256.New()
	seen := map[uintptr]int{}
	for _, p := range parts {
		digest(h, reflect.ValueOf(p), seen)
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// digest writes v's contents to h. Pointers already visited are written as
// a back reference, so cyclic structures end.
func digest(h hash.Hash, v reflect.Value, seen map[uintptr]int) {
	d := digester{h: h, seen: seen}
	d.value(v)
}

// digester writes values to a hash: numbers as 8 little-endian bytes,
// strings and type names as their length and bytes.
type digester struct {
	h    hash.Hash
	seen map[uintptr]int // pointers visited, by order of visit
	buf  [8]byte
}

func (d *digester) word(x uint64) {
	binary.LittleEndian.PutUint64(d.buf[:], x)
	d.h.Write(d.buf[:])
}

func (d *digester) text(s string) {
	d.word(uint64(len(s)))
	d.h.Write([]byte(s))
}

// value writes v's type name and contents.
func (d *digester) value(v reflect.Value) {
	if !v.IsValid() {
		d.text("<invalid>")
		return
	}
	d.text(v.Type().String())
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			d.word(1)
		} else {
			d.word(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.word(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.word(v.Uint())
	case reflect.Float32, reflect.Float64:
		d.word(math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		d.word(math.Float64bits(real(c)))
		d.word(math.Float64bits(imag(c)))
	case reflect.String:
		d.text(v.String())
	case reflect.Slice:
		d.slice(v)
	case reflect.Array:
		for i := range v.Len() {
			d.value(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Tag.Get("digest") == "-" {
				continue // a cache derived from the other fields
			}
			d.text(f.Name)
			d.value(v.Field(i))
		}
	case reflect.Pointer:
		d.pointer(v)
	case reflect.Interface:
		if v.IsNil() {
			d.text("<nil>")
			return
		}
		d.value(v.Elem())
	case reflect.Map:
		d.mapEntries(v)
	default: // functions, channels, unsafe pointers
		if v.IsNil() {
			d.text("<nil>")
		} else {
			d.text("<set>")
		}
	}
}

// slice writes a slice's length and elements; a slice of numbers as its
// bytes, which is fast for the large slices of a graph (features,
// adjacency).
func (d *digester) slice(v reflect.Value) {
	if v.IsNil() {
		d.text("<nil>")
		return
	}
	d.word(uint64(v.Len()))
	if plainData(v.Type().Elem().Kind()) {
		n := v.Len() * int(v.Type().Elem().Size())
		d.h.Write(unsafe.Slice((*byte)(v.UnsafePointer()), n))
		return
	}
	for i := range v.Len() {
		d.value(v.Index(i))
	}
}

// pointer writes what a pointer points to, or a back reference to a
// pointer seen before.
func (d *digester) pointer(v reflect.Value) {
	if v.IsNil() {
		d.text("<nil>")
		return
	}
	if k, ok := d.seen[v.Pointer()]; ok {
		d.text("<seen>")
		d.word(uint64(k))
		return
	}
	d.seen[v.Pointer()] = len(d.seen)
	d.value(v.Elem())
}

// mapEntries writes a map's entries in the order of their own digests,
// which does not depend on the map's iteration order.
func (d *digester) mapEntries(v reflect.Value) {
	if v.IsNil() {
		d.text("<nil>")
		return
	}
	var entries []string
	for it := v.MapRange(); it.Next(); {
		e, own := sha256.New(), maps.Clone(d.seen)
		digest(e, it.Key(), own)
		digest(e, it.Value(), own)
		entries = append(entries, string(e.Sum(nil)))
	}
	slices.Sort(entries)
	d.word(uint64(len(entries)))
	for _, e := range entries {
		d.h.Write([]byte(e))
	}
}

// plainData reports whether a slice of this element kind can be hashed as
// its bytes.
func plainData(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
