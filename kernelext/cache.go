package kernelext

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/cuqgnn/cuqgnn/internal/digest"
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
	sum := digest.Sum(parts...)
	return Key{Name: name, Digest: hex.EncodeToString(sum[:])[:24]}
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
	path := cachePath(key)
	if path == "" {
		return fn()
	}
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

// cachePath returns the file that holds the result of key, "" outside
// GoNB.
func cachePath(key Key) string {
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, unsafeName.ReplaceAllString(key.Name, "_")+"-"+key.Digest+".gob")
}

// stored reports whether a result of key is stored (damaged or not).
func stored(key Key) bool {
	path := cachePath(key)
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
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
