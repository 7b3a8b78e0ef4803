package cuq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/special"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func randAlpha(rng *rand.Rand, n, k int, lo, hi float64) *ad.Value {
	d := tensor.New(n, k)
	for i := range d.Data {
		d.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return ad.Param("alpha", d)
}

func TestDirichletEntropyValuesAndGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range [][2]float64{{1, 5}, {0.5, 3}, {3000, 6000}} { // the last rows use the α₀ ≥ 1e4 branch
		alpha := randAlpha(rng, 4, 3, r[0], r[1])
		h := dirichletEntropy(ad.NewEvalTape(), alpha).Data
		for i := 0; i < 4; i++ {
			want := uq.DirichletEntropy(alpha.Data.Row(i))
			if math.Abs(h.Data[i]-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("H(Dir(%v)) = %v, package uq gives %v", alpha.Data.Row(i), h.Data[i], want)
			}
		}
		worst, err := ad.GradCheck([]*ad.Value{alpha}, 1e-6, func(tp *ad.Tape) *ad.Value {
			return tp.Sum(dirichletEntropy(tp, alpha))
		})
		if err != nil || worst > 1e-6 {
			t.Errorf("entropy gradient for α in %v: relative error %v (%v)", r, worst, err)
		}
	}
}

// The UCE of a single node is ψ(α₀) − ψ(α_y), the expected cross entropy
// E_{θ~Dir(α)}[−log θ_y].
func TestUCEClosedForm(t *testing.T) {
	alpha := ad.Param("alpha", tensor.MustFromSlice(2, 3, []float64{2, 3, 5, 1, 1, 8}))
	got := uceLoss(ad.NewEvalTape(), alpha, []int{0, 1}, []int{2, 0}, 0).Scalar()
	want := special.Digamma(10) - special.Digamma(5) + special.Digamma(10) - special.Digamma(1)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("UCE = %v, want %v", got, want)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	a := randAlpha(rng, 5, 4, 1, 6)
	worst, err := ad.GradCheck([]*ad.Value{a}, 1e-6, func(tp *ad.Tape) *ad.Value {
		return uceLoss(tp, a, []int{4, 0, 2}, []int{1, 3, 0}, 1e-2)
	})
	if err != nil || worst > 1e-6 {
		t.Errorf("UCE gradient: relative error %v (%v)", worst, err)
	}
}

// mixtureEntropy is Σᵢ H_cat(Πᵢ), the entropies of the rows of pi summed
// in row order, the weightEntropy of mixtureLoss.
func mixtureEntropy(pi *tensor.CSR) float64 {
	h := 0.0
	for i := 0; i < pi.Rows; i++ {
		h += uq.CategoricalEntropy(pi.Val[pi.Ptr[i]:pi.Ptr[i+1]])
	}
	return h
}

func TestMixtureLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := randAlpha(rng, 4, 3, 1, 6)
	pi, err := tensor.FromCOO(2, 4, []int{0, 0, 1, 1, 1}, []int{0, 2, 1, 2, 3}, []float64{0.25, 0.75, 0.5, 0.3, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	labels := []int{2, 0}
	worst, err := ad.GradCheck([]*ad.Value{a}, 1e-6, func(tp *ad.Tape) *ad.Value {
		return mixtureLoss(tp, a, pi, mixtureEntropy(pi), labels, 1e-2, nil)
	})
	if err != nil || worst > 1e-6 {
		t.Errorf("mixture loss gradient: relative error %v (%v)", worst, err)
	}
	// value by hand: Σᵢ Σⱼ Πᵢⱼ [ψ(α₀ⱼ) − ψ(αⱼ,yᵢ)] + reg·Σᵢ[Σⱼ Πᵢⱼ(−Hⱼ) − H_cat(Πᵢ)]
	want := 0.0
	for i := 0; i < pi.Rows; i++ {
		var w []float64
		for k := pi.Ptr[i]; k < pi.Ptr[i+1]; k++ {
			row := a.Data.Row(pi.Ind[k])
			a0 := row[0] + row[1] + row[2]
			want += pi.Val[k] * (special.Digamma(a0) - special.Digamma(row[labels[i]]))
			want -= 1e-2 * pi.Val[k] * uq.DirichletEntropy(row)
			w = append(w, pi.Val[k])
		}
		want -= 1e-2 * uq.CategoricalEntropy(w)
	}
	if got := mixtureLoss(ad.NewEvalTape(), a, pi, mixtureEntropy(pi), labels, 1e-2, nil).Scalar(); math.Abs(got-want) > 1e-12 {
		t.Errorf("mixture loss = %v, want %v", got, want)
	}
	// with a memo, step after step, the gradients of a fresh computation
	var memo mixtureMemo
	for step := range 3 {
		grads := make([][]float64, 2)
		for k, m := range []*mixtureMemo{nil, &memo} {
			a.ZeroGrad()
			tp := ad.NewTape()
			if err := tp.Backward(mixtureLoss(tp, a, pi, mixtureEntropy(pi), labels, 1e-2, m)); err != nil {
				t.Fatal(err)
			}
			grads[k] = slices.Clone(a.Grad.Data)
		}
		if !tensor.SameBits(grads[1], grads[0]) {
			t.Errorf("step %d: gradient with the memo %v, without %v", step, grads[1], grads[0])
		}
		a.Data.Data[step] *= 1.5 // the next step's parameters
	}
	// with one-hot weights the mixture UCE is the plain UCE
	onehot, _ := tensor.FromCOO(2, 4, []int{0, 1}, []int{3, 1}, nil)
	mix := mixtureLoss(ad.NewEvalTape(), a, onehot, mixtureEntropy(onehot), labels, 0, nil).Scalar()
	plain := uceLoss(ad.NewEvalTape(), a, []int{3, 1}, labels, 0).Scalar()
	if math.Abs(mix-plain) > 1e-12 {
		t.Errorf("one-hot mixture UCE %v ≠ UCE %v", mix, plain)
	}
}

// nllLoss normalises the training rows only; its loss and gradient are
// those of the log-softmax of every row followed by the gather, to the bit,
// and it is the mean negative log-likelihood.
func TestNLLLossNormalisesTheTrainingRowsOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	z := tensor.New(40, 7)
	for i := range z.Data {
		z.Data[i] = 6 * rng.NormFloat64()
	}
	logits := ad.Param("z", z)
	train, labels := []int{3, 17, 0, 39, 22, 8}, []int{1, 6, 0, 3, 3, 5}
	run := func(loss func(*ad.Tape) *ad.Value) (float64, []float64) {
		logits.ZeroGrad()
		tp := ad.NewTape()
		l := loss(tp)
		if err := tp.Backward(l); err != nil {
			t.Fatal(err)
		}
		return l.Scalar(), append([]float64(nil), logits.Grad.Data...)
	}
	got, gotGrad := run(func(tp *ad.Tape) *ad.Value { return nllLoss(tp, logits, train, labels) })
	want, wantGrad := run(func(tp *ad.Tape) *ad.Value {
		return tp.Neg(tp.Mean(tp.Pick(tp.GatherRows(tp.LogSoftmax(logits), train), labels)))
	})
	if got != want {
		t.Errorf("loss %v, with every row normalised %v", got, want)
	}
	for k := range gotGrad {
		if gotGrad[k] != wantGrad[k] {
			t.Fatalf("gradient element %d: %v, with every row normalised %v", k, gotGrad[k], wantGrad[k])
		}
	}
	var nll float64
	for k, i := range train {
		row := z.Row(i)
		var s float64
		for _, v := range row {
			s += math.Exp(v)
		}
		nll += math.Log(s) - row[labels[k]]
	}
	if nll /= float64(len(train)); math.Abs(got-nll) > 1e-12*nll {
		t.Errorf("loss %v, mean negative log-likelihood %v", got, nll)
	}
}
