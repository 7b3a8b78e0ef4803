package cuq

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/special"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// dirichletEntropy returns the N×1 differential entropies H(Dir(αᵢ)) of the
// rows of alpha, as the reference computes them, switching to the large-α₀
// approximation at α₀ = uq.EntropyApproxThreshold (1e4), as
// uq.DirichletEntropy does:
//
//	α₀ < 1e4:  H = Σ lnΓ(α_c) − lnΓ(α₀) + (α₀−K)ψ(α₀) − Σ(α_c−1)ψ(α_c)
//	α₀ ≥ 1e4:  H ≈ ½(K−1) + ½(K−1)ln 2π + ½Σ ln α_c − (K−½) ln α₀
//
// with gradients ∂H/∂α_c = (α₀−K)ψ₁(α₀) − (α_c−1)ψ₁(α_c) (exact) and
// 1/(2α_c) − (K−½)/α₀ (approximation).
func dirichletEntropy(t *ad.Tape, alpha *ad.Value) *ad.Value {
	n, k := alpha.Data.Rows, alpha.Data.Cols
	kf := float64(k)
	out := tensor.New(n, 1)
	a0s := make([]float64, n)
	for i := 0; i < n; i++ {
		row := alpha.Data.Row(i)
		a0 := 0.0
		for _, a := range row {
			a0 += a
		}
		a0s[i] = a0
		if a0 >= uq.EntropyApproxThreshold {
			h := float64(0.5*(kf-1)) + float64(0.5*(kf-1)*math.Log(2*math.Pi)) - float64((kf-0.5)*math.Log(a0))
			for _, a := range row {
				h += float64(0.5 * math.Log(a))
			}
			out.Data[i] = h
			continue
		}
		h := -special.Lgamma(a0) + float64((a0-kf)*special.Digamma(a0))
		for _, a := range row {
			h += special.Lgamma(a) - float64((a-1)*special.Digamma(a))
		}
		out.Data[i] = h
	}
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		ga := grads[0]
		for i := 0; i < n; i++ {
			row, grow, a0, gi := alpha.Data.Row(i), ga.Row(i), a0s[i], g.Data[i]
			if a0 >= uq.EntropyApproxThreshold {
				for c, a := range row {
					grow[c] += float64(gi * (0.5/a - (kf-0.5)/a0))
				}
				continue
			}
			common := float64((a0 - kf) * special.Trigamma(a0))
			for c, a := range row {
				grow[c] += float64(gi * (common - float64((a-1)*special.Trigamma(a))))
			}
		}
	}, alpha)
}

// uceLoss is the reference's PostNet loss with sum reduction over the
// training nodes: Σᵢ [ψ(α₀ᵢ) − ψ(α_{i,yᵢ})] − reg·Σᵢ H(Dir(αᵢ)).
func uceLoss(t *ad.Tape, alpha *ad.Value, train, labels []int, reg float64) *ad.Value {
	a := t.GatherRows(alpha, train)
	uce := t.Sub(t.Sum(t.Digamma(t.SumRows(a))), t.Sum(t.Digamma(t.Pick(a, labels))))
	if reg == 0 {
		return uce
	}
	return t.Sub(uce, t.Scale(t.Sum(dirichletEntropy(t, a)), reg))
}

// mixtureLoss is LOP-GPN's loss as the reference implementation computes
// it: with mixture weights Πᵢⱼ for the training rows,
//
//	UCE = Σᵢ Σⱼ Πᵢⱼ [ψ(α₀ⱼ) − ψ(αⱼ,yᵢ)]
//	REG = reg · Σᵢ [Σⱼ Πᵢⱼ(−H(Dir(αⱼ))) − H_cat(Πᵢ)],
//
// where weightEntropy = Σᵢ H_cat(Πᵢ) (see mixture.entropyOf), which no
// parameter changes, is computed once per training run. Only the label's
// column of Π·[ψ(α₀) − ψ(α)] is formed (ad.Tape.LeftMulPick). The
// gradients that reach the two products, ones and reg, are the same at
// every step, so with a non-nil memo their products Πᵀ·G are computed
// once per training; the loss and its gradient keep their bits either
// way.
func mixtureLoss(t *ad.Tape, alphaFt *ad.Value, piTrain *tensor.CSR, weightEntropy float64, labels []int, reg float64, memo *mixtureMemo) *ad.Value {
	var uceMemo, regMemo *ad.ProductMemo
	if memo != nil {
		uceMemo, regMemo = &memo.uce, &memo.reg
	}
	d := t.Sub(t.Digamma(t.SumRows(alphaFt)), t.Digamma(alphaFt))
	uce := t.Sum(t.LeftMulPick(piTrain, d, labels, uceMemo))
	if reg == 0 {
		return uce
	}
	negH := t.Sum(t.LeftMulPick(piTrain, t.Neg(dirichletEntropy(t, alphaFt)), make([]int, piTrain.Rows), regMemo))
	return t.Add(uce, t.Scale(t.AddConst(negH, -weightEntropy), reg))
}

// mixtureMemo keeps the products of mixtureLoss's backward pass that do not
// change from one training step to the next.
type mixtureMemo struct {
	uce, reg ad.ProductMemo
}

// nllLoss is the mean negative log-likelihood of the labels of the nodes
// train under softmax(logits): −(1/|train|) Σ_{i∈train} log softmax(zᵢ)_{yᵢ}.
// The log-softmax acts row by row, so it is taken of the training rows
// only (on a large graph they are a few percent of the nodes); the loss
// and its gradient are those of the log-softmax of every row followed by
// the gather, to the bit.
func nllLoss(t *ad.Tape, logits *ad.Value, train, labels []int) *ad.Value {
	return t.Neg(t.Mean(t.Pick(t.LogSoftmax(t.GatherRows(logits, train)), labels)))
}

// rowsOf returns the sub-matrix of the given rows of s.
func rowsOf(s *tensor.CSR, rows []int) *tensor.CSR {
	ptr := make([]int, len(rows)+1)
	n := 0
	for _, r := range rows {
		n += s.Ptr[r+1] - s.Ptr[r]
	}
	ind, val := make([]int, 0, n), make([]float64, 0, n)
	for k, r := range rows {
		ind = append(ind, s.Ind[s.Ptr[r]:s.Ptr[r+1]]...)
		val = append(val, s.Val[s.Ptr[r]:s.Ptr[r+1]]...)
		ptr[k+1] = len(ind)
	}
	return &tensor.CSR{Rows: len(rows), Cols: s.Cols, Ptr: ptr, Ind: ind, Val: val}
}
