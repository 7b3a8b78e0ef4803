package graph

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Builder is the way to build a small graph by hand: a toy graph for a
// test, a study's hand-made example, or the teaching material for GPN's
// axioms (a node far from the training data, a confident neighbour, two
// neighbours in conflict). For a graph read from files see package
// datasets; for one assembled from matrices, New. Nodes are numbered 0, 1,
// … in the order they are added; edges are undirected (each Edge stores
// both directions). Methods record the first mistake and Done
// reports it, so calls can be chained:
//
//	g, err := graph.NewBuilder(2).
//		Node(0, 1, 0).Node(1, 0, 1).Node(-1, 0.5, 0.5).
//		Edge(0, 2).Edge(1, 2).
//		Done()
type Builder struct {
	name       string
	numClasses int
	classNames []string
	labels     []int
	features   [][]float64
	ei, ej     []int
	err        error
}

// NewBuilder starts a graph with numClasses classes.
func NewBuilder(numClasses int) *Builder {
	b := &Builder{name: "built", numClasses: numClasses}
	if numClasses < 1 {
		b.fail(fmt.Errorf("graph.Builder: %d classes, want at least 1", numClasses))
	}
	return b
}

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Name sets the graph's name.
func (b *Builder) Name(name string) *Builder {
	b.name = name
	return b
}

// ClassNames sets the names of the classes (one per class).
func (b *Builder) ClassNames(names ...string) *Builder {
	b.classNames = names
	return b
}

// Len returns the number of nodes added so far, which is the index the next
// node gets.
func (b *Builder) Len() int { return len(b.labels) }

// Node adds a node with the given label (-1 for unlabelled) and feature
// vector. All nodes must have the same number of features.
func (b *Builder) Node(label int, features ...float64) *Builder {
	i := len(b.labels)
	if label < -1 || label >= b.numClasses {
		b.fail(fmt.Errorf("graph.Builder: node %d has label %d outside [-1, %d)", i, label, b.numClasses))
	}
	if i > 0 && len(features) != len(b.features[0]) {
		b.fail(fmt.Errorf("graph.Builder: node %d has %d features, node 0 has %d", i, len(features), len(b.features[0])))
	}
	for _, v := range features {
		if !isFinite(v) {
			b.fail(fmt.Errorf("graph.Builder: node %d has a non-finite feature %v", i, v))
		}
	}
	b.labels = append(b.labels, label)
	b.features = append(b.features, append([]float64(nil), features...))
	return b
}

// Nodes adds count nodes with the same label and features.
func (b *Builder) Nodes(count, label int, features ...float64) *Builder {
	if count < 0 {
		b.fail(fmt.Errorf("graph.Builder: negative node count %d", count))
	}
	for range count {
		b.Node(label, features...)
	}
	return b
}

// Edge adds the undirected edge i–j. Repeated edges are merged; self loops
// are refused (normalisations add them). The nodes may be added later, the
// indices are checked by Done.
func (b *Builder) Edge(i, j int) *Builder {
	if i == j {
		b.fail(fmt.Errorf("graph.Builder: self loop on node %d", i))
	}
	b.ei = append(b.ei, i)
	b.ej = append(b.ej, j)
	return b
}

// Chain adds the edges of the path nodes[0]–nodes[1]–…–nodes[len−1].
func (b *Builder) Chain(nodes ...int) *Builder {
	for k := 1; k < len(nodes); k++ {
		b.Edge(nodes[k-1], nodes[k])
	}
	return b
}

// Star adds an edge from center to each leaf.
func (b *Builder) Star(center int, leaves ...int) *Builder {
	for _, l := range leaves {
		b.Edge(center, l)
	}
	return b
}

// Done returns the graph: its adjacency is the symmetric 0/1 matrix of the
// edges and its features a dense N×F matrix. It reports the first mistake
// made while building.
func (b *Builder) Done() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := len(b.labels)
	for k := range b.ei {
		if b.ei[k] < 0 || b.ei[k] >= n || b.ej[k] < 0 || b.ej[k] >= n {
			return nil, fmt.Errorf("graph.Builder: edge %d–%d refers to a node outside [0, %d)", b.ei[k], b.ej[k], n)
		}
	}
	a, err := tensor.FromCOO(n, n, b.ei, b.ej, nil)
	if err != nil {
		return nil, fmt.Errorf("graph.Builder: %v", err)
	}
	f := 0
	if n > 0 {
		f = len(b.features[0])
	}
	x := tensor.New(n, f)
	for i, row := range b.features {
		copy(x.Row(i), row)
	}
	labels := append([]int(nil), b.labels...)
	var names []string
	if b.classNames != nil {
		names = append(names, b.classNames...)
	}
	return New(b.name, ToUndirected(a), x, labels, b.numClasses, names)
}
