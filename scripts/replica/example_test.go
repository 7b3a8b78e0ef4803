package replica_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

// Export a CUQ-PPR run for the replica, then train it in cuqgnn and write
// the result the replica's way; scripts/replica/replica.py RUN_DIR trains
// the same run in PyTorch.
func Example() {
	g, err := datasets.CSBM(200, 3).Features(8).Done()
	if err != nil {
		log.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.7))
	if err != nil {
		log.Fatal(err)
	}
	b, err := replica.Preset(g.Name, "cuq_ppr", 0, cuq.DefaultSeeding())
	if err != nil {
		log.Fatal(err)
	}
	m, err := b.Done(g)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "run")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	schedule := m.Schedule()
	schedule.MaxEpochs = 3
	run, err := replica.Export(dir, m, schedule, g.Name, "cuq_ppr", 10, 0.1, split)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range run.Params {
		fmt.Println(p.Group, p.Name, p.Shape)
	}
	r, err := replica.Train(m, split, schedule)
	if err != nil {
		log.Fatal(err)
	}
	if err := replica.WriteResult(filepath.Join(dir, "cuqgnn"), r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(r.Epochs), "epochs, output", r.Output.Shape)
	// Output:
	// others encoder0.W [8 64]
	// others encoder0.b [1 64]
	// others latent.W [64 16]
	// others latent.b [1 16]
	// flows flow.x0 [30 16]
	// flows flow.a [10 3]
	// flows flow.b [10 3]
	// 8 epochs, output [200 3]
}
