package kernelext

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// TestKeyOfIgnoresDerivedCaches trains one model on a graph with sparse
// features, which makes the feature matrix cache its transpose, and checks
// that another model's key on that graph stays what it was: a later cell
// program, which loads the first model from the cache instead of training
// it, must find the second one too.
func TestKeyOfIgnoresDerivedCaches(t *testing.T) {
	g, split := csbm(t, 60, 1, graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	g.Features = tensor.DenseToCSR(g.Features.(*tensor.Dense))
	before := KeyOf("train", cuq.CUQGCN(), g, split)
	m, err := cuq.APPNP().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(split, cuq.MaxEpochs(2)); err != nil {
		t.Fatal(err)
	}
	if after := KeyOf("train", cuq.CUQGCN(), g, split); after != before {
		t.Errorf("training another model on the graph changed the key from %v to %v", before, after)
	}
	// Still, the matrix's own contents count.
	h := g.Clone()
	h.Features.(*tensor.CSR).Val[0]++
	if KeyOf("train", cuq.CUQGCN(), h, split) == before {
		t.Error("changing a feature value keeps the key")
	}
}

func TestKeyOfFollowsEverySetting(t *testing.T) {
	g, split := csbm(t, 60, 1, graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	base := KeyOf("m", cuq.CUQGCN(), g, split)
	if again := KeyOf("m", cuq.CUQGCN(), g, split); again != base {
		t.Errorf("the same model and split give two keys: %v, %v", base, again)
	}
	other, err := g.Split(graph.Stratified(0.2, 0.2, 0.6).Seed(2))
	if err != nil {
		t.Fatal(err)
	}
	h := g.Clone()
	h.Labels[0] = (h.Labels[0] + 1) % h.NumClasses
	for name, k := range map[string]Key{
		"seed":          KeyOf("m", cuq.CUQGCN().Seed(7), g, split),
		"dropout":       KeyOf("m", cuq.CUQGCN().Conv(cuq.GCNConv(64).Dropout(0.4)), g, split),
		"encoder width": KeyOf("m", cuq.CUQGCN().Encoder(cuq.MLP(32)), g, split),
		"model":         KeyOf("m", cuq.CUQGAT(), g, split),
		"split":         KeyOf("m", cuq.CUQGCN(), g, other),
		"graph data":    KeyOf("m", cuq.CUQGCN(), h, split),
		"name":          KeyOf("n", cuq.CUQGCN(), g, split),
	} {
		if k.Digest == base.Digest && k.Name == base.Name {
			t.Errorf("changing the %s keeps the key", name)
		}
	}
	// Maps hash alike whatever their iteration order; cycles end.
	type node struct {
		Next *node
		M    map[string]int
	}
	a := &node{M: map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}}
	a.Next = a
	k1 := KeyOf("x", a)
	for range 20 {
		if KeyOf("x", &node{Next: nil, M: a.M}) == k1 {
			t.Fatal("a cycle and no cycle hash alike")
		}
		if KeyOf("x", a) != k1 {
			t.Fatal("the same map hashed two ways")
		}
	}
}

func TestCacheKeepsResultsAcrossCellPrograms(t *testing.T) {
	key := KeyOf("answer", 1)
	t.Cleanup(func() { Forget("answer") })
	calls := 0
	compute := func() ([]float64, error) { calls++; return []float64{4, 2}, nil }
	for range 2 {
		v, err := Cache(key, compute)
		if err != nil || len(v) != 2 || v[1] != 2 {
			t.Fatalf("Cache = %v, %v", v, err)
		}
	}
	if calls != 1 {
		t.Errorf("computed %d times, want once", calls)
	}
	// Another key computes anew; a damaged file is recomputed.
	if _, err := Cache(KeyOf("answer", 2), compute); err != nil || calls != 2 {
		t.Errorf("another key: calls %d, err %v", calls, err)
	}
	files, _ := filepath.Glob(filepath.Join(cacheDir(), "answer-*.gob"))
	if len(files) != 2 {
		t.Fatalf("%d cache files, want 2", len(files))
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := Cache(key, compute); err != nil || calls != 3 || v[0] != 4 {
		t.Errorf("damaged file: v %v, calls %d, err %v", v, calls, err)
	}
	// Errors are returned and not stored.
	boom := errors.New("boom")
	if _, err := Cache(KeyOf("answer", 3), func() (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("error not returned: %v", err)
	}
	if err := Forget("answer"); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cacheDir(), "answer-*")); len(files) != 0 {
		t.Errorf("Forget left %v", files)
	}
}

func TestCacheOutsideGoNBComputes(t *testing.T) {
	t.Setenv("GONB_TMP_DIR", "")
	calls := 0
	for range 2 {
		if _, err := Cache(KeyOf("x"), func() (int, error) { calls++; return 1, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("outside GoNB computed %d times, want every call", calls)
	}
}

// TestCacheDetectsFlippedBits flips single bits of a cached result's file
// and checks that every flip is either detected (a one-line warning, and
// the result computed again) or harmless: the value Cache returns is
// always the one fn computes.
func TestCacheDetectsFlippedBits(t *testing.T) {
	var warned bytes.Buffer
	defer func(w io.Writer) { warnings = w }(warnings)
	warnings = &warned
	key := KeyOf("flips", 1)
	t.Cleanup(func() { Forget("flips") })
	want := []float64{0.25, -1.5, 3, 1e-3, 42}
	calls := 0
	compute := func() ([]float64, error) { calls++; return slices.Clone(want), nil }
	if _, err := Cache(key, compute); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cacheDir(), "flips-*.gob"))
	if len(files) != 1 {
		t.Fatalf("%d cache files, want 1", len(files))
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	detected := 0
	for bit := 0; bit < 8*len(good); bit += 3 {
		bad := slices.Clone(good)
		bad[bit/8] ^= 1 << (bit % 8)
		if err := os.WriteFile(files[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		warned.Reset()
		before := calls
		v, err := Cache(key, compute)
		if err != nil || !slices.Equal(v, want) {
			t.Fatalf("bit %d flipped: Cache = %v, %v; want %v", bit, v, err, want)
		}
		if calls != before+1 {
			t.Fatalf("bit %d flipped: not computed again", bit)
		}
		if lines := strings.Count(warned.String(), "\n"); lines != 1 || !strings.Contains(warned.String(), "damaged") {
			t.Fatalf("bit %d flipped: warning %q, want one line saying the file is damaged", bit, warned.String())
		}
		detected++
		// The recomputed result replaced the damaged file.
		if again, err := os.ReadFile(files[0]); err != nil || !bytes.Equal(again, good) {
			t.Fatalf("bit %d flipped: the file was not rewritten", bit)
		}
	}
	if detected == 0 {
		t.Fatal("no bit flipped")
	}
}

// TestCacheUnwritableKeepsTheResult checks that a result that cannot be
// stored is returned with a warning, not discarded.
func TestCacheUnwritableKeepsTheResult(t *testing.T) {
	var warned bytes.Buffer
	defer func(w io.Writer) { warnings = w }(warnings)
	warnings = &warned
	dir := t.TempDir()
	// A file where the cache directory should be: nothing can be stored.
	if err := os.WriteFile(filepath.Join(dir, "cuqgnn-cache"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GONB_TMP_DIR", dir)
	v, err := Cache(KeyOf("unwritable"), func() (int, error) { return 7, nil })
	if err != nil || v != 7 {
		t.Fatalf("Cache = %v, %v; want 7 and no error", v, err)
	}
	if !strings.Contains(warned.String(), "not cached") {
		t.Errorf("warning %q, want one saying the result is not cached", warned.String())
	}
}
