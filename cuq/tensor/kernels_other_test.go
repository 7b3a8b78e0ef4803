//go:build (!amd64 && !arm64) || purego

package tensor

import "testing"

// forEachKernelSet runs f once: there is one set of kernels.
func forEachKernelSet(t *testing.T, f func(t *testing.T)) { t.Run("portable", f) }

// withPortableKernels runs f: the kernels are the portable ones.
func withPortableKernels(f func()) { f() }
