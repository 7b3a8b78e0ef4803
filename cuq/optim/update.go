package optim

import "math"

// coefficients are the scalars of one Adam update of a parameter, laid out
// as the assembly kernels read them: wd the weight decay λ, b1 and c1 =
// 1−β₁, b2 and c2 = 1−β₂, step = lr/(1−β₁ᵗ), bc2 = √(1−β₂ᵗ), eps = ε.
type coefficients struct {
	wd, b1, c1, b2, c2, step, bc2, eps float64
}

// updateGo applies one Adam update to every element of p given its
// gradient g and moments m and v:
//
//	g' = g + λ·p
//	m ← β₁·m + (1−β₁)·g'
//	v ← β₂·v + ((1−β₂)·g')·g'
//	p ← p − (step·m) / (√v / bc2 + ε)
//
// each operation rounded on its own (no fused multiply-add), so that the
// vector kernels, which do the same operations in the same order, give the
// same bits on every architecture.
func updateGo(p, g, m, v []float64, c *coefficients) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	wd, b1, c1, b2, c2, step, bc2, eps := c.wd, c.b1, c.c1, c.b2, c.c2, c.step, c.bc2, c.eps
	for i := range p {
		grad := g[i] + float64(wd*p[i])
		m[i] = float64(b1*m[i]) + float64(c1*grad)
		v[i] = float64(b2*v[i]) + float64(c2*grad*grad)
		p[i] -= step * m[i] / (math.Sqrt(v[i])/bc2 + eps)
	}
}
