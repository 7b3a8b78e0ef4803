package memstat

import "syscall"

// Physical returns the machine's RAM in bytes, 0 if unknown.
func Physical() int64 {
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// PeakRSS returns the process's maximum resident set size in bytes
// (getrusage), 0 if unknown.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}
