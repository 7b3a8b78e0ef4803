package experiment_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// toy returns the dataset of the grid examples, a small synthetic graph,
// Toy, of four classes, the last one left out, and a new temporary
// directory, named by pattern as os.MkdirTemp does, for the grid's output.
func toy(pattern string) (*experiment.Dataset, string) {
	g, err := datasets.CSBM(160, 4).Features(16).FeatureSignal(2).Seed(7).Name("Toy").Done()
	if err != nil {
		panic(err)
	}
	d, err := experiment.NewDataset(g, 1) // leave the last class out
	if err != nil {
		panic(err)
	}
	out, err := os.MkdirTemp("", pattern)
	if err != nil {
		panic(err)
	}
	return d, out
}

// A grid on a small synthetic graph (toy): two models, two splits, all
// four settings. Run writes one record per job under out/runs and, the
// grid being complete, the tables and the report.
func Example() {
	d, out := toy("cuq-grid")
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
	// The error goes on to list every model of the catalogue.
	fmt.Println(err.Error()[:strings.Index(err.Error(), " gcn,")])
	// Output:
	// [LOP-GPN CUQ-GCN GKDE] <nil>
	// experiment: unknown model "mlp" (valid: appnp, gkde, gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat,
}

// The shard a batch scheduler assigns through the environment: here the
// fourth task of a Slurm job array submitted with --array=1-8 (lookup
// stands for os.LookupEnv).
// Three workers share one output directory, claiming its jobs one by one;
// on a cluster they would be processes on different machines running the
// same grid. Each job runs once, and each worker returns when the grid is
// complete.
func ExampleGrid_Claim() {
	d, out := toy("cuq-claims")
	defer os.RemoveAll(out)

	sums := make([]*experiment.Summary, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i], errs[i] = experiment.Paper().Dataset(d).Models(experiment.APPNP, experiment.GKDE).
				Splits(2).Inits(1).MaxEpochs(10).Out(out).Claim(cluster.DefaultLease).Run(context.Background())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Println(err)
		return
	}
	ran := 0
	for _, s := range sums {
		ran += s.Ran
		// A worker that starts late finds some jobs finished (Skipped).
		fmt.Println("complete:", s.Complete, "jobs run here, elsewhere or before:", s.Ran+s.Elsewhere+s.Skipped)
	}
	fmt.Println("jobs run in all:", ran)
	// Output:
	// complete: true jobs run here, elsewhere or before: 8
	// complete: true jobs run here, elsewhere or before: 8
	// complete: true jobs run here, elsewhere or before: 8
	// jobs run in all: 8
}
