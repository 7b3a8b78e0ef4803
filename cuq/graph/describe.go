package graph

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Summary is what a graph is made of, as plain numbers and per-node
// slices: what to look at before training on a graph of one's own.
// Describe computes it. Every per-node slice has one entry per node, in
// node order; structure is that of the undirected simple graph of the
// adjacency pattern (an edge {i, j}, i ≠ j, wherever (i, j) or (j, i) is
// stored; self loops and weights ignored).
type Summary struct {
	Name string
	// Nodes is N, Edges the number of undirected edges {i, j}, i ≠ j,
	// Features F, Classes C.
	Nodes, Edges, Features, Classes int
	// ClassNames are the graph's class names, or "0", "1", … when it has
	// none; ClassCounts[c] is the number of nodes labelled c, Unlabelled
	// the number of nodes without a label.
	ClassNames  []string
	ClassCounts []int
	Unlabelled  int
	// Degrees[i] = |N(i)|, the number of neighbours j ≠ i of node i;
	// Isolated counts the nodes of degree 0 and MeanDegree is
	// (1/N) Σ_i |N(i)| = 2·Edges/N.
	Degrees    []int
	Isolated   int
	MeanDegree float64
	// EdgeHomophily is the fraction of the edges between two labelled
	// nodes whose ends share their label (Zhu et al., 2020):
	//
	//	h_edge = |{{i, j} ∈ E : y_i = y_j}| / |{{i, j} ∈ E : y_i ≥ 0, y_j ≥ 0}|,
	//
	// NaN when no edge joins two labelled nodes.
	EdgeHomophily float64
	// NodeHomophily[i] is the local homophily of node i (Pei et al.,
	// 2020; as eval.LocalHomophily), the fraction of its labelled neighbours
	// that share its label,
	//
	//	h_i = |{j ∈ N(i) : y_j = y_i}| / |{j ∈ N(i) : y_j ≥ 0}|,
	//
	// NaN for an unlabelled node and for a node without labelled
	// neighbours. EdgeHomophily is the mean of the defined h_i weighted
	// by each node's number of labelled neighbours.
	NodeHomophily []float64
	// FeatureDensity[i] = |{f : x_if ≠ 0}| / F, the fraction of node i's
	// features that are not zero, and Density = Σ_i |{f : x_if ≠ 0}| / (N·F),
	// the fraction over the whole feature matrix, which is the mean of
	// FeatureDensity. Both are 0 for a graph without features.
	FeatureDensity []float64
	Density        float64
}

// Describe returns the Summary of g, or an error when g is not valid (see
// Graph.Validate).
func Describe(g *Graph) (*Summary, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.Describe: %v", err)
	}
	s := &Summary{Name: g.Name, Nodes: g.N, Features: g.NumFeatures(), Classes: g.NumClasses,
		ClassCounts: g.ClassCounts(nil), Degrees: make([]int, g.N)}
	s.ClassNames = make([]string, g.NumClasses)
	for c := range s.ClassNames {
		s.ClassNames[c] = strconv.Itoa(c)
		if g.ClassNames != nil {
			s.ClassNames[c] = g.ClassNames[c]
		}
	}
	// Each edge between labelled nodes is counted from both ends, which
	// doubles both counts of the edge homophily and leaves its ratio.
	var same, labelled int
	s.NodeHomophily = make([]float64, g.N)
	for i, nb := range neighbourSets(g) {
		s.Degrees[i] = len(nb)
		s.Edges += len(nb)
		if len(nb) == 0 {
			s.Isolated++
		}
		s.NodeHomophily[i] = math.NaN()
		if g.Labels[i] < 0 {
			s.Unlabelled++
			continue
		}
		sameI, labelledI := labelledNeighbours(g.Labels, i, nb)
		same, labelled = same+sameI, labelled+labelledI
		if labelledI > 0 {
			s.NodeHomophily[i] = float64(sameI) / float64(labelledI)
		}
	}
	s.Edges /= 2
	s.EdgeHomophily = math.NaN()
	if labelled > 0 {
		s.EdgeHomophily = float64(same) / float64(labelled)
	}
	if g.N > 0 {
		s.MeanDegree = 2 * float64(s.Edges) / float64(g.N)
	}
	s.FeatureDensity, s.Density = featureDensity(g.Features, g.N, s.Features)
	return s, nil
}

// labelledNeighbours returns how many of node i's neighbours nb are
// labelled, and how many of those share i's label.
func labelledNeighbours(labels []int, i int, nb []int) (same, labelled int) {
	for _, j := range nb {
		if labels[j] >= 0 {
			labelled++
			if labels[j] == labels[i] {
				same++
			}
		}
	}
	return same, labelled
}

// featureDensity returns the fraction of non-zero entries of each of the n
// rows of the n×f matrix x, and of x as a whole.
func featureDensity(x tensor.Matrix, n, f int) ([]float64, float64) {
	out := make([]float64, n)
	if n == 0 || f == 0 {
		return out, 0
	}
	total := 0
	for i := range out {
		nz := 0
		switch x := x.(type) {
		case *tensor.CSR:
			for _, v := range x.Val[x.Ptr[i]:x.Ptr[i+1]] {
				if v != 0 {
					nz++
				}
			}
		case *tensor.Dense:
			for _, v := range x.Row(i) {
				if v != 0 {
					nz++
				}
			}
		}
		total += nz
		out[i] = float64(nz) / float64(f)
	}
	return out, float64(total) / (float64(n) * float64(f))
}

// String summarises s on one line.
func (s *Summary) String() string {
	return fmt.Sprintf("%s: %d nodes (%d unlabelled), %d undirected edges (mean degree %.2f, %d isolated nodes), %d classes, %d features (density %.3g); edge homophily %.3f",
		s.Name, s.Nodes, s.Unlabelled, s.Edges, s.MeanDegree, s.Isolated, s.Classes, s.Features, s.Density, s.EdgeHomophily)
}
