package tensor

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
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
//
// The calling goroutine runs the first chunk and the goroutines of a team
// the others (see team); when the team is busy, as in a ParallelFor called
// from within a chunk, each chunk gets a goroutine of its own.
func ParallelFor(n, cost int, body func(lo, hi int)) {
	parallelFor(n, Workers(cost), func(k, w int) int { return k * n / w }, body)
}

// ParallelForRows is ParallelFor over the rows of a compressed sparse
// layout, row i holding the entries ptr[i] … ptr[i+1]−1 (len(ptr)−1 rows,
// ptr not decreasing), each entry costing about unit multiply-adds. The
// chunks split the rows at equal shares of the entries plus the rows (each
// row's own work), not at equal numbers of rows: where a graph's
// high-degree nodes gather in one part of its order, as in the
// locality order of graph.PPR on Amazon Computers (145,000 of the
// adjacency's 506,000 entries in the first half of its rows), equal
// numbers of rows keep one core waiting for the other.
func ParallelForRows(ptr []int, unit int, body func(lo, hi int)) {
	n := len(ptr) - 1
	if n <= 0 {
		return
	}
	total := ptr[n] - ptr[0] + n
	parallelFor(n, Workers(total*unit), func(k, w int) int {
		share := k * total / w
		return sort.Search(n, func(i int) bool { return ptr[i]-ptr[0]+i >= share })
	}, body)
}

// parallelFor runs body on the chunks [start(k, w), start(k+1, w)) of
// [0, n), k < w, for start(0, w) = 0, start(w, w) = n and start rising
// with k, on up to w goroutines (fewer when n < w). A chunk may be empty.
func parallelFor(n, w int, start func(k, w int) int, body func(lo, hi int)) {
	w = min(w, n)
	if w <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	if !crew.mu.TryLock() {
		spawnFor(n, w, start, body)
		return
	}
	defer crew.mu.Unlock()
	crew.run(n, w, start, body)
}

// spawnFor runs the w chunks of parallelFor on a goroutine each.
func spawnFor(n, w int, start func(k, w int) int, body func(lo, hi int)) {
	var (
		wg     sync.WaitGroup
		caught firstPanic
	)
	wg.Add(w)
	for k := 0; k < w; k++ {
		lo, hi := start(k, w), start(k+1, w)
		go func() {
			defer wg.Done()
			caught.run(body, lo, hi)
		}()
	}
	wg.Wait()
	caught.rethrow()
}

// firstPanic keeps the first panic of the chunks of one ParallelFor, for
// its caller to panic with once every chunk has returned.
type firstPanic struct {
	mu     sync.Mutex
	value  any
	caught bool
}

// run runs body(lo, hi), keeping its panic if it is the first.
func (f *firstPanic) run(body func(lo, hi int), lo, hi int) {
	defer func() {
		if r := recover(); r != nil {
			f.mu.Lock()
			if !f.caught {
				f.value, f.caught = r, true
			}
			f.mu.Unlock()
		}
	}()
	body(lo, hi)
}

// rethrow panics with the panic kept, if any.
func (f *firstPanic) rethrow() {
	if f.caught {
		panic(f.value)
	}
}

// spinWait is how long a helper of the team polls for its next chunk after
// finishing one, and the caller of ParallelFor for its helpers' chunks,
// before blocking. Waking a goroutine that blocked costs a system call and,
// on a virtual machine, waking its idle processor: on the 2-core test
// machine CiteSeer's training epochs, with a goroutine per chunk, were
// hardly faster on two cores than on one. The kernels of an epoch are
// often 50 to 200 µs apart (the serial work between them: the tape, the
// losses, small operations), so a helper polls for longer than that; it
// then blocks half a millisecond after the last chunk of a training run,
// as OpenMP's threads do after their (much longer) spin. Measured in
// docs/records/performance.md: polling for 50 µs took 10–25% off
// CiteSeer's epochs, 200 µs 30–45%, 500 µs a little more, longer no more.
const spinWait = 500 * time.Microsecond

// crew is the team of ParallelFor.
var crew team

// A team runs the chunks of one ParallelFor at a time (its holder holds
// mu) on long-lived helper goroutines, one per chunk but the first, which
// the caller runs. A helper, and the caller waiting for the helpers, polls
// an atomic counter for spinWait and then blocks on a channel; the other
// side checks whether it blocked after publishing (the atomics are
// sequentially consistent, so one of the two sees the other's store) and
// then wakes it. A token left over from a race only makes the waiter
// check again.
type team struct {
	mu      sync.Mutex
	helpers []*helper

	pending      atomic.Int32 // the helpers' chunks not yet returned
	callerParked atomic.Bool
	callerWake   chan struct{}

	caught firstPanic // the run's first panic
}

// A helper runs the chunk [lo, hi) of body each time seq changes.
type helper struct {
	seq    atomic.Uint64
	parked atomic.Bool
	wake   chan struct{}
	body   func(lo, hi int)
	lo, hi int
}

// run runs the w chunks [start(k, w), start(k+1, w)) of [0, n): the first
// on the calling goroutine, the others on helpers 0 … w−2, started as
// needed.
func (t *team) run(n, w int, start func(k, w int) int, body func(lo, hi int)) {
	if t.callerWake == nil {
		t.callerWake = make(chan struct{}, 1)
	}
	for len(t.helpers) < w-1 {
		h := &helper{wake: make(chan struct{}, 1)}
		t.helpers = append(t.helpers, h)
		go h.serve(t)
	}
	t.caught.value, t.caught.caught = nil, false
	t.pending.Store(int32(w - 1))
	for k, h := range t.helpers[:w-1] {
		h.body, h.lo, h.hi = body, start(k+1, w), start(k+2, w)
		h.seq.Add(1)
		if h.parked.Load() {
			signal(h.wake)
		}
	}
	t.caught.run(body, 0, start(1, w))
	t.await()
	for _, h := range t.helpers[:w-1] {
		h.body = nil // keep nothing of the caller's alive
	}
	t.caught.rethrow()
}

// await returns once every helper's chunk has returned.
func (t *team) await() {
	poll(func() bool { return t.pending.Load() == 0 }, &t.callerParked, t.callerWake)
}

// serve runs the helper's chunks for ever.
func (h *helper) serve(t *team) {
	var seen uint64
	for {
		poll(func() bool { return h.seq.Load() != seen }, &h.parked, h.wake)
		seen = h.seq.Load()
		t.caught.run(h.body, h.lo, h.hi)
		if t.pending.Add(-1) == 0 && t.callerParked.Load() {
			signal(t.callerWake)
		}
	}
}

// poll returns once ready reports true: it polls for spinWait, letting other
// goroutines run now and then, and then blocks on wake with parked set
// until the other side, having made ready true, sends on it.
func poll(ready func() bool, parked *atomic.Bool, wake chan struct{}) {
	deadline := time.Now().Add(spinWait)
	for i := 1; !ready(); i++ {
		if i%64 != 0 {
			continue
		}
		if time.Now().Before(deadline) {
			runtime.Gosched()
			continue
		}
		parked.Store(true)
		if !ready() {
			<-wake
		}
		parked.Store(false)
	}
}

// signal wakes the goroutine blocked on wake, or leaves a token for it.
func signal(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}
