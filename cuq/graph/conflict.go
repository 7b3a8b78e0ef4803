package graph

import "fmt"

// Conflicting reports, for each of nodes, whether its labelled neighbours
// carry at least two different labels: the neighbourhoods in conflict of
// GPN's axiom A3. Neighbours are the nodes sending messages to i (row i of
// Adj); a self loop and unlabelled neighbours are ignored. A nil nodes
// means all nodes. It returns an error if a node is outside [0, N).
func (g *Graph) Conflicting(nodes []int) ([]bool, error) {
	if nodes == nil {
		nodes = make([]int, g.N)
		for i := range nodes {
			nodes[i] = i
		}
	}
	out := make([]bool, len(nodes))
	for k, i := range nodes {
		if i < 0 || i >= g.N {
			return nil, fmt.Errorf("graph.Conflicting: node %d outside [0, %d)", i, g.N)
		}
		first := -1
		for _, j := range g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]] {
			l := g.Labels[j]
			if j == i || l < 0 {
				continue
			}
			if first < 0 {
				first = l
			} else if l != first {
				out[k] = true
				break
			}
		}
	}
	return out, nil
}
