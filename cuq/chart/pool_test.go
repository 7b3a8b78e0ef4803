package chart

import (
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
)

func TestPoolingTable(t *testing.T) {
	m := pool.Triangle(3)
	g, err := graph.NewBuilder(3).Node(-1, 0, 0).Node(0, m[0]...).Node(1, m[1]...).Star(0, 1, 2).Done()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pool.On(g).Done()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := PoolingTable(p, []string{"conflict"})
	if err != nil {
		t.Fatal(err)
	}
	// The numbers of pool's example: the conflict node's AU and EU under
	// each pooling.
	row := strings.Join(tb.Rows[0], " | ")
	if len(tb.Rows) != 1 || !strings.Contains(row, "/ 0.87 / 0.23") || !strings.Contains(row, "/ 0.86 / 0.08") ||
		!strings.Contains(row, "/ 0.60 / 0.44") || !strings.Contains(row, "/ 0.87 / 0.22") {
		t.Errorf("row %q", row)
	}
	if _, err := PoolingTable(p, make([]string, 4)); err == nil {
		t.Error("more labels than nodes: no error")
	}
}
