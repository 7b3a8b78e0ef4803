package kernelext

import (
	"os"
	"path/filepath"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Environment variables that the notebooks read.
const (
	// EnvQuick selects quick mode when set to anything but "" or "0": fewer
	// epochs, splits and graph sizes, so that a notebook runs in minutes
	// (CI runs every notebook so).
	EnvQuick = "CUQ_QUICK"
	// EnvData names the directory of the benchmark files (see DataDir).
	EnvData = "CUQ_DATA"
)

// Quick reports whether the notebooks run in quick mode ($CUQ_QUICK set and
// not "0").
func Quick() bool {
	v := os.Getenv(EnvQuick)
	return v != "" && v != "0"
}

// Mode returns "quick mode" or "full mode", for the lines in which a
// notebook says which of the two produced its numbers.
func Mode() string {
	if Quick() {
		return "quick mode"
	}
	return "full mode"
}

// DataDir returns the directory of the benchmark datasets: $CUQ_DATA when
// set, else datasets.Dir(), where datasets.Load downloads to.
func DataDir() string {
	if d := os.Getenv(EnvData); d != "" {
		return d
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

// LoadDataset loads the named dataset from DataDir() without downloading
// it, or the built-in synthetic CoraML-like graph when name is "Synthetic".
func LoadDataset(name string) (*graph.Graph, error) {
	if name == "Synthetic" {
		return datasets.Synthetic()
	}
	return datasets.Load(name, datasets.FromDir(DataDir()), datasets.NoDownload())
}

// ResultsDir returns the output directory of a notebook's experiment grid
// named name: in quick mode quick-<name> in the kernel's temporary
// directory (os.TempDir() outside GoNB), which goes away with the kernel;
// otherwise results/<name> in the current (the notebooks) directory, where
// a rerun resumes the grid instead of training again.
func ResultsDir(name string) string {
	if Quick() {
		dir := os.Getenv(protocol.GONB_TMP_DIR_ENV)
		if dir == "" {
			dir = os.TempDir()
		}
		return filepath.Join(dir, "quick-"+name)
	}
	return filepath.Join("results", name)
}

// LoadOrSynthetic loads the named dataset from DataDir() when its file is
// there, and otherwise the built-in synthetic CoraML-like graph
// (datasets.Synthetic), so that a notebook runs on any machine. The
// graph's Name says which it is.
func LoadOrSynthetic(name string) (*graph.Graph, error) {
	if HasDataset(name) {
		return LoadDataset(name)
	}
	return datasets.Synthetic()
}
