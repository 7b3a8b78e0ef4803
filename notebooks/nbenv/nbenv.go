// Package nbenv holds what the cuqgnn notebooks share: quick mode, where the
// benchmark datasets are, a memo that keeps a cell's result for the later
// cells of a GoNB kernel session, and charts shown side by side.
//
// GoNB runs every cell as a new Go program: declarations (functions, types,
// imports) carry over to later cells, values computed in a cell's body do
// not. Memo stores a result as a gob file in the kernel's temporary
// directory, so a model is trained once and later cells only redraw its
// prediction.
package nbenv

import (
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/kernelext"
)

// Environment variables read by the notebooks.
const (
	// EnvQuick selects quick mode when set to anything but "" or "0":
	// fewer epochs, one split, small graphs (scripts/ci-notebooks.sh sets
	// it).
	EnvQuick = "CUQ_QUICK"
	// EnvData names the directory holding the benchmark files.
	EnvData = "CUQ_DATA"
	// EnvGoNBTmp is the kernel's temporary directory, set by GoNB for
	// every cell program.
	EnvGoNBTmp = "GONB_TMP_DIR"
)

// SharedData is where the project's CI keeps the benchmark files, relative
// to the notebooks directory: the repository is X/main, the data
// X/shared/datasets.
var SharedData = filepath.Join("..", "..", "shared", "datasets")

// Quick reports whether the notebooks run in quick mode ($CUQ_QUICK set and
// not "0").
func Quick() bool {
	v := os.Getenv(EnvQuick)
	return v != "" && v != "0"
}

// DataDir returns the directory of the benchmark datasets: $CUQ_DATA when
// set, else SharedData (as an absolute path) when it is a directory, else
// datasets.Dir(), where datasets.Load downloads to.
func DataDir() string {
	if d := os.Getenv(EnvData); d != "" {
		return d
	}
	if st, err := os.Stat(SharedData); err == nil && st.IsDir() {
		if abs, err := filepath.Abs(SharedData); err == nil {
			return abs
		}
	}
	return datasets.Dir()
}

// HasDataset reports whether the file of the registered dataset name is in
// DataDir(), so that datasets.Load finds it without downloading.
func HasDataset(name string) bool {
	spec, err := datasets.Info(name)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(DataDir(), spec.File))
	return err == nil
}

// Memo returns fn's result, computed once per kernel session: the first
// call stores it (encoding/gob) as memo-<key>.gob in $GONB_TMP_DIR and
// later calls, from any cell, decode it. The stored value is what gob
// encodes: exported fields only, nil pointers and interfaces omitted.
// An error of fn is returned and nothing is stored; a file that does not
// decode is recomputed. Outside GoNB ($GONB_TMP_DIR unset) Memo calls fn.
func Memo[T any](key string, fn func() (T, error)) (T, error) {
	dir := os.Getenv(EnvGoNBTmp)
	if dir == "" {
		return fn()
	}
	path := filepath.Join(dir, "memo-"+key+".gob")
	var v T
	if f, err := os.Open(path); err == nil {
		err = gob.NewDecoder(f).Decode(&v)
		f.Close()
		if err == nil {
			return v, nil
		}
		var zero T
		v = zero
	}
	v, err := fn()
	if err != nil {
		return v, err
	}
	if err := save(path, v); err != nil {
		return v, fmt.Errorf("nbenv: memo %q: %w", key, err)
	}
	return v, nil
}

// save writes v to path atomically (a temporary file renamed over path),
// so that an interrupted cell never leaves a partial file behind.
func save(path string, v any) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".memo-*")
	if err != nil {
		return err
	}
	err = errors.Join(gob.NewEncoder(f).Encode(v), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Reset forgets the memo of key, so that the next Memo call recomputes it.
// Forgetting a key that is not stored is not an error.
func Reset(key string) error {
	dir := os.Getenv(EnvGoNBTmp)
	if dir == "" {
		return nil
	}
	err := os.Remove(filepath.Join(dir, "memo-"+key+".gob"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// ResultsDir returns the output directory of a notebook's experiment grid
// named name: in quick mode quick-<name> in the kernel's temporary directory
// (os.TempDir() outside GoNB), which goes away with the kernel; otherwise
// results/<name> in the current (the notebooks) directory, where a rerun
// resumes the grid instead of training again.
func ResultsDir(name string) string {
	if Quick() {
		dir := os.Getenv(EnvGoNBTmp)
		if dir == "" {
			dir = os.TempDir()
		}
		return filepath.Join(dir, "quick-"+name)
	}
	return filepath.Join("results", name)
}

// ShowRow shows charts side by side, each width×height CSS pixels, wrapping
// to the next line when the notebook is narrower than the row: one output
// holding the charts, preceded by a style element that makes their
// elements inline blocks.
func ShowRow(width, height int, charts ...*chart.Chart) error {
	style, err := rowStyle(width, height, charts)
	if err != nil {
		return kernelext.Show(nil, err)
	}
	page := chart.NewPage("")
	page.AddCharts(charts...)
	gonbui.DisplayHTML(style)
	return kernelext.Show(page)
}

// rowStyle sets the charts' size and returns the style element that puts
// their elements side by side.
func rowStyle(width, height int, charts []*chart.Chart) (string, error) {
	if len(charts) == 0 {
		return "", errors.New("nbenv.ShowRow: no charts")
	}
	if width <= 0 || height <= 0 {
		return "", fmt.Errorf("nbenv.ShowRow: size %d×%d is not positive", width, height)
	}
	ids := make([]string, len(charts))
	for k, c := range charts {
		if c == nil {
			return "", fmt.Errorf("nbenv.ShowRow: chart %d is nil", k)
		}
		c.Width, c.Height = width, height
		ids[k] = "#" + c.ID
	}
	return "<style>" + strings.Join(ids, ",") + "{display:inline-block;vertical-align:top;margin:0 6px 6px 0;}</style>", nil
}
