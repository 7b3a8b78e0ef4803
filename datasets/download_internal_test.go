package datasets

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// The SHA-256 and the git blob id of "hello\n" (as printed by
// `printf 'hello\n' | sha256sum` and `git hash-object`).
const (
	helloSHA  = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
	helloBlob = "ce013625030ba8dba906f756967f9e9ca394464a"
)

// helloServer is an https test server of small answers, good and bad.
// Requests to /hang wait until release is closed.
func helloServer(t *testing.T) (srv *httptest.Server, release chan struct{}) {
	release = make(chan struct{})
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hello":
			w.Write([]byte("hello\n"))
		case "/cut":
			// Promise 100 bytes, send 10 and hang up.
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("0123456789"))
		case "/endless":
			// No Content-Length: chunks until the client hangs up.
			chunk := bytes.Repeat([]byte("x"), 1<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/huge":
			w.Header().Set("Content-Length", "600000000")
		case "/hang":
			// Half a body, then nothing.
			w.Header().Set("Content-Length", "6")
			w.Write([]byte("hel"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv, release
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
	srv, _ := helloServer(t)
	dir := t.TempDir()
	dst := filepath.Join(dir, "hello.txt")
	if err := fetch(context.Background(), srv.Client(), srv.URL+"/hello", dst, expected{helloSHA, helloBlob, 6}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "hello\n" {
		t.Errorf("stored %q", b)
	}
	assertOnly(t, dir, "hello.txt")

	defer func(d time.Duration) { stallTimeout = d }(stallTimeout)
	stallTimeout = 200 * time.Millisecond
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name, path string
		ctx        context.Context
		want       expected
		err        string
	}{
		{"sha mismatch", "/hello", nil, expected{sha256: strings.Repeat("0", 64)}, "checksum mismatch: SHA-256 " + helloSHA + ", want 000"},
		{"blob mismatch", "/hello", nil, expected{gitBlob: strings.Repeat("1", 40)}, "checksum mismatch: git blob " + helloBlob + ", want 111"},
		{"size announced", "/hello", nil, expected{size: 7}, "the server announces 6 bytes, want 7"},
		{"interrupted", "/cut", nil, expected{}, "interrupted after 10 bytes: unexpected EOF"},
		{"not found", "/nothing", nil, expected{}, "404 Not Found"},
		{"beyond the size", "/endless", nil, expected{size: 5000}, "more than the limit of 5000 bytes"},
		{"beyond the cap", "/huge", nil, expected{}, "the server announces 600000000 bytes, more than the limit of 536870912"},
		{"stalled", "/hang", nil, expected{}, "interrupted after 3 bytes: no data for 200ms"},
		{"cancelled", "/hello", cancelled, expected{}, "context canceled"},
	} {
		dir := t.TempDir()
		ctx := c.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		err := fetch(ctx, srv.Client(), srv.URL+c.path, filepath.Join(dir, "f"), c.want)
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), srv.URL+c.path) {
			t.Errorf("%s: err = %v, want the URL and %q", c.name, err, c.err)
		}
		assertOnly(t, dir)
	}

	// Plain http is refused before any request.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("plain-http request %s", r.URL)
	}))
	defer plain.Close()
	err := fetch(context.Background(), plain.Client(), plain.URL+"/hello", filepath.Join(dir, "f"), expected{})
	if err == nil || !strings.Contains(err.Error(), "not an https URL") {
		t.Errorf("http URL: %v", err)
	}
}

// A download killed by a timeout while its body arrives leaves nothing in
// the data directory.
func TestDownloadTimeout(t *testing.T) {
	srv, _ := helloServer(t)
	dir := t.TempDir()
	spec := Spec{Name: "Hello", File: "hello.txt", URL: "https://example.org/hang"}
	cfg := newConfig([]Option{FromDir(dir), BaseURL(srv.URL), HTTPClient(srv.Client()), Timeout(300 * time.Millisecond)})
	start := time.Now()
	err := download(&cfg, spec, filepath.Join(dir, spec.File))
	if err == nil || !strings.Contains(err.Error(), "interrupted after 3 bytes: timed out after 300ms") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	assertOnly(t, dir)
}

