package experiment_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuqgnn/cuqgnn/cuq/experiment"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// A grid on a small synthetic graph: two models, two splits, all four
// settings. Run writes one record per job under out/runs and, the grid
// being complete, the tables and the report.
func Example() {
	g, err := datasets.CSBM(160, 4).Features(16).FeatureSignal(2).Seed(7).Name("Toy").Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := experiment.NewDataset(g, 1) // leave the last class out
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := os.MkdirTemp("", "cuq-grid")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(out)

	sum, err := experiment.Paper().Dataset(d).Models(experiment.APPNP, experiment.GKDE).
		Splits(2).Inits(1).MaxEpochs(10).Out(out).Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d jobs run, complete: %v\n", sum.Ran, sum.Complete)
	_, err = os.Stat(filepath.Join(out, "tables", "id_ood.csv"))
	fmt.Println("id_ood.csv written:", err == nil)

	res, err := experiment.Collect(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Rows {
		fmt.Println(r.Dataset, r.Model)
	}
	// Output:
	// 8 jobs run, complete: true
	// id_ood.csv written: true
	// Toy APPNP
	// Toy GKDE
}

func ExampleParseModels() {
	models, err := experiment.ParseModels("gpn_lop, CUQ-GCN,gdk")
	fmt.Println(models, err)
	_, err = experiment.ParseModels("gpn,mlp")
	fmt.Println(err)
	// Output:
	// [LOP-GPN CUQ-GCN GKDE] <nil>
	// experiment: unknown model "mlp" (valid: appnp, gkde, gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat)
}
