package reftables_test

import (
	"os"

	"github.com/cuqgnn/cuqgnn/experiment/reftables"
)

func ExampleWriteIDOODMarkdown() {
	row := reftables.IDOODRow{Dataset: "CoraML", Model: "GPN", Acc: reftables.Metric{Value: reftables.Some(0.8034), SE: reftables.Some(0.0012)}}
	row.Settings[reftables.OODLoc].Metrics[reftables.OODTotalEntropy] = reftables.Metric{Value: reftables.Some(0.8551)}
	if err := reftables.WriteIDOODMarkdown(os.Stdout, []reftables.IDOODRow{row}); err != nil {
		panic(err)
	}
	// Output:
	// ### CoraML
	//
	// | Model | Acc | loc ID acc | loc LC | loc TU | loc AU | loc EU | loc EU_PC | loc EU_SO |
	// | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
	// | GPN | 80.34 ± 0.12 | – | – | 85.51 | – | – | – | – |
}
