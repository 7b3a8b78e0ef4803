package tensor

import (
	"math/bits"

	"github.com/cuqgnn/cuqgnn/internal/freelist"
)

// scratchClasses holds unused temporaries by size class: class c holds
// slices whose capacity is 2^c elements. A kernel that needs a temporary
// only during one call (a product widened to a multiple of eight columns,
// say) takes one and gives it back, so that the epochs of a training run,
// which make the same calls again and again, allocate, zero and collect
// none. The lists are shared by all goroutines (a sync.Pool's per-processor
// caches missed whenever a goroutine moved between processors).
var scratchClasses [maxScratchClass + 1]freelist.List[[]float64]

// maxScratchClass bounds the temporaries kept: larger ones (over 512 MiB)
// are allocated and left to the collector.
const maxScratchClass = 26

// getScratch returns a slice of n elements whose contents are undefined.
// Give it back with putScratch when done.
func getScratch(n int) []float64 {
	if n == 0 {
		return nil
	}
	c := bits.Len(uint(n - 1))
	if c > maxScratchClass {
		return make([]float64, n)
	}
	if s, ok := scratchClasses[c].Get(); ok {
		return s[:n]
	}
	return make([]float64, n, 1<<c)
}

// putScratch gives back a slice from getScratch; the caller must not use
// it afterwards.
func putScratch(s []float64) {
	c := cap(s)
	if c == 0 || c&(c-1) != 0 || bits.Len(uint(c-1)) > maxScratchClass {
		return
	}
	scratchClasses[bits.Len(uint(c-1))].Put(s[:0])
}
