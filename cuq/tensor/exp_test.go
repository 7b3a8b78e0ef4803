package tensor

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// expBig returns eˣ to 200 bits: x = k·ln 2 + r with |r| ≤ ln 2/2 and the
// Taylor series of eʳ summed until its terms vanish, all in big.Float. It
// shares no arithmetic with Exp.
func expBig(x float64) *big.Float {
	const prec = 200
	ln2 := new(big.Float).SetPrec(prec)
	ln2.SetString("0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542")
	k := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(prec).Mul(ln2, big.NewFloat(k)))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 60; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

// ulpsFrom returns |got − want| in units of the last place of want rounded
// to float64 (at least the smallest subnormal).
func ulpsFrom(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	ulp := math.Max(math.Nextafter(w, math.Inf(1))-w, math.SmallestNonzeroFloat64)
	d := new(big.Float).SetPrec(200).Sub(new(big.Float).SetFloat64(got), want)
	f, _ := d.Float64()
	return math.Abs(f) / ulp
}

// Exp is within one unit in the last place of eˣ computed to 200 bits,
// over the whole range with a finite non-zero result (the kernel's range,
// near overflow and in the subnormal range), and is correctly rounded for
// most arguments (about 94% of them).
func TestExpAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	ranges := []struct{ lo, hi float64 }{
		{-1, 1}, {-40, 40}, {expKernelMin, expKernelMax},
		{expKernelMax, expOverflow}, {expUnderflow, expKernelMin},
	}
	for _, rg := range ranges {
		x := make([]float64, 4001)
		for i := range x {
			x[i] = rg.lo + (rg.hi-rg.lo)*rng.Float64()
		}
		got := make([]float64, len(x))
		Exp(got, x)
		worst, exact := 0.0, 0
		for i, v := range got {
			u := ulpsFrom(v, expBig(x[i]))
			worst = math.Max(worst, u)
			if u <= 0.5 {
				exact++
			}
		}
		if worst > 1 || float64(exact) < 0.9*float64(len(x)) {
			t.Errorf("[%g, %g]: worst error %.3g ulp, %d of %d correctly rounded", rg.lo, rg.hi, worst, exact, len(x))
		}
	}
}

// Exp's values at arguments with known results, and its special cases.
func TestExpValues(t *testing.T) {
	cases := []struct{ x, want float64 }{
		{0, 1},
		{1, math.E},
		{-1, 1 / math.E},
		{math.Ln2, 2},
		{math.Inf(1), math.Inf(1)},
		{math.Inf(-1), 0},
		{710, math.Inf(1)},
		{-746, 0},
		{-745, math.SmallestNonzeroFloat64},
	}
	for _, c := range cases {
		got := make([]float64, 5)
		Exp(got, []float64{c.x, c.x, c.x, c.x, c.x})
		for _, v := range got {
			if math.Abs(v-c.want) > 2e-16*c.want {
				t.Errorf("Exp(%g) = %v, want %v", c.x, v, c.want)
			}
		}
	}
	got := make([]float64, 4)
	Exp(got, []float64{math.NaN(), 0, 0, 0})
	if !math.IsNaN(got[0]) || got[1] != 1 {
		t.Errorf("Exp(NaN, 0, …) = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Exp accepted a destination shorter than its source")
		}
	}()
	Exp(make([]float64, 2), make([]float64, 3))
}

// The AVX2 kernel and the scalar path give the same bits for every
// element, whatever the length, the position of an argument outside the
// kernel's range, and in place.
func TestExpKernelMatchesScalar(t *testing.T) {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 709.5, -720, -745.1}
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(53, 54))
		for n := 0; n < 40; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = -700 + 1400*rng.Float64()
				if rng.IntN(9) == 0 {
					x[i] = special[rng.IntN(len(special))]
				}
			}
			sameAsScalar(t, "Exp", Exp, expScalar, x)
		}
	})
}

// MathExp gives math.Exp's bits for every element, on the kernel's path
// and off it: random arguments over the whole range and near 0, the
// bounds of the kernel's range and of math.Exp's special cases, whatever
// the length and in place.
func TestMathExpIsMathExp(t *testing.T) {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -708, 709, -708.0000001, 709.0000001,
		7.09782712893384e+02, 710, -745.1, -744, -1e-300, 5e-324, 0x1p-30}
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(55, 56))
		for n := 0; n < 300; n++ {
			x := make([]float64, n%40+n/40*97)
			for i := range x {
				switch rng.IntN(4) {
				case 0:
					x[i] = -800 + 1600*rng.Float64()
				case 1:
					x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)-6))
				case 2:
					x[i] = -30 * rng.Float64()
				default:
					if rng.IntN(3) == 0 {
						x[i] = special[rng.IntN(len(special))]
					} else {
						x[i] = -708 + 1417*rng.Float64()
					}
				}
			}
			sameAsScalar(t, "MathExp", MathExp, math.Exp, x)
		}
	})
	expectPanics(t, map[string]func(){
		"tensor.MathExp: destination shorter": func() { MathExp(make([]float64, 2), make([]float64, 3)) },
	})
}

