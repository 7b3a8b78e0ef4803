package datasets

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// BAConfig configures a Barabási–Albert growth graph with classes; create
// it with BarabasiAlbert and generate with Done.
type BAConfig struct {
	generator[BAConfig]
	nodes, m  int
	homophily float64
}

// BarabasiAlbert starts a preferential-attachment graph: the first m+1
// nodes form a clique, then every new node joins m distinct existing nodes,
// each chosen with probability proportional to its degree. The degree
// distribution has a power-law tail (P(k) ∝ k⁻³) and the largest degree
// grows like √N, the unbounded-degree case of the paper's argument.
//
// Labels grow with the graph ("preferential assignment"): the clique nodes
// take classes 0, 1, ... in turn. A new node draws its first target by
// degree; with probability h (the homophily) it takes that target's class,
// else a uniform class. Each further target is drawn, with probability h,
// by degree among the nodes of its own class, else by degree among all
// nodes. So h sets the fraction of intra-class edges, and large classes
// attract more nodes, as communities do.
//
// Defaults: 3 classes, homophily 0.8, 16 Gaussian features with signal 1,
// seed 1.
func BarabasiAlbert(nodes, m int) *BAConfig {
	c := &BAConfig{nodes: nodes, m: m, homophily: 0.8}
	c.generator = newGenerator(c, "BarabasiAlbert", 3, 16)
	return c
}

// Classes sets the number of classes.
func (c *BAConfig) Classes(k int) *BAConfig { c.classes = k; return c }

// Homophily sets h ∈ [0, 1] (see BarabasiAlbert).
func (c *BAConfig) Homophily(h float64) *BAConfig { c.homophily = h; return c }

// Done validates the configuration and generates the graph. It fails when
// a class received no node (too few nodes for the classes).
func (c *BAConfig) Done() (*graph.Graph, error) {
	fail := func(format string, args ...any) (*graph.Graph, error) {
		return nil, fmt.Errorf("datasets.BarabasiAlbert: "+format, args...)
	}
	if err := c.validate(); err != nil {
		return fail("%v", err)
	}
	r := c.rand(0x62612d67)
	b := c.grow(r)
	if err := checkClasses(b.labels, c.classes, nil); err != nil {
		return fail("%v; use more nodes or fewer classes", err)
	}
	adj, err := tensor.FromCOO(c.nodes, c.nodes, b.ri, b.ci, nil)
	if err != nil {
		return fail("%v", err)
	}
	return c.build(r, adj, b.labels)
}

// validate checks the sizes, the homophily and the features.
func (c *BAConfig) validate() error {
	if c.m < 1 || c.nodes <= c.m {
		return fmt.Errorf("%d nodes with %d edges per new node, want m ≥ 1 and more than m nodes", c.nodes, c.m)
	}
	if c.classes < 1 || c.classes > c.nodes {
		return fmt.Errorf("%d classes for %d nodes, want 1 to %d", c.classes, c.nodes, c.nodes)
	}
	if !(c.homophily >= 0 && c.homophily <= 1) {
		return fmt.Errorf("homophily %v outside [0, 1]", c.homophily)
	}
	return c.features.validate()
}

// baGrowth is a growing Barabási–Albert graph: its labels, its edges in
// both directions (ri[k], ci[k]), and ends, both endpoints of every edge,
// so that a uniform draw from it picks a node with probability
// proportional to its degree; byClass holds the same per class.
type baGrowth struct {
	labels, ends []int
	byClass      [][]int
	ri, ci       []int
}

// link adds the edge u–v.
func (b *baGrowth) link(u, v int) {
	b.ri, b.ci = append(b.ri, u, v), append(b.ci, v, u)
	b.ends = append(b.ends, u, v)
	b.byClass[b.labels[u]] = append(b.byClass[b.labels[u]], u)
	b.byClass[b.labels[v]] = append(b.byClass[b.labels[v]], v)
}

// grow builds the clique of the first m+1 nodes and attaches the others
// one by one (see BarabasiAlbert).
func (c *BAConfig) grow(r *rand.Rand) *baGrowth {
	n, m := c.nodes, c.m
	b := &baGrowth{labels: make([]int, n), ends: make([]int, 0, 2*m*n), byClass: make([][]int, c.classes)}
	for i := 0; i <= m; i++ {
		b.labels[i] = i % c.classes
		for j := range i {
			b.link(i, j)
		}
	}
	targets := make([]int, 0, m)
	for t := m + 1; t < n; t++ {
		targets = c.attach(r, b, t, targets)
	}
	return b
}

// attach labels node t and links it to m distinct targets, reusing the
// slice targets.
func (c *BAConfig) attach(r *rand.Rand, b *baGrowth, t int, targets []int) []int {
	m := c.m
	first := b.ends[r.IntN(len(b.ends))]
	if r.Float64() < c.homophily {
		b.labels[t] = b.labels[first]
	} else {
		b.labels[t] = r.IntN(c.classes)
	}
	targets = append(targets[:0], first)
	for tries := 0; len(targets) < m; tries++ {
		pool := b.ends
		// Fall back to all nodes when the class has too few distinct
		// members to supply m targets.
		if own := b.byClass[b.labels[t]]; len(own) > 0 && tries < 32*m && r.Float64() < c.homophily {
			pool = own
		}
		v := pool[r.IntN(len(pool))]
		if !slices.Contains(targets, v) {
			targets = append(targets, v)
		}
	}
	for _, v := range targets {
		b.link(t, v)
	}
	return targets
}
