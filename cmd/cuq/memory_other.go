//go:build !linux

package main

import "runtime"

// physicalMemory returns 0: the RAM size is only read on Linux, elsewhere
// no memory limit is set.
func physicalMemory() int64 { return 0 }

// peakMemory returns the memory the Go runtime obtained from the system,
// an upper bound of the heap's peak (the resident set is not read here).
func peakMemory() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys)
}
