package nn

import (
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// BatchNorm normalises each column of its N×d input over the rows (the
// nodes of a full-batch pass) and rescales it (Ioffe and Szegedy 2015, as
// torch.nn.BatchNorm1d):
//
//	y_ij = γ_j · (x_ij − μ_j) / √(σ²_j + ε) + β_j.
//
// On a recording tape (training) μ_j = (1/N) Σ_i x_ij and σ²_j =
// (1/N) Σ_i (x_ij − μ_j)² are the input's own, and each pass updates the
// running estimates
//
//	μ̂ ← (1 − m)·μ̂ + m·μ,  σ̂² ← (1 − m)·σ̂² + m·N/(N − 1)·σ²;
//
// otherwise (prediction) μ̂ and σ̂² take their place. γ and β are trained;
// μ̂ and σ̂² are buffers, not trained, but part of a trained model's state.
// NewBatchNorm starts with γ = 1, β = 0, μ̂ = 0, σ̂² = 1, m = 0.1 and
// ε = 10⁻⁵, torch's defaults.
type BatchNorm struct {
	Gamma, Beta *ad.Value // 1×d
	Mean, Var   *ad.Value // 1×d running estimates μ̂ and σ̂²
	Momentum    float64
	Eps         float64
}

// NewBatchNorm returns a BatchNorm of d columns with torch's defaults; its
// values are named name.gamma, name.beta, name.mean and name.var.
func NewBatchNorm(name string, d int) *BatchNorm {
	ones := func() *tensor.Dense {
		x := tensor.New(1, d)
		x.Fill(1)
		return x
	}
	return &BatchNorm{
		Gamma: ad.Param(name+".gamma", ones()), Beta: ad.Param(name+".beta", tensor.New(1, d)),
		Mean: ad.Param(name+".mean", tensor.New(1, d)), Var: ad.Param(name+".var", ones()),
		Momentum: 0.1, Eps: 1e-5,
	}
}

// Params returns γ and β.
func (b *BatchNorm) Params() []*ad.Value { return []*ad.Value{b.Gamma, b.Beta} }

// Buffers returns the running estimates μ̂ and σ̂².
func (b *BatchNorm) Buffers() []*ad.Value { return []*ad.Value{b.Mean, b.Var} }

// BuffersOf returns the running estimates of the BatchNorms, in order.
func BuffersOf(norms ...*BatchNorm) []*ad.Value {
	var out []*ad.Value
	for _, n := range norms {
		out = append(out, n.Buffers()...)
	}
	return out
}

// Forward returns the normalised x: with the batch's statistics, updating
// the running estimates, when t is training; with the running estimates
// otherwise. A batch of one row has no variance to estimate: its running
// variance is left alone.
func (b *BatchNorm) Forward(t *ad.Tape, x *ad.Value) *ad.Value {
	if !t.Training() {
		return b.predict(t, x)
	}
	return b.train(t, x)
}

// predict normalises x with the running estimates. No gradient flows back
// through it: prediction differentiates nothing.
func (b *BatchNorm) predict(t *ad.Tape, x *ad.Value) *ad.Value {
	n, d := x.Data.Rows, x.Data.Cols
	gamma, beta, mean := b.Gamma.Data.Data, b.Beta.Data.Data, b.Mean.Data.Data
	inv := make([]float64, d)
	for j := range d {
		inv[j] = 1 / math.Sqrt(b.Var.Data.Data[j]+b.Eps)
	}
	out := t.AllocUninit(n, d)
	for i := range n {
		xi, oi := x.Data.Row(i), out.Row(i)
		for j, v := range xi {
			oi[j] = float64(gamma[j]*float64((v-mean[j])*inv[j])) + beta[j]
		}
	}
	return ad.Const(out)
}

// train normalises x with its own statistics, updates the running
// estimates and records the op.
func (b *BatchNorm) train(t *ad.Tape, x *ad.Value) *ad.Value {
	n, d := x.Data.Rows, x.Data.Cols
	gamma, beta := b.Gamma.Data.Data, b.Beta.Data.Data
	mean, variance := columnStatistics(x.Data)
	inv := make([]float64, d)
	m := b.Momentum
	for j := range variance {
		inv[j] = 1 / math.Sqrt(variance[j]+b.Eps)
		b.Mean.Data.Data[j] = float64((1-m)*b.Mean.Data.Data[j]) + float64(m*mean[j])
		if n > 1 {
			unbiased := variance[j] * float64(n) / float64(n-1)
			b.Var.Data.Data[j] = float64((1-m)*b.Var.Data.Data[j]) + float64(m*unbiased)
		}
	}
	xhat := tensor.New(n, d)
	out := t.AllocUninit(n, d)
	for i := range n {
		xi, hi, oi := x.Data.Row(i), xhat.Row(i), out.Row(i)
		for j, v := range xi {
			hi[j] = (v - mean[j]) * inv[j]
			oi[j] = float64(gamma[j]*hi[j]) + beta[j]
		}
	}
	// With x̂ the normalised input and g the output's gradient:
	// ∂/∂γ_j = Σ_i g_ij x̂_ij, ∂/∂β_j = Σ_i g_ij and
	// ∂/∂x_ij = γ_j/√(σ²_j+ε) · (g_ij − (1/N)Σ_k g_kj − x̂_ij·(1/N)Σ_k g_kj x̂_kj).
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		sumG, sumGX := make([]float64, d), make([]float64, d)
		for i := range n {
			gi, hi := g.Row(i), xhat.Row(i)
			for j, v := range gi {
				sumG[j] += v
				sumGX[j] += float64(v * hi[j])
			}
		}
		if gx := grads[0]; gx != nil {
			for i := range n {
				gi, hi, dst := g.Row(i), xhat.Row(i), gx.Row(i)
				for j, v := range gi {
					c := v - sumG[j]/float64(n) - float64(hi[j]*sumGX[j])/float64(n)
					dst[j] += float64(float64(gamma[j]*inv[j]) * c)
				}
			}
		}
		if gg := grads[1]; gg != nil {
			for j := range d {
				gg.Data[j] += sumGX[j]
			}
		}
		if gb := grads[2]; gb != nil {
			for j := range d {
				gb.Data[j] += sumG[j]
			}
		}
	}, x, b.Gamma, b.Beta)
}

// columnStatistics returns the mean μ_j and the biased variance
// (1/N) Σ_i (x_ij − μ_j)² of each column of x.
func columnStatistics(x *tensor.Dense) (mean, variance []float64) {
	mean, variance = make([]float64, x.Cols), make([]float64, x.Cols)
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(x.Rows)
	}
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			c := v - mean[j]
			variance[j] += float64(c * c)
		}
	}
	for j := range variance {
		variance[j] /= float64(x.Rows)
	}
	return mean, variance
}
