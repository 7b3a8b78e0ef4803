package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ELU gives x for x > 0 and math.Expm1's bits otherwise, on the kernel's
// path and off it: random arguments in each of Expm1's ranges (|x| below
// 2⁻⁵⁴, up to ½·ln 2, up to 1½·ln 2, beyond, down to −56·ln 2 and past
// it), the bounds between them and their neighbours, zeros, infinities
// and NaN, whatever the length and in place.
func TestELUIsExpm1(t *testing.T) {
	const ln2Half, ln2HalfX3, ln2X56 = 3.46573590279972654709e-01, 1.03972077083991796413e+00, 3.88162421113569373274e+01
	var special []float64
	for _, b := range []float64{0x1p-54, ln2Half, ln2HalfX3, ln2X56, math.Ln2, 2 * math.Ln2, 20 * math.Ln2, 1} {
		for _, v := range []float64{b, math.Nextafter(b, 0), math.Nextafter(b, 2*b)} {
			special = append(special, v, -v)
		}
	}
	special = append(special, 0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), -1e-300, -5e-324, -700, -1e308)
	rng := rand.New(rand.NewPCG(57, 58))
	for n := 0; n < 300; n++ {
		x := make([]float64, n%40+n/40*97)
		for i := range x {
			switch rng.IntN(6) {
			case 0:
				x[i] = -45 * rng.Float64()
			case 1:
				x[i] = -ln2Half * rng.Float64()
			case 2:
				x[i] = -ln2Half - (ln2HalfX3-ln2Half)*rng.Float64()
			case 3:
				x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(24)-20))
			case 4:
				x[i] = 3 * rng.NormFloat64()
			default:
				x[i] = special[rng.IntN(len(special))]
			}
		}
		got := make([]float64, len(x))
		ELU(got, x)
		inPlace := append([]float64(nil), x...)
		ELU(inPlace, inPlace)
		for i, v := range x {
			want := v
			if v <= 0 {
				want = math.Expm1(v)
			}
			if math.Float64bits(got[i]) != math.Float64bits(want) || math.Float64bits(inPlace[i]) != math.Float64bits(want) {
				t.Fatalf("length %d, element %d: ELU(%v) = %v (in place %v), want %v", len(x), i, v, got[i], inPlace[i], want)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ELU accepted a destination shorter than its source")
		}
	}()
	ELU(make([]float64, 2), make([]float64, 3))
}

// BenchmarkELU times ELU against the Go loop over math.Expm1 on 2¹⁴
// arguments spread over [−3, 3], as a layer's pre-activations are.
func BenchmarkELU(b *testing.B) {
	x := make([]float64, 1<<14)
	for i := range x {
		x[i] = -3 + 6*float64(i*7919%len(x))/float64(len(x))
	}
	dst := make([]float64, len(x))
	b.Run("ELU", func(b *testing.B) {
		for b.Loop() {
			ELU(dst, x)
		}
	})
	b.Run("Expm1", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				if v <= 0 {
					v = math.Expm1(v)
				}
				dst[i] = v
			}
		}
	})
}
