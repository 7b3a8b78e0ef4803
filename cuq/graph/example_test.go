package graph_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// A teaching graph for GPN's axioms: two confident labelled nodes, a node
// between them whose neighbours are in conflict, and a node far away.
func ExampleNewBuilder() {
	g, err := graph.NewBuilder(2).
		Name("conflict").
		ClassNames("red", "blue").
		Node(0, 1, 0).      // 0: a red training node
		Node(1, 0, 1).      // 1: a blue training node
		Node(-1, 0.5, 0.5). // 2: unlabelled, between them
		Node(-1, 9, 9).     // 3: far from every training feature
		Nodes(2, -1, 0, 0). // 4, 5: a tail leading to node 3
		Star(2, 0, 1).      // 2's neighbours disagree
		Chain(2, 4, 5, 3).
		Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.N, "nodes,", g.NumEdges()/2, "undirected edges, degrees", g.Degrees())
	// Output: 6 nodes, 5 undirected edges, degrees [1 1 3 1 2 2]
}

func ExampleSymNorm() {
	// The path 0–1–2: with self loops the degrees are 2, 3, 2.
	g, _ := graph.NewBuilder(1).Nodes(3, -1).Chain(0, 1, 2).Done()
	fmt.Println(graph.SymNorm(g.Adj).ToDense())
	// Output: [0.5 0.4082 0; 0.4082 0.3333 0.4082; 0 0.4082 0.5]
}

func ExampleNewPPR() {
	// Two linked nodes, row-stochastic Â = [½ ½; ½ ½], teleport 0.5, one
	// step: Π = 0.5·Â + 0.5·I.
	g, _ := graph.NewBuilder(1).Nodes(2, -1).Edge(0, 1).Done()
	p, err := graph.NewPPR(graph.RWNorm(g.Adj), 0.5, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Dense())
	x := tensor.MustFromSlice(2, 1, []float64{4, 0})
	if err := p.Apply(x, x); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x)
	// Output:
	// [0.75 0.25; 0.25 0.75]
	// [3; 1]
}

func ExampleGraph_Split() {
	// 40 nodes of class 0 and 100 of class 1.
	b := graph.NewBuilder(2).Nodes(40, 0).Nodes(100, 1)
	g, _ := b.Done()
	s, err := g.Split(graph.Stratified(0.05, 0.15, 0.80).Seed(42))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("train", g.ClassCounts(s.Train), "val", g.ClassCounts(s.Val),
		"test", g.ClassCounts(s.Test), "unused", len(s.Unused))
	// Output: train [2 5] val [5 14] test [26 64] unused 24
}

func ExampleLeaveOutClasses() {
	g, _ := graph.NewBuilder(3).Nodes(40, 0).Nodes(40, 1).Nodes(40, 2).Done()
	s, _ := g.Split(graph.SplitSpec{})
	loc, err := graph.LeaveOutClasses(g, s, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loc.Graph.NumClasses, "ID classes;", len(loc.IDTest), "ID and", len(loc.OODTest), "OOD test nodes")
	// Output: 2 ID classes; 52 ID and 26 OOD test nodes
}

func ExamplePerturbFeatures() {
	g, _ := graph.NewBuilder(1).Nodes(200, 0, 1, 0, 0).Done()
	s, _ := g.Split(graph.SplitSpec{})
	p, err := graph.PerturbFeatures(g, s, graph.Bernoulli, 0.1, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(p.Nodes), "perturbed nodes,", len(p.OODTest), "of them test nodes")
	// Output: 18 perturbed nodes, 12 of them test nodes
}

func ExamplePerturbStructure() {
	// Two triangles, one per class, joined by the edge 2–3.
	g, _ := graph.NewBuilder(2).Nodes(3, 0, 1).Nodes(3, 1, 1).
		Chain(0, 1, 2, 0).Chain(3, 4, 5, 3).Edge(2, 3).Done()
	s := graph.Split{Train: []int{0, 5}, Test: []int{1, 2, 3, 4}}
	p, err := graph.PerturbStructure(g, s, graph.DICE, 0.5, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Structure, "removed", p.Removed, "added", p.Added)
	fmt.Println("OOD test nodes", p.OODTest, "ID test nodes", p.IDTest)
	// Output:
	// dice removed [[4 5] [0 1]] added [[2 5]]
	// OOD test nodes [1 2 4] ID test nodes [3]
}

func ExamplePerturbFeaturesWith() {
	g, _ := graph.NewBuilder(1).Nodes(200, 0, 1, 0, 0).Done()
	s, _ := g.Split(graph.SplitSpec{})
	for _, sigma := range []float64{0.1, 1} {
		p, err := graph.PerturbFeaturesWith(g, s, graph.FeatureShift{Noise: graph.Gaussian, Budget: 0.1, Severity: sigma, Seed: 42})
		if err != nil {
			fmt.Println(err)
			return
		}
		x := p.Graph.Features.(*tensor.Dense)
		fmt.Printf("σ = %v: node %d has features %.3f\n", sigma, p.Nodes[0], x.Row(p.Nodes[0]))
	}
	// Output:
	// σ = 0.1: node 3 has features [0.018 0.188 -0.169]
	// σ = 1: node 3 has features [0.178 1.878 -1.690]
}

// ExampleLookupSetting builds a named structural shift on a path of ten
// nodes: the half of lowest PageRank is out of distribution and, in the
// inductive setting, cut off from the training graph.
func ExampleLookupSetting() {
	b := graph.NewBuilder(1)
	for range 10 {
		b.Node(0, 1)
	}
	g, err := b.Chain(0, 1, 2, 3, 4, 5, 6, 7, 8, 9).Done()
	if err != nil {
		panic(err)
	}
	setting, err := graph.LookupSetting("pagerank_inductive")
	if err != nil {
		panic(err)
	}
	sh, err := setting.Apply(g, graph.Split{}, graph.ShiftOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("ID train/val/test:", len(sh.Split.Train), len(sh.Split.Val), len(sh.Split.Test))
	fmt.Println("OOD val, test:", len(sh.OODVal), len(sh.OODTest))
	fmt.Println("training edges:", sh.Train.NumEdges(), "of", g.NumEdges())
	// Output:
	// ID train/val/test: 3 1 1
	// OOD val, test: 1 4
	// training edges: 6 of 18
}
