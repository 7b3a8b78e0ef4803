package datasets

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The SHA-256 and the git blob id of "hello\n" (as printed by
// `printf 'hello\n' | sha256sum` and `git hash-object`).
const (
	helloSHA  = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
	helloBlob = "ce013625030ba8dba906f756967f9e9ca394464a"
)

func helloServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hello":
			w.Write([]byte("hello\n"))
		case "/cut":
			// Promise 100 bytes, send 10 and hang up.
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("0123456789"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// assertOnly fails unless dir holds exactly the named entries (no
// temporary files left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func TestFetch(t *testing.T) {
	srv := helloServer(t)
	dir := t.TempDir()
	dst := filepath.Join(dir, "hello.txt")
	if err := fetch(srv.Client(), srv.URL+"/hello", dst, helloSHA, helloBlob); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "hello\n" {
		t.Errorf("stored %q", b)
	}
	assertOnly(t, dir, "hello.txt")

	for _, c := range []struct {
		name, path, sha, blob, want string
	}{
		{"sha mismatch", "/hello", strings.Repeat("0", 64), "", "checksum mismatch: SHA-256 " + helloSHA + ", want 000"},
		{"blob mismatch", "/hello", "", strings.Repeat("1", 40), "checksum mismatch: git blob " + helloBlob + ", want 111"},
		{"interrupted", "/cut", "", "", "interrupted after 10 bytes: unexpected EOF"},
		{"not found", "/nothing", "", "", "404 Not Found"},
	} {
		dir := t.TempDir()
		err := fetch(srv.Client(), srv.URL+c.path, filepath.Join(dir, "f"), c.sha, c.blob)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL+c.path) {
			t.Errorf("%s: err = %v, want the URL and %q", c.name, err, c.want)
		}
		assertOnly(t, dir)
	}
}

func ogbZip(t *testing.T, skip string) []byte {
	t.Helper()
	files := map[string]string{
		"arxiv/raw/edge.csv.gz":         "0,1\n1,2\n",
		"arxiv/raw/node-feat.csv.gz":    "1,2\n3,4\n5,6\n",
		"arxiv/raw/node-label.csv.gz":   "0\n1\n1\n",
		"arxiv/split/time/train.csv.gz": "0\n",
		"arxiv/split/time/valid.csv.gz": "1\n",
		"arxiv/split/time/test.csv.gz":  "2\n",
		"arxiv/mapping/README.md":       "not extracted",
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, content := range files {
		if name == skip {
			continue
		}
		w, _ := zw.Create(name)
		gw := gzip.NewWriter(w)
		gw.Write([]byte(content))
		gw.Close()
	}
	zw.Close()
	return b.Bytes()
}

func TestDownloadOGB(t *testing.T) {
	good, broken := ogbZip(t, ""), ogbZip(t, "arxiv/split/time/valid.csv.gz")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/good/arxiv.zip" {
			w.Write(good)
			return
		}
		w.Write(broken)
	}))
	defer srv.Close()
	spec, err := Info("ogbn-arxiv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := &config{dir: dir, client: srv.Client(), baseURL: srv.URL + "/good"}
	dst := filepath.Join(dir, spec.File)
	if err := download(cfg, spec, dst); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "ogbn_arxiv")
	assertOnly(t, filepath.Join(dst, "raw"), "edge.csv.gz", "node-feat.csv.gz", "node-label.csv.gz")
	g, split, err := LoadOGBArxiv(dst)
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 3 || g.NumEdges() != 4 || len(split.Test) != 1 {
		t.Errorf("N %d edges %d split %+v", g.N, g.NumEdges(), split)
	}

	dir = t.TempDir()
	cfg = &config{dir: dir, client: srv.Client(), baseURL: srv.URL + "/broken"}
	err = download(cfg, spec, filepath.Join(dir, spec.File))
	if err == nil || !strings.Contains(err.Error(), "no member */split/time/valid.csv.gz") {
		t.Errorf("zip without valid split: %v", err)
	}
	assertOnly(t, dir)
}
