package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// updateCase returns the coefficients of step 3 of an Adam with weight
// decay, and parameters, gradients and moments of n elements over many
// magnitudes with zeros, subnormals, infinities and NaNs among them.
func updateCase(n int, seed uint64) (c coefficients, p, g, m, v []float64) {
	const t = 3
	c = coefficients{wd: 5e-4, b1: 0.9, c1: 1 - 0.9, b2: 0.999, c2: 1 - 0.999,
		step: 0.01 / (1 - math.Pow(0.9, t)), bc2: math.Sqrt(1 - math.Pow(0.999, t)), eps: 1e-8}
	rng := rand.New(rand.NewPCG(seed, 7))
	special := []float64{0, math.Copysign(0, -1), 5e-324, -1e-310, math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e-300}
	draw := func(nonNegative bool) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6))
			if rng.IntN(16) == 0 {
				x[i] = special[rng.IntN(len(special))]
			}
			if nonNegative {
				x[i] = math.Abs(x[i])
			}
		}
		return x
	}
	return c, draw(false), draw(false), draw(false), draw(true)
}

// sameFloats reports the first index where a and b differ in their bits,
// NaNs of any payload counting as equal, or −1.
func sameFloats(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	return -1
}

// requireUpdateMatchesPortable runs update (with whatever kernel the
// caller selected) and updateGo on the same inputs of many lengths, the
// tails after the last whole vector included, and requires the same
// parameters and moments to the bit.
func requireUpdateMatchesPortable(t *testing.T, kernel string) {
	t.Helper()
	for n := range 40 {
		for _, size := range []int{n, 1000 + n} {
			c, p, g, m, v := updateCase(size, uint64(size))
			wp, wm, wv := append([]float64(nil), p...), append([]float64(nil), m...), append([]float64(nil), v...)
			updateGo(wp, g, wm, wv, &c)
			update(p, g, m, v, &c)
			for _, x := range []struct {
				name      string
				got, want []float64
			}{{"p", p, wp}, {"m", m, wm}, {"v", v, wv}} {
				if i := sameFloats(x.got, x.want); i >= 0 {
					t.Fatalf("%s, %d elements: %s[%d] = %v (%#x), portable %v (%#x)", kernel, size, x.name, i,
						x.got[i], math.Float64bits(x.got[i]), x.want[i], math.Float64bits(x.want[i]))
				}
			}
		}
	}
}

// Adam's update of a finite element follows its formula: after three
// steps with a constant gradient the moments are (1−β₁³)·g and (1−β₂³)·g²,
// and each step moved p by lr·g/(|g|+ε) up to rounding, with weight
// decay 0.
func TestAdamManyElementsClosedForm(t *testing.T) {
	const n, lr = 1003, 0.01
	rng := rand.New(rand.NewPCG(1, 2))
	start, grad := make([]float64, n), make([]float64, n)
	for i := range start {
		start[i], grad[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	p := ad.Param("p", tensor.MustFromSlice(1, n, append([]float64(nil), start...)))
	opt, err := NewAdam(Group{Params: []*ad.Value{p}, LR: lr})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		p.Grad = tensor.MustFromSlice(1, n, append([]float64(nil), grad...))
		opt.Step()
	}
	m, v := opt.m[p].Data, opt.v[p].Data
	for i := range n {
		g := grad[i]
		if d := math.Abs(m[i] - (1-math.Pow(0.9, 3))*g); d > 1e-15*math.Abs(g) {
			t.Fatalf("m[%d] = %v, want %v", i, m[i], (1-math.Pow(0.9, 3))*g)
		}
		if d := math.Abs(v[i] - (1-math.Pow(0.999, 3))*g*g); d > 1e-14*g*g {
			t.Fatalf("v[%d] = %v, want %v", i, v[i], (1-math.Pow(0.999, 3))*g*g)
		}
		want := start[i] - 3*lr*g/(math.Abs(g)+1e-8)
		if d := math.Abs(p.Data.Data[i] - want); d > 1e-12 {
			t.Fatalf("p[%d] = %v, want %v", i, p.Data.Data[i], want)
		}
	}
}

// BenchmarkAdamStep times one step on the encoder's input layer of CoraML
// (2879 features × 64 hidden units).
func BenchmarkAdamStep(b *testing.B) {
	_, p, g, m, v := updateCase(2879*64, 1)
	for i := range p {
		p[i], g[i], m[i], v[i] = math.Mod(p[i], 1), math.Mod(g[i], 1), math.Mod(m[i], 1), math.Mod(v[i], 1)
	}
	w := ad.Param("w", tensor.MustFromSlice(2879, 64, p))
	w.Grad = tensor.MustFromSlice(2879, 64, g)
	opt, err := NewAdam(Group{Params: []*ad.Value{w}, LR: 0.01, WeightDecay: 5e-4})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		opt.Step()
	}
}
