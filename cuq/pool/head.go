package pool

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GaussianHead is a PostNet head written down rather than trained: one unit
// Gaussian per class in a d-dimensional space of representations, equal
// class priors p(c) = 1/K and a certainty budget N. At a representation z
// it predicts Dir(α(z)) with the pseudo-counts (evidence)
//
//	β_c(z) = N · p(c) · 𝒩(z | μ_c, I_d) = N/K · (2π)^(−d/2) · exp(−‖z − μ_c‖²/2),
//	α(z)   = 1 + β(z).
//
// Close to a class mean the head is confident in that class; between the
// means its evidence is spread over several classes; far from every mean it
// has almost none, α(z) ≈ 1. A GaussianHead is immutable.
type GaussianHead struct {
	means  [][]float64
	budget float64
	scale  float64 // N/K · (2π)^(−d/2)
}

// NewGaussianHead returns the head with certainty budget N and one class
// per mean μ_c. It needs at least two means of the same dimension d ≥ 1,
// finite, and a finite budget N > 0.
func NewGaussianHead(budget float64, means ...[]float64) (*GaussianHead, error) {
	if !(budget > 0) || math.IsInf(budget, 1) {
		return nil, fmt.Errorf("pool.NewGaussianHead: budget %v, want finite and > 0", budget)
	}
	if len(means) < 2 {
		return nil, fmt.Errorf("pool.NewGaussianHead: %d class means, want at least 2", len(means))
	}
	d := len(means[0])
	if d == 0 {
		return nil, fmt.Errorf("pool.NewGaussianHead: class means of dimension 0")
	}
	for c, m := range means {
		if len(m) != d {
			return nil, fmt.Errorf("pool.NewGaussianHead: mean of class %d has dimension %d, class 0 has %d", c, len(m), d)
		}
		for _, v := range m {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("pool.NewGaussianHead: mean of class %d is not finite: %v", c, m)
			}
		}
	}
	return newHead(budget, means), nil
}

// newHead returns the head of valid arguments, with copies of the means.
func newHead(budget float64, means [][]float64) *GaussianHead {
	h := &GaussianHead{budget: budget, means: make([][]float64, len(means))}
	for c, m := range means {
		h.means[c] = append([]float64(nil), m...)
	}
	h.scale = budget / float64(len(means)) * math.Pow(2*math.Pi, -float64(len(means[0]))/2)
	return h
}

// Triangle returns three class means in the plane at the corners of an
// equilateral triangle of circumradius r centred at the origin: class 0 at
// (0, r), class 1 at the lower left, class 2 at the lower right.
func Triangle(r float64) [][]float64 {
	s := r * math.Sqrt(3) / 2
	return [][]float64{{0, r}, {-s, -r / 2}, {s, -r / 2}}
}

// ToyHead returns the head of the teaching material: three classes at the
// corners of a triangle of radius 3 (Triangle(3)) and budget N = 300. At a
// class mean it predicts α ≈ (17, 1, 1), at the centre of the triangle
// α ≈ (1.2, 1.2, 1.2), far away α ≈ (1, 1, 1).
func ToyHead() *GaussianHead {
	return newHead(300, Triangle(3))
}

// Classes returns the number of classes K.
func (h *GaussianHead) Classes() int { return len(h.means) }

// Dim returns the dimension d of the representations.
func (h *GaussianHead) Dim() int { return len(h.means[0]) }

// Budget returns the certainty budget N.
func (h *GaussianHead) Budget() float64 { return h.budget }

// Mean returns a copy of the mean μ_c of class c, nil if c is out of range.
func (h *GaussianHead) Mean(c int) []float64 {
	if c < 0 || c >= len(h.means) {
		return nil
	}
	return append([]float64(nil), h.means[c]...)
}

// Evidence returns the pseudo-counts β(z) (one per class). It returns an
// error if z does not have the head's dimension or is not finite.
func (h *GaussianHead) Evidence(z []float64) ([]float64, error) {
	if err := h.check(z); err != nil {
		return nil, fmt.Errorf("pool.GaussianHead.Evidence: %w", err)
	}
	beta := make([]float64, len(h.means))
	h.evidence(z, beta)
	return beta, nil
}

// Alpha returns the Dirichlet parameters α(z) = 1 + β(z). It returns an
// error if z does not have the head's dimension or is not finite.
func (h *GaussianHead) Alpha(z []float64) ([]float64, error) {
	if err := h.check(z); err != nil {
		return nil, fmt.Errorf("pool.GaussianHead.Alpha: %w", err)
	}
	a := make([]float64, len(h.means))
	h.evidence(z, a)
	for c := range a {
		a[c]++
	}
	return a, nil
}

func (h *GaussianHead) check(z []float64) error {
	if len(z) != h.Dim() {
		return fmt.Errorf("representation of dimension %d, the head's is %d", len(z), h.Dim())
	}
	for _, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("representation is not finite: %v", z)
		}
	}
	return nil
}

// evidence stores β(z) in dst; z is valid.
func (h *GaussianHead) evidence(z, dst []float64) {
	for c, m := range h.means {
		var d2 float64
		for k, v := range z {
			d := v - m[k]
			d2 += float64(d * d)
		}
		dst[c] = h.scale * math.Exp(-d2/2)
	}
}

// Representations returns one representation per label, scattered around
// the class means as a trained encoder would place the nodes:
//
//	z_j = μ_(y_j) + σ·ε_j,  ε_j ~ 𝒩(0, I_d),
//
// with ε drawn in order from a PCG generator seeded with (seed, 0), so the
// same arguments give the same representations. It returns an error for a
// label outside [0, K) (unlabelled nodes included) or σ negative or not
// finite.
func (h *GaussianHead) Representations(labels []int, sigma float64, seed uint64) ([][]float64, error) {
	if !(sigma >= 0) || math.IsInf(sigma, 1) {
		return nil, fmt.Errorf("pool.GaussianHead.Representations: σ = %v, want finite and ≥ 0", sigma)
	}
	r := rand.New(rand.NewPCG(seed, 0))
	z := make([][]float64, len(labels))
	for j, y := range labels {
		if y < 0 || y >= len(h.means) {
			return nil, fmt.Errorf("pool.GaussianHead.Representations: node %d has label %d outside [0, %d)", j, y, len(h.means))
		}
		z[j] = make([]float64, h.Dim())
		for k, m := range h.means[y] {
			z[j][k] = m + float64(sigma*r.NormFloat64())
		}
	}
	return z, nil
}
