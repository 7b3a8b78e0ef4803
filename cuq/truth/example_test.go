package truth_test

import (
	"fmt"
	"log"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/truth"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// How well APPNP's and GPN's uncertainties rank the nodes of a homophilous
// CSBM with clear features by their ground-truth uncertainty.
func ExampleSweep() {
	table, err := truth.Sweep(
		truth.Model{Name: "APPNP", Preset: cuq.APPNP()},
		truth.Model{Name: "GPN", Preset: cuq.GPN()},
	).Homophily(0.9).Signal(2).Done()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range table {
		if r.Measure == uq.TU {
			fmt.Printf("%s TU against the %s ground truth: Spearman above 0.1: %v\n", r.Model, r.Truth, r.Spearman > 0.1)
		}
	}
	// table.Markdown() formats the whole table.

	// Output:
	// APPNP TU against the total ground truth: Spearman above 0.1: true
	// GPN TU against the total ground truth: Spearman above 0.1: true
}
