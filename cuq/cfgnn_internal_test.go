package cuq

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// inefficiencyOf computes CF-GNN's inefficiency loss from the logits mu
// directly: p = softmax(mu) row by row, t̂ the k-th largest p_{j,y_j} over
// the rows quant, and the mean over the rows size of
// max(0, Σ_c σ((p_ic − t̂)/τ) − s₀).
func inefficiencyOf(mu *tensor.Dense, quant, labels, size []int, k int, tau, target float64) float64 {
	p := tensor.New(mu.Rows, mu.Cols)
	softmaxRows(p, mu)
	var trueProb []float64
	for r, i := range quant {
		trueProb = append(trueProb, p.Row(i)[labels[r]])
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(trueProb)))
	th := trueProb[k-1]
	var loss float64
	for _, i := range size {
		var s float64
		for _, v := range p.Row(i) {
			s += 1 / (1 + math.Exp(-(v-th)/tau))
		}
		loss += math.Max(0, s-target)
	}
	return loss / float64(len(size))
}

// TestCFGNNInefficiencyGradient checks the inefficiency loss and its
// gradient with respect to the logits against the loss computed directly
// and its central finite differences, for several temperatures, ranks
// and target sizes (one target above every smooth size, where the loss
// and its gradient vanish).
func TestCFGNNInefficiencyGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, classes = 14, 4
	mu := tensor.New(n, classes)
	for i := range mu.Data {
		mu.Data[i] = 2 * rng.NormFloat64()
	}
	quant := []int{0, 2, 3, 5, 7, 8, 10, 12}
	labels := []int{1, 0, 3, 2, 2, 1, 0, 3}
	size := []int{1, 4, 6, 9, 11, 13}
	for _, c := range []struct {
		k           int
		tau, target float64
	}{{7, 1, 1}, {7, 0.1, 0}, {3, 0.3, 1}, {1, 0.05, 0.5}, {8, 1, 10}} {
		param := ad.Param("mu", mu.Clone())
		tape := ad.NewTape()
		p := tape.Exp(tape.LogSoftmax(param))
		loss := inefficiency(tape, tape.GatherRows(p, quant), labels, tape.GatherRows(p, size), c.k, c.tau, c.target)
		want := inefficiencyOf(mu, quant, labels, size, c.k, c.tau, c.target)
		if got := loss.Data.Data[0]; math.Abs(got-want) > 1e-12 {
			t.Errorf("k %d, τ %v, s₀ %v: loss %v, computed directly %v", c.k, c.tau, c.target, got, want)
		}
		if err := tape.Backward(loss); err != nil {
			t.Fatal(err)
		}
		const h = 1e-6
		var norm float64
		for j := range mu.Data {
			plus, minus := mu.Clone(), mu.Clone()
			plus.Data[j] += h
			minus.Data[j] -= h
			fd := (inefficiencyOf(plus, quant, labels, size, c.k, c.tau, c.target) -
				inefficiencyOf(minus, quant, labels, size, c.k, c.tau, c.target)) / (2 * h)
			g := param.Grad.Data[j]
			norm += math.Abs(g)
			if math.Abs(g-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("k %d, τ %v, s₀ %v: ∂L/∂μ[%d, %d] = %v, finite difference %v", c.k, c.tau, c.target, j/classes, j%classes, g, fd)
			}
		}
		if (c.target == 10) != (norm == 0) {
			t.Errorf("k %d, τ %v, s₀ %v: gradient norm %v", c.k, c.tau, c.target, norm)
		}
	}
}
