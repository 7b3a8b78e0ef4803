//go:build arm64 && !purego

package tensor

import "testing"

// forEachKernelSet runs f with the NEON kernels and with the portable Go
// ones alone.
func forEachKernelSet(t *testing.T, f func(t *testing.T)) {
	defer func(v bool) { useNEON = v }(useNEON)
	t.Run("NEON", f)
	useNEON = false
	t.Run("portable", f)
}

// withPortableKernels runs f with the NEON kernels switched off.
func withPortableKernels(f func()) {
	defer func(v bool) { useNEON = v }(useNEON)
	useNEON = false
	f()
}
