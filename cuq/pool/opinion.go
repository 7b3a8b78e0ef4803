package pool

import (
	"fmt"
	"math"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Opinion is one node's second-order prediction over the K-class simplex
// {θ : θ_c ≥ 0, Σ_c θ_c = 1}: a mixture of Dirichlets
//
//	q(θ) = Σ_j w_j Dir(θ | α_j),  w_j ≥ 0,  Σ_j w_j = 1,
//	Dir(θ | α) = Γ(α0) / Π_c Γ(α_c) · Π_c θ_c^(α_c − 1),  α0 = Σ_c α_c.
//
// The log-linear and behavioural pools, and a node alone, are single
// Dirichlets (one component of weight 1); the linear pool is a mixture. An
// Opinion is immutable.
type Opinion struct {
	k       int
	weights []float64 // M, summing to 1
	logW    []float64 // ln w_j
	alphas  []float64 // M×K row-major
	logNorm []float64 // per component: ln Γ(α0_j) − Σ_c ln Γ(α_jc)
}

// Dirichlet returns the opinion Dir(α). It needs at least two
// concentrations, all finite and positive.
func Dirichlet(alpha ...float64) (*Opinion, error) {
	o, err := newOpinion([]float64{1}, [][]float64{alpha})
	if err != nil {
		return nil, fmt.Errorf("pool.Dirichlet: %w", err)
	}
	return o, nil
}

// Mixture returns the opinion Σ_j w_j Dir(α_j) with the weights w_j
// proportional to weights[j]: they must be finite and non-negative with a
// positive sum, and are divided by it. Every α_j needs the same number K ≥ 2
// of finite, positive concentrations.
func Mixture(weights []float64, alphas [][]float64) (*Opinion, error) {
	o, err := newOpinion(weights, alphas)
	if err != nil {
		return nil, fmt.Errorf("pool.Mixture: %w", err)
	}
	return o, nil
}

func newOpinion(weights []float64, alphas [][]float64) (*Opinion, error) {
	if len(weights) != len(alphas) || len(alphas) == 0 {
		return nil, fmt.Errorf("%d weights for %d components, want as many and at least one", len(weights), len(alphas))
	}
	k := len(alphas[0])
	if k < 2 {
		return nil, fmt.Errorf("%d concentrations, want at least 2", k)
	}
	var sum float64
	for j, w := range weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("weight %d is %v, want finite and ≥ 0", j, w)
		}
		sum += w
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return nil, fmt.Errorf("weights sum to %v, want a finite positive sum", sum)
	}
	o := &Opinion{k: k, weights: make([]float64, len(weights)), alphas: make([]float64, 0, k*len(alphas)), logNorm: make([]float64, len(alphas))}
	for j, a := range alphas {
		if len(a) != k {
			return nil, fmt.Errorf("component %d has %d concentrations, component 0 has %d", j, len(a), k)
		}
		var a0 float64
		for c, v := range a {
			if !(v > 0) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("component %d: α[%d] = %v, want finite and > 0", j, c, v)
			}
			a0 += v
			lg, _ := math.Lgamma(v)
			o.logNorm[j] -= lg
		}
		lg0, _ := math.Lgamma(a0)
		o.logNorm[j] += lg0
		o.weights[j] = weights[j] / sum
		o.logW = append(o.logW, math.Log(o.weights[j]))
		o.alphas = append(o.alphas, a...)
	}
	return o, nil
}

// Classes returns the number of classes K.
func (o *Opinion) Classes() int { return o.k }

// Components returns the number M of Dirichlets in the mixture (1 for a
// single Dirichlet).
func (o *Opinion) Components() int { return len(o.weights) }

// Weight returns the weight w_j of component j (0 if j is out of range).
func (o *Opinion) Weight(j int) float64 {
	if j < 0 || j >= len(o.weights) {
		return 0
	}
	return o.weights[j]
}

// Alpha returns a copy of the concentrations α_j of component j, nil if j
// is out of range.
func (o *Opinion) Alpha(j int) []float64 {
	if j < 0 || j >= len(o.weights) {
		return nil
	}
	return append([]float64(nil), o.alphas[j*o.k:(j+1)*o.k]...)
}

