package graph

import (
	"fmt"
	"math"
)

// ForceLayout places the n nodes of the undirected graph with the given
// edges in the plane by Fruchterman and Reingold's force-directed layout:
// for an ideal distance k, linked nodes at distance d attract with force
// d²/k, every pair repels with force k²/d, and each of 400 steps moves a
// node along its net force by at most a temperature that cools by a factor
// 0.985 a step; a weak pull 0.02·x/k towards the origin keeps separate
// pieces in view. It starts from rings of the breadth-first layers around
// node 0 (layer d on the circle of radius d), so the result is the same on
// every call and node 0, the centre of a neighbourhood view, stays in the
// middle; unreached nodes start on an outer ring. The cost is O(n²) a
// step. It returns an error for an edge end outside [0, n).
func ForceLayout(n int, edges [][2]int) (x, y []float64, err error) {
	adj, err := adjacencyLists(n, edges)
	if err != nil {
		return nil, nil, fmt.Errorf("graph.ForceLayout: %w", err)
	}
	if n < 2 {
		return make([]float64, n), make([]float64, n), nil
	}
	x, y, maxDepth := rings(adj)
	l := forceLayout{x: x, y: y, dx: make([]float64, n), dy: make([]float64, n), edges: edges,
		k: math.Sqrt(float64(maxDepth+2) * float64(maxDepth+2) * math.Pi / float64(n))}
	temp := 0.5 * float64(maxDepth+1)
	for range 400 {
		l.step(temp)
		temp = max(temp*0.985, 0.001)
	}
	return x, y, nil
}

// rings places the nodes of the graph of adjacency lists adj on rings
// around node 0: the nodes at depth d evenly on the circle of radius d,
// every other ring turned by half a step, the unreached ones on the ring
// beyond the deepest; it returns the positions and the largest depth.
func rings(adj [][]int) (x, y []float64, maxDepth int) {
	n := len(adj)
	x, y = make([]float64, n), make([]float64, n)
	depth := depths(adj, 0)
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	byDepth := map[int][]int{}
	for i, d := range depth {
		if d < 0 {
			d = maxDepth + 1 // unreached nodes on an outer ring
		}
		byDepth[d] = append(byDepth[d], i)
	}
	for d, ring := range byDepth {
		for k, i := range ring {
			a := 2 * math.Pi * (float64(k) + float64(0.5*float64(d%2))) / float64(len(ring))
			x[i], y[i] = float64(d)*math.Cos(a), float64(d)*math.Sin(a)
		}
	}
	return x, y, maxDepth
}

// forceLayout is the state of ForceLayout: the positions, the net forces
// of a step, the edges and the ideal distance k.
type forceLayout struct {
	x, y, dx, dy []float64
	edges        [][2]int
	k            float64
}

// step moves every node along its net force, by at most temp.
func (l *forceLayout) step(temp float64) {
	x, y, dx, dy, k := l.x, l.y, l.dx, l.dy, l.k
	clear(dx)
	clear(dy)
	n := len(x)
	for i := range n {
		for j := i + 1; j < n; j++ {
			ex, ey := x[i]-x[j], y[i]-y[j]
			d2 := max(float64(ex*ex)+float64(ey*ey), 1e-9)
			f := k * k / d2
			fx, fy := float64(f*ex), float64(f*ey)
			dx[i], dy[i], dx[j], dy[j] = dx[i]+fx, dy[i]+fy, dx[j]-fx, dy[j]-fy
		}
	}
	for _, e := range l.edges {
		i, j := e[0], e[1]
		ex, ey := x[i]-x[j], y[i]-y[j]
		f := math.Sqrt(float64(ex*ex)+float64(ey*ey)) / k
		fx, fy := float64(f*ex), float64(f*ey)
		dx[i], dy[i], dx[j], dy[j] = dx[i]-fx, dy[i]-fy, dx[j]+fx, dy[j]+fy
	}
	for i := range n {
		dx[i] -= 0.02 * x[i] / k
		dy[i] -= 0.02 * y[i] / k
		if d := math.Hypot(dx[i], dy[i]); d > 0 {
			step := min(d, temp)
			x[i] += float64(dx[i] / d * step)
			y[i] += float64(dy[i] / d * step)
		}
	}
}
