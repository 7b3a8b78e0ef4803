package cuq

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// fitGKDE computes the graph-kernel Dirichlet estimate: for every training
// node t of class y_t, a breadth-first search gives hop distances d(v, t)
// up to the cutoff, and
//
//	α[v, y_t] = 1 + Σ_t K(d(v, t)),   K(d) = exp(−d²/2σ²) / (σ√2π).
//
// Nodes beyond the cutoff receive nothing (the reference sets their
// distance to 1e10). Node features are never used.
func (m *Model) fitGKDE(g *graph.Graph, train, trainY []int) {
	c := m.classes
	alpha := tensor.New(g.N, c)
	alpha.Fill(1)
	sigma := m.cfg.gkdeSigma
	kernel := make([]float64, m.cfg.gkdeCutoff+1)
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
	for k, t := range train {
		queue = append(queue[:0], t)
		seen = append(seen[:0], t)
		dist[t] = 0
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			alpha.Data[v*c+trainY[k]] += kernel[dist[v]]
			if dist[v] == m.cfg.gkdeCutoff {
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
	m.gkdeAlpha = alpha
}
