//go:build arm64 && !purego

package optim

import "testing"

// The NEON kernel gives updateGo's bits (run under qemu-aarch64 in CI).
func TestUpdateKernelMatchesPortable(t *testing.T) {
	requireUpdateMatchesPortable(t, "NEON")
}
