package datasets

import (
	"archive/zip"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxDownloadBytes caps a download whose exact size the registry does not
// record; a download of known size is capped at that size.
const MaxDownloadBytes = 512 << 20

// DefaultTimeout limits a whole download (see Timeout).
const DefaultTimeout = time.Hour

// stallTimeout limits a wait without a single byte; tests shorten it.
var stallTimeout = time.Minute

// Download makes sure the file (for OGBN Arxiv, the directory) of the
// registered dataset name is in the data directory and returns its path.
// A missing file is downloaded from its Spec.URL (or the BaseURL mirror)
// over https only, within the Timeout, capped at the Spec's size, and
// checked against the Spec's size and SHA-256 (or git blob id); only then
// is it renamed into place, so the data directory never holds a partial
// or unverified file. Processes that download the same dataset into one
// directory at once (the pods of a job sharing a volume) each end with
// the file in place. An https source that redirects to another scheme is
// refused. An interrupted download leaves at most a hidden temporary file
// (or directory), which the next download of the dataset removes: a
// running download holds a lock on its temporary file, and the kernel
// drops the lock of a killed one (on a file system without locks, the
// file is removed once it is older than any live download can be). A file already present
// is not downloaded again nor re-checked (Load checks its contents).
func Download(name string, opts ...Option) (string, error) {
	spec, err := Info(name)
	if err != nil {
		return "", err
	}
	cfg := newConfig(opts)
	dst := filepath.Join(cfg.dir, spec.File)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("datasets: %s: %w", spec.Name, err)
	}
	if cfg.noDownload {
		return "", fmt.Errorf("datasets: %s: %s: %w (downloads are disabled)", spec.Name, dst, os.ErrNotExist)
	}
	if err := download(&cfg, spec, dst); err != nil {
		return "", fmt.Errorf("datasets: %s: %w", spec.Name, err)
	}
	return dst, nil
}

// source returns the URL to download spec's file from.
func (cfg *config) source(spec Spec) string {
	if cfg.baseURL != "" {
		return cfg.baseURL + "/" + path.Base(spec.URL)
	}
	return spec.URL
}

// download fetches spec's file into dst (a file, or for OGB layouts a
// directory unpacked from the downloaded zip). Nothing appears at dst
// unless the download is complete and verified.
func download(cfg *config, spec Spec, dst string) error {
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return err
	}
	removeStale(cfg.dir, filepath.Base(dst), cfg.timeout+stallTimeout)
	ctx, cancel := context.WithTimeoutCause(cfg.ctx, cfg.timeout, fmt.Errorf("timed out after %v", cfg.timeout))
	defer cancel()
	want := expected{sha256: spec.SHA256, gitBlob: spec.GitBlob, size: spec.Size}
	if !spec.ogb {
		return fetch(ctx, cfg.client, cfg.source(spec), dst, want)
	}
	zipFile, err := newPart(dst, false)
	if err != nil {
		return err
	}
	defer func() {
		os.Remove(zipFile.Name())
		zipFile.Close()
	}()
	if err := fetchInto(ctx, cfg.client, cfg.source(spec), zipFile, want); err != nil {
		return err
	}
	return unpackOGB(zipFile.Name(), dst, spec)
}

// expected is what a download is checked against; zero fields are unknown.
type expected struct {
	sha256, gitBlob string
	size            int64
}

// newPart creates a new hidden temporary file (with isDir, directory)
// beside dst, matching removeStale's pattern, and returns it open and
// locked (see lockPart), so that no other download removes it while this
// one runs; closing it drops the lock. Where the file system has no locks
// the file is returned unlocked.
func newPart(dst string, isDir bool) (*os.File, error) {
	for range 3 {
		var name string
		if isDir {
			dir, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
			if err != nil {
				return nil, err
			}
			name = dir
		} else {
			f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
			if err != nil {
				return nil, err
			}
			f.Close()
			name = f.Name()
		}
		flag := os.O_RDWR
		if isDir {
			flag = os.O_RDONLY
		}
		f, err := os.OpenFile(name, flag, 0)
		if err != nil {
			continue // removed as stale before we locked it
		}
		if _, err := lockPart(f); err != nil && !errors.Is(err, errNoLocks) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", name, err)
		}
		// Another download's removeStale may have removed the file
		// between its creation and the lock: then create another.
		st, err := f.Stat()
		if cur, cerr := os.Stat(name); err == nil && cerr == nil && os.SameFile(st, cur) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("temporary files beside %s keep disappearing", dst)
}