func BenchmarkExp(b *testing.B) {
	x := make([]float64, 1<<14)
	for i := range x {
		x[i] = -20 + 40*float64(i)/float64(len(x))
	}
	dst := make([]float64, len(x))
	b.Run("Exp", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, x)
		}
	})
	b.Run("MathExp", func(b *testing.B) {
		for b.Loop() {
			MathExp(dst, x)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
	})
}

// ELU gives x for x > 0 and math.Expm1's bits otherwise, on every kernel
// set, on the kernel's path and off it: random arguments in each of
// Expm1's ranges (|x| below 2⁻⁵⁴, up to ½·ln 2, up to 1½·ln 2, beyond,
// down to −56·ln 2 and past it), the bounds between them and their
// neighbours, zeros, infinities and NaN, whatever the length and in place.
func TestELUIsExpm1(t *testing.T) {
	const ln2Half, ln2HalfX3, ln2X56 = 3.46573590279972654709e-01, 1.03972077083991796413e+00, 3.88162421113569373274e+01
	var special []float64
	for _, b := range []float64{0x1p-54, ln2Half, ln2HalfX3, ln2X56, math.Ln2, 2 * math.Ln2, 20 * math.Ln2, 1} {
		for _, v := range []float64{b, math.Nextafter(b, 0), math.Nextafter(b, 2*b)} {
			special = append(special, v, -v)
		}
	}
	special = append(special, 0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), -1e-300, -5e-324, -700, -1e308)
	forEachKernelSet(t, func(t *testing.T) {
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
			sameAsScalar(t, "ELU", ELU, func(v float64) float64 {
				if v <= 0 {
					return math.Expm1(v)
				}
				return v
			}, x)
		}
	})
	expectPanics(t, map[string]func(){
		"tensor.ELU: destination shorter": func() { ELU(make([]float64, 2), make([]float64, 3)) },
	})
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

// TestMathLogIsMathLog checks MathLog's bits against math.Log's on every
// kernel set, for arguments spread over the whole exponent range, on
// either side of √2/2·2ᵏ (where the kernel halves the reduction) and of
// 1, and the arguments the kernel leaves to math.Log (zeros, negatives,
// subnormals, infinities, NaN), at every length up to 40 and beyond, in
// place too.
func TestMathLogIsMathLog(t *testing.T) {
	var special []float64
	for _, b := range []float64{math.Sqrt2 / 2, math.Sqrt2 / 4, math.Sqrt2 * 8, 1, 2, 0x1p-1022, math.MaxFloat64, 0x1p1023, 1e-300, 1e300} {
		for _, v := range []float64{b, math.Nextafter(b, 0), math.Nextafter(b, math.Inf(1))} {
			special = append(special, v)
		}
	}
	special = append(special, 0, math.Copysign(0, -1), -1, -math.MaxFloat64, 5e-324, 1e-310, math.NaN(), math.Inf(1), math.Inf(-1))
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(61, 62))
		for n := 0; n < 300; n++ {
			x := make([]float64, n%40+n/40*97)
			for i := range x {
				switch rng.IntN(5) {
				case 0:
					x[i] = math.Float64frombits(rng.Uint64() &^ (1 << 63)) // any positive bits, NaN and Inf included
				case 1:
					x[i] = math.Ldexp(math.Sqrt2/2*(1+(rng.Float64()-0.5)*1e-15), rng.IntN(200)-100)
				case 2:
					x[i] = 1 + rng.NormFloat64()*math.Pow(10, -float64(rng.IntN(16)))
				case 3:
					x[i] = rng.ExpFloat64()
				default:
					x[i] = special[rng.IntN(len(special))]
				}
			}
			sameAsScalar(t, "MathLog", MathLog, math.Log, x)
		}
	})
	expectPanics(t, map[string]func(){
		"tensor.MathLog: destination shorter": func() { MathLog(make([]float64, 2), make([]float64, 3)) },
	})
}

// BenchmarkMathLog times MathLog against the Go loop over math.Log on 2¹⁴
// arguments spread over (0, 4], as the products of radial flows' factors
// are.
func BenchmarkMathLog(b *testing.B) {
	x := make([]float64, 1<<14)
	for i := range x {
		x[i] = 4 * float64(i*7919%len(x)+1) / float64(len(x))
	}
	dst := make([]float64, len(x))
	b.Run("MathLog", func(b *testing.B) {
		for b.Loop() {
			MathLog(dst, x)
		}
	})
	b.Run("Log", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Log(v)
			}
		}
	})
}

// sameAsScalar checks that f(dst, x), and f(x, x) in place, give scalar's
// bits for every element of x; x is overwritten.
func sameAsScalar(t *testing.T, name string, f func(dst, src []float64), scalar func(float64) float64, x []float64) {
	t.Helper()
	want := make([]float64, len(x))
	for i, v := range x {
		want[i] = scalar(v)
	}
	got := make([]float64, len(x))
	f(got, x)
	sameFloats(t, fmt.Sprintf("%s of %d", name, len(x)), got, want)
	f(x, x)
	sameFloats(t, fmt.Sprintf("%s of %d in place", name, len(x)), x, want)
}
