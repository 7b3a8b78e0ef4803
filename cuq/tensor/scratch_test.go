package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// getScratch hands out n elements with a power-of-two capacity, and a
// slice given back is handed out again for a request of its class.
func TestScratchSizes(t *testing.T) {
	if s := getScratch(0); s != nil {
		t.Errorf("getScratch(0) = %v, want nil", s)
	}
	for _, n := range []int{1, 2, 3, 8, 9, 1000, 1 << 12} {
		s := getScratch(n)
		if len(s) != n || cap(s) < n || cap(s)&(cap(s)-1) != 0 || cap(s) >= 2*n && n > 1 {
			t.Errorf("getScratch(%d): len %d, cap %d; want len %d and the next power of two", n, len(s), cap(s), n)
		}
	}
	// sync.Pool may drop what it holds, so only a slice that does come
	// back is checked: it must be the one given back, cut to the new length.
	s := getScratch(700)
	s[0] = 42
	putScratch(s)
	if r := getScratch(600); len(r) == 600 && &r[0] == &s[0] && r[0] != 42 {
		t.Error("a recycled temporary lost its contents")
	}
	putScratch(make([]float64, 5)) // not from getScratch: not kept
}

// The products that widen their operands to a multiple of eight columns
// take their temporaries from getScratch, which holds whatever the last
// user left: NaNs there must not reach any result. Each product is
// compared, bit for bit, with the in-order fused chain.
func TestProductsIgnoreStaleScratch(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 22))
		poison := func() {
			for c := 0; c <= 14; c++ {
				s := make([]float64, 1<<c)
				for i := range s {
					s[i] = math.NaN()
				}
				putScratch(s)
			}
		}
		for _, n := range []int{4, 9, 70} {
			for _, k := range []int{5, 67} {
				for _, m := range []int{2, 3, 7, 10} {
					a, b, g := randomDense(rng, n, k), randomDense(rng, k, m), randomDense(rng, n, m)
					bias := randomDense(rng, 1, m)
					ab, atg, abBias := New(n, m), New(k, m), New(n, m)
					what := fmt.Sprintf("%dx%d · %dx%d", n, k, k, m)
					poison()
					MulTo(ab, a, false, b, false)
					poison()
					MulTo(atg, a, true, g, false)
					poison()
					mulNN(a.Data, b.Data, abBias.Data, n, k, m, bias.Data)
					denseEqual(t, "a·b, "+what, ab, fmaMul(a, b), 0)
					denseEqual(t, "aᵀ·g, "+what, atg, fmaMul(a.T(), g), 0)
					want := fmaMul(a, b)
					for i := range want.Data {
						want.Data[i] += bias.Data[i%m]
					}
					denseEqual(t, "a·b + bias, "+what, abBias, want, 0)
				}
			}
		}
	})
}
