package datasets

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// LatticeConfig configures a two-dimensional grid graph; create it with
// Lattice and generate with Done.
type LatticeConfig struct {
	generator[LatticeConfig]
	rows, cols int
}

// Lattice starts a rows×cols grid: node r·cols + c sits at cell (r, c) and
// is joined to its (up to four) horizontal and vertical neighbours, so
// every degree is at most 4 however large the grid (the bounded-degree
// case of the paper's argument). Classes are Voronoi regions: k distinct
// cells are drawn as region centres and every cell takes the class of the
// nearest centre in Manhattan distance (ties to the lower class), so each
// class is a non-empty compact region and edges cross classes only on
// region borders.
//
// Defaults: 4 classes, 16 Gaussian features with signal 1 (see
// CSBMConfig.FeatureSignal), seed 1.
func Lattice(rows, cols int) *LatticeConfig {
	c := &LatticeConfig{rows: rows, cols: cols}
	c.generator = newGenerator(c, "Lattice", 4, 16)
	return c
}

// Classes sets the number of class regions.
func (c *LatticeConfig) Classes(k int) *LatticeConfig { c.classes = k; return c }

// Done validates the configuration and generates the graph.
func (c *LatticeConfig) Done() (*graph.Graph, error) {
	if c.rows < 1 || c.cols < 1 {
		return nil, fmt.Errorf("datasets.Lattice: %dx%d grid, want at least 1x1", c.rows, c.cols)
	}
	if c.rows > (1<<31)/c.cols {
		return nil, fmt.Errorf("datasets.Lattice: %dx%d grid exceeds 2^31 nodes", c.rows, c.cols)
	}
	n := c.rows * c.cols
	if c.classes < 1 || c.classes > n {
		return nil, fmt.Errorf("datasets.Lattice: %d classes on %d cells, want 1 to %d", c.classes, n, n)
	}
	if err := c.features.validate(); err != nil {
		return nil, fmt.Errorf("datasets.Lattice: %w", err)
	}
	r := c.rand(0x6c617474)
	centres := r.Perm(n)[:c.classes]
	labels := make([]int, n)
	for i := range labels {
		best := -1
		for k, ctr := range centres {
			d := abs(i/c.cols-ctr/c.cols) + abs(i%c.cols-ctr%c.cols)
			if best < 0 || d < best {
				best, labels[i] = d, k
			}
		}
	}
	var ri, ci []int
	for i := range n {
		row, col := i/c.cols, i%c.cols
		if col+1 < c.cols {
			ri, ci = append(ri, i, i+1), append(ci, i+1, i)
		}
		if row+1 < c.rows {
			ri, ci = append(ri, i, i+c.cols), append(ci, i+c.cols, i)
		}
	}
	adj, err := tensor.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		return nil, fmt.Errorf("datasets.Lattice: %w", err)
	}
	return c.build(r, adj, labels)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
