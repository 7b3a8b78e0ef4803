//go:build (!amd64 && !arm64) || purego

package optim

// update is updateGo: this architecture or build has no kernel.
func update(p, g, m, v []float64, c *coefficients) { updateGo(p, g, m, v, c) }
