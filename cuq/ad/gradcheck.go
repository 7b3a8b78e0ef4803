package ad

import (
	"fmt"
	"math"
)

// GradCheck compares the gradients computed by Backward with central finite
// differences (f(θ+h) − f(θ−h)) / 2h for every element of every parameter.
// build must construct the scalar loss on the given tape from params. It
// returns the largest relative error |g − ĝ| / max(1, |g|, |ĝ|).
//
// build is called on recording tapes only, so that an op drawing random
// numbers (dropout) sees the same draws when build re-seeds its generator.
// It is meant for tests of ops and layers, including users' own.
func GradCheck(params []*Value, h float64, build func(t *Tape) *Value) (float64, error) {
	for _, p := range params {
		p.ZeroGrad()
	}
	tape := NewTape()
	loss := build(tape)
	if err := tape.Backward(loss); err != nil {
		return 0, err
	}
	eval := func() float64 {
		t := NewTape()
		v := build(t).Scalar()
		t.Reset()
		return v
	}
	worst := 0.0
	for _, p := range params {
		if p.Grad == nil {
			return 0, fmt.Errorf("ad.GradCheck: parameter %q received no gradient", p.Name)
		}
		for i := range p.Data.Data {
			orig := p.Data.Data[i]
			p.Data.Data[i] = orig + h
			fp := eval()
			p.Data.Data[i] = orig - h
			fm := eval()
			p.Data.Data[i] = orig
			num := (fp - fm) / (2 * h)
			got := p.Grad.Data[i]
			rel := math.Abs(got-num) / math.Max(1, math.Max(math.Abs(got), math.Abs(num)))
			if math.IsNaN(rel) {
				return math.Inf(1), fmt.Errorf("ad.GradCheck: %q[%d]: gradient %v, finite difference %v", p.Name, i, got, num)
			}
			worst = math.Max(worst, rel)
		}
	}
	return worst, nil
}
