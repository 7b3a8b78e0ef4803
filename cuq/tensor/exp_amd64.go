//go:build amd64 && !purego

package tensor

import (
	"fmt"
	"math"

	"golang.org/x/sys/cpu"
)

// expTable holds the constants of expAVX, each repeated in four lanes:
// expKernelMin, expKernelMax, log₂e, ln2Hi, ln2Lo, the 14 coefficients of
// expSeries, and 1023 + 1.5·2⁵² (adding it to an integral n leaves n + 1023
// in the low bits of the sum).
var expTable = func() (t [5 + len(expSeries) + 1][4]float64) {
	consts := append([]float64{expKernelMin, expKernelMax, log2e, ln2Hi, ln2Lo}, expSeries[:]...)
	consts = append(consts, 1023+0x1.8p52)
	fourLanes(t[:], consts)
	return t
}()

//go:noescape
func expAVX(dst, src *float64, n int, table *[5 + len(expSeries) + 1][4]float64) int

//go:noescape
func expAVX512(dst, src *float64, n int, table *[5 + len(expSeries) + 1][4]float64) int

// expKernel computes Exp for the leading blocks of four elements of src
// whose arguments all lie in [expKernelMin, expKernelMax], and returns how
// many elements it computed: a multiple of four, stopping at the first
// block with an argument outside (or NaN) or at the last 1 to 3 elements.
func expKernel(dst, src []float64) int {
	if !useAVX || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	done := 0
	if useAVX512 && len(src) >= 8 {
		done = expAVX512(&dst[0], &src[0], len(src), &expTable)
	}
	if len(src)-done >= 4 {
		done += expAVX(&dst[done], &src[done], len(src)-done, &expTable)
	}
	return done
}

// mathExpTable holds the constants of mathExpAVX, each repeated in four
// lanes: the kernel's range −708 and 709, then math.Exp's (amd64) log₂e,
// ln 2 in an upper and a lower part, 1/16, its series' coefficients 1/8!
// down to 1/3!, then 1/2 and 1, the doubling's 2, the final 1, and
// 1023 + 1.5·2⁵² as in expTable.
var mathExpTable = func() (t [17][4]float64) {
	consts := []float64{-708, 709,
		1.4426950408889634073599246810018920, 0.69314718055966295651160180568695068359375, 0.28235290563031577122588448175013436025525412068e-12,
		0.0625, 2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3, 8.3333333333333333333e-3,
		4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1, 2, 1, 1023 + 0x1.8p52}
	fourLanes(t[:], consts)
	return t
}()

//go:noescape
func mathExpAVX(dst, src *float64, n int, table *[17][4]float64) int

//go:noescape
func mathExpAVX512(dst, src *float64, n int, table *[17][4]float64) int

// mathExpFused reports whether math.Exp runs its fused multiply-add code,
// which mathExpAVX follows: it tests AVX and FMA, which GODEBUG can switch
// off one by one.
var mathExpFused = cpu.X86.HasAVX && cpu.X86.HasFMA

// mathExpKernel computes MathExp for the leading blocks of four elements
// of src whose arguments all lie in [−708, 709] and returns how many it
// computed, as expKernel does.
func mathExpKernel(dst, src []float64) int {
	if !useAVX || !mathExpFused || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	done := 0
	if useAVX512 && len(src) >= 8 {
		done = mathExpAVX512(&dst[0], &src[0], len(src), &mathExpTable)
	}
	if len(src)-done >= 4 {
		done += mathExpAVX(&dst[done], &src[done], len(src)-done, &mathExpTable)
	}
	return done
}

