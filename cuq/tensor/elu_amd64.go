//go:build amd64 && !purego

package tensor

import "math"

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
	for k, c := range consts {
		t[k] = [4]float64{c, c, c, c}
	}
	return t
}()

//go:noescape
func eluAVX(dst, src *float64, n int, table *[19][4]float64) int

// eluKernel computes ELU for the leading blocks of four elements of src
// whose arguments all lie above −56·ln 2 and returns how many it computed,
// as expKernel does.
func eluKernel(dst, src []float64) int {
	if !useAVX || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	return eluAVX(&dst[0], &src[0], len(src), &eluTable)
}
