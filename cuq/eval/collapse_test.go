package eval

import (
	"strings"
	"testing"
)

func TestChance(t *testing.T) {
	labels := []int{0, 1, 1, 2, 1, 0, 2}
	for _, c := range []struct {
		nodes []int
		want  float64
	}{{[]int{0, 1, 2, 3}, 0.5}, {[]int{0, 5, 3}, 2.0 / 3}, {[]int{6}, 1}, {[]int{0, 1, 3}, 1.0 / 3}} {
		if got, err := Chance(labels, c.nodes); err != nil || got != c.want {
			t.Errorf("nodes %v: chance %v, %v; want %v", c.nodes, got, err, c.want)
		}
	}
	if _, err := Chance(labels, nil); err == nil || !strings.Contains(err.Error(), "no nodes") {
		t.Errorf("no nodes: %v", err)
	}
	if _, err := Chance(labels, []int{7}); err == nil || !strings.Contains(err.Error(), "node 7 out of range [0, 7)") {
		t.Errorf("node 7: %v", err)
	}
}

// At chance 0.25 the boundary is 0.625, at 0.5 it is 0.75.
func TestCollapsed(t *testing.T) {
	for _, c := range []struct {
		acc, chance float64
		want        bool
	}{{0.62, 0.25, true}, {0.625, 0.25, false}, {0.9, 0.25, false}, {0.25, 0.25, true}, {0, 0.25, true}, {0.74, 0.5, true}, {0.76, 0.5, false}} {
		if got := Collapsed(c.acc, c.chance); got != c.want {
			t.Errorf("accuracy %v, chance %v: collapsed %v, want %v", c.acc, c.chance, got, c.want)
		}
	}
}