// eluTable holds the constants of eluAVX, each repeated in four lanes:
// −56·ln 2 (the kernel's lower bound), ½·ln 2, 1½·ln 2, 1/ln 2, ½, ln 2 in
// an upper and a lower part, 2⁻⁵⁴, Expm1's coefficients Q5 down to Q1, 1,
// 3, 6, −1, 1.5·2⁵² (adding it to an integral k leaves k in the low bits
// of the sum) and the mask of all bits but the sign: the constants of Go's
// math.Expm1 (math/expm1.go), whose branches for x ≤ 0 the kernel takes
// all at once and then chooses among, lane by lane, by the reduction's k:
//
//	k = 0 for |x| ≤ ½·ln 2, −1 for |x| < 1½·ln 2, else trunc(x/ln 2 − ½)
//	hi = x − k·ln2Hi,  lo = k·ln2Lo,  r = hi − lo,  c = (hi − r) − lo
//	h = r/2,  s = r·h,  r₁ = 1 + s·(Q1 + s·(Q2 + s·(Q3 + s·(Q4 + s·Q5))))
//	t = 3 − r₁·h,  e = s·((r₁ − t)/(6 − r·t))
//	k = 0:   r − (r·e − s)
//	else     e′ = (r·(e − c) − c) − s, and
//	k = −1:  ½·(r − e′) − ½
//	k ≤ −2:  2ᵏ·(1 − (e′ − r)) − 1 (the power of two added to the exponent)
//
// and x itself for x > 0 or |x| < 2⁻⁵⁴. Each operation is rounded on its
// own, as Go compiles math.Expm1 on amd64 (it fuses nothing there).
var eluTable = func() (t [19][4]float64) {
	const ln2Half, ln2HalfX3, ln2X56 = 3.46573590279972654709e-01, 1.03972077083991796413e+00, 3.88162421113569373274e+01
	consts := []float64{-ln2X56, ln2Half, ln2HalfX3, 1.44269504088896338700e+00, 0.5, ln2Hi, ln2Lo, 0x1p-54,
		-2.01099218183624371326e-07, 4.00821782732936239552e-06, -7.93650757867487942473e-05, 1.58730158725481460165e-03, -3.33333333333331316428e-02,
		1, 3, 6, -1, 0x1.8p52, math.Float64frombits(1<<63 - 1)}
	fourLanes(t[:], consts)
	return t
}()

//go:noescape
func eluAVX(dst, src *float64, n int, table *[19][4]float64) int

//go:noescape
func eluAVX512(dst, src *float64, n int, table *[19][4]float64) int

// eluKernel computes ELU for the leading blocks of four elements of src
// whose arguments all lie above −56·ln 2 and returns how many it computed,
// as expKernel does: with AVX-512 eight at a time, then four from where
// that stopped (the blocks of eight left over one of four or less, or
// stopped at an argument out of range, which the blocks of four then stop
// at too or pass in the half without it).
func eluKernel(dst, src []float64) int {
	if !useAVX || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	done := 0
	if useAVX512 && len(src) >= 8 {
		done = eluAVX512(&dst[0], &src[0], len(src), &eluTable)
	}
	if len(src)-done >= 4 {
		done += eluAVX(&dst[done], &src[done], len(src)-done, &eluTable)
	}
	return done
}

// logTable holds the constants of logAVX, each repeated in four lanes: the
// kernel's range, the smallest normal number and the largest finite one;
// the mask of the fraction's bits, ½, 2⁵² (or-ed with an exponent field e,
// the number 2⁵² + e), 2⁵² + 1022, √2/2, 1, 2, math.Log's (amd64)
// coefficients L7, L5, L3, L1, L6, L4, L2, and ln 2 in a lower and an
// upper part.
var logTable = func() (t [18][4]float64) {
	consts := []float64{0x1p-1022, math.MaxFloat64, math.Float64frombits(1<<52 - 1), 0.5, 0x1p52, 0x1p52 + 1022,
		7.07106781186547524401e-01, 1, 2,
		1.479819860511658591e-01, 1.818357216161805012e-01, 2.857142874366239149e-01, 6.666666666666735130e-01,
		1.531383769920937332e-01, 2.222219843214978396e-01, 3.999999999940941908e-01,
		ln2Lo, ln2Hi}
	fourLanes(t[:], consts)
	return t
}()

//go:noescape
func logAVX(dst, src *float64, n int, table *[18][4]float64) int

//go:noescape
func logAVX512(dst, src *float64, n int, table *[18][4]float64) int

// logKernel computes MathLog for the leading blocks of four elements of
// src whose arguments are all positive normal numbers and returns how many
// it computed, as eluKernel does.
func logKernel(dst, src []float64) int {
	if !useAVX || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	done := 0
	if useAVX512 && len(src) >= 8 {
		done = logAVX512(&dst[0], &src[0], len(src), &logTable)
	}
	if len(src)-done >= 4 {
		done += logAVX(&dst[done], &src[done], len(src)-done, &logTable)
	}
	return done
}

// fourLanes sets row k of a kernel's table to consts[k] in each of four
// lanes (the AVX-512 kernels broadcast the first); the table must have a
// row for every constant and no more.
func fourLanes(t [][4]float64, consts []float64) {
	if len(consts) != len(t) {
		panic(fmt.Sprintf("tensor: %d constants for a table of %d rows", len(consts), len(t)))
	}
	for k, c := range consts {
		t[k] = [4]float64{c, c, c, c}
	}
}
