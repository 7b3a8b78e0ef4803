package cuq_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// syntheticPrediction returns a prediction p̄ = softmax(z) of n nodes with
// k classes, logits z ~ N(0, 3²), whose labels are drawn from
// softmax(z/trueT): over-confident for trueT > 1, calibrated for 1.
func syntheticPrediction(n, k int, trueT float64, seed uint64) *cuq.Prediction {
	r := rand.New(rand.NewPCG(seed, 1))
	prob := tensor.New(n, k)
	labels, class := make([]int, n), make([]int, n)
	q := make([]float64, k)
	softmax := func(dst, z []float64, scale float64) {
		var s float64
		for c, v := range z {
			dst[c] = math.Exp(v / scale)
			s += dst[c]
		}
		for c := range dst {
			dst[c] /= s
		}
	}
	z := make([]float64, k)
	for i := 0; i < n; i++ {
		for c := range z {
			z[c] = 3 * r.NormFloat64()
		}
		softmax(prob.Row(i), z, 1)
		softmax(q, z, trueT)
		u, acc := r.Float64(), 0.0
		labels[i] = k - 1
		for c, v := range q {
			if acc += v; u < acc {
				labels[i] = c
				break
			}
		}
		for c := range z {
			if z[c] > z[class[i]] {
				class[i] = c
			}
		}
	}
	g := &graph.Graph{Name: "synthetic", N: n, Labels: labels, NumClasses: k}
	return &cuq.Prediction{Model: "synthetic", Graph: g, Classes: k, Class: class, Prob: prob}
}

// nodes returns lo, …, hi−1.
func nodes(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

// nllAt is the validation NLL of softmax(ln p̄ / T), computed directly.
func nllAt(p *cuq.Prediction, val []int, temp float64) float64 {
	var s float64
	for _, i := range val {
		row := p.Prob.Row(i)
		var norm float64
		for _, v := range row {
			norm += math.Pow(v, 1/temp)
		}
		s -= math.Log(math.Pow(row[p.Graph.Labels[i]], 1/temp) / norm)
	}
	return s / float64(len(val))
}

// Temperature scaling recovers the temperature that generated the labels,
// finds T ≈ 1 for calibrated predictions, minimises the validation NLL and
// lowers the ECE of an over-confident prediction on held-out nodes.
func TestTemperatureScaled(t *testing.T) {
	const n, k = 6000, 4
	val, test := nodes(0, n/2), nodes(n/2, n)
	for _, trueT := range []float64{2.5, 1, 0.6} {
		p := syntheticPrediction(n, k, trueT, uint64(trueT*10))
		scaled, temp, err := p.TemperatureScaled(val)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(temp-trueT) > 0.1*trueT {
			t.Errorf("T* = %v: fitted T = %v", trueT, temp)
		}
		best := nllAt(p, val, temp)
		for _, f := range []float64{0.99, 1.01} {
			if nll := nllAt(p, val, temp*f); nll <= best {
				t.Errorf("T* = %v: NLL %v at T = %v not above %v at the fitted T = %v", trueT, nll, temp*f, best, temp)
			}
		}
		if d := math.Abs(best - nllAt(scaled, val, 1)); d > 1e-9 {
			t.Errorf("scaled prediction's NLL differs from the NLL at T by %g", d)
		}
		for i, c := range scaled.Class {
			if c != p.Class[i] {
				t.Fatalf("node %d: class %d after scaling, %d before", i, c, p.Class[i])
			}
		}
		if got := scaled.Available(); len(got) != 2 || got[0] != uq.TU || got[1] != uq.LC || scaled.Alpha != nil {
			t.Errorf("scaled prediction has %v", got)
		}
		if scaled.Model != "synthetic+TS" {
			t.Errorf("scaled prediction's model %q", scaled.Model)
		}
		before, err := p.Calibration(test, eval.CalibrationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		after, err := scaled.Calibration(test, eval.CalibrationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("T* = %v: T = %.4f, test ECE %.4f → %.4f", trueT, temp, before.ECE, after.ECE)
		if trueT != 1 && !(after.ECE < before.ECE/2) {
			t.Errorf("T* = %v: test ECE %v after scaling, %v before", trueT, after.ECE, before.ECE)
		}
	}
}

// A validation set predicted right with margin pushes T to its lower
// bound, 0.01.
func TestTemperatureScaledBound(t *testing.T) {
	p := syntheticPrediction(200, 3, 1, 3)
	copy(p.Graph.Labels, p.Class)
	_, temp, err := p.TemperatureScaled(nodes(0, 200))
	if err != nil {
		t.Fatal(err)
	}
	if temp != 0.01 {
		t.Errorf("T = %v, want the bound 0.01", temp)
	}
}

func TestTemperatureScaledErrors(t *testing.T) {
	p := syntheticPrediction(10, 3, 1, 4)
	p.Graph.Labels[3] = -1
	for _, c := range []struct {
		val  []int
		want string
	}{
		{nil, "needs validation nodes"},
		{[]int{0, 3}, "node 3 has label -1"},
		{[]int{0, 10}, "node 10 has no prediction"},
	} {
		if _, _, err := p.TemperatureScaled(c.val); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("val %v: error %v, want one containing %q", c.val, err, c.want)
		}
	}
	if _, _, err := (&cuq.Prediction{Model: "empty"}).TemperatureScaled([]int{0}); err == nil || !strings.Contains(err.Error(), "needs class probabilities") {
		t.Errorf("prediction without probabilities: %v", err)
	}
}
