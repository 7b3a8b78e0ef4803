//go:build !linux

package memstat

import "runtime"

// Physical returns 0: the RAM size is only read on Linux.
func Physical() int64 { return 0 }

// PeakRSS returns the memory the Go runtime obtained from the system, an
// upper bound of the heap's peak (the resident set is not read here).
func PeakRSS() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys)
}
