package graph

import "fmt"

// BreadthFirst returns the nodes of g reached from start by breadth-first
// search over the adjacency (row i lists the neighbours of i, in their
// stored order), in the order they are reached, start first, stopping after
// limit nodes (limit < 1: no limit). It returns an error for a start
// outside [0, N).
func (g *Graph) BreadthFirst(start, limit int) ([]int, error) {
	if g == nil || g.Adj == nil {
		return nil, fmt.Errorf("graph.BreadthFirst: no graph or no adjacency")
	}
	if start < 0 || start >= g.N {
		return nil, fmt.Errorf("graph.BreadthFirst: start %d out of range [0, %d)", start, g.N)
	}
	if limit < 1 {
		limit = g.N
	}
	order := []int{start}
	seen := map[int]bool{start: true}
	for k := 0; k < len(order) && len(order) < limit; k++ {
		lo, hi := rowRange(g.Adj, order[k])
		for _, j := range g.Adj.Ind[lo:hi] {
			if !seen[j] && len(order) < limit {
				seen[j] = true
				order = append(order, j)
			}
		}
	}
	return order, nil
}

// Depths returns the breadth-first depth of every node of the undirected
// graph on n nodes with the given edges, from start: 0 for start, d for a
// node d edges away, −1 for a node start does not reach. Self loops are
// ignored. It returns an error for a start or an edge end outside [0, n).
func Depths(n int, edges [][2]int, start int) ([]int, error) {
	adj, err := adjacencyLists(n, edges)
	if err != nil {
		return nil, fmt.Errorf("graph.Depths: %w", err)
	}
	if start < 0 || start >= n {
		return nil, fmt.Errorf("graph.Depths: start %d out of range [0, %d)", start, n)
	}
	return depths(adj, start), nil
}

// adjacencyLists returns the neighbour lists of the undirected graph on n
// nodes with the given edges, without self loops.
func adjacencyLists(n int, edges [][2]int) ([][]int, error) {
	adj := make([][]int, n)
	for k, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, fmt.Errorf("edge %d (%d, %d) out of range for %d nodes", k, e[0], e[1], n)
		}
		if e[0] != e[1] {
			adj[e[0]], adj[e[1]] = append(adj[e[0]], e[1]), append(adj[e[1]], e[0])
		}
	}
	return adj, nil
}

// depths is Depths on neighbour lists.
func depths(adj [][]int, start int) []int {
	depth := make([]int, len(adj))
	for i := range depth {
		depth[i] = -1
	}
	depth[start] = 0
	order := []int{start}
	for k := 0; k < len(order); k++ {
		for _, j := range adj[order[k]] {
			if depth[j] < 0 {
				depth[j] = depth[order[k]] + 1
				order = append(order, j)
			}
		}
	}
	return depth
}
