package tensor

import (
	"runtime"
	"syscall"
	"unsafe"
)

// populateMin is the length from which New pre-faults a matrix: 1 MiB of
// float64, where one system call costs far less than the page faults it
// saves.
const populateMin = 1 << 17

// madvPopulateWrite is Linux's MADV_POPULATE_WRITE (since 5.14).
const madvPopulateWrite = 23

// populate asks the kernel to map every page of x's storage at once
// (madvise MADV_POPULATE_WRITE) instead of one page fault per page (4 KiB
// on amd64) on first touch. A large matrix fresh from the operating
// system would otherwise take thousands of faults as the first op writes
// it: an Arxiv-sized 169,343 × 40 output is 13,000 faults, a large share
// of APPNP's evaluation pass there (docs/records/performance.md). The
// contents do not change (new pages are zero, mapped ones are left
// alone); kernels without the advice refuse it, and nothing happens.
func populate(x []float64) {
	if len(x) < populateMin {
		return
	}
	page := uintptr(syscall.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(x))*8) &^ (page - 1)
	if hi > lo {
		// The advice is only a hint: its error needs no handling.
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvPopulateWrite)
	}
	runtime.KeepAlive(x)
}
