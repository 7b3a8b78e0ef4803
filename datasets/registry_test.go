package datasets_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

func TestNamesAndInfo(t *testing.T) {
	// The paper's datasets in its order; the registry may hold more, each
	// found by its own name.
	paper := []string{"CoraML", "CiteSeer", "AmazonPhotos", "AmazonComputers", "PubMed", "OGBNArxiv"}
	if got := datasets.PaperNames(); !slices.Equal(got, paper) {
		t.Errorf("PaperNames = %v, want %v", got, paper)
	}
	names := datasets.Names()
	for _, name := range paper {
		if !slices.Contains(names, name) {
			t.Errorf("Names = %v, without %s", names, name)
		}
	}
	for _, name := range names {
		if s, err := datasets.Info(name); err != nil || s.Name != name {
			t.Errorf("Info(%q) = %q, %v", name, s.Name, err)
		}
	}
	for alias, name := range map[string]string{
		"cora_ml": "CoraML", "CORA-ML": "CoraML", "citeseer": "CiteSeer", "PubMed": "PubMed",
		"Photos": "AmazonPhotos", "amazon_electronics_computers": "AmazonComputers",
		"ogbn-arxiv": "OGBNArxiv", "OGBN Arxiv": "OGBNArxiv",
	} {
		s, err := datasets.Info(alias)
		if err != nil || s.Name != name {
			t.Errorf("Info(%q) = %q, %v; want %q", alias, s.Name, err, name)
		}
	}
	// The sizes the reference implementation expects.
	for name, sizes := range map[string][3]int{
		"CoraML": {2995, 2879, 7}, "CiteSeer": {4230, 602, 6}, "PubMed": {19717, 500, 3},
		"AmazonPhotos": {7650, 745, 8}, "AmazonComputers": {13752, 767, 10}, "OGBNArxiv": {169343, 128, 40},
	} {
		s, _ := datasets.Info(name)
		if [3]int{s.Nodes, s.Features, s.Classes} != sizes {
			t.Errorf("%s: %d/%d/%d, want %v", name, s.Nodes, s.Features, s.Classes, sizes)
		}
	}
	if _, err := datasets.Info("Cora"); err == nil || !strings.Contains(err.Error(), `unknown dataset "Cora" (known: CoraML, CiteSeer`) {
		t.Errorf("unknown name: %v", err)
	}
}

// The paper's facts about each dataset, in its record: how many classes
// the leave-out-classes setting leaves out (under the reference's names
// too), the names in the reference's tables, the paper's order, the
// reference's training overrides and the official split.
func TestPaperFacts(t *testing.T) {
	for name, want := range map[string]int{
		"CoraML": 3, "Cora_ML": 3, "CiteSeer": 2, "CiteSeerFull": 2, "PubMed": 1,
		"AmazonPhotos": 3, "Photos": 3, "AmazonComputers": 5, "OGBNArxiv": 15, "ogbn-arxiv": 15,
	} {
		if s, err := datasets.Info(name); err != nil || s.LeftOutClasses != want {
			t.Errorf("Info(%q): %d left-out classes, %v; want %d", name, s.LeftOutClasses, err, want)
		}
	}
	if _, err := datasets.Info("Reddit"); err == nil {
		t.Error("unknown dataset reported as known")
	}
	want := []string{"CoraML", "CiteSeer", "AmazonPhotos", "AmazonComputers", "PubMed", "OGBNArxiv"}
	if got := datasets.PaperNames(); !slices.Equal(got, want) {
		t.Errorf("PaperNames = %v, want %v", got, want)
	}
	for name, names := range map[string][2]string{
		"CoraML": {"CoraML", "CoraML"}, "CiteSeer": {"CiteSeer", "CiteSeer"}, "PubMed": {"PubMed", "PubMed"},
		"AmazonPhotos": {`Amazon\\Photos`, "Photos"}, "AmazonComputers": {`Amazon\\Computers`, "Computers"},
		"OGBNArxiv": {`OGBN\\Arxiv`, "Arxiv"},
	} {
		s, _ := datasets.Info(name)
		if [2]string{s.TableName, s.ShortName} != names {
			t.Errorf("%s: table name %q, short name %q; want %q", name, s.TableName, s.ShortName, names)
		}
	}
	arxiv := datasets.Overrides{EvalEvery: 10, Patience: 5, GKDECutoff: 2, LOPGPNPrune: 0.01, LOPGPNInits: 2}
	pruned := datasets.Overrides{LOPGPNPrune: 0.01}
	for name, want := range map[string]datasets.Overrides{
		"CoraML": {}, "CiteSeer": {}, "PubMed": pruned, "AmazonPhotos": pruned, "AmazonComputers": pruned, "OGBNArxiv": arxiv,
	} {
		s, _ := datasets.Info(name)
		if s.Overrides != want {
			t.Errorf("%s: overrides %+v, want %+v", name, s.Overrides, want)
		}
		if s.HasOfficialSplit() != (name == "OGBNArxiv") {
			t.Errorf("%s: HasOfficialSplit %v", name, s.HasOfficialSplit())
		}
	}
	// Every record leaves out at least one class and keeps two.
	for _, name := range datasets.Names() {
		s, _ := datasets.Info(name)
		if s.LeftOutClasses < 1 || s.Classes-s.LeftOutClasses < 2 {
			t.Errorf("%s leaves out %d of %d classes", name, s.LeftOutClasses, s.Classes)
		}
	}
}

