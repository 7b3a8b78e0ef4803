package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelThreshold is the work (roughly, multiply-adds) below which a
// kernel runs on the calling goroutine: spawning costs about a microsecond,
// so smaller jobs are faster serially.
const parallelThreshold = 1 << 15

// Workers returns how many goroutines a kernel of the given cost should use:
// 1 for small jobs, up to the cores the caller may use for large ones
// (GOMAXPROCS, shared among the runs of ShareCores).
func Workers(cost int) int {
	w := cost / parallelThreshold
	if p := cores(); w > p {
		w = p
	}
	if w < 1 {
		w = 1
	}
	return w
}

// sharers counts the runs that hold ShareCores.
var sharers atomic.Int64

// ShareCores declares a run of kernels (one training, say) that runs side
// by side with others, until the returned function is called. While n runs
// hold it, each kernel uses at most GOMAXPROCS/n goroutines, at least one:
// two trainings on two cores then run on one core each instead of
// splitting every product in two and waiting for each other's halves,
// which on small graphs costs more than the split saves. Kernels give the
// same bits on any number of goroutines, so it changes speed only. Call
// the returned function once, when the run ends.
func ShareCores() (release func()) {
	sharers.Add(1)
	var once sync.Once
	return func() { once.Do(func() { sharers.Add(-1) }) }
}

// cores returns the goroutines a kernel may use: GOMAXPROCS divided among
// the runs that hold ShareCores.
func cores() int {
	p := runtime.GOMAXPROCS(0)
	if n := int(sharers.Load()); n > 1 {
		p = max(1, p/n)
	}
	return p
}

// ParallelFor splits the index range [0, n) into contiguous chunks and calls
// body on each, concurrently when the total cost warrants it. body must only
// write to state owned by its own index range. A panic in body reaches the
// caller of ParallelFor, after every chunk has returned, as one on the
// calling goroutine would (one of them, when several chunks panic).
func ParallelFor(n, cost int, body func(lo, hi int)) {
	w := Workers(cost)
	if w > n {
		w = n
	}
	if w <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	var (
		wg      sync.WaitGroup
		once    sync.Once
		failure any
	)
	wg.Add(w)
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { failure = r })
				}
			}()
			body(lo, hi)
		}()
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
}
