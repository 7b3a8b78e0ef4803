//go:build (!amd64 && !arm64) || purego

package optim

func update(p, g, m, v []float64, c *coefficients) { updateGo(p, g, m, v, c) }
