package datasets

import (
	"archive/zip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// download fetches spec's file into dst (a file, or for OGB layouts a
// directory unpacked from the downloaded zip). Nothing appears at dst
// unless the download is complete and verified.
func download(cfg *config, spec Spec, dst string) error {
	url := spec.URL
	if cfg.baseURL != "" {
		url = cfg.baseURL + "/" + path.Base(spec.URL)
	}
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return err
	}
	if !spec.ogb {
		return fetch(cfg.client, url, dst, spec.SHA256, spec.GitBlob)
	}
	zipPath := dst + ".zip"
	if err := fetch(cfg.client, url, zipPath, spec.SHA256, spec.GitBlob); err != nil {
		return err
	}
	defer os.Remove(zipPath)
	return unpackOGB(zipPath, dst)
}

// fetch downloads url into dst atomically: the body goes to a temporary
// file in dst's directory, which is checked against the hex SHA-256
// wantSHA and the git blob id wantBlob (each only when non-empty) and then
// renamed to dst. On any error the temporary file is removed.
func fetch(client *http.Client, url, dst, wantSHA, wantBlob string) (err error) {
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if err != nil {
		return fmt.Errorf("download %s: interrupted after %d bytes: %w", url, n, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); wantSHA != "" && got != wantSHA {
		return fmt.Errorf("download %s: checksum mismatch: SHA-256 %s, want %s", url, got, wantSHA)
	}
	if wantBlob != "" {
		got, err := gitBlobID(tmp, n)
		if err != nil {
			return fmt.Errorf("download %s: %w", url, err)
		}
		if got != wantBlob {
			return fmt.Errorf("download %s: checksum mismatch: git blob %s, want %s", url, got, wantBlob)
		}
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	return nil
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
// files are written, so member names cannot escape the directory.
func unpackOGB(zipPath, dst string) (err error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("unpack %s: %w", zipPath, err)
	}
	defer zr.Close()
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
	if err != nil {
		return err
	}
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
	return os.Rename(tmp, dst)
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
