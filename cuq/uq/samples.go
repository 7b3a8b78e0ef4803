package uq

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Samples computes the measures of a sampled prediction: S categorical
// predictions per node, as a committee gives them (the members of a deep
// ensemble, the forward passes of MC dropout or of DropEdge). probs[s] holds
// sample s for N nodes, row-major (N×k, node i in probs[s][i*k:(i+1)*k]).
// With p̄_i = (1/S) Σ_s p⁽ˢ⁾_i the sample mean,
//
//	TU = H(p̄_i)                               total uncertainty
//	AU = (1/S) Σ_s H(p⁽ˢ⁾_i)                   aleatoric uncertainty
//	EU = TU − AU = I(Y; S)                    epistemic uncertainty
//	LC = 1 − max_c p̄_ic                       least confidence
//
// the entropy decomposition of the committee (Depeweg et al. 2018): EU is
// the mutual information between the label and the sample, which the
// concavity of H makes non-negative. Rounding can leave TU − AU a few ulps
// below zero when the samples (nearly) agree; such values are returned as
// 0. The means over samples are running means, so that identical samples
// have p̄ and AU exactly those of each sample: with a single sample, or
// samples that agree, EU = 0 exactly. EU_PC
// and EU_SO belong to Dirichlet predictions and are nil.
//
// It returns an error if there are no samples, k < 1, the samples differ in
// length or a length is not a multiple of k, or a row has a negative or
// non-finite entry or does not sum to 1 within 1e-6.
func Samples(probs [][]float64, k int) (Measures, error) {
	mean, err := SampleMean(probs, k)
	if err != nil {
		return Measures{}, err
	}
	n := len(mean) / k
	ms := Measures{TU: make([]float64, n), AU: make([]float64, n), EU: make([]float64, n), LC: make([]float64, n)}
	tensor.ParallelFor(n, n*k*len(probs)*2, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var au float64
			for s, p := range probs {
				au += (CategoricalEntropy(p[i*k:(i+1)*k]) - au) / float64(s+1)
			}
			pbar := mean[i*k : (i+1)*k]
			tu := CategoricalEntropy(pbar)
			maxp := pbar[0]
			for _, v := range pbar[1:] {
				maxp = math.Max(maxp, v)
			}
			ms.TU[i], ms.AU[i], ms.EU[i], ms.LC[i] = tu, au, max(tu-au, 0), 1-maxp
		}
	})
	return ms, nil
}

// SampleMean returns the N×k row-major mean p̄ = (1/S) Σ_s p⁽ˢ⁾ of the
// samples described as in Samples, with the same validation. The mean of
// identical samples (or of one) is exactly each of them.
func SampleMean(probs [][]float64, k int) ([]float64, error) {
	if len(probs) == 0 {
		return nil, fmt.Errorf("uq: Samples: no samples")
	}
	for s, p := range probs {
		if _, err := checkRows("Samples", p, k); err != nil {
			return nil, err
		}
		if len(p) != len(probs[0]) {
			return nil, fmt.Errorf("uq: Samples: sample %d has length %d, sample 0 has %d", s, len(p), len(probs[0]))
		}
		if err := checkProbabilities(p, k); err != nil {
			return nil, fmt.Errorf("uq: Samples: sample %d: %w", s, err)
		}
	}
	// A running mean, m ← m + (p⁽ˢ⁾ − m)/(s+1), keeps identical samples
	// exactly: their mean is each of them.
	mean := make([]float64, len(probs[0]))
	for s, p := range probs {
		for j, v := range p {
			mean[j] += (v - mean[j]) / float64(s+1)
		}
	}
	return mean, nil
}

// checkProbabilities checks that every row of the N×k matrix p is a
// probability vector: finite, non-negative entries summing to 1 within
// weightSumTol.
func checkProbabilities(p []float64, k int) error {
	for i := 0; i < len(p); i += k {
		var sum float64
		for _, v := range p[i : i+k] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("row %d has the entry %v (need finite, non-negative probabilities)", i/k, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > weightSumTol {
			return fmt.Errorf("row %d sums to %v, want 1", i/k, sum)
		}
	}
	return nil
}
