package uq

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Measures holds one value per node for each uncertainty measure. A nil slice
// means the measure does not exist for the model (a first-order APPNP
// prediction has only TU and LC) or was not computed (the credal measures,
// see Credal).
type Measures struct {
	TU, AU, EU, EUPC, EUSO, LC []float64
	// The credal measures (CredalMeasures).
	HUpper, HLower, EUCredal, GH, CredalSize []float64
}

// Get returns the values of measure m, nil if absent or m is unknown.
func (ms Measures) Get(m Measure) []float64 {
	switch m {
	case TU:
		return ms.TU
	case AU:
		return ms.AU
	case EU:
		return ms.EU
	case EUPC:
		return ms.EUPC
	case EUSO:
		return ms.EUSO
	case LC:
		return ms.LC
	case HUpper:
		return ms.HUpper
	case HLower:
		return ms.HLower
	case EUCredal:
		return ms.EUCredal
	case GH:
		return ms.GH
	case CredalSize:
		return ms.CredalSize
	}
	return nil
}

// Available lists the measures present in ms, in the order of AllMeasures
// and then of CredalMeasures.
func (ms Measures) Available() []Measure {
	var out []Measure
	for _, m := range append(AllMeasures[:len(AllMeasures):len(AllMeasures)], CredalMeasures...) {
		if ms.Get(m) != nil {
			out = append(out, m)
		}
	}
	return out
}

// specialCost is the rough cost, in multiply-adds, of one lgamma or digamma
// evaluation; it sizes the parallel split of the batch functions.
const specialCost = 40

// Dirichlet computes every measure for N nodes whose Dirichlet parameters are
// stored row-major in alpha (N×k, node i in alpha[i*k:(i+1)*k]): TU, AU, EU,
// EU_PC, EU_SO and LC as defined in the package documentation. Large batches
// are split across goroutines. It returns an error if k < 1, len(alpha) is not
// a multiple of k, or an entry is not finite and positive.
func Dirichlet(alpha []float64, k int) (Measures, error) {
	n, err := checkRows("Dirichlet", alpha, k)
	if err != nil {
		return Measures{}, err
	}
	if err := checkAlpha("Dirichlet", alpha, k); err != nil {
		return Measures{}, err
	}
	ms := alloc(n)
	tensor.ParallelFor(n, n*k*3*specialCost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := alpha[i*k : (i+1)*k]
			a0, _ := concentration(a)
			var tu, maxp float64
			for _, v := range a {
				t := v / a0
				if t > 0 {
					tu -= float64(t * math.Log(t))
				}
				maxp = math.Max(maxp, t)
			}
			au := expectedEntropy(a, a0)
			ms.TU[i], ms.AU[i], ms.EU[i] = tu, au, tu-au
			ms.EUPC[i] = -a0
			ms.EUSO[i] = dirichletEntropy(a, a0)
			ms.LC[i] = 1 - maxp
		}
	})
	return ms, nil
}

// Categorical computes the measures of a first-order prediction: N
// categorical distributions stored row-major in probs (N×k). Only TU =
// CategoricalEntropy(p) and LC = 1 − max_k p_k are set; the other fields are
// nil. It returns an error if k < 1, len(probs) is not a multiple of k, or a
// row has a negative or non-finite entry or sums to zero.
func Categorical(probs []float64, k int) (Measures, error) {
	n, err := checkRows("Categorical", probs, k)
	if err != nil {
		return Measures{}, err
	}
	ms := Measures{TU: make([]float64, n), LC: make([]float64, n)}
	for i := 0; i < n; i++ {
		p := probs[i*k : (i+1)*k]
		h := CategoricalEntropy(p)
		if math.IsNaN(h) {
			return Measures{}, fmt.Errorf("uq: Categorical: row %d is not a probability vector (negative, non-finite or all zero): %v", i, p)
		}
		maxp := p[0]
		for _, v := range p[1:] {
			maxp = math.Max(maxp, v)
		}
		ms.TU[i], ms.LC[i] = h, 1-maxp
	}
	return ms, nil
}

// weightSumTol is how far a mixture's weights may sum from 1.
const weightSumTol = 1e-6

