package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// CSBMConfig configures a contextual stochastic block model; create it with
// CSBM, set options with its methods and generate with Done.
type CSBMConfig struct {
	generator[CSBMConfig]
	nodes     int
	homophily float64
	avgDegree float64
	bernoulli bool      // independent edges and i.i.d. labels (BernoulliEdges)
	prior     []float64 // class prior of BernoulliEdges, nil for uniform
}

// CSBM starts a contextual stochastic block model with the given numbers of
// nodes and classes. Node i has class ⌊i·C/N⌋, so classes are contiguous
// blocks of (almost) equal size. The graph has M = round(N·d/2) sampled
// edges, d the average degree: each picks a uniform node u and, with
// probability h (the homophily), a uniform other node of u's class, else a
// uniform node of another class. Duplicate pairs are coalesced, so the
// realised edge count is slightly below M and the edge homophily (fraction
// of intra-class edges) is close to h; h = 1/C gives a graph whose edges
// carry no class information. This pair-sampling process is the default;
// BernoulliEdges selects the independent-edge model whose exact posterior
// DoneWithTruth provides.
//
// Defaults: homophily 0.8, average degree 5, 32 Gaussian features with
// signal 1 (see Features and BagOfWords), seed 1.
func CSBM(nodes, classes int) *CSBMConfig {
	c := &CSBMConfig{nodes: nodes, homophily: 0.8, avgDegree: 5}
	c.generator = newGenerator(c, "CSBM", classes, 32)
	return c
}

// Homophily sets h ∈ [0, 1], the probability that an edge joins two nodes
// of the same class.
func (c *CSBMConfig) Homophily(h float64) *CSBMConfig { c.homophily = h; return c }

// AvgDegree sets d, the expected number of neighbours per node.
func (c *CSBMConfig) AvgDegree(d float64) *CSBMConfig { c.avgDegree = d; return c }

// Done validates the configuration and generates the graph.
func (c *CSBMConfig) Done() (*graph.Graph, error) {
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("datasets.CSBM: %w", err)
	}
	if c.bernoulli {
		g, _, err := c.bernoulliGraph()
		return g, err
	}
	r := c.rand(0x63736d62)
	labels, members := blockLabels(c.nodes, c.classes)
	m := int(math.Round(float64(c.nodes) * c.avgDegree / 2))
	adj := sampleEdges(r, labels, members, nil, m, c.homophily)
	return c.build(r, adj, labels)
}

func (c *CSBMConfig) validate() error {
	if c.classes < 1 || c.nodes < 2*c.classes {
		return fmt.Errorf("%d nodes in %d classes, want at least one class and two nodes per class", c.nodes, c.classes)
	}
	if !(c.homophily >= 0 && c.homophily <= 1) {
		return fmt.Errorf("homophily %v outside [0, 1]", c.homophily)
	}
	if c.classes == 1 && c.homophily != 1 {
		return fmt.Errorf("homophily %v with a single class: every edge is intra-class, set homophily 1", c.homophily)
	}
	if !(c.avgDegree >= 0 && c.avgDegree <= float64(c.nodes-1)/2) {
		return fmt.Errorf("average degree %v outside [0, (N-1)/2 = %v]", c.avgDegree, float64(c.nodes-1)/2)
	}
	if c.prior != nil && !c.bernoulli {
		return fmt.Errorf("a class prior needs BernoulliEdges: the default process gives class c the nodes ⌊i·C/N⌋ = c")
	}
	if c.bernoulli {
		if err := c.validateBernoulli(); err != nil {
			return err
		}
	}
	return c.features.validate()
}

// blockLabels gives node i the class ⌊i·C/N⌋ and returns the labels and
// each class's nodes.
func blockLabels(n, classes int) ([]int, [][]int) {
	labels := make([]int, n)
	members := make([][]int, classes)
	for i := range labels {
		y := i * classes / n
		labels[i] = y
		members[y] = append(members[y], i)
	}
	return labels, members
}

// sampleEdges draws m node pairs and returns the symmetric 0/1 adjacency of
// their union (self loops excluded). Each pair picks u with probability
// proportional to weight[u] (uniformly when weight is nil) and then, with
// probability h, v ≠ u from u's class, otherwise v from another class, v
// again proportional to its weight. Every class needs at least two nodes,
// and when h < 1 there must be two classes.
func sampleEdges(r *rand.Rand, labels []int, members [][]int, weight []float64, m int, h float64) *tensor.CSR {
	n := len(labels)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	global := newSampler(all, weight)
	byClass := make([]sampler, len(members))
	for c, mem := range members {
		byClass[c] = newSampler(mem, weight)
	}
	ri := make([]int, 0, 2*m)
	ci := make([]int, 0, 2*m)
	for range m {
		u := global.draw(r)
		var v int
		if r.Float64() < h {
			for v = u; v == u; {
				v = byClass[labels[u]].draw(r)
			}
		} else {
			for v = u; labels[v] == labels[u]; {
				v = global.draw(r)
			}
		}
		ri, ci = append(ri, u, v), append(ci, v, u)
	}
	// Indices are in range by construction, so FromCOO cannot fail.
	adj, _ := tensor.FromCOO(n, n, ri, ci, nil)
	for k := range adj.Val {
		adj.Val[k] = 1
	}
	return adj
}

// sampler draws an element of nodes uniformly, or proportionally to
// weight[node] through a binary search of the cumulative weights.
type sampler struct {
	nodes []int
	cum   []float64
}

func newSampler(nodes []int, weight []float64) sampler {
	s := sampler{nodes: nodes}
	if weight != nil {
		s.cum = make([]float64, len(nodes))
		t := 0.0
		for k, i := range nodes {
			t += weight[i]
			s.cum[k] = t
		}
	}
	return s
}

func (s sampler) draw(r *rand.Rand) int {
	if s.cum == nil {
		return s.nodes[r.IntN(len(s.nodes))]
	}
	x := r.Float64() * s.cum[len(s.cum)-1]
	k := sort.SearchFloat64s(s.cum, x)
	return s.nodes[min(k, len(s.nodes)-1)]
}
