package datasets

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// BernoulliEdges selects the independent-edge contextual stochastic block
// model, whose likelihood is tractable, so that DoneWithTruth can return
// the generator's exact posterior. Labels are drawn i.i.d. from the class
// prior π (uniform unless ClassPrior sets it) and every pair i < j is joined
// independently with probability B_{y_i y_j}, p_in within a class and p_out
// across classes:
//
//	s     = Σ_c π_c²                   (probability that two nodes share a class)
//	p_in  = h·d / ((N−1)·s)
//	p_out = (1−h)·d / ((N−1)·(1−s))    (0 with one class)
//
// so that the expected degree is (N−1)·(s·p_in + (1−s)·p_out) = d and the
// expected fraction of intra-class edges is h. Features are drawn as in the
// default process. Both probabilities must be at most 1; Done reports an
// error otherwise. The default pair-sampling process and its graphs are
// unchanged by the existence of this option.
func (c *CSBMConfig) BernoulliEdges() *CSBMConfig { c.bernoulli = true; return c }

// ClassPrior sets the class prior π of BernoulliEdges (positive weights,
// one per class, normalised to sum to 1).
func (c *CSBMConfig) ClassPrior(weights ...float64) *CSBMConfig {
	c.prior = slices.Clone(weights)
	return c
}

// DoneWithTruth generates the graph of BernoulliEdges and returns the
// generator's true parameters beside it, from which CSBMTruth computes the
// Bayes-optimal posteriors. It returns an error for the default
// pair-sampling process, whose likelihood (the probability that M draws
// with replacement cover exactly the observed edge set) is intractable.
func (c *CSBMConfig) DoneWithTruth() (*graph.Graph, *CSBMTruth, error) {
	if !c.bernoulli {
		return nil, nil, fmt.Errorf("datasets.CSBM: ground truth needs BernoulliEdges: the default pair-sampling process has no tractable likelihood")
	}
	if err := c.validate(); err != nil {
		return nil, nil, fmt.Errorf("datasets.CSBM: %w", err)
	}
	return c.bernoulliGraph()
}

// classPrior returns the normalised class prior (uniform by default).
func (c *CSBMConfig) classPrior() []float64 {
	pi := make([]float64, c.classes)
	if c.prior == nil {
		for k := range pi {
			pi[k] = 1 / float64(c.classes)
		}
		return pi
	}
	total := 0.0
	for _, w := range c.prior {
		total += w
	}
	for k, w := range c.prior {
		pi[k] = w / total
	}
	return pi
}

// edgeProbabilities returns p_in and p_out of BernoulliEdges.
func (c *CSBMConfig) edgeProbabilities() (pIn, pOut float64) {
	s := 0.0
	for _, p := range c.classPrior() {
		s += float64(p * p)
	}
	n1 := float64(c.nodes - 1)
	pIn = c.homophily * c.avgDegree / (n1 * s)
	if c.classes > 1 {
		pOut = (1 - c.homophily) * c.avgDegree / (n1 * (1 - s))
	}
	return pIn, pOut
}

func (c *CSBMConfig) validateBernoulli() error {
	if c.prior != nil {
		if len(c.prior) != c.classes {
			return fmt.Errorf("class prior of %d weights for %d classes", len(c.prior), c.classes)
		}
		for k, w := range c.prior {
			if !(w > 0) || math.IsInf(w, 1) {
				return fmt.Errorf("class prior weight %v of class %d, want a finite value > 0", w, k)
			}
		}
	}
	if pIn, pOut := c.edgeProbabilities(); pIn > 1 || pOut > 1 {
		return fmt.Errorf("homophily %v and average degree %v need edge probabilities p_in = %.3g, p_out = %.3g; both must be ≤ 1: lower the degree", c.homophily, c.avgDegree, pIn, pOut)
	}
	return nil
}

// bernoulliGraph draws the labels, the edges and the features of
// BernoulliEdges. Edges are found by geometric skipping: candidates j > i
// arrive with probability p_max = max(p_in, p_out) each and are kept with
// probability B_{y_i y_j}/p_max, which draws every pair independently with
// probability B_{y_i y_j} in O(N + N²·p_max) time.
func (c *CSBMConfig) bernoulliGraph() (*graph.Graph, *CSBMTruth, error) {
	r := c.rand(0x63736d63)
	prior := c.classPrior()
	labels := make([]int, c.nodes)
	for i := range labels {
		u, k := r.Float64(), 0
		for ; k < c.classes-1 && u >= prior[k]; k++ {
			u -= prior[k]
		}
		labels[i] = k
	}
	pIn, pOut := c.edgeProbabilities()
	pMax := max(pIn, pOut)
	var ri, ci []int
	if pMax > 0 {
		logSkip := math.Log1p(-pMax) // −Inf when p_max = 1: no skipping
		for i := range c.nodes {
			for j := i; ; {
				skip := math.Floor(math.Log(1-float64(r.Float64())) / logSkip)
				if skip >= float64(c.nodes-j-1) {
					break
				}
				j += 1 + int(skip)
				p := pOut
				if labels[i] == labels[j] {
					p = pIn
				}
				if r.Float64()*pMax < p {
					ri, ci = append(ri, i, j), append(ci, j, i)
				}
			}
		}
	}
	// Indices are in range by construction, so FromCOO cannot fail.
	adj, _ := tensor.FromCOO(c.nodes, c.nodes, ri, ci, nil)
	for k := range adj.Val {
		adj.Val[k] = 1
	}
	x, means := c.features.generateWithMeans(r, labels, c.classes)
	g, err := graph.New(c.name, adj, x, labels, c.classes, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("datasets.CSBM: %w", err)
	}
	t := &CSBMTruth{Prior: prior, PIn: pIn, POut: pOut, Means: means, features: c.features}
	if means == nil {
		t.Words = c.features.words
		t.WordProb = tensor.New(c.classes, c.features.dim)
		for k := range c.classes {
			lo, block := c.features.topic(k, c.classes)
			row := t.WordProb.Row(k)
			for w := range row {
				row[w] = (1 - c.features.signal) / float64(c.features.dim)
				if w >= lo && w < lo+block {
					row[w] += c.features.signal / float64(block)
				}
			}
		}
	}
	return g, t, nil
}