func TestNameKey(t *testing.T) {
	for in, want := range map[string]string{
		"CoraML": "coraml", "cora_ml": "coraml", " CORA-ML ": "coraml", "ogbn-arxiv": "ogbnarxiv",
		"OGBN Arxiv": "ogbnarxiv", "cuq.gcn": "cuqgcn", "LOP-GPN": "lopgpn", "Amazon\\\\Photos": "amazonphotos", "": "",
	} {
		if got := datasets.NameKey(in); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// LoadSplit returns no split for a dataset split at random.
func TestLoadSplitNone(t *testing.T) {
	g, split, err := datasets.LoadSplit("CoraML", datasets.FromDir(testenv.RequireDatasets(t)), datasets.NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 2995 || split != nil {
		t.Errorf("N %d, split %v; want 2995 nodes and no split", g.N, split)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("CUQ_DATA", "/data/cuq")
	if d := datasets.Dir(); d != "/data/cuq" {
		t.Errorf("Dir with CUQ_DATA = %q", d)
	}
	t.Setenv("CUQ_DATA", "")
	cache, err := os.UserCacheDir()
	if err == nil && datasets.Dir() != filepath.Join(cache, "cuqgnn") {
		t.Errorf("Dir = %q, want %q", datasets.Dir(), filepath.Join(cache, "cuqgnn"))
	}
}

func TestLoadMissingNoDownload(t *testing.T) {
	dir := t.TempDir()
	_, err := datasets.Load("pubmed", datasets.FromDir(dir), datasets.NoDownload())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "pubmed.npz")) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want a not-exist error naming the file", err)
	}
}

func TestLoadChecksumMismatch(t *testing.T) {
	// citeseer_full.npz is the last path element of CiteSeer's URL.
	srv, _ := testenv.FileServer(t, map[string][]byte{"citeseer_full.npz": []byte("not the file"), "cora_ml.npz": make([]byte, 1622498)})
	for _, c := range []struct{ name, want string }{
		{"CiteSeer", "the server announces 12 bytes, want 519139"},
		{"CoraML", "checksum mismatch: SHA-256 "},
	} {
		dir := t.TempDir()
		_, err := datasets.Load(c.name, datasets.FromDir(dir), datasets.BaseURL(srv.URL), datasets.HTTPClient(srv.Client()))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: left %d entries in the data directory", c.name, len(ents))
		}
	}
}

// An archive that unpacks into a valid OGB layout but is not OGB's
// arxiv.zip is not kept: the download is checked against the archive's
// size and SHA-256 before anything is unpacked.
func TestLoadArxivKeepsNothingUnverified(t *testing.T) {
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for rel, content := range tinyOGB() {
		w, _ := zw.Create("arxiv/" + rel)
		w.Write(gz(content))
	}
	zw.Close()
	srv, _ := testenv.FileServer(t, map[string][]byte{"arxiv.zip": zipped.Bytes()})
	dir := t.TempDir()
	_, err := datasets.Load("arxiv", datasets.FromDir(dir), datasets.BaseURL(srv.URL), datasets.HTTPClient(srv.Client()))
	if want := fmt.Sprintf("the server announces %d bytes, want 83058288", zipped.Len()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d entries in the data directory", len(ents))
	}
}

// Every registered download is https and verified: by its SHA-256 and
// size, or by its git blob id (PubMed's).
func TestRegistryDownloadsAreVerified(t *testing.T) {
	for _, name := range datasets.Names() {
		s, _ := datasets.Info(name)
		if !strings.HasPrefix(s.URL, "https://") {
			t.Errorf("%s: URL %s is not https", name, s.URL)
		}
		if (s.SHA256 == "" || s.Size == 0) && s.GitBlob == "" {
			t.Errorf("%s: SHA-256 %q, size %d", name, s.SHA256, s.Size)
		}
	}
}

func TestLoadDownloadsOnce(t *testing.T) {
	shared := testenv.RequireDatasets(t)
	b, err := os.ReadFile(filepath.Join(shared, "cora_ml.npz"))
	if err != nil {
		t.Fatal(err)
	}
	srv, hits := testenv.FileServer(t, map[string][]byte{"cora_ml.npz": b})
	dir := filepath.Join(t.TempDir(), "new", "cache")
	for range 2 {
		g, err := datasets.Load("CoraML", datasets.FromDir(dir), datasets.BaseURL(srv.URL+"/"), datasets.HTTPClient(srv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		if g.N != 2995 || g.NumEdges() != 16316 {
			t.Errorf("N %d edges %d", g.N, g.NumEdges())
		}
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests, want 1 (the second Load reads the cache)", hits.Load())
	}
}

func TestLoadChecksSizes(t *testing.T) {
	// A valid OGB directory of the wrong size is rejected by Load.
	dir := t.TempDir()
	src := writeOGB(t, tinyOGB())
	if err := os.Rename(src, filepath.Join(dir, "ogbn_arxiv")); err != nil {
		t.Fatal(err)
	}
	_, err := datasets.Load("arxiv", datasets.FromDir(dir), datasets.NoDownload())
	if err == nil || !strings.Contains(err.Error(), "graph has 5 nodes, 3 features, 3 classes; want 169343, 128, 40") {
		t.Errorf("err = %v", err)
	}
}
