// Package graph holds the attributed graphs of node classification: the
// Graph type, its transforms (feature normalisation, undirected coalescing,
// self loops, adjacency normalisations, personalised PageRank), class
// stratified splits, the out-of-distribution perturbations of the paper and
// further shifts (noise severities, random-edge and DICE structure
// perturbations).
package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Graph is an attributed, labelled graph with N nodes.
//
// Adj is the N×N adjacency in CSR form; an entry (i, j) is an edge whose
// messages flow from j to i (for undirected graphs both directions are
// stored). Features is N×F, a *tensor.CSR for sparse bag-of-words features or
// a *tensor.Dense. Labels[i] is in [0, NumClasses) for labelled nodes and -1
// for unlabelled ones.
//
// Models derive what they need from Adj (normalised adjacencies,
// propagations, LOP-GPN's mixture weights, which models on the same Adj
// share) once per matrix: to change a graph's edges, give it a new Adj
// rather than writing into the old one.
type Graph struct {
	// Name names the graph: a dataset's name for a loaded graph; a graph
	// derived from another (leave-out classes, perturbed features or
	// edges) is named after it, "CoraML, dice". Code that looks up a
	// dataset's settings uses the dataset's name, never a graph's.
	Name       string
	N          int
	Adj        *tensor.CSR
	Features   tensor.Matrix
	Labels     []int
	NumClasses int
	ClassNames []string
}