// removeStale removes the temporary files and directories that downloads
// of base left in dir when they were killed: those whose lock (see
// lockPart) no live download holds, or, on a file system without locks,
// those not modified for longer than age, which a live download (bounded
// by its timeout) cannot be.
func removeStale(dir, base string, age time.Duration) {
	parts, _ := filepath.Glob(filepath.Join(dir, "."+base+".*.part"))
	for _, p := range parts {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		unlock, err := lockPart(f)
		switch {
		case err == nil:
			os.RemoveAll(p)
			unlock()
		case errors.Is(err, errNoLocks):
			if st, err := f.Stat(); err == nil && time.Since(st.ModTime()) > age {
				os.RemoveAll(p)
			}
		}
		f.Close()
	}
}

// fetch downloads rawURL into dst atomically: the body goes to a locked
// temporary file in dst's directory (see newPart and fetchInto), which is
// checked against want and then renamed to dst. On any error the
// temporary file is removed.
func fetch(ctx context.Context, client *http.Client, rawURL, dst string, want expected) (err error) {
	tmp, err := newPart(dst, false)
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
		tmp.Close()
	}()
	if err := fetchInto(ctx, client, rawURL, tmp, want); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	// Where files are locked, renamed while open, so that the lock holds
	// until the file has its name.
	if !renameOpen {
		if err := tmp.Close(); err != nil {
			return fmt.Errorf("download %s: %w", rawURL, err)
		}
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	return nil
}

// fetchInto downloads rawURL into the empty file f and checks it against
// want. Only https URLs are fetched, and redirects only to https URLs. The
// download fails when the server announces or sends more than want.size
// bytes (MaxDownloadBytes when the size is unknown), when the body ends
// early, when no byte arrives for stallTimeout, when ctx ends, or when a
// checksum differs.
func fetchInto(ctx context.Context, client *http.Client, rawURL string, f *os.File, want expected) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("download %s: not an https URL; downloads are fetched over https only", rawURL)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(stallTimeout, func() { cancel(fmt.Errorf("no data for %v", stallTimeout)) })
	defer stall.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, err)
	}
	// why replaces the error of a cancelled request by its cause: the
	// caller's cancellation, the timeout or the stall.
	why := func(err error) error {
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
		return err
	}
	resp, err := httpsOnly(client).Do(req)
	if err != nil {
		return fmt.Errorf("download %s: %w", rawURL, why(err))
	}
	defer resp.Body.Close()
	limit, err := bodyLimit(resp, rawURL, want)
	if err != nil {
		return err
	}
	h := sha256.New()
	body := &progressReader{r: io.LimitReader(resp.Body, limit+1), onRead: func() { stall.Reset(stallTimeout) }}
	n, err := io.Copy(io.MultiWriter(f, h), body)
	if err != nil {
		return fmt.Errorf("download %s: interrupted after %d bytes: %w", rawURL, n, why(err))
	}
	return checkDownload(rawURL, f, n, limit, h, want)
}

// bodyLimit checks the response's status and announced length and returns
// the most bytes its body may have: want.size when known, else
// MaxDownloadBytes.
func bodyLimit(resp *http.Response, rawURL string, want expected) (int64, error) {
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("download %s: %s", rawURL, resp.Status)
	}
	limit := int64(MaxDownloadBytes)
	if want.size > 0 {
		limit = want.size
		if resp.ContentLength >= 0 && resp.ContentLength != want.size {
			return 0, fmt.Errorf("download %s: the server announces %d bytes, want %d", rawURL, resp.ContentLength, want.size)
		}
	}
	if resp.ContentLength > limit {
		return 0, fmt.Errorf("download %s: the server announces %d bytes, more than the limit of %d", rawURL, resp.ContentLength, limit)
	}
	return limit, nil
}

