package nbenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
)

func TestQuick(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv(EnvQuick, c.v)
		if got := Quick(); got != c.want {
			t.Errorf("Quick() with %s=%q = %v, want %v", EnvQuick, c.v, got, c.want)
		}
	}
}

func TestDataDir(t *testing.T) {
	t.Setenv(EnvData, "/some/where")
	if got := DataDir(); got != "/some/where" {
		t.Errorf("DataDir() with %s set = %q, want /some/where", EnvData, got)
	}

	// Without $CUQ_DATA: the shared directory relative to the working
	// directory, as an absolute path.
	t.Setenv(EnvData, "")
	root := t.TempDir()
	nb := filepath.Join(root, "main", "notebooks")
	shared := filepath.Join(root, "shared", "datasets")
	for _, d := range []string{nb, shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(nb)
	if got, err := filepath.EvalSymlinks(DataDir()); err != nil || got != mustEval(t, shared) {
		t.Errorf("DataDir() = %q (%v), want %q", got, err, shared)
	}
	if err := os.WriteFile(filepath.Join(shared, "cora_ml.npz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !HasDataset("CoraML") || HasDataset("CiteSeer") || HasDataset("no such dataset") {
		t.Errorf("HasDataset: CoraML %v (want true), CiteSeer %v, unknown %v (want false)",
			HasDataset("CoraML"), HasDataset("CiteSeer"), HasDataset("no such dataset"))
	}

	// Without the shared directory: the datasets package's default.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	t.Chdir(root)
	if got, want := DataDir(), filepath.Join(root, "cache", "cuqgnn"); got != want {
		t.Errorf("DataDir() without shared data = %q, want %q", got, want)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type result struct {
	Name   string
	Values []float64
}

func TestMemo(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvGoNBTmp, dir)
	calls := 0
	compute := func() (*result, error) {
		calls++
		return &result{Name: "run", Values: []float64{1.5, -2}}, nil
	}
	for i := range 3 {
		r, err := Memo("k", compute)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if r.Name != "run" || len(r.Values) != 2 || r.Values[0] != 1.5 || r.Values[1] != -2 {
			t.Fatalf("call %d: got %+v, want {run [1.5 -2]}", i, r)
		}
	}
	if calls != 1 {
		t.Errorf("fn ran %d times, want once", calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "memo-k.gob")); err != nil {
		t.Errorf("memo file: %v", err)
	}

	// Reset recomputes; resetting a missing key is fine.
	if err := Reset("k"); err != nil {
		t.Fatal(err)
	}
	if err := Reset("k"); err != nil {
		t.Errorf("second Reset: %v", err)
	}
	if _, err := Memo("k", compute); err != nil || calls != 2 {
		t.Errorf("after Reset: err %v, fn ran %d times, want 2", err, calls)
	}

	// Errors are returned and not stored.
	boom := errors.New("boom")
	failing := func() (*result, error) { calls++; return nil, boom }
	for range 2 {
		if _, err := Memo("bad", failing); !errors.Is(err, boom) {
			t.Errorf("Memo error = %v, want boom", err)
		}
	}
	if calls != 4 {
		t.Errorf("failing fn ran %d times in total with the others, want 4", calls)
	}

	// A damaged file is recomputed and replaced.
	if err := os.WriteFile(filepath.Join(dir, "memo-k.gob"), []byte("not gob"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := Memo("k", compute); err != nil || r.Name != "run" || calls != 5 {
		t.Errorf("damaged file: %+v, %v, fn ran %d times, want 5", r, err, calls)
	}
	if r, err := Memo("k", compute); err != nil || r.Name != "run" || calls != 5 {
		t.Errorf("after repair: %+v, %v, fn ran %d times, want 5", r, err, calls)
	}
}

func TestMemoOutsideGoNB(t *testing.T) {
	t.Setenv(EnvGoNBTmp, "")
	calls := 0
	for range 2 {
		v, err := Memo("k", func() (int, error) { calls++; return 7, nil })
		if err != nil || v != 7 {
			t.Fatalf("Memo = %d, %v; want 7", v, err)
		}
	}
	if calls != 2 {
		t.Errorf("outside GoNB fn ran %d times, want 2 (no storage)", calls)
	}
}

func TestResultsDir(t *testing.T) {
	t.Setenv(EnvQuick, "")
	if got, want := ResultsDir("arc"), filepath.Join("results", "arc"); got != want {
		t.Errorf("full mode: ResultsDir = %q, want %q", got, want)
	}
	t.Setenv(EnvQuick, "1")
	t.Setenv(EnvGoNBTmp, "/kernel/tmp")
	if got, want := ResultsDir("arc"), filepath.Join("/kernel/tmp", "quick-arc"); got != want {
		t.Errorf("quick mode: ResultsDir = %q, want %q", got, want)
	}
}

func TestRowStyle(t *testing.T) {
	a, err := chart.NewDirichlet(2, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := chart.SimplexDensity("one", a.Density3, 10, [3]string{"x", "y", "z"})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := chart.SimplexDensity("two", a.Density3, 10, [3]string{"x", "y", "z"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := rowStyle(300, 200, []*chart.Chart{c1, c2})
	if err != nil {
		t.Fatal(err)
	}
	want := "<style>#" + c1.ID + ",#" + c2.ID + "{display:inline-block;"
	if !strings.HasPrefix(s, want) || !strings.HasSuffix(s, "}</style>") {
		t.Errorf("rowStyle = %q, want prefix %q", s, want)
	}
	if c1.Width != 300 || c1.Height != 200 || c2.Width != 300 || c2.Height != 200 {
		t.Errorf("sizes %d×%d and %d×%d, want 300×200", c1.Width, c1.Height, c2.Width, c2.Height)
	}
	if !strings.Contains(c2.Fragment(), "width:300px;height:200px;") {
		t.Errorf("fragment does not carry the new size: %.200s", c2.Fragment())
	}
	for _, c := range []struct {
		w, h   int
		charts []*chart.Chart
		msg    string
	}{
		{300, 200, nil, "no charts"},
		{0, 200, []*chart.Chart{c1}, "size 0×200 is not positive"},
		{300, 200, []*chart.Chart{c1, nil}, "chart 1 is nil"},
	} {
		if _, err := rowStyle(c.w, c.h, c.charts); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("rowStyle(%d, %d, %d charts) error = %v, want one containing %q", c.w, c.h, len(c.charts), err, c.msg)
		}
	}
}