// New assembles a graph from its parts and validates it (see Validate). The
// arguments are not copied. classNames may be nil.
//
// The graph is undirected: every stored entry (i, j) of adj needs its
// mirror (j, i) (the values may differ, as for weighted edges). A directed
// adjacency is an error naming an entry without its mirror; ToUndirected
// makes one undirected as the paper's preprocessing does. Validate does not
// repeat this check, which costs a search per stored entry; a Graph
// assembled without New can run it with CheckUndirected.
func New(name string, adj *tensor.CSR, features tensor.Matrix, labels []int, numClasses int, classNames []string) (*Graph, error) {
	if adj == nil {
		return nil, fmt.Errorf("graph.New %q: nil adjacency", name)
	}
	if adj.Rows == adj.Cols {
		if err := checkCSR(adj); err != nil {
			return nil, fmt.Errorf("graph %q: adjacency: %v", name, err)
		}
		if err := checkMirrors(adj); err != nil {
			return nil, fmt.Errorf("graph %q: %v; graph.ToUndirected(adj) adds the missing mirrors", name, err)
		}
	}
	g := &Graph{
		Name:       name,
		N:          adj.Rows,
		Adj:        adj,
		Features:   features,
		Labels:     labels,
		NumClasses: numClasses,
		ClassNames: classNames,
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// CheckUndirected returns an error naming the first stored entry (i, j) of
// g's adjacency whose mirror (j, i) is missing, or nil when the adjacency
// is undirected (see New).
func (g *Graph) CheckUndirected() error {
	if err := g.Validate(); err != nil {
		return err
	}
	if err := checkMirrors(g.Adj); err != nil {
		return fmt.Errorf("graph %q: %v", g.Name, err)
	}
	return nil
}

// checkMirrors returns an error naming the first stored entry of the
// well-formed square adj without its mirror.
func checkMirrors(adj *tensor.CSR) error {
	for i := 0; i < adj.Rows; i++ {
		for k := adj.Ptr[i]; k < adj.Ptr[i+1]; k++ {
			j := adj.Ind[k]
			if _, found := slices.BinarySearch(adj.Ind[adj.Ptr[j]:adj.Ptr[j+1]], i); !found {
				return fmt.Errorf("the adjacency is directed: entry (%d, %d) has no mirror (%d, %d)", i, j, j, i)
			}
		}
	}
	return nil
}

// Validate checks the invariants of g: Adj is a well-formed, square N×N CSR
// matrix with finite values; Features is a well-formed *tensor.Dense or
// *tensor.CSR with N rows and finite values; len(Labels) == N with every
// label in [-1, NumClasses); NumClasses ≥ 1; ClassNames is nil or has
// NumClasses entries. The error names the graph and the first violation.
func (g *Graph) Validate() error {
	if g == nil {
		return fmt.Errorf("graph: nil graph")
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("graph %q: %s", g.Name, fmt.Sprintf(format, args...))
	}
	if g.N < 0 {
		return fail("negative node count %d", g.N)
	}
	if g.Adj == nil {
		return fail("nil adjacency")
	}
	if g.Adj.Rows != g.N || g.Adj.Cols != g.N {
		return fail("adjacency is %dx%d, want %dx%d", g.Adj.Rows, g.Adj.Cols, g.N, g.N)
	}
	if err := checkCSR(g.Adj); err != nil {
		return fail("adjacency: %v", err)
	}
	if !g.Adj.AllFinite() {
		return fail("adjacency has NaN or Inf edge weights")
	}
	if err := checkFeatures(g.Features, g.N); err != nil {
		return fail("%v", err)
	}
	if g.NumClasses < 1 {
		return fail("%d classes, want at least 1", g.NumClasses)
	}
	if len(g.Labels) != g.N {
		return fail("%d labels for %d nodes", len(g.Labels), g.N)
	}
	for i, y := range g.Labels {
		if y < -1 || y >= g.NumClasses {
			return fail("label %d of node %d out of range [-1, %d)", y, i, g.NumClasses)
		}
	}
	if g.ClassNames != nil && len(g.ClassNames) != g.NumClasses {
		return fail("%d class names for %d classes", len(g.ClassNames), g.NumClasses)
	}
	return nil
}

// checkCSR validates the arrays of s without trusting them.
func checkCSR(s *tensor.CSR) error {
	if s.Rows < 0 || s.Cols < 0 {
		return fmt.Errorf("negative shape %dx%d", s.Rows, s.Cols)
	}
	_, err := tensor.NewCSR(s.Rows, s.Cols, s.Ptr, s.Ind, s.Val)
	return err
}

// checkFeatures validates an N×F feature matrix.
func checkFeatures(x tensor.Matrix, n int) error {
	switch f := x.(type) {
	case *tensor.Dense:
		if f == nil {
			return fmt.Errorf("nil features")
		}
		if f.Rows < 0 || f.Cols < 0 || len(f.Data) != f.Rows*f.Cols {
			return fmt.Errorf("dense features %dx%d hold %d values", f.Rows, f.Cols, len(f.Data))
		}
		if f.Rows != n {
			return fmt.Errorf("features have %d rows for %d nodes", f.Rows, n)
		}
		if !f.AllFinite() {
			return fmt.Errorf("features contain NaN or Inf")
		}
	case *tensor.CSR:
		if f == nil {
			return fmt.Errorf("nil features")
		}
		if err := checkCSR(f); err != nil {
			return fmt.Errorf("sparse features: %v", err)
		}
		if f.Rows != n {
			return fmt.Errorf("features have %d rows for %d nodes", f.Rows, n)
		}
		if !f.AllFinite() {
			return fmt.Errorf("features contain NaN or Inf")
		}
	case nil:
		return fmt.Errorf("nil features")
	default:
		return fmt.Errorf("features are a %T, want *tensor.Dense or *tensor.CSR", x)
	}
	return nil
}

// NumFeatures returns F, the number of feature columns.
func (g *Graph) NumFeatures() int {
	_, f := g.Features.Dims()
	return f
}

// NumEdges returns the number of stored directed entries of Adj: an
// undirected edge counts twice, a self loop once.
func (g *Graph) NumEdges() int { return g.Adj.NNZ() }

// Degrees returns, for every node i, the number of stored entries in row i of
// Adj, that is the number of nodes sending messages to i (its neighbours, for
// an undirected graph). Self loops count.
func (g *Graph) Degrees() []int {
	d := make([]int, g.N)
	for i := range d {
		d[i] = g.Adj.Ptr[i+1] - g.Adj.Ptr[i]
	}
	return d
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	c := *g
	c.Adj = g.Adj.Clone()
	c.Features = cloneMatrix(g.Features)
	c.Labels = slices.Clone(g.Labels)
	c.ClassNames = slices.Clone(g.ClassNames)
	return &c
}

// ClassCounts returns, for each class c, how many of the nodes idx carry
// label c; unlabelled nodes are not counted. A nil idx counts all nodes.
func (g *Graph) ClassCounts(idx []int) []int {
	counts := make([]int, g.NumClasses)
	add := func(i int) {
		if y := g.Labels[i]; y >= 0 && y < g.NumClasses {
			counts[y]++
		}
	}
	if idx == nil {
		for i := range g.Labels {
			add(i)
		}
		return counts
	}
	for _, i := range idx {
		add(i)
	}
	return counts
}

func cloneMatrix(x tensor.Matrix) tensor.Matrix {
	switch f := x.(type) {
	case *tensor.Dense:
		return f.Clone()
	case *tensor.CSR:
		return f.Clone()
	}
	return x
}

// isFinite reports whether v is neither NaN nor ±Inf.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
