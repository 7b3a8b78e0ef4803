package tensor

import "math"

// Exp sets dst[i] = eˣ for x = src[i], i < len(src); dst must be at least
// as long as src and may be src itself. With AVX2 four elements go through
// the kernel at a time (eight with AVX-512); every element, whichever path
// computes it, is the same sequence of roundings as expScalar's, so
// results do not depend on the machine:
//
//	n = round(x·log₂e),  r = x − n·ln 2 (two fused steps, ln 2 split in a
//	high and a low part),  eˣ = 2ⁿ · Σ_{k=0}^{13} rᵏ/k!
//
// with the sum evaluated by Horner's rule in fused multiply-adds. For
// |r| ≤ ln 2 / 2 the truncated series is within 10⁻¹⁷ relative of eʳ, and
// the result is within one unit in the last place of eˣ (within one
// subnormal step below 2⁻¹⁰²²).
func Exp(dst, src []float64) {
	if len(dst) < len(src) {
		panic("tensor.Exp: destination shorter than source")
	}
	for i := 0; i < len(src); {
		i += expKernel(dst[i:len(src)], src[i:])
		// The block the kernel stopped at (a lane outside its range,
		// NaN included) or the last 1 to 3 elements.
		for end := min(i+4, len(src)); i < end; i++ {
			dst[i] = expScalar(src[i])
		}
	}
}

const (
	log2e = 1.4426950408889634         // log₂ e rounded
	ln2Hi = 6.93147180369123816490e-01 // ln 2 to 32 bits: n·ln2Hi is exact for |n| < 2²⁰
	ln2Lo = 1.90821492927058770002e-10 // ln 2 − ln2Hi

	// expOverflow and expUnderflow bound the arguments with a finite,
	// non-zero result; expKernelMin and expKernelMax the arguments for
	// which 2ⁿ and 2ⁿ·Σ are normal numbers, which the kernel computes.
	expOverflow  = 7.09782712893383973096e+02
	expUnderflow = -7.45133219101941108420e+02
	expKernelMin = -708
	expKernelMax = 709
)

// expSeries holds 1/k! for k = 13 down to 0, in the order of Horner's rule.
var expSeries = [14]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
	1.0 / 6, 1.0 / 2, 1, 1,
}

// expScalar is one element of Exp.
func expScalar(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > expOverflow:
		return math.Inf(1)
	case x < expUnderflow:
		return 0
	}
	n := math.RoundToEven(x * log2e)
	r := math.FMA(-n, ln2Hi, x)
	r = math.FMA(-n, ln2Lo, r)
	p := expSeries[0]
	for _, c := range expSeries[1:] {
		p = math.FMA(p, r, c)
	}
	// 2ⁿ·p in one rounding: near overflow (n = 1024) and below the normal
	// range (subnormal results) 2ⁿ itself is not a float64, so it is
	// applied in two exact-or-once-rounded steps.
	switch k := int(n); {
	case k > 1023:
		return float64(p*pow2(k-1)) * 2
	case k < -1021:
		return p * pow2(k+64) * 0x1p-64
	default:
		return p * pow2(k)
	}
}

// pow2 returns 2ᵏ for −1022 ≤ k ≤ 1023.
func pow2(k int) float64 { return math.Float64frombits(uint64(k+1023) << 52) }

// MathExp sets dst[i] = math.Exp(src[i]) for i < len(src), to the bit;
// dst must be at least as long as src and may be src itself. Where
// math.Exp runs its fused multiply-add code (amd64 with AVX and FMA),
// blocks of four elements (eight with AVX-512) go through a kernel that
// does its operations lane by lane (rounding to the nearest integer, two
// fused reduction steps, the scaled Taylor series in fused multiply-adds,
// four doublings and the power of two); arguments outside [−708, 709],
// where math.Exp would take its special branches, are left to math.Exp
// itself. Unlike Exp, whose results are the same on every machine,
// MathExp's differ between amd64 and arm64 as math.Exp's do; it speeds up
// code whose results are defined by math.Exp.
func MathExp(dst, src []float64) {
	if len(dst) < len(src) {
		panic("tensor.MathExp: destination shorter than source")
	}
	for i := 0; i < len(src); {
		i += mathExpKernel(dst[i:len(src)], src[i:])
		for end := min(i+4, len(src)); i < end; i++ {
			dst[i] = math.Exp(src[i])
		}
	}
}

// MathLog sets dst[i] = math.Log(src[i]) for i < len(src), to the bit;
// dst must be at least as long as src and may be src itself. On amd64,
// where math.Log is the assembly of math/log_amd64.s, blocks of four
// (eight with AVX-512) positive normal arguments go through a kernel that
// does its operations lane by lane, each rounded on its own (no fused
// multiply-add), with x = 2ᵏ·f₁ and f₁ ∈ [½, 1) taken from x's bits:
//
//	f₁ ≤ √2/2:  f₁ ← 2·f₁,  k ← k − 1
//	f = f₁ − 1,  s = f/(2 + f),  z = s²,  w = z²
//	R = z·(L1 + w·(L3 + w·(L5 + w·L7))) + w·(L2 + w·(L4 + w·L6))
//	½f² = (½·f)·f
//	log x = k·ln2Hi − ((½f² − (s·(½f² + R) + k·ln2Lo)) − f)
//
// Blocks with zero, a negative, subnormal or infinite argument or NaN are
// left to math.Log. Elsewhere math.Log is Go code, which the compiler may
// fuse (arm64), and MathLog calls it element by element.
func MathLog(dst, src []float64) {
	if len(dst) < len(src) {
		panic("tensor.MathLog: destination shorter than source")
	}
	for i := 0; i < len(src); {
		i += logKernel(dst[i:len(src)], src[i:])
		for end := min(i+4, len(src)); i < end; i++ {
			dst[i] = math.Log(src[i])
		}
	}
}

// ELU sets dst[i] = x for x = src[i] > 0 and math.Expm1(x) otherwise
// (the exponential linear unit with α = 1), for i < len(src), to math's
// bit; dst must be at least as long as src and may be src itself. On amd64
// with AVX2 four elements (eight with AVX-512) go through a kernel at a
// time that does math.Expm1's operations for x ≤ 0 lane by lane (see
// eluTable); blocks with an argument at or below −56·ln 2 (where Expm1
// returns −1) or NaN are left to the Go loop.
func ELU(dst, src []float64) {
	if len(dst) < len(src) {
		panic("tensor.ELU: destination shorter than source")
	}
	for i := 0; i < len(src); {
		i += eluKernel(dst[i:len(src)], src[i:])
		for end := min(i+4, len(src)); i < end; i++ {
			v := src[i]
			if v <= 0 {
				v = math.Expm1(v)
			}
			dst[i] = v
		}
	}
}