// Mixture computes the measures of N Dirichlet mixtures (LOP-GPN): node i's
// prediction is Σ_j w_ij Dir(α_j) over the M components whose parameters are
// stored row-major in alpha (M×k). The weights are sparse rows in CSR layout:
// row i has the component indices ind[ptr[i]:ptr[i+1]] with weights
// w[ptr[i]:ptr[i+1]], so len(ptr) = N+1. With θ̄_j = α_j/α0_j and the mixture
// mean p̄_i = Σ_j w_ij θ̄_j,
//
//	TU    = H(p̄_i)
//	AU    = Σ_j w_ij AU(α_j)              (exact: the expected entropy is linear)
//	EU    = TU − AU
//	EU_PC = −Σ_j w_ij α0_j
//	EU_SO = Σ_j w_ij h(Dir(α_j)) + H(w_i)  (an UPPER BOUND of the mixture's
//	                                       differential entropy, as in the reference)
//	LC    = 1 − max_c p̄_ic
//
// A mixture with a single component of weight 1 gives exactly the Dirichlet
// measures. It returns an error on malformed rows (ptr not starting at 0,
// decreasing or not ending at len(ind)), mismatched lengths, component
// indices out of range, negative or non-finite weights, rows whose weights do
// not sum to 1 within 1e-6, or invalid α.
func Mixture(ptr, ind []int, w []float64, alpha []float64, k int) (Measures, error) {
	m, err := checkRows("Mixture", alpha, k)
	if err != nil {
		return Measures{}, err
	}
	mw, err := NewMixtureWeights(ptr, ind, w, m)
	if err != nil {
		return Measures{}, err
	}
	ms, _, err := mw.Mixture(alpha, k)
	return ms, err
}

// MixtureMean returns the N×k row-major means p̄_i = Σ_j w_ij α_j/α0_j of the
// mixtures described as in Mixture, with the same validation: each
// component's mean once, then each row's weighted sum in the order of its
// weights. (MixtureWeights.Mixture gives them with the measures.)
func MixtureMean(ptr, ind []int, w []float64, alpha []float64, k int) ([]float64, error) {
	m, err := checkRows("MixtureMean", alpha, k)
	if err != nil {
		return nil, err
	}
	mw, err := NewMixtureWeights(ptr, ind, w, m)
	if err != nil {
		return nil, err
	}
	_, mean, err := mw.Mixture(alpha, k)
	return mean, err
}

// MixtureWeights are the validated weights of N Dirichlet mixtures over M
// components, in the CSR layout of Mixture, with the entropy H(w_i) of
// each row computed once: a model that forms many mixtures with the same
// weights (LOP-GPN, whose weights Π are its graph's) validates them and
// takes N·M logarithms once instead of on every prediction. The arrays
// are not copied and must not change.
type MixtureWeights struct {
	ptr, ind   []int
	w          []float64
	components int
	entropy    []float64 // H(w_i)
}

// NewMixtureWeights validates the weights of mixtures over m components as
// Mixture does and computes each row's entropy.
func NewMixtureWeights(ptr, ind []int, w []float64, m int) (*MixtureWeights, error) {
	n, err := checkWeights(ptr, ind, w, m)
	if err != nil {
		return nil, err
	}
	entropy := make([]float64, n)
	tensor.ParallelForRows(ptr, specialCost/8, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			entropy[i] = CategoricalEntropy(w[ptr[i]:ptr[i+1]])
		}
	})
	return &MixtureWeights{ptr: ptr, ind: ind, w: w, components: m, entropy: entropy}, nil
}

// Rows returns N, the number of mixtures.
func (mw *MixtureWeights) Rows() int { return len(mw.ptr) - 1 }

// RowEntropy returns H(w_i), the entropy of mixture i's weights.
func (mw *MixtureWeights) RowEntropy(i int) float64 { return mw.entropy[i] }

