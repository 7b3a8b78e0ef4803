//go:build arm64 && !purego

package optim

// useNEON selects the kernel of update_arm64.s (every ARMv8-A
// processor has NEON); the tests switch it off to compare.
var useNEON = true

//go:noescape
func updateNEON(p, grad, m, v *float64, n int, c *coefficients)

// update is updateGo, its leading even number of elements by the NEON
// kernel.
func update(p, g, m, v []float64, c *coefficients) {
	n := 0
	if useNEON {
		n = len(p) &^ 1
	}
	if n > 0 {
		_, _, _ = g[n-1], m[n-1], v[n-1]
		updateNEON(&p[0], &g[0], &m[0], &v[0], n, c)
	}
	updateGo(p[n:], g[n:], m[n:], v[n:], c)
}