// Mean returns the predicted class distribution p̄ = Σ_j w_j α_j/α0_j.
func (o *Opinion) Mean() []float64 {
	p := make([]float64, o.k)
	theta := make([]float64, o.k)
	for j, w := range o.weights {
		uq.Mean(o.alphas[j*o.k:(j+1)*o.k], theta)
		for c, t := range theta {
			p[c] += float64(w * t)
		}
	}
	return p
}

// Measures returns the uncertainty measures of the opinion (package uq),
// one value per field: for a single Dirichlet those of uq.Dirichlet, for a
// mixture those of uq.Mixture (TU of the mean, AU the weighted mean of the
// components' AU, EU = TU − AU, EU_PC = −Σ_j w_j α0_j).
func (o *Opinion) Measures() (uq.Measures, error) {
	ptr := []int{0, len(o.weights)}
	ind := make([]int, len(o.weights))
	for j := range ind {
		ind[j] = j
	}
	return uq.Mixture(ptr, ind, o.weights, o.alphas, o.k)
}

// LogDensity returns ln q(θ), the log of the mixture's density with respect
// to the Lebesgue measure on the first K−1 coordinates of θ. It is −Inf
// when θ has the wrong length, a negative component or components that do
// not sum to 1 (within 1e-9), and +Inf on a face θ_c = 0 of a component
// with α_c < 1.
func (o *Opinion) LogDensity(theta []float64) float64 {
	if len(theta) != o.k {
		return math.Inf(-1)
	}
	var s float64
	for _, t := range theta {
		if !(t >= 0) {
			return math.Inf(-1)
		}
		s += t
	}
	if math.Abs(s-1) > 1e-9 {
		return math.Inf(-1)
	}
	// ln θ_c once for all components.
	var buf [8]float64
	logTheta := buf[:0]
	if o.k > len(buf) {
		logTheta = make([]float64, 0, o.k)
	}
	for _, t := range theta {
		logTheta = append(logTheta, math.Log(t))
	}
	if len(o.weights) == 1 {
		return o.logDir(0, logTheta)
	}
	// ln Σ_j exp(ln w_j + ln Dir(θ | α_j)), shifted by the largest term.
	top := math.Inf(-1)
	var lbuf [8]float64
	logs := lbuf[:0]
	for j, lw := range o.logW {
		l := lw + o.logDir(j, logTheta)
		logs = append(logs, l)
		top = max(top, l)
	}
	if math.IsInf(top, 0) {
		return top
	}
	var e float64
	for _, l := range logs {
		e += math.Exp(l - top)
	}
	return top + math.Log(e)
}

// logDir returns ln Dir(θ | α_j) from logTheta = ln θ, θ in the simplex.
// A concentration α_c = 1 contributes nothing, also where θ_c = 0.
func (o *Opinion) logDir(j int, logTheta []float64) float64 {
	lp := o.logNorm[j]
	for c, a := range o.alphas[j*o.k : (j+1)*o.k] {
		if a != 1 {
			lp += float64((a - 1) * logTheta[c])
		}
	}
	return lp
}

// Density returns q(θ) = exp(LogDensity(θ)).
func (o *Opinion) Density(theta []float64) float64 { return math.Exp(o.LogDensity(theta)) }

// Density3 is Density for three classes, in the form chart.SimplexDensity
// takes.
func (o *Opinion) Density3(theta [3]float64) float64 { return o.Density(theta[:]) }

// String describes the opinion: "Dir(5.2, 5.2, 1.1)" for a single
// Dirichlet, "mixture of 3 Dirichlets" otherwise.
func (o *Opinion) String() string {
	if len(o.weights) > 1 {
		return fmt.Sprintf("mixture of %d Dirichlets", len(o.weights))
	}
	parts := make([]string, o.k)
	for c, a := range o.alphas {
		parts[c] = fmt.Sprintf("%.1f", a)
	}
	return "Dir(" + strings.Join(parts, ", ") + ")"
}
