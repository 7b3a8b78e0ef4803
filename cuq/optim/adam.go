// Package optim holds the optimizers that train cuqgnn's models.
package optim

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Group is a set of parameters sharing a learning rate and an L2 weight
// decay.
type Group struct {
	Params      []*ad.Value
	LR          float64
	WeightDecay float64
}

// Adam is the Adam optimizer with PyTorch's semantics (torch.optim.Adam):
// coupled L2 weight decay and bias correction. For a parameter p with
// gradient g at step t:
//
//	g ← g + λ·p
//	m ← β₁·m + (1−β₁)·g
//	v ← β₂·v + (1−β₂)·g²
//	p ← p − lr · (m / (1−β₁ᵗ)) / (√(v / (1−β₂ᵗ)) + ε)
//
// Parameters whose gradient was never allocated are skipped, as PyTorch
// skips parameters whose .grad is None.
type Adam struct {
	Beta1, Beta2, Eps float64

	groups []Group
	m, v   map[*ad.Value]*tensor.Dense
	steps  map[*ad.Value]int
}

// NewAdam returns an Adam optimizer (β₁ 0.9, β₂ 0.999, ε 1e-8) over the
// given parameter groups. A parameter may appear in one group only.
func NewAdam(groups ...Group) (*Adam, error) {
	seen := map[*ad.Value]bool{}
	for gi, g := range groups {
		if !(g.LR > 0) || g.WeightDecay < 0 {
			return nil, fmt.Errorf("optim.NewAdam: group %d has learning rate %v and weight decay %v", gi, g.LR, g.WeightDecay)
		}
		for _, p := range g.Params {
			if seen[p] {
				return nil, fmt.Errorf("optim.NewAdam: parameter %q appears in two groups", p.Name)
			}
			if !p.RequiresGrad() {
				return nil, fmt.Errorf("optim.NewAdam: %q is not a parameter", p.Name)
			}
			seen[p] = true
		}
	}
	return &Adam{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, groups: groups,
		m: map[*ad.Value]*tensor.Dense{}, v: map[*ad.Value]*tensor.Dense{}, steps: map[*ad.Value]int{}}, nil
}

// ZeroGrad clears the gradients of all parameters of all groups.
func (a *Adam) ZeroGrad() {
	for _, g := range a.groups {
		for _, p := range g.Params {
			p.ZeroGrad()
		}
	}
}

// Step updates every parameter that has a gradient.
func (a *Adam) Step() {
	for _, g := range a.groups {
		for _, p := range g.Params {
			if p.Grad == nil {
				continue
			}
			m, ok := a.m[p]
			if !ok {
				m = tensor.New(p.Data.Rows, p.Data.Cols)
				a.m[p] = m
				a.v[p] = tensor.New(p.Data.Rows, p.Data.Cols)
			}
			v := a.v[p]
			a.steps[p]++
			t := float64(a.steps[p])
			c := coefficients{
				wd: g.WeightDecay, b1: a.Beta1, c1: 1 - a.Beta1, b2: a.Beta2, c2: 1 - a.Beta2,
				step: g.LR / (1 - math.Pow(a.Beta1, t)), bc2: math.Sqrt(1 - math.Pow(a.Beta2, t)), eps: a.Eps,
			}
			pd, gd, md, vd := p.Data.Data, p.Grad.Data, m.Data, v.Data
			// Elements are independent: large weight matrices (the encoder's
			// input layer) are updated by several workers.
			tensor.ParallelFor(len(pd), 8*len(pd), func(lo, hi int) {
				update(pd[lo:hi], gd[lo:hi], md[lo:hi], vd[lo:hi], &c)
			})
		}
	}
}
