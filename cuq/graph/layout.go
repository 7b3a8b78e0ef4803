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
	x, y = make([]float64, n), make([]float64, n)
	if n < 2 {
		return x, y, nil
	}
	depth := depths(adj, 0)
	maxDepth := 0
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	rings := map[int][]int{}
	for i, d := range depth {
		if d < 0 {
			d = maxDepth + 1 // unreached nodes on an outer ring
		}
		rings[d] = append(rings[d], i)
	}
	for d, ring := range rings {
		for k, i := range ring {
			a := 2 * math.Pi * (float64(k) + float64(0.5*float64(d%2))) / float64(len(ring))
			x[i], y[i] = float64(d)*math.Cos(a), float64(d)*math.Sin(a)
		}
	}
	k := math.Sqrt(float64(maxDepth+2) * float64(maxDepth+2) * math.Pi / float64(n))
	dx, dy := make([]float64, n), make([]float64, n)
	temp := 0.5 * float64(maxDepth+1)
	for range 400 {
		clear(dx)
		clear(dy)
		for i := range n {
			for j := i + 1; j < n; j++ {
				ex, ey := x[i]-x[j], y[i]-y[j]
				d2 := max(float64(ex*ex)+float64(ey*ey), 1e-9)
				f := k * k / d2
				fx, fy := float64(f*ex), float64(f*ey)
				dx[i], dy[i], dx[j], dy[j] = dx[i]+fx, dy[i]+fy, dx[j]-fx, dy[j]-fy
			}
		}
		for _, e := range edges {
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
		temp = max(temp*0.985, 0.001)
	}
	return x, y, nil
}
