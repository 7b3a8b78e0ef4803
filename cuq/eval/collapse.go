package eval

import (
	"fmt"
	"math"
)

// CollapseMargin places the boundary of a collapsed training (see
// Collapsed) between chance and a perfect accuracy.
const CollapseMargin = 0.5

// Chance returns the best accuracy on the given nodes of a prediction that
// is the same for every node: the share of their most frequent label,
//
//	chance = max_c |{i ∈ nodes : labels[i] = c}| / |nodes|,
//
// which is where a model stuck at the class prior stays. It returns an
// error for no nodes or a node index out of range.
func Chance(labels, nodes []int) (float64, error) {
	if len(nodes) == 0 {
		return math.NaN(), fmt.Errorf("eval: Chance: no nodes")
	}
	count, top := map[int]int{}, 0
	for _, n := range nodes {
		if n < 0 || n >= len(labels) {
			return math.NaN(), fmt.Errorf("eval: Chance: node %d out of range [0, %d)", n, len(labels))
		}
		count[labels[n]]++
		top = max(top, count[labels[n]])
	}
	return float64(top) / float64(len(nodes)), nil
}

// Collapsed reports whether a trained model whose validation accuracy is
// acc, where a constant prediction reaches chance (see Chance), collapsed:
// its accuracy lies nearer chance than a perfect score,
//
//	acc < chance + CollapseMargin·(1 − chance).
//
// GPN's training on Amazon Photos sometimes stops there, its validation
// loss rising after a first dip (docs/records/faithfulness.md). A run that
// ends between a collapse and its usual accuracy is not flagged.
func Collapsed(acc, chance float64) bool {
	return acc < chance+float64(CollapseMargin*(1-chance))
}
