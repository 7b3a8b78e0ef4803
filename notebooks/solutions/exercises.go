// Package solutions holds the solutions of the exercises of
// notebooks/09_exercises.ipynb: one function per exercise, under the name
// and with the signature of the notebook's cell. scripts/ci-notebooks.sh
// puts these bodies into a copy of the notebook and runs it, where every
// grade must pass; the tests of package kernelext grade them the same way.
package solutions

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/special"
)

// Entropy returns H(p) = −Σ_k p_k ln p_k, with 0 · ln 0 = 0.
func Entropy(p []float64) float64 {
	h := 0.0
	for _, pk := range p {
		if pk > 0 {
			h -= pk * math.Log(pk)
		}
	}
	return h
}

// TU returns the total uncertainty H(α/α0) of Dir(α).
func TU(alpha []float64) float64 {
	a0 := 0.0
	for _, a := range alpha {
		a0 += a
	}
	mean := make([]float64, len(alpha))
	for k, a := range alpha {
		mean[k] = a / a0
	}
	return Entropy(mean)
}

// AU returns the aleatoric uncertainty Σ_k (α_k/α0)(ψ(α0+1) − ψ(α_k+1)) of Dir(α).
func AU(alpha []float64) float64 {
	a0 := 0.0
	for _, a := range alpha {
		a0 += a
	}
	au := 0.0
	for _, a := range alpha {
		au += a / a0 * (special.Digamma(a0+1) - special.Digamma(a+1))
	}
	return au
}

// EU returns the epistemic uncertainty TU − AU of Dir(α).
func EU(alpha []float64) float64 {
	return TU(alpha) - AU(alpha)
}

// AUROC returns P(s_ood > s_id) + ½ P(s_ood = s_id) over all pairs.
func AUROC(id, ood []float64) float64 {
	pairs := 0.0
	for _, o := range ood {
		for _, i := range id {
			switch {
			case o > i:
				pairs++
			case o == i:
				pairs += 0.5
			}
		}
	}
	return pairs / float64(len(id)*len(ood))
}

// APPNPStep returns (1−t) Â H + t H₀ with Â = D^(−½)(A + I)D^(−½).
func APPNPStep(A, H, H0 [][]float64, t float64) [][]float64 {
	n := len(A)
	d := make([]float64, n)
	for i := range n {
		d[i] = 1 // the self loop
		for _, a := range A[i] {
			d[i] += a
		}
	}
	out := make([][]float64, n)
	for i := range n {
		out[i] = make([]float64, len(H[i]))
		for j := range n {
			aij := A[i][j]
			if i == j {
				aij++
			}
			w := aij / math.Sqrt(d[i]*d[j])
			for f := range out[i] {
				out[i][f] += (1 - t) * w * H[j][f]
			}
		}
		for f := range out[i] {
			out[i][f] += t * H0[i][f]
		}
	}
	return out
}

// BehaviouralPool returns α(w₁ z₁ + w₂ z₂), nil when the committee's
// representation is not finite.
func BehaviouralPool(head *pool.GaussianHead, w1 float64, z1 []float64, w2 float64, z2 []float64) []float64 {
	z := make([]float64, len(z1))
	for k := range z {
		z[k] = w1*z1[k] + w2*z2[k]
	}
	alpha, err := head.Alpha(z)
	if err != nil {
		return nil
	}
	return alpha
}
