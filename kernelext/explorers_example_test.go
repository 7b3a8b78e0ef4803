package kernelext_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/kernelext"
	"github.com/cuqgnn/cuqgnn/kernelext/explore"
)

// One cell shows all three explorers of the teaching notebook as one
// output; the notebook's HTML export keeps them working without a kernel.
func ExampleShowExplorers() {
	if err := kernelext.ShowExplorers(explore.Dirichlet(), explore.Pooling(), explore.Degree()); err != nil {
		return // the error is shown in the cell
	}
}

// Outside a notebook the same bundle goes to a standalone page.
func ExampleExplorers() {
	b, err := kernelext.Explorers(explore.Dirichlet().Alpha(8, 2, 1), explore.Degree().Side(20))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := b.WriteFile("explorers.html", "CUQ-GNN explorers"); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%.1f MB of HTML\n", float64(b.Sizes().HTML)/1e6)
}