// Temporary files of killed downloads are removed by the next download of
// their dataset, however fresh; those of running downloads, which hold
// their locks, stay, however old, as do those of other datasets.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{".cora_ml.npz.1.part", ".ogbn_arxiv.3.part", "cora_ml.npz"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".cora_ml.npz.4.part"), 0o755); err != nil {
		t.Fatal(err)
	}
	live, err := newPart(filepath.Join(dir, "cora_ml.npz"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	old := time.Now().Add(-3 * time.Hour)
	for _, name := range []string{".ogbn_arxiv.3.part", "cora_ml.npz", filepath.Base(live.Name())} {
		os.Chtimes(filepath.Join(dir, name), old, old)
	}
	removeStale(dir, "cora_ml.npz", time.Hour)
	assertOnly(t, dir, filepath.Base(live.Name()), ".ogbn_arxiv.3.part", "cora_ml.npz")
}

func ogbZip(t *testing.T, skip string) []byte {
	t.Helper()
	files := map[string]string{"arxiv/mapping/README.md": "not extracted"}
	for rel, content := range testenv.TinyOGB() {
		files["arxiv/"+rel] = content
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

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestDownloadOGB(t *testing.T) {
	good, broken := ogbZip(t, ""), ogbZip(t, "arxiv/split/time/valid.csv.gz")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	// The tiny archive stands for arxiv.zip, with its checksum and size.
	spec.SHA256, spec.Size = sha256Hex(good), int64(len(good))
	get := func(dir, mirror string, spec Spec) error {
		cfg := newConfig([]Option{FromDir(dir), HTTPClient(srv.Client()), BaseURL(srv.URL + mirror)})
		return download(&cfg, spec, filepath.Join(dir, spec.File))
	}
	dir := t.TempDir()
	if err := get(dir, "/good", spec); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, spec.File)
	assertOnly(t, dir, "ogbn_arxiv")
	assertOnly(t, filepath.Join(dst, "raw"), "edge.csv.gz", "node-feat.csv.gz", "node-label.csv.gz")
	g, split, err := LoadOGBArxiv(dst)
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 3 || g.NumEdges() != 4 || len(split.Test) != 1 {
		t.Errorf("N %d edges %d split %+v", g.N, g.NumEdges(), split)
	}
	// A second download that finds the directory in place when it is done
	// (it lost the race to a concurrent one, as pods sharing a volume do)
	// keeps the copy in place and leaves no temporary file.
	if err := get(dir, "/good", spec); err != nil {
		t.Errorf("download that lost the race: %v", err)
	}
	assertOnly(t, dir, "ogbn_arxiv")

	// Without a checksum, the archive must unpack and load as a graph of
	// the spec's sizes; else nothing is kept.
	unknown := spec
	unknown.SHA256, unknown.Size = "", 0
	for _, c := range []struct {
		mirror string
		nodes  int
		want   string
	}{
		{"/broken", 3, "no member */split/time/valid.csv.gz"},
		{"/good", 169343, "the download has no known checksum and its content is not OGBNArxiv: graph has 3 nodes, 2 features, 2 classes; want 169343"},
	} {
		s := unknown
		s.Nodes, s.Features, s.Classes = c.nodes, 2, 2
		dir := t.TempDir()
		if err := get(dir, c.mirror, s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.mirror, err, c.want)
		}
		assertOnly(t, dir)
	}
	s := unknown
	s.Nodes, s.Features, s.Classes = 3, 2, 2
	dir = t.TempDir()
	if err := get(dir, "/good", s); err != nil {
		t.Errorf("an archive of the spec's sizes without checksum: %v", err)
	}
	assertOnly(t, dir, "ogbn_arxiv")
}

// LoadSplit returns the official split of a dataset that has one, after
// Load's size checks: a tiny OGB layout stands for OGBN Arxiv, registered
// with its sizes for the test.
func TestLoadSplitOfficial(t *testing.T) {
	i := slices.IndexFunc(registry, func(s Spec) bool { return s.Name == "OGBNArxiv" })
	saved := registry[i]
	t.Cleanup(func() { registry[i] = saved })
	registry[i].Nodes, registry[i].Features, registry[i].Classes = 3, 2, 2
	dir := t.TempDir()
	testenv.WriteGzipFiles(t, filepath.Join(dir, "ogbn_arxiv"), testenv.TinyOGB())
	g, split, err := LoadSplit("arxiv", FromDir(dir), NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 3 || split == nil || !slices.Equal(split.Train, []int{0}) || !slices.Equal(split.Val, []int{1}) ||
		!slices.Equal(split.Test, []int{2}) || len(split.Unused) != 0 {
		t.Errorf("N %d, split %+v; want train [0], val [1], test [2]", g.N, split)
	}
	registry[i].Classes = 3
	if _, _, err := LoadSplit("arxiv", FromDir(dir), NoDownload()); err == nil || !strings.Contains(err.Error(), "graph has 3 nodes, 2 features, 2 classes; want 3, 2, 3") {
		t.Errorf("wrong class count: %v", err)
	}
}

// TestFetchRefusesRedirectToHTTP checks that an https source redirecting
// to plain http is refused before the http request, as an http mirror is.
func TestFetchRefusesRedirectToHTTP(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("plain-http request %s after a redirect", r.URL)
		w.Write([]byte("hello\n"))
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			http.Redirect(w, r, plain.URL+"/hello", http.StatusFound)
		case "/up":
			http.Redirect(w, r, "/hello", http.StatusFound)
		case "/hello":
			w.Write([]byte("hello\n"))
		}
	}))
	defer secure.Close()
	dir := t.TempDir()
	err := fetch(context.Background(), secure.Client(), secure.URL+"/down", filepath.Join(dir, "f"), expected{sha256: helloSHA})
	if err == nil || !strings.Contains(err.Error(), "redirected to "+plain.URL+"/hello") || !strings.Contains(err.Error(), "https only") {
		t.Errorf("redirect to http: err = %v", err)
	}
	assertOnly(t, dir)
	// A redirect within https is followed.
	if err := fetch(context.Background(), secure.Client(), secure.URL+"/up", filepath.Join(dir, "f"), expected{sha256: helloSHA}); err != nil {
		t.Errorf("redirect within https: %v", err)
	}
	assertOnly(t, dir, "f")
}

// TestDownloadRemovesDeadParts checks that a download removes the
// temporary file of a download killed at once before it (kill -9 leaves
// it, fresh), and keeps that of a download still running (whose lock is
// held).
func TestDownloadRemovesDeadParts(t *testing.T) {
	srv, _ := helloServer(t)
	dir := t.TempDir()
	dead := filepath.Join(dir, ".hello.txt.111.part")
	if err := os.WriteFile(dead, []byte("hel"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A running download's part: newPart holds its lock.
	lf, err := newPart(filepath.Join(dir, "hello.txt"), false)
	if err != nil {
		t.Fatal(err)
	}
	live := lf.Name()
	spec := Spec{Name: "Hello", File: "hello.txt", URL: "https://example.org/hello", SHA256: helloSHA, Size: 6}
	cfg := newConfig([]Option{FromDir(dir), BaseURL(srv.URL), HTTPClient(srv.Client())})
	if err := download(&cfg, spec, filepath.Join(dir, spec.File)); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, filepath.Base(live), "hello.txt")
	lf.Close() // the download ends: its lock is gone
	os.Remove(filepath.Join(dir, "hello.txt"))
	if err := download(&cfg, spec, filepath.Join(dir, spec.File)); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "hello.txt")
}