// checkDownload checks the n bytes written to f, whose SHA-256 is h,
// against the limit and want.
func checkDownload(rawURL string, f *os.File, n, limit int64, h hash.Hash, want expected) error {
	switch {
	case n > limit:
		return fmt.Errorf("download %s: more than the limit of %d bytes", rawURL, limit)
	case want.size > 0 && n != want.size:
		return fmt.Errorf("download %s: %d bytes, want %d", rawURL, n, want.size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); want.sha256 != "" && got != want.sha256 {
		return fmt.Errorf("download %s: checksum mismatch: SHA-256 %s, want %s", rawURL, got, want.sha256)
	}
	if want.gitBlob != "" {
		got, err := gitBlobID(f, n)
		if err != nil {
			return fmt.Errorf("download %s: %w", rawURL, err)
		}
		if got != want.gitBlob {
			return fmt.Errorf("download %s: checksum mismatch: git blob %s, want %s", rawURL, got, want.gitBlob)
		}
	}
	return nil
}

// maxRedirects is how many redirects a download follows, as net/http's
// default policy.
const maxRedirects = 10

// httpsOnly returns a copy of client that refuses a redirect to anything
// but https, before its request, and otherwise follows client's policy:
// a mirror must not downgrade a download to plain http.
func httpsOnly(client *http.Client) *http.Client {
	c := *client
	policy := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" {
			return fmt.Errorf("redirected to %s, not an https URL; downloads are fetched over https only", req.URL.Redacted())
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &c
}

// progressReader calls onRead after every read that returns data.
type progressReader struct {
	r      io.Reader
	onRead func()
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.onRead()
	}
	return n, err
}

// gitBlobID returns git's object id of the n-byte content of f:
// SHA-1("blob " + n + "\x00" + content).
func gitBlobID(f *os.File, n int64) (string, error) {
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.FormatInt(n, 10)+"\x00")
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ogbFiles are the files of the raw OGB node-property layout that
// LoadOGBArxiv reads, relative to the dataset directory.
var ogbFiles = []string{
	"raw/edge.csv.gz",
	"raw/node-feat.csv.gz",
	"raw/node-label.csv.gz",
	"split/time/train.csv.gz",
	"split/time/valid.csv.gz",
	"split/time/test.csv.gz",
}

// unpackOGB extracts the ogbFiles from an OGB dataset zip (whose members
// sit under one top-level folder, e.g. arxiv/raw/edge.csv.gz) into a
// temporary directory beside dst and renames it to dst. Only the listed
// files are written, so member names cannot escape the directory. When the
// spec has no checksum, the unpacked files must load as a graph of the
// spec's sizes before they are kept.
func unpackOGB(zipPath, dst string, spec Spec) (err error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("unpack %s: %w", zipPath, err)
	}
	defer zr.Close()
	lock, err := newPart(dst, true)
	if err != nil {
		return err
	}
	defer lock.Close()
	tmp := lock.Name()
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	found := make(map[string]bool)
	for _, f := range zr.File {
		_, rel, ok := strings.Cut(f.Name, "/")
		if !ok || found[rel] || !slices.Contains(ogbFiles, rel) {
			continue
		}
		if err := extract(f, filepath.Join(tmp, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("unpack %s: %s: %w", zipPath, f.Name, err)
		}
		found[rel] = true
	}
	for _, rel := range ogbFiles {
		if !found[rel] {
			return fmt.Errorf("unpack %s: no member */%s", zipPath, rel)
		}
	}
	if spec.SHA256 == "" && spec.GitBlob == "" {
		g, _, err := LoadOGBArxiv(tmp)
		if err == nil {
			err = spec.check(g)
		}
		if err != nil {
			return fmt.Errorf("unpack %s: the download has no known checksum and its content is not %s: %w", zipPath, spec.Name, err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		// A download of the same dataset running at once (another
		// process sharing the data directory) put its verified copy in
		// place first: keep that one.
		if st, serr := os.Stat(dst); serr == nil && st.IsDir() {
			os.RemoveAll(tmp)
			return nil
		}
		return err
	}
	return nil
}

func extract(f *zip.File, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
