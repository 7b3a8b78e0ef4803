//go:build amd64 && !purego

package optim

import "golang.org/x/sys/cpu"

// The kernels of update_amd64.s update four (AVX) or eight (AVX-512)
// elements per instruction; the division and square root, which the
// scalar loop issues one element at a time, dominate an update. The
// four-lane kernel runs where the products' AVX2 kernels do (it needs
// only AVX), so that GODEBUG=cpu.avx2=off selects the portable code
// throughout, as docs/records/performance.md describes.
var (
	updateAVX    = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	updateAVX512 = updateAVX && cpu.X86.HasAVX512F
)

//go:noescape
func updateAVX4(p, grad, m, v *float64, n int, c *coefficients)

//go:noescape
func updateAVX8(p, grad, m, v *float64, n int, c *coefficients)

// update is updateGo, its leading elements in whole vectors by a kernel.
func update(p, g, m, v []float64, c *coefficients) {
	n := 0
	switch {
	case updateAVX512:
		n = len(p) &^ 7
	case updateAVX:
		n = len(p) &^ 3
	}
	if n > 0 {
		_, _, _ = g[n-1], m[n-1], v[n-1]
		if updateAVX512 {
			updateAVX8(&p[0], &g[0], &m[0], &v[0], n, c)
		} else {
			updateAVX4(&p[0], &g[0], &m[0], &v[0], n, c)
		}
	}
	updateGo(p[n:], g[n:], m[n:], v[n:], c)
}
