package uq

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/special"
)

// EntropyApproxThreshold is the concentration α0 from which DirichletEntropy
// uses the large-α approximation instead of the exact formula, as the
// reference implementation does.
const EntropyApproxThreshold = 1e4

// Mean stores the mean θ̄ = α/α0 of Dir(α), α0 = Σ_k α_k, in dst and returns
// it. dst is reused when its capacity suffices and allocated otherwise; it may
// be alpha itself. The entries are NaN if alpha is not a valid concentration
// vector (every α_k finite and positive).
func Mean(alpha, dst []float64) []float64 {
	if cap(dst) < len(alpha) {
		dst = make([]float64, len(alpha))
	}
	dst = dst[:len(alpha)]
	a0, ok := concentration(alpha)
	for k, a := range alpha {
		if ok {
			dst[k] = a / a0
		} else {
			dst[k] = math.NaN()
		}
	}
	return dst
}

// CategoricalEntropy returns the Shannon entropy H(q) = −Σ_k q_k ln q_k in
// nats of the categorical distribution q = p/Σp. Like torch's Categorical, p
// is renormalised first, so unnormalised non-negative weights are accepted;
// zero entries contribute 0 (0·ln 0 = 0). The result is NaN if an entry is
// negative or not finite, or if all entries are zero.
func CategoricalEntropy(p []float64) float64 {
	var s float64
	for _, v := range p {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN()
		}
		s += v
	}
	if s <= 0 || math.IsInf(s, 0) {
		return math.NaN()
	}
	var h float64
	for _, v := range p {
		if v > 0 {
			q := v / s
			h -= float64(q * math.Log(q))
		}
	}
	return h
}

// ExpectedEntropy returns the aleatoric uncertainty AU of Dir(α), the expected
// entropy of a categorical distribution Θ ~ Dir(α):
//
//	E[H(Θ)] = Σ_k θ̄_k (ψ(α0+1) − ψ(α_k+1)),  θ̄ = α/α0,
//
// with ψ the digamma function. It is NaN if alpha is not a valid
// concentration vector.
func ExpectedEntropy(alpha []float64) float64 { return ofValid(alpha, expectedEntropy) }

func expectedEntropy(alpha []float64, a0 float64) float64 {
	psi0 := special.Digamma(a0 + 1)
	var au float64
	for _, a := range alpha {
		au += float64(a / a0 * (psi0 - special.Digamma(a+1)))
	}
	return au
}

// DirichletEntropy returns the differential entropy of Dir(α) with K = len(α)
// classes, the second-order uncertainty EU_SO. For α0 < EntropyApproxThreshold
// it is the exact
//
//	h = Σ_c lnΓ(α_c) − lnΓ(α0) + (α0 − K) ψ(α0) − Σ_c (α_c − 1) ψ(α_c);
//
// from α0 ≥ EntropyApproxThreshold on it is the reference's large-α
// (Gaussian) approximation
//
//	h ≈ ½(K−1) + ½(K−1) ln 2π + ½ Σ_c ln α_c − (K − ½) ln α0,
//
// which avoids the cancellation of huge lnΓ terms. The approximation is
// accurate when every α_c is large; it is used whatever the α_c, as in the
// reference. The entropy can be negative. It is NaN if alpha is not a valid
// concentration vector.
func DirichletEntropy(alpha []float64) float64 { return ofValid(alpha, dirichletEntropy) }

func dirichletEntropy(alpha []float64, a0 float64) float64 {
	if a0 >= EntropyApproxThreshold {
		k := float64(len(alpha))
		var sumLog float64
		for _, a := range alpha {
			sumLog += math.Log(a)
		}
		return float64(0.5*(k-1)) + float64(0.5*(k-1)*math.Log(2*math.Pi)) + float64(0.5*sumLog) - float64((k-0.5)*math.Log(a0))
	}
	return exactDirichletEntropy(alpha, a0)
}

// exactDirichletEntropy is the exact differential entropy of Dir(α) with
// α0 = Σα, whatever α0.
func exactDirichletEntropy(alpha []float64, a0 float64) float64 {
	k := float64(len(alpha))
	lg0, _ := math.Lgamma(a0)
	h := -lg0 + float64((a0-k)*special.Digamma(a0))
	for _, a := range alpha {
		lg, _ := math.Lgamma(a)
		h += lg - float64((a-1)*special.Digamma(a))
	}
	return h
}

// ofValid returns f(alpha, α0) for a valid concentration vector alpha
// (see concentration), NaN otherwise.
func ofValid(alpha []float64, f func(alpha []float64, a0 float64) float64) float64 {
	a0, ok := concentration(alpha)
	if !ok {
		return math.NaN()
	}
	return f(alpha, a0)
}

// concentration returns α0 = Σα and whether alpha is a valid concentration
// vector: non-empty, every entry finite and positive, finite sum.
func concentration(alpha []float64) (float64, bool) {
	if len(alpha) == 0 {
		return math.NaN(), false
	}
	var a0 float64
	for _, a := range alpha {
		if !(a > 0) || math.IsInf(a, 1) {
			return math.NaN(), false
		}
		a0 += a
	}
	if math.IsInf(a0, 1) {
		return math.NaN(), false
	}
	return a0, true
}
