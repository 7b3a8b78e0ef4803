//go:build amd64 && !purego

package tensor

//go:noescape
func reluAVX(dst, src *float64, n int)

//go:noescape
func reluGradAVX(dst, grad, x *float64, n int)

// reluKernel computes ReLU for the leading multiple of four elements of
// src and returns how many it computed.
func reluKernel(dst, src []float64) int {
	n := len(src) &^ 3
	if !useAVX || n == 0 {
		return 0
	}
	_ = dst[n-1]
	reluAVX(&dst[0], &src[0], n)
	return n
}

// reluGradKernel computes AddReLUGrad for the leading multiple of four
// elements of x and returns how many it computed.
func reluGradKernel(dst, g, x []float64) int {
	n := len(x) &^ 3
	if !useAVX || n == 0 {
		return 0
	}
	_, _ = dst[n-1], g[n-1]
	reluGradAVX(&dst[0], &g[0], &x[0], n)
	return n
}

//go:noescape
func dropoutAVX(dst, x *float64, keep *uint8, draws *uint32, n int, threshold uint32, scale float64)

//go:noescape
func dropoutGradAVX(dst, grad *float64, keep *uint8, n int, scale float64)

// dropoutKernel computes Dropout for the leading multiple of four
// elements of x and returns how many it computed.
func dropoutKernel(dst, x []float64, keep []uint8, draws []uint32, threshold uint32, scale float64) int {
	n := len(x) &^ 3
	if !useAVX || n == 0 {
		return 0
	}
	_, _, _ = dst[n-1], keep[n-1], draws[n-1]
	dropoutAVX(&dst[0], &x[0], &keep[0], &draws[0], n, threshold, scale)
	return n
}

// dropoutGradKernel computes AddDropoutGrad for the leading multiple of
// four elements of g and returns how many it computed.
func dropoutGradKernel(dst, g []float64, keep []uint8, scale float64) int {
	n := len(g) &^ 3
	if !useAVX || n == 0 {
		return 0
	}
	_, _ = dst[n-1], keep[n-1]
	dropoutGradAVX(&dst[0], &g[0], &keep[0], n, scale)
	return n
}
