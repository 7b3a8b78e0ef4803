// Package gctune sets the garbage collector's GOGC from the live heap after
// every collection. A training epoch allocates its intermediate matrices
// afresh, so a program that trains on a small graph collects often unless
// GOGC is high, while on a graph of OGBN Arxiv's size a high GOGC multiplies
// a live heap of gigabytes. A Policy gives both: a high GOGC while the
// garbage it lets accumulate stays within a fixed headroom, then a GOGC that
// keeps the garbage at that headroom, never below a floor.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Policy maps the live heap to GOGC. With live bytes after a collection,
// the next collection starts when the heap holds live·(1 + GOGC/100) bytes,
// so GOGC = 100·Headroom/live lets Headroom bytes of garbage accumulate:
//
//	GOGC(live) = clamp(100·Headroom/live, Min, Max).
type Policy struct {
	// Min and Max bound GOGC.
	Min, Max int
	// Headroom is the garbage in bytes a collection cycle may accumulate
	// while GOGC lies between Min and Max.
	Headroom int64
}

// Percent returns GOGC for a live heap of live bytes.
func (p Policy) Percent(live int64) int {
	if live <= 0 {
		return p.Max
	}
	gogc := p.Headroom / live * 100
	if rem := p.Headroom % live; rem > 0 {
		gogc += rem * 100 / live
	}
	return int(min(max(gogc, int64(p.Min)), int64(p.Max)))
}

// liveHeap is the runtime metric of the heap marked live by the last
// collection.
const liveHeap = "/gc/heap/live:bytes"

// tuner applies a policy after every collection until it is stopped.
type tuner struct {
	policy Policy
	mu     sync.Mutex
	done   bool
	last   int // GOGC set last, 0 before the first
	sample []metrics.Sample
}

// Start sets GOGC from p now and after every garbage collection until stop
// is called; stop leaves GOGC as last set. Only one tuner should run in a
// process: two would overwrite each other's setting.
func Start(p Policy) (stop func()) {
	t := &tuner{policy: p, sample: []metrics.Sample{{Name: liveHeap}}}
	t.apply()
	t.arm()
	return func() {
		t.mu.Lock()
		t.done = true
		t.mu.Unlock()
	}
}

// arm registers t.afterGC to run once a fresh, unreachable object is
// collected, that is after the next garbage collection. The object is 64
// bytes so that it is not placed in a tiny-allocation block, whose
// cleanups may never run.
func (t *tuner) arm() {
	runtime.AddCleanup(new([64]byte), (*tuner).afterGC, t)
}

// afterGC applies the policy and arms t for the next collection.
func (t *tuner) afterGC() {
	if t.apply() {
		t.arm()
	}
}

// apply sets GOGC for the live heap the last collection measured and
// reports whether t is still running.
func (t *tuner) apply() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return false
	}
	metrics.Read(t.sample)
	var live int64
	if v := t.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live = int64(v.Uint64())
	}
	if gogc := t.policy.Percent(live); gogc != t.last {
		debug.SetGCPercent(gogc)
		t.last = gogc
	}
	return true
}
