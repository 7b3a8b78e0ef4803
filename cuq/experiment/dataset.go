package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq"
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
// missing file gives an error wrapping fs.ErrNotExist) with
// its number of left-out classes (graph.LeftOutClasses) and, for OGBN
// Arxiv, its official split. The name SyntheticName gives
// datasets.Synthetic with 3 left-out classes, as CoraML.
func LoadDataset(name, dir string) (*Dataset, error) {
	if squash(name) == squash(SyntheticName) {
		g, err := datasets.Synthetic()
		if err != nil {
			return nil, err
		}
		return &Dataset{Name: SyntheticName, Graph: g, LeftOut: 3}, nil
	}
	spec, path, err := datasetFile(name, dir)
	if err != nil {
		return nil, err
	}
	k, ok := graph.LeftOutClasses(spec.Name)
	if !ok {
		return nil, fmt.Errorf("experiment: no leave-out-classes setting known for %s", spec.Name)
	}
	d := &Dataset{Name: spec.Name, LeftOut: k}
	if isArxiv(spec.Name) {
		g, split, err := datasets.LoadOGBArxiv(path)
		if err != nil {
			return nil, err
		}
		d.Graph, d.Official = g, &split
		return d, nil
	}
	if d.Graph, err = datasets.Load(spec.Name, datasets.FromDir(dir), datasets.NoDownload()); err != nil {
		return nil, err
	}
	return d, nil
}

// datasetFile returns the registry entry of a benchmark dataset and the
// path of its file in dir, with an error wrapping fs.ErrNotExist when the
// file is missing.
func datasetFile(name, dir string) (datasets.Spec, string, error) {
	spec, err := datasets.Info(name)
	if err != nil {
		return spec, "", fmt.Errorf("experiment: %w", err)
	}
	path := filepath.Join(dir, spec.File)
	if _, err := os.Stat(path); err != nil {
		return spec, "", fmt.Errorf("experiment: dataset %s: %w (the data directory must hold %s)", spec.Name, err, spec.File)
	}
	return spec, path, nil
}

// Available returns those of the named datasets whose files are in dir, in
// the given order.
func Available(dir string, names ...string) []string {
	var out []string
	for _, name := range names {
		if _, _, err := datasetFile(name, dir); err == nil {
			out = append(out, name)
		}
	}
	return out
}

func isArxiv(name string) bool { return name == "OGBNArxiv" }

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

// numInits is how many of the requested initialisations model m runs on
// the dataset: GKDE has no parameters and runs init 1 only; the reference
// runs LOP-GPN with at most 2 inits on OGBN Arxiv.
func numInits(dataset string, m Model, requested int) int {
	switch {
	case m == GKDE:
		return 1
	case m == LOPGPN && isArxiv(dataset):
		return min(requested, 2)
	}
	return requested
}

// configure applies the reference implementation's per-dataset overrides
// to the preset of m: on OGBN Arxiv evaluation every 10 epochs, patience 5
// and GKDE cutoff 2; LOP-GPN prunes its mixture weights at 0.01 on the
// larger graphs (AmazonPhotos, AmazonComputers, PubMed, OGBNArxiv).
func (d *Dataset) configure(m Model, b *cuq.Builder) {
	if isArxiv(d.Name) {
		b.EvalEvery(10).Patience(5)
		if m == GKDE {
			b.Cutoff(2)
		}
	}
	if m == LOPGPN {
		switch d.Name {
		case "AmazonPhotos", "AmazonComputers", "PubMed", "OGBNArxiv":
			b.Prune(0.01)
		}
	}
}

// tableNames maps the benchmark datasets to their names in id_ood.csv and
// in the acc_rej file names.
var tableNames = map[string][2]string{
	"CoraML":          {"CoraML", "CoraML"},
	"CiteSeer":        {"CiteSeer", "CiteSeer"},
	"AmazonPhotos":    {`Amazon\\Photos`, "Photos"},
	"AmazonComputers": {`Amazon\\Computers`, "Computers"},
	"PubMed":          {"PubMed", "PubMed"},
	"OGBNArxiv":       {`OGBN\\Arxiv`, "Arxiv"},
}

// paperOrder is the datasets' order in the paper's tables.
var paperOrder = []string{"CoraML", "CiteSeer", "AmazonPhotos", "AmazonComputers", "PubMed", "OGBNArxiv"}

// inlineName is the dataset's name in id_ood.csv.
func inlineName(ds string) string {
	if n, ok := tableNames[ds]; ok {
		return n[0]
	}
	return ds
}

// fileName is the dataset's name in acc_rej_<type>_<ds>.csv.
func fileName(ds string) string {
	if n, ok := tableNames[ds]; ok {
		return n[1]
	}
	return ds
}
