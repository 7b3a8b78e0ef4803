package testenv

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// WriteGzipFiles writes each of files, gzip-compressed, at its
// slash-separated path under dir, creating directories as needed: the
// layout of OGB's raw datasets (raw/edge.csv.gz, ...) from their text.
func WriteGzipFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(content))
		zw.Close()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// TinyOGB returns the files of a 3-node graph in OGB's raw layout, by
// their paths below the dataset's directory (write them with
// WriteGzipFiles): the path 0 – 1 – 2 (edges stored once, as OGB does),
// features (1, 2), (3, 4), (5, 6), labels 0, 1, 1, and the official split
// train {0}, valid {1}, test {2}.
func TinyOGB() map[string]string {
	return OGBFiles("0,1\n1,2\n", "1,2\n3,4\n5,6\n", "0\n1\n1\n", "0\n", "1\n", "2\n")
}

// OGBFiles returns the files of a graph in OGB's raw layout, by their paths
// below the dataset's directory (write them with WriteGzipFiles), from
// their CSV contents: the edges, one "from,to" a line; the features and
// the label of each node, a line a node; and the nodes of the time split's
// train, valid and test sets, one a line.
func OGBFiles(edges, features, labels, train, valid, test string) map[string]string {
	return map[string]string{
		"raw/edge.csv.gz":         edges,
		"raw/node-feat.csv.gz":    features,
		"raw/node-label.csv.gz":   labels,
		"split/time/train.csv.gz": train,
		"split/time/valid.csv.gz": valid,
		"split/time/test.csv.gz":  test,
	}
}

// FileServer serves files by name (the request path without its leading
// "/") over https until the test ends, answering 404 for other paths, and
// counts the requests.
func FileServer(tb testing.TB, files map[string][]byte) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	tb.Cleanup(srv.Close)
	return srv, &hits
}

// Gunzip returns the decompressed content of gz, failing tb when gz is not
// a well-formed gzip stream.
func Gunzip(tb testing.TB, gz []byte) []byte {
	tb.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// ClaimFiles returns the claim files (package experiment/cluster names
// them RECORD.claim.N) and the temporary files under dir.
func ClaimFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(e.Name(), ".claim.") || strings.Contains(e.Name(), ".tmp") {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return found
}
