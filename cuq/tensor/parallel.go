package tensor

import (
	"runtime"
	"sync"
)

// parallelThreshold is the work (roughly, multiply-adds) below which a
// kernel runs on the calling goroutine: spawning costs about a microsecond,
// so smaller jobs are faster serially.
const parallelThreshold = 1 << 15

// Workers returns how many goroutines a kernel of the given cost should use:
// 1 for small jobs, up to GOMAXPROCS for large ones.
func Workers(cost int) int {
	w := cost / parallelThreshold
	if p := runtime.GOMAXPROCS(0); w > p {
		w = p
	}
	if w < 1 {
		w = 1
	}
	return w
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
