package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// SyntheticName is the dataset name of datasets.Synthetic, the CoraML-like
// graph used when no data is available.
const SyntheticName = "Synthetic"

// Dataset is one graph of the grid and how its experiments are set up.
type Dataset struct {
	// Name identifies the dataset in records and tables; for the benchmark
	// graphs it is the canonical name of package datasets (CoraML, CiteSeer,
	// PubMed, AmazonPhotos, AmazonComputers, OGBNArxiv).
	Name  string
	Graph *graph.Graph
	// LeftOut is the number of classes (the last ones) left out in the
	// leave-out-classes setting.
	LeftOut int
	// Official is a fixed split (OGBN Arxiv's); nil means the reference's
	// class-stratified random splits 5% / 15% / 80% with seed 42.
	Official *graph.Split
}

// NewDataset wraps a graph for the grid; leftOut classes (the last ones)
// are left out in the leave-out-classes setting and must leave at least two
// classes.
func NewDataset(g *graph.Graph, leftOut int) (*Dataset, error) {
	if g == nil {
		return nil, fmt.Errorf("experiment: NewDataset: nil graph")
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("experiment: NewDataset %q: %w", g.Name, err)
	}
	if leftOut < 1 || g.NumClasses-leftOut < 2 {
		return nil, fmt.Errorf("experiment: NewDataset %q: cannot leave out %d of %d classes (need 1 ≤ k ≤ C−2)", g.Name, leftOut, g.NumClasses)
	}
	if g.Name == "" || strings.ContainsAny(g.Name, ",\"\n\r/\\") {
		return nil, fmt.Errorf("experiment: NewDataset: graph name %q must be non-empty, without commas, quotes, slashes or newlines", g.Name)
	}
	return &Dataset{Name: g.Name, Graph: g, LeftOut: leftOut}, nil
}

// LoadDataset loads a benchmark dataset from dir (never downloading; a
// missing file gives an error wrapping fs.ErrNotExist) with its number of
// left-out classes and its official split, if it has one (OGBN Arxiv), as
// its datasets.Spec records them. The name SyntheticName gives
// datasets.Synthetic with 3 left-out classes, as CoraML.
func LoadDataset(name, dir string) (*Dataset, error) {
	if isSynthetic(name) {
		g, err := datasets.Synthetic()
		if err != nil {
			return nil, err
		}
		return &Dataset{Name: SyntheticName, Graph: g, LeftOut: 3}, nil
	}
	spec, err := datasetFile(name, dir)
	if err != nil {
		return nil, err
	}
	g, split, err := datasets.LoadSplit(spec.Name, datasets.FromDir(dir), datasets.NoDownload())
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: spec.Name, Graph: g, LeftOut: spec.LeftOutClasses, Official: split}, nil
}

// isSynthetic reports whether name is SyntheticName.
func isSynthetic(name string) bool { return datasets.NameKey(name) == datasets.NameKey(SyntheticName) }

// record returns the registry's Spec of the benchmark dataset with the
// canonical name name; in-memory and synthetic datasets have none.
func record(name string) (datasets.Spec, bool) {
	spec, err := datasets.Info(name)
	return spec, err == nil && spec.Name == name
}

// datasetFile returns the registry entry of a benchmark dataset whose file
// is in dir, and an error wrapping fs.ErrNotExist when the file is missing.
func datasetFile(name, dir string) (datasets.Spec, error) {
	spec, err := datasets.Info(name)
	if err != nil {
		return spec, fmt.Errorf("experiment: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, spec.File)); err != nil {
		return spec, fmt.Errorf("experiment: dataset %s: %w (the data directory must hold %s)", spec.Name, err, spec.File)
	}
	return spec, nil
}

// Available returns those of the named datasets whose files are in dir, in
// the given order.
func Available(dir string, names ...string) []string {
	var out []string
	for _, name := range names {
		if _, err := datasetFile(name, dir); err == nil {
			out = append(out, name)
		}
	}
	return out
}

// Split returns split number k (1-based) of d: the official split (k must
// be 1) or the k-th class-stratified random split of the reference.
func (d *Dataset) Split(k int) (graph.Split, error) {
	if d.Official != nil {
		if k != 1 {
			return graph.Split{}, fmt.Errorf("experiment: %s has only its official split, not split %d", d.Name, k)
		}
		return *d.Official, nil
	}
	return d.Graph.SplitK(graph.Stratified(0.05, 0.15, 0.80), k)
}
