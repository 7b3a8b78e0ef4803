package kernelext

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"unsafe"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// Key identifies a cached result: a name and a digest of everything the
// result depends on (see KeyOf).
type Key struct {
	Name   string
	Digest string
}

// KeyOf returns the key of a result named name that depends on parts: a
// SHA-256 digest of the parts' whole contents, reached by following
// pointers, slices, maps, interfaces and struct fields, exported or not. A
// model builder, a graph and a split thus give a key that changes when any
// setting, the graph's data, the split or the seed changes. Functions and
// channels contribute only their type and whether they are nil (a progress
// callback does not change the key). Struct fields tagged `digest:"-"` are
// skipped: caches derived from the other fields, such as the transpose a
// tensor.CSR builds on its first transposed product, which training a model
// fills in the graph's feature matrix; without the tag, a model's key would
// depend on what else was trained on its graph earlier in the cell program.
func KeyOf(name string, parts ...any) Key {
	h := sha256.New()
	seen := map[uintptr]int{}
	for _, p := range parts {
		digest(h, reflect.ValueOf(p), seen)
	}
	return Key{Name: name, Digest: hex.EncodeToString(h.Sum(nil))[:24]}
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

// cacheDir returns the directory of the cached results of the kernel
// session: cuqgnn-cache in GoNB's per-kernel temporary directory, "" outside
// GoNB.
func cacheDir() string {
	dir := os.Getenv(protocol.GONB_TMP_DIR_ENV)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "cuqgnn-cache")
}

// unsafeName matches what a key's name may not carry into a file name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Cache returns fn's result for key, computed once per kernel session. GoNB
// runs every cell as a new program, so a value computed in one cell is gone
// in the next; Cache stores it (encoding/gob) in the kernel's temporary
// directory, and later calls with the same key, from any cell, read it back.
// A different key (another model, split or seed; see KeyOf) computes anew.
//
// The stored value is what gob encodes: exported fields only, nil pointers
// and interfaces omitted. A stored file begins with the SHA-256 of its
// encoded value; a file whose value does not match its checksum (a flipped
// bit) or does not decode is reported in one line on standard error and
// computed anew. An error of fn is returned and nothing is stored; a value
// that cannot be stored (a full or read-only disk) is returned with a
// one-line warning on standard error. Outside GoNB Cache just calls fn.
func Cache[T any](key Key, fn func() (T, error)) (T, error) {
	dir := cacheDir()
	if dir == "" {
		return fn()
	}
	path := filepath.Join(dir, unsafeName.ReplaceAllString(key.Name, "_")+"-"+key.Digest+".gob")
	v, err := load[T](path)
	switch {
	case err == nil:
		return v, nil
	case !errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(warnings, "kernelext.Cache %q: the cached result %s is damaged (%v); computing it again\n", key.Name, path, err)
	}
	v, err = fn()
	if err != nil {
		return v, err
	}
	if err := store(path, v); err != nil {
		fmt.Fprintf(warnings, "kernelext.Cache %q: result not cached, a later cell computes it again: %v\n", key.Name, err)
	}
	return v, nil
}

// warnings receives Cache's one-line reports of damaged and unwritable
// cache files; tests replace it.
var warnings io.Writer = os.Stderr

// cacheMagic begins every cache file, followed by the hex SHA-256 of the
// gob encoding that follows the header line.
const cacheMagic = "cuqgnn-cache sha256:"

// maxCacheBytes bounds a cache file read into memory: a trained run on OGBN
// Arxiv's graph is some hundreds of MiB.
const maxCacheBytes = 8 << 30

// load reads the value stored at path, checking its checksum. An error
// wrapping fs.ErrNotExist means nothing is stored; any other error means
// the file is damaged.
func load[T any](path string) (T, error) {
	var v T
	st, err := os.Stat(path)
	if err != nil {
		return v, err
	}
	if st.Size() > maxCacheBytes {
		return v, fmt.Errorf("%d bytes, more than %d", st.Size(), maxCacheBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return v, err
	}
	header, body, ok := bytes.Cut(b, []byte("\n"))
	sum, hasMagic := bytes.CutPrefix(header, []byte(cacheMagic))
	if !ok || !hasMagic {
		return v, errors.New("no checksum header")
	}
	if got := sha256.Sum256(body); hex.EncodeToString(got[:]) != string(sum) {
		return v, fmt.Errorf("checksum mismatch: SHA-256 %x, header says %.64s", got, sum)
	}
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&v); err != nil {
		return v, err
	}
	return v, nil
}

// store writes v to path atomically (a temporary file renamed over path),
// so that an interrupted cell never leaves a partial file behind, with the
// checksum header load checks.
func store(path string, v any) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(v); err != nil {
		return err
	}
	sum := sha256.Sum256(body.Bytes())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".cache-*")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s%x\n", cacheMagic, sum)
	if err == nil {
		_, err = f.Write(body.Bytes())
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Forget removes every cached result named name from the kernel session,
// so that the next Cache or Train call computes it again.
func Forget(name string) error {
	dir := cacheDir()
	if dir == "" {
		return nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, unsafeName.ReplaceAllString(name, "_")+"-*.gob"))
	if err != nil {
		return err
	}
	for _, m := range matches {
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
