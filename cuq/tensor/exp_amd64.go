//go:build amd64 && !purego

package tensor

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
