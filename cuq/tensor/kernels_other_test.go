//go:build (!amd64 && !arm64) || purego

package tensor

import "testing"

// forEachKernelSet runs f once: there is one set of kernels.
func forEachKernelSet(t *testing.T, f func(t *testing.T)) { t.Run("portable", f) }
