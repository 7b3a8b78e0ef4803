//go:build amd64 && !purego

package tensor

import "golang.org/x/sys/cpu"

// expTable holds the constants of expAVX, each repeated in four lanes:
// expKernelMin, expKernelMax, log₂e, ln2Hi, ln2Lo, the 14 coefficients of
// expSeries, and 1023 + 1.5·2⁵² (adding it to an integral n leaves n + 1023
// in the low bits of the sum).
var expTable = func() (t [5 + len(expSeries) + 1][4]float64) {
	consts := append([]float64{expKernelMin, expKernelMax, log2e, ln2Hi, ln2Lo}, expSeries[:]...)
	consts = append(consts, 1023+0x1.8p52)
	for k, c := range consts {
		t[k] = [4]float64{c, c, c, c}
	}
	return t
}()

//go:noescape
func expAVX(dst, src *float64, n int, table *[5 + len(expSeries) + 1][4]float64) int

// expKernel computes Exp for the leading blocks of four elements of src
// whose arguments all lie in [expKernelMin, expKernelMax], and returns how
// many elements it computed: a multiple of four, stopping at the first
// block with an argument outside (or NaN) or at the last 1 to 3 elements.
func expKernel(dst, src []float64) int {
	if !useAVX || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	return expAVX(&dst[0], &src[0], len(src), &expTable)
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
	for k, c := range consts {
		t[k] = [4]float64{c, c, c, c}
	}
	return t
}()

//go:noescape
func mathExpAVX(dst, src *float64, n int, table *[17][4]float64) int

// useMathExpAVX selects mathExpAVX: where math.Exp runs its fused
// multiply-add code (it tests AVX and FMA, which GODEBUG can switch off
// one by one) and the kernel's AVX2 and FMA are there.
var useMathExpAVX = useAVX && cpu.X86.HasAVX

// mathExpKernel computes MathExp for the leading blocks of four elements
// of src whose arguments all lie in [−708, 709] and returns how many it
// computed, as expKernel does.
func mathExpKernel(dst, src []float64) int {
	if !useMathExpAVX || len(src) < 4 {
		return 0
	}
	_ = dst[len(src)-1]
	return mathExpAVX(&dst[0], &src[0], len(src), &mathExpTable)
}
