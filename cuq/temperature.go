package cuq

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// The temperatures TemperatureScaled searches, and its tolerance.
const (
	minTemperature = 0.01
	maxTemperature = 100.0
	temperatureTol = 1e-10 // relative, on 1/T
)

// TemperatureScaled calibrates the prediction post hoc by temperature
// scaling (Guo et al. 2017): with the logits z_i = ln p̄_i (p̄ floored at
// eval.ProbabilityFloor) it fits the temperature T > 0 that minimises the
// validation NLL
//
//	NLL(T) = −(1/n) Σ_{i ∈ val} ln softmax(z_i / T)_{y_i},
//
// and returns the prediction p̃_i = softmax(z_i / T) of every node with
// that T. NLL is convex in β = 1/T (its second derivative is the mean
// variance of z_i under softmax(β z_i)), so the minimum is where
//
//	NLL′(β) = (1/n) Σ_i (E_{softmax(β z_i)}[z_i] − z_{i,y_i}) = 0;
//
// a safeguarded Newton iteration on β, falling back to bisection of the
// bracket on the sign of NLL′, finds it to a relative 1e-10 within T ∈
// [0.01, 100]; T is that bound when the minimum lies beyond it (β → ∞
// when every validation node is right with margin, β → 0 when the
// predictions are worse than uniform).
//
// Scaling by a positive T keeps the order of the classes, so Class is
// unchanged; Prob is p̃ and TU and LC are recomputed from it. The other
// measures (AU, EU, EU_PC, EU_SO) and Alpha describe the second-order or
// sampled prediction, which scaling p̄ does not define, and are dropped.
// The model's name gets "+TS". It returns an error for no validation
// nodes, a validation node outside the prediction or without a label in
// [0, Classes), and a prediction without probabilities.
func (p *Prediction) TemperatureScaled(val []int) (*Prediction, float64, error) {
	if p.Prob == nil || p.Prob.Cols != p.Classes || len(p.Class) != p.Prob.Rows {
		return nil, 0, fmt.Errorf("cuq: %s: temperature scaling needs class probabilities and classes", p.Model)
	}
	if len(val) == 0 {
		return nil, 0, fmt.Errorf("cuq: %s: temperature scaling needs validation nodes", p.Model)
	}
	if err := p.checkLabelled(val); err != nil {
		return nil, 0, err
	}
	z := tensor.New(p.Prob.Rows, p.Prob.Cols)
	for i, v := range p.Prob.Data {
		z.Data[i] = math.Log(max(v, eval.ProbabilityFloor))
	}
	beta := fitInverseTemperature(z, val, p.Graph.Labels)
	scaled := &Prediction{Model: p.Model + "+TS", Graph: p.Graph, Classes: p.Classes,
		Class: append([]int(nil), p.Class...), Prob: tensor.New(z.Rows, z.Cols)}
	for i := 0; i < z.Rows; i++ {
		scaledSoftmax(scaled.Prob.Row(i), z.Row(i), beta)
	}
	var err error
	if scaled.Measures, err = uq.Categorical(scaled.Prob.Data, p.Classes); err != nil {
		return nil, 0, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return scaled, 1 / beta, nil
}

// fitInverseTemperature returns the β = 1/T in [1/maxTemperature,
// 1/minTemperature] that minimises the NLL of softmax(β z_i) at the
// labels y of the nodes val.
func fitInverseTemperature(z *tensor.Dense, val, y []int) float64 {
	lo, hi := 1/maxTemperature, 1/minTemperature
	if g, _ := nllDerivatives(z, val, y, lo); g >= 0 {
		return lo
	}
	if g, _ := nllDerivatives(z, val, y, hi); g <= 0 {
		return hi
	}
	beta := 1.0
	for range 200 {
		g, h := nllDerivatives(z, val, y, beta)
		if g > 0 {
			hi = beta
		} else {
			lo = beta
		}
		next := beta - g/h
		if !(next > lo && next < hi) {
			next = math.Sqrt(lo * hi) // bisection in log β
		}
		if math.Abs(next-beta) <= temperatureTol*beta || hi-lo <= temperatureTol*lo {
			return next
		}
		beta = next
	}
	return beta
}

// nllDerivatives returns the first and second derivatives in β of the mean
// NLL of softmax(β z_i) at the labels: the means over val of
// E_q[z_i] − z_{i,y_i} and Var_q[z_i], q = softmax(β z_i).
func nllDerivatives(z *tensor.Dense, val, y []int, beta float64) (g, h float64) {
	q := make([]float64, z.Cols)
	for _, i := range val {
		row := z.Row(i)
		scaledSoftmax(q, row, beta)
		var mean, sq float64
		for c, v := range row {
			mean += float64(q[c] * v)
			sq += float64(q[c] * v * v)
		}
		g += mean - row[y[i]]
		h += max(sq-float64(mean*mean), 0)
	}
	n := float64(len(val))
	return g / n, h / n
}

// scaledSoftmax sets dst to softmax(β z).
func scaledSoftmax(dst, z []float64, beta float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, beta*v)
	}
	var s float64
	for c, v := range z {
		dst[c] = math.Exp(float64(beta*v) - m)
		s += dst[c]
	}
	for c := range dst {
		dst[c] /= s
	}
}
