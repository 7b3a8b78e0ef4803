// Package testenv locates the shared benchmark datasets for tests and
// benchmarks ($CUQ_TEST_DATA when set, otherwise the folder shared/datasets
// beside the repository, ../shared/datasets seen from the module root),
// measures what a function allocates, for tests of memory bounds, finds a
// Python with numpy for the tests against independent numpy scripts,
// makes the files (named pipes among them) and the https server that tests
// of loading and downloading need, and makes and splits the graphs of
// tests.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// DatasetsDir returns the directory holding the shared npz files, or "" when
// it cannot be found.
func DatasetsDir() string {
	if d := os.Getenv("CUQ_TEST_DATA"); d != "" {
		return d
	}
	root := moduleRoot()
	if root == "" {
		return ""
	}
	cand := filepath.Join(root, "..", "shared", "datasets")
	if st, err := os.Stat(cand); err == nil && st.IsDir() {
		return cand
	}
	return ""
}

// moduleRoot returns the directory of the go.mod above the working
// directory (a test's package directory), or "" when there is none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// RequireDatasets returns the shared datasets directory. When it is missing
// the test fails under CI (CI=true, where the data must be present) and is
// skipped elsewhere.
func RequireDatasets(tb testing.TB) string {
	tb.Helper()
	d := DatasetsDir()
	if d == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("shared datasets not found: set CUQ_TEST_DATA or place shared/datasets beside the repository")
		}
		tb.Skip("shared datasets not found (set CUQ_TEST_DATA)")
	}
	return d
}

// AllocatedBy returns the bytes of heap memory that fn allocates, counted
// by runtime.MemStats.TotalAlloc (which only grows, so memory freed again
// by fn still counts). Run it outside parallel tests: allocations of other
// goroutines count too.
func AllocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
