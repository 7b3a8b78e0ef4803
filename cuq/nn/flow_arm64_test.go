//go:build arm64 && !purego

package nn

import "testing"

// The NEON kernel computes the portable code's forward chains operation by
// operation: log-densities and every gradient agree to the bit
// (flowKernelCase), whether the kernel runs them for the log-densities or
// for the backward pass's records.
func TestRadialFlowKernelMatchesPortable(t *testing.T) {
	f, z, g := flowKernelCase(t)
	run := func(neon bool) flowRun {
		defer func(v bool) { flowNEON = v }(flowNEON)
		flowNEON = neon
		return runFlows(t, f, z, g)
	}
	requireSameFlowRun(t, "NEON", run(true), run(false))
}
