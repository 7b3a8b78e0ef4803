package cuq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// kernelEstimate is GKDE's family: Dirichlet evidence from hop distances to
// the training nodes. It has no parameters; fitting computes the evidence.
type kernelEstimate struct {
	cutoff int
	sigma  float64
	adj    *tensor.CSR   // adjacency of the graph it was fitted on
	alpha  *tensor.Dense // nil until fitted
}

// GKDEBuilder describes the graph-kernel Dirichlet estimate without a
// graph. GKDE has no parameters and no schedule: Fit computes its evidence
// from the training labels.
type GKDEBuilder struct{ c config }

// GKDE returns the graph-kernel Dirichlet estimate: evidence
// e[v, y_t] += K(d(v, t)) from every training node t, with K the Gaussian
// kernel of σ = 1 on hop distances up to cutoff 10.
func GKDE() *GKDEBuilder {
	return &GKDEBuilder{config{name: "GKDE", newFamily: newKernelEstimate, gkdeCutoff: 10, gkdeSigma: 1, seeding: DefaultSeeding()}}
}

// Name sets the model's display name.
func (b *GKDEBuilder) Name(name string) *GKDEBuilder { b.c.name = name; return b }

// Cutoff sets the maximum hop distance d of the kernel.
func (b *GKDEBuilder) Cutoff(hops int) *GKDEBuilder { b.c.gkdeCutoff = hops; return b }

// Sigma sets the width σ of the Gaussian kernel K(d) = exp(−d²/2σ²) / (σ√2π).
func (b *GKDEBuilder) Sigma(s float64) *GKDEBuilder { b.c.gkdeSigma = s; return b }

// Done checks the configuration and builds the estimate on g.
func (b *GKDEBuilder) Done(g *graph.Graph) (*Model, error) {
	if b == nil {
		return nil, errNoBuilder
	}
	return b.c.done(g)
}

// Classifier is Done as a ClassifierBuilder.
func (b *GKDEBuilder) Classifier(g *graph.Graph) (Classifier, error) {
	return asClassifier(b.Done(g))
}

// newKernelEstimate checks GKDE's cutoff and kernel width.
func newKernelEstimate(c *config, _ *graph.Graph, _ *rand.Rand, _ rand.Source) (family, error) {
	if c.gkdeCutoff < 0 || !(c.gkdeSigma > 0) {
		return nil, fmt.Errorf("cutoff %d and sigma %v (need cutoff ≥ 0, sigma > 0)", c.gkdeCutoff, c.gkdeSigma)
	}
	return &kernelEstimate{cutoff: c.gkdeCutoff, sigma: c.gkdeSigma}, nil
}

func (k *kernelEstimate) params() (flows, others []*ad.Value) { return nil, nil }

// fit computes the evidence; there is nothing to train.
func (k *kernelEstimate) fit(g *graph.Graph, split graph.Split, trainY []int, _ Schedule) (objective, error) {
	k.alpha, k.adj = k.estimate(g, split.Train, trainY), g.Adj
	return nil, nil
}

// output returns α, which belongs to the graph GKDE was fitted on.
func (k *kernelEstimate) output(g *graph.Graph, dst *tensor.Dense) (*tensor.Dense, error) {
	if k.alpha == nil {
		return nil, fmt.Errorf("not fitted: call Fit first")
	}
	if g.Adj != k.adj {
		return nil, fmt.Errorf("the evidence belongs to the graph it was fitted on")
	}
	if dst == nil {
		return k.alpha.Clone(), nil
	}
	copy(dst.Data, k.alpha.Data)
	return dst, nil
}

// predict gives the Dirichlet measures of α.
func (k *kernelEstimate) predict(p *Prediction) error {
	alpha, err := k.output(p.Graph, nil)
	if err != nil {
		return err
	}
	return dirichletPrediction(p, alpha)
}

// estimate computes the graph-kernel Dirichlet estimate: for every training
// node t of class y_t, a breadth-first search gives hop distances d(v, t)
// up to the cutoff, and
//
//	α[v, y_t] = 1 + Σ_t K(d(v, t)),   K(d) = exp(−d²/2σ²) / (σ√2π).
//
// Nodes beyond the cutoff receive nothing (the reference sets their
// distance to 1e10). Node features are never used.
func (k *kernelEstimate) estimate(g *graph.Graph, train, trainY []int) *tensor.Dense {
	c := g.NumClasses
	alpha := tensor.New(g.N, c)
	alpha.Fill(1)
	sigma := k.sigma
	kernel := make([]float64, k.cutoff+1)
	for d := range kernel {
		kernel[d] = math.Exp(-float64(d*d)/(2*sigma*sigma)) / (sigma * math.Sqrt(2*math.Pi))
	}
	// The BFS follows edges in both directions (the reference makes the
	// graph undirected first).
	adj := graph.ToUndirected(g.Adj)
	dist := make([]int, g.N)
	for i := range dist {
		dist[i] = -1
	}
	var queue, seen []int
	for n, t := range train {
		queue = append(queue[:0], t)
		seen = append(seen[:0], t)
		dist[t] = 0
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			alpha.Data[v*c+trainY[n]] += kernel[dist[v]]
			if dist[v] == k.cutoff {
				continue
			}
			for p := adj.Ptr[v]; p < adj.Ptr[v+1]; p++ {
				u := adj.Ind[p]
				if dist[u] < 0 {
					dist[u] = dist[v] + 1
					queue = append(queue, u)
					seen = append(seen, u)
				}
			}
		}
		for _, v := range seen {
			dist[v] = -1
		}
	}
	return alpha
}
