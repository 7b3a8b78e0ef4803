package npy_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
	"github.com/cuqgnn/cuqgnn/datasets/npy"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// rawZip returns a zip holding one member name whose bytes are data as
// given (already compressed for Deflate) and whose directory entry declares
// the sizes comp and uncomp, true or not. Sizes beyond 4 GiB are written in
// zip64 extra fields.
func rawZip(t *testing.T, method uint16, name string, data []byte, comp, uncomp uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: method, CompressedSize64: comp, UncompressedSize64: uncomp})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func deflate(b []byte) []byte {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// hostileLimit bounds what reading any of the hostile inputs below may
// allocate; each is under a kilobyte, and what such an input can hold
// (at most 1032 bytes per byte through Deflate) is far below it.
const hostileLimit = 4 << 20

// Sizes declared by a hostile archive or header are checked against what
// the input can hold before anything is allocated for them: each input
// below used to make the reader reserve gigabytes or terabytes (a fatal
// out-of-memory error for the first one).
func TestHostileSizesAllocateLittle(t *testing.T) {
	huge := npytest.NPY(1, "|u1", []int{1<<40 - 128}, nil) // 128-byte header of a 1 TiB array
	small := npytest.NPY(1, "<f8", []int{4}, npytest.F8(1, 2, 3, 4))
	for _, c := range []struct {
		name string
		npz  []byte // read with ReadNPZ
		npy  []byte // or with Read
		want string
	}{
		{name: "compressed size beyond the archive (zip64)", npz: rawZip(t, zip.Store, "a.npy", huge, 1<<40, 1<<40),
			want: `member "a.npy": declares 1099511627776 compressed bytes, but the archive has`},
		{name: "stored member longer than its bytes", npz: rawZip(t, zip.Store, "a.npy", small, uint64(len(small)), 1<<32),
			want: `stored member declares 4294967296 bytes uncompressed and 160 compressed`},
		{name: "Deflate expanding more than it can", npz: rawZip(t, zip.Deflate, "a.npy", deflate(huge), uint64(len(deflate(huge))), 1<<40),
			want: "bytes uncompressed from"},
		{name: "Deflate member with a 1 TiB header", npz: npytest.NPZ(zip.Deflate, npytest.Member{Name: "a", Data: huge}),
			want: "needs 1099511627648 data bytes, member holds 0"},
		{name: "npy with a 1 TiB header", npy: huge, want: "data truncated: 0 bytes, shape [1099511627648] of |u1 needs 1099511627648"},
	} {
		var err error
		start := time.Now()
		alloc := testenv.AllocatedBy(func() {
			if c.npz != nil {
				_, err = npy.ReadNPZ(bytes.NewReader(c.npz), int64(len(c.npz)))
			} else {
				_, err = npy.Read(bytes.NewReader(c.npy))
			}
		})
		t.Logf("%s: %d bytes in, %d allocated, %v: %v", c.name, len(c.npz)+len(c.npy), alloc, time.Since(start), err)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if alloc > hostileLimit {
			t.Errorf("%s: allocated %d bytes, want at most %d", c.name, alloc, hostileLimit)
		}
	}
}
