package graph_test

import (
	"fmt"
	"log"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// A triangle of two classes and a pendant node without a label: two of
// the three edges between labelled nodes join different classes.
func ExampleDescribe() {
	g, err := graph.NewBuilder(2).Name("triangle").ClassNames("red", "blue").
		Node(0, 1, 0).Node(0, 1, 1).Node(1, 0, 1).Node(-1, 0, 0).
		Chain(0, 1, 2, 0).Edge(2, 3).
		Done()
	if err != nil {
		log.Fatal(err)
	}
	s, err := graph.Describe(g)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)
	fmt.Println("degrees", s.Degrees, "classes", s.ClassNames, s.ClassCounts)
	fmt.Printf("node homophily %.2f, feature density %.2f\n", s.NodeHomophily, s.FeatureDensity)
	// Output:
	// triangle: 4 nodes (1 unlabelled), 4 undirected edges (mean degree 2.00, 0 isolated nodes), 2 classes, 2 features (density 0.5); edge homophily 0.333
	// degrees [2 2 3 1] classes [red blue] [2 1]
	// node homophily [0.50 0.50 0.00 NaN], feature density [0.50 1.00 0.50 0.00]
}
