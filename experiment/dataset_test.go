package experiment

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// LoadDataset reads OGBN Arxiv through datasets.LoadSplit, so a directory
// of the wrong size is an error rather than a different graph. (It used to
// read the directory itself, skipping the size checks.)
func TestLoadDatasetChecksArxivSizes(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteGzipFiles(t, filepath.Join(dir, "ogbn_arxiv"), testenv.TinyOGB())
	_, err := LoadDataset("ogbn-arxiv", dir)
	if want := "graph has 3 nodes, 2 features, 2 classes; want 169343, 128, 40"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want one containing %q", err, want)
	}
}

// LoadDataset takes the number of left-out classes from the dataset's
// record.
func TestLoadDatasetLeftOut(t *testing.T) {
	d, err := LoadDataset("citeseer", testenv.RequireDatasets(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "CiteSeer" || d.LeftOut != 2 || d.Official != nil {
		t.Errorf("dataset %s, %d left out, official split %v; want CiteSeer, 2, none", d.Name, d.LeftOut, d.Official)
	}
}

// The tables list the paper's datasets in the paper's order, then others
// in order of appearance, under the reference's names.
func TestTableNames(t *testing.T) {
	got := tableOrder([]string{"Tiny", "OGBNArxiv", "PubMed", "Toy", "CoraML", "AmazonPhotos"})
	if want := []string{"CoraML", "AmazonPhotos", "PubMed", "OGBNArxiv", "Tiny", "Toy"}; !slices.Equal(got, want) {
		t.Errorf("tableOrder = %v, want %v", got, want)
	}
	for ds, want := range map[string][2]string{
		"CoraML": {"CoraML", "CoraML"}, "AmazonComputers": {`Amazon\\Computers`, "Computers"},
		"OGBNArxiv": {`OGBN\\Arxiv`, "Arxiv"}, "Tiny": {"Tiny", "Tiny"},
		"arxiv": {"arxiv", "arxiv"}, // an in-memory dataset, not the registry's
	} {
		if got := [2]string{tableName(ds), shortName(ds)}; got != want {
			t.Errorf("%s: table name %q, file name %q; want %q", ds, got[0], got[1], want)
		}
	}
}

// Model.Preset applies the dataset record's overrides: on OGBN Arxiv GKDE
// looks at most 2 hops far (the reference's cutoff there), elsewhere 10;
// Schedule evaluates every 10 epochs with patience 5 there, elsewhere as
// the model's own schedule.
// On a path whose only training node is node 0, node 3 gets evidence on a
// graph named CoraML but none on one named OGBNArxiv; node 2 the same on
// both.
func TestPresetAppliesOverrides(t *testing.T) {
	alphaSums := func(name string) []float64 {
		g, err := datasets.Lattice(1, 6).Classes(2).Done()
		if err != nil {
			t.Fatal(err)
		}
		b, err := GKDE.Preset(name, cuq.DefaultSeeding())
		if err != nil {
			t.Fatal(err)
		}
		m, err := b.Classifier(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Fit(graph.Split{Train: []int{0}, Val: []int{1}, Test: []int{2, 3}, Unused: []int{4, 5}}); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		sums := make([]float64, g.N)
		for i := range sums {
			for _, a := range p.Alpha.Row(i) {
				sums[i] += a
			}
		}
		return sums
	}
	cora, arxiv := alphaSums("CoraML"), alphaSums("OGBNArxiv")
	if cora[2] != arxiv[2] || !(cora[3] > arxiv[3]) {
		t.Errorf("α0 of nodes 2 and 3: CoraML %v, %v; OGBNArxiv %v, %v; want equal at 2 and less evidence at 3 on OGBNArxiv",
			cora[2], cora[3], arxiv[2], arxiv[3])
	}
	g, err := datasets.Lattice(1, 6).Classes(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	gpn, err := cuq.GPN().Done(g)
	if err != nil {
		t.Fatal(err)
	}
	want := cuq.PostNetSchedule()
	if got := Schedule("CoraML", gpn, 0); got != want {
		t.Errorf("CoraML's schedule %+v, want GPN's own %+v", got, want)
	}
	want.EvalEvery, want.Patience, want.MaxEpochs = 10, 5, 7
	if got := Schedule("OGBNArxiv", gpn, 7); got != want {
		t.Errorf("OGBNArxiv's schedule capped at 7 epochs %+v, want %+v", got, want)
	}
}

// The grid's classifier applies the dataset's overrides by the dataset's
// name, not by the graph's: LOP-GPN on the leave-out-classes graph of
// AmazonPhotos, named "AmazonPhotos, leave-out classes …", keeps its
// pruned mixture weights, so one training step gives another output than
// on the same graph as a dataset without pruning.
func TestClassifierKeepsOverridesOnDerivedGraphs(t *testing.T) {
	g, err := datasets.CSBM(120, 4).Homophily(0.8).Features(8).Seed(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.2, 0.2, 0.6).Seed(1))
	if err != nil {
		t.Fatal(err)
	}
	output := func(dataset string) []float64 {
		t.Helper()
		h := *g
		h.Name = dataset
		d := &Dataset{Name: dataset, Graph: &h, LeftOut: 2}
		loc, err := graph.LeaveOutClasses(d.Graph, split, d.LeftOut)
		if err != nil {
			t.Fatal(err)
		}
		if want := dataset + ", leave-out classes 2–3"; loc.Graph.Name != want {
			t.Fatalf("leave-out-classes graph named %q, want %q", loc.Graph.Name, want)
		}
		c, err := LOPGPN.Classifier(d, loc.Graph, 1)
		if err != nil {
			t.Fatal(err)
		}
		m := c.(*cuq.Model)
		if _, err := m.Step(loc.Split); err != nil {
			t.Fatal(err)
		}
		out, err := m.Forward(nil)
		if err != nil {
			t.Fatal(err)
		}
		return out.Data
	}
	if slices.Equal(output("AmazonPhotos"), output("CoraML")) {
		t.Error("LOP-GPN on AmazonPhotos' leave-out-classes graph computes the exact, unpruned mixture weights")
	}
}