// Mixture computes the measures of the mixtures whose M components are the
// rows of alpha (M×k, row-major), as the function Mixture does, and the
// N×k row-major means p̄_i, which are MixtureMean's to the bit. It
// returns an error if alpha does not have M rows or is not a valid
// Dirichlet parameter.
func (mw *MixtureWeights) Mixture(alpha []float64, k int) (Measures, []float64, error) {
	m, err := checkRows("Mixture", alpha, k)
	if err != nil {
		return Measures{}, nil, err
	}
	if m != mw.components {
		return Measures{}, nil, fmt.Errorf("uq: Mixture: %d components, the weights are over %d", m, mw.components)
	}
	if err := checkAlpha("Mixture", alpha, k); err != nil {
		return Measures{}, nil, err
	}
	ptr, ind, w := mw.ptr, mw.ind, mw.w
	// Per-component quantities, computed once.
	mean := make([]float64, m*k)
	au := make([]float64, m)
	a0s := make([]float64, m)
	ent := make([]float64, m)
	tensor.ParallelFor(m, m*k*3*specialCost, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			a := alpha[j*k : (j+1)*k]
			a0, _ := concentration(a)
			Mean(a, mean[j*k:(j+1)*k])
			au[j], a0s[j], ent[j] = expectedEntropy(a, a0), a0, dirichletEntropy(a, a0)
		}
	})
	n := mw.Rows()
	ms := alloc(n)
	means := make([]float64, n*k)
	tensor.ParallelForRows(ptr, k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pbar := means[i*k : (i+1)*k]
			var aui, a0i, enti float64
			cols, ws := ind[ptr[i]:ptr[i+1]], w[ptr[i]:ptr[i+1]]
			for e, j := range cols {
				wj := ws[e]
				for c, t := range mean[j*k : (j+1)*k] {
					pbar[c] += float64(wj * t)
				}
				aui += float64(wj * au[j])
				a0i += float64(wj * a0s[j])
				enti += float64(wj * ent[j])
			}
			tu := CategoricalEntropy(pbar)
			maxp := pbar[0]
			for _, v := range pbar[1:] {
				maxp = math.Max(maxp, v)
			}
			ms.TU[i], ms.AU[i], ms.EU[i] = tu, aui, tu-aui
			ms.EUPC[i] = -a0i
			ms.EUSO[i] = enti + mw.entropy[i]
			ms.LC[i] = 1 - maxp
		}
	})
	return ms, means, nil
}

// alloc returns Measures with every field allocated for n nodes.
func alloc(n int) Measures {
	return Measures{
		TU: make([]float64, n), AU: make([]float64, n), EU: make([]float64, n),
		EUPC: make([]float64, n), EUSO: make([]float64, n), LC: make([]float64, n),
	}
}

func checkRows(op string, x []float64, k int) (int, error) {
	if k < 1 {
		return 0, fmt.Errorf("uq: %s: number of classes k = %d, want ≥ 1", op, k)
	}
	if len(x)%k != 0 {
		return 0, fmt.Errorf("uq: %s: length %d is not a multiple of k = %d", op, len(x), k)
	}
	return len(x) / k, nil
}

func checkAlpha(op string, alpha []float64, k int) error {
	for i := 0; i < len(alpha); i += k {
		if _, ok := concentration(alpha[i : i+k]); !ok {
			return fmt.Errorf("uq: %s: row %d is not a valid Dirichlet parameter (every α must be finite and > 0): %v", op, i/k, alpha[i:i+k])
		}
	}
	return nil
}

func checkWeights(ptr, ind []int, w []float64, m int) (int, error) {
	if len(ptr) == 0 {
		return 0, fmt.Errorf("uq: Mixture: row pointer is empty, want length N+1")
	}
	if len(ind) != len(w) {
		return 0, fmt.Errorf("uq: Mixture: %d component indices but %d weights", len(ind), len(w))
	}
	n := len(ptr) - 1
	if ptr[0] != 0 || ptr[n] != len(ind) {
		return 0, fmt.Errorf("uq: Mixture: row pointer must run from 0 to %d, got %d to %d", len(ind), ptr[0], ptr[n])
	}
	for i := 0; i < n; i++ {
		if ptr[i+1] < ptr[i] {
			return 0, fmt.Errorf("uq: Mixture: row pointer decreases at row %d (%d > %d)", i, ptr[i], ptr[i+1])
		}
		var s float64
		for e := ptr[i]; e < ptr[i+1]; e++ {
			if ind[e] < 0 || ind[e] >= m {
				return 0, fmt.Errorf("uq: Mixture: row %d: component %d out of range [0, %d)", i, ind[e], m)
			}
			if !(w[e] >= 0) || math.IsInf(w[e], 1) {
				return 0, fmt.Errorf("uq: Mixture: row %d: weight %v of component %d is not finite and non-negative", i, w[e], ind[e])
			}
			s += w[e]
		}
		if math.Abs(s-1) > weightSumTol {
			return 0, fmt.Errorf("uq: Mixture: row %d: weights sum to %v, want 1", i, s)
		}
	}
	return n, nil
}
