package ad

import "github.com/cuqgnn/cuqgnn/cuq/special"

// Lgamma returns ln Γ(x) elementwise (for x > 0); its derivative is the
// digamma function ψ(x).
func (t *Tape) Lgamma(x *Value) *Value {
	return t.unary(x, special.Lgamma, func(v, y float64) float64 { return special.Digamma(v) })
}

// Digamma returns ψ(x) = d/dx ln Γ(x) elementwise; its derivative is the
// trigamma function ψ₁(x).
func (t *Tape) Digamma(x *Value) *Value {
	return t.unary(x, special.Digamma, func(v, y float64) float64 { return special.Trigamma(v) })
}
