//go:build !linux

package tensor

// populate is a no-op where the operating system has no way to map a
// range's pages in one call (see populate_linux.go).
func populate([]float64) {}
