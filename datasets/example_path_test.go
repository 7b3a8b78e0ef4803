package datasets_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cuqgnn/cuqgnn/datasets"
)

func ExampleLoadPath() {
	// The sample graph of the notebooks: a directory of CSV files.
	l, err := datasets.LoadPath("../notebooks/data/smallgraph")
	if err != nil {
		log.Fatal(err)
	}
	g := l.Graph
	fmt.Println(g.Name, g.N, g.NumClasses, g.ClassNames)
	fmt.Println("node 0 is", l.IDs[0], "of class", g.ClassNames[g.Labels[0]])
	fmt.Println(len(l.Split.Train), "training nodes")
	fmt.Println(l.Report)
	// Output:
	// smallgraph 300 4 [astronomy biology chemistry linguistics]
	// node 0 is doc001 of class linguistics
	// 27 training nodes
	// 300 nodes (15 unlabelled), 4 classes, 64 sparse features; 582 edge rows: 0 self loops dropped, 0 duplicates coalesced, 582 reverse edges added, 582 undirected edges
}

func ExampleIsPath() {
	for _, name := range []string{"CoraML", "./mygraph", "export.npz"} {
		fmt.Println(name, datasets.IsPath(name))
	}
	// Output:
	// CoraML false
	// ./mygraph true
	// export.npz true
}

func ExampleWriteCSV() {
	g, err := datasets.CSBM(40, 2).Features(3).Seed(1).Done()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "csbm")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := datasets.WriteCSV(dir, &datasets.Loaded{Graph: g}); err != nil {
		log.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	l, err := datasets.LoadCSV(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Graph.N, l.Graph.NumFeatures(), l.Graph.NumEdges() == g.NumEdges())
	// Output:
	// edges.csv
	// features.csv
	// labels.csv
	// 40 3 true
}
