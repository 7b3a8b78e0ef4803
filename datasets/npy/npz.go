package npy

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"strings"
)

// Archive holds the arrays of an .npz file by name (the member name without
// its ".npy" suffix), in file order.
type Archive struct {
	names   []string
	arrays  map[string]*Array
	skipped []string
}

// Names returns the names of the decoded arrays in file order.
func (a *Archive) Names() []string { return a.names }

// Skipped returns the names of object (|O) members, which are not decoded.
func (a *Archive) Skipped() []string { return a.skipped }

// Get returns the array called name.
func (a *Archive) Get(name string) (*Array, bool) {
	arr, ok := a.arrays[name]
	return arr, ok
}

// Has reports whether the archive holds a decoded array called name.
func (a *Archive) Has(name string) bool {
	_, ok := a.arrays[name]
	return ok
}

// ReadNPZFile reads every array of the .npz archive at path, which must be
// a regular file (a zip archive is read from its end, so a pipe cannot
// hold one; opening a FIFO would block). Errors name the file and, where
// it applies, the member.
func ReadNPZFile(path string) (*Archive, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: npz: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	a, err := ReadNPZ(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ReadNPZ reads every array of an .npz archive (a zip file whose members are
// stored or Deflate-compressed .npy files) of the given size from r.
func ReadNPZ(r io.ReaderAt, size int64) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("npz: not a valid zip archive: %w", err)
	}
	a := &Archive{arrays: make(map[string]*Array)}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, fmt.Errorf("npz: member %q is not a .npy file", f.Name)
		}
		if _, dup := a.arrays[name]; dup {
			return nil, fmt.Errorf("npz: duplicate member %q", f.Name)
		}
		arr, err := readMember(f, size)
		if err == ErrObject {
			a.skipped = append(a.skipped, name)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("npz: member %q: %w", f.Name, err)
		}
		a.names = append(a.names, name)
		a.arrays[name] = arr
	}
	return a, nil
}

// maxDeflateRatio bounds how far Deflate can expand its input: a stored
// block of length n costs n+5 bytes and a compressed block emits at most
// 258 bytes per 2 bits, about 1032 output bytes per input byte.
const maxDeflateRatio = 1032

// checkSizes compares the sizes that f's directory entry declares with
// what an archive of size bytes can hold, so that nothing is allocated for
// data that cannot be there: the compressed bytes must fit in the archive,
// a stored member is as long as its compressed bytes, and a Deflate member
// expands at most maxDeflateRatio-fold.
func checkSizes(f *zip.File, size int64) error {
	comp, uncomp := f.CompressedSize64, f.UncompressedSize64
	if size < 0 || comp > uint64(size) {
		return fmt.Errorf("declares %d compressed bytes, but the archive has %d", comp, size)
	}
	switch f.Method {
	case zip.Store:
		if uncomp != comp {
			return fmt.Errorf("stored member declares %d bytes uncompressed and %d compressed", uncomp, comp)
		}
	case zip.Deflate:
		if uncomp/maxDeflateRatio > comp {
			return fmt.Errorf("declares %d bytes uncompressed from %d compressed, more than Deflate can produce", uncomp, comp)
		}
	}
	return nil
}

// readMember decodes member f of an archive of size bytes.
func readMember(f *zip.File, size int64) (*Array, error) {
	if err := checkSizes(f, size); err != nil {
		return nil, err
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Count header bytes so the declared data size can be checked against
	// the member's declared uncompressed size before reading it.
	cr := &countingReader{r: rc}
	h, err := ReadHeader(cr)
	if err != nil {
		return nil, err
	}
	if h.Dtype.Kind == Object {
		return nil, ErrObject
	}
	if rest := f.UncompressedSize64 - uint64(cr.n); uint64(cr.n) > f.UncompressedSize64 || uint64(h.DataLen) != rest {
		return nil, fmt.Errorf("npy: shape %v of %v needs %d data bytes, member holds %d", h.Shape, h.Dtype, h.DataLen, int64(f.UncompressedSize64)-cr.n)
	}
	// checkSizes bounded the declared size by what the archive can hold,
	// so the data can be read into a buffer of that size at once.
	arr, err := readData(cr, h, int64(h.DataLen))
	if err != nil {
		return nil, err
	}
	// Reading to the end makes archive/zip verify the member's CRC-32.
	var one [1]byte
	if n, err := io.ReadFull(cr, one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("npy: data longer than shape %v of %v", h.Shape, h.Dtype)
		}
		return nil, err
	}
	return arr, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
