package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
)

// The radial flows of a PostNet head on Amazon Computers' scale: 13,752
// latents of dimension 16 through 10 layers for each of 10 classes, the
// log-densities alone (an evaluation pass) and with their backward pass
// (a training epoch's). Built with -tags purego it times the portable
// code that arm64 runs.
func BenchmarkRadialFlows(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	f, err := NewRadialFlows("flow", 10, 10, 16, rng)
	if err != nil {
		b.Fatal(err)
	}
	z, g := Uniform(rng, 13752, 16, 1.5), Uniform(rng, 13752, 10, 1)
	b.Run("forward", func(b *testing.B) {
		for b.Loop() {
			f.LogDensity(ad.NewTape(), ad.Const(z))
		}
	})
	b.Run("backward", func(b *testing.B) {
		zv := ad.Param("z", z)
		for b.Loop() {
			tp := ad.NewTape()
			if err := tp.Backward(tp.Sum(tp.Mul(f.LogDensity(tp, zv), ad.Const(g)))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
