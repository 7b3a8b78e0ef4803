package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	p := Policy{Min: 100, Max: 400, Headroom: 1 << 30}
	for _, c := range []struct {
		live int64
		want int
	}{
		{0, 400},           // before the first collection
		{64 << 20, 400},    // 16 × 100: capped at Max
		{256 << 20, 400},   // exactly 4 GiB/GiB × 100
		{384 << 20, 266},   // 1024/384 × 100 = 266.7, rounded down
		{512 << 20, 200},   // 1 GiB of garbage on 512 MiB live
		{1 << 30, 100},     // headroom equals live
		{3 << 30, 100},     // 33: raised to Min
		{1<<30 + 1, 100},   // just above: 99.99…, raised to Min
		{1<<30/3 + 1, 299}, // 299.99…
	} {
		if got := p.Percent(c.live); got != c.want {
			t.Errorf("Percent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Start follows the live heap across collections: GOGC falls when a large
// allocation stays live and rises again once it is freed.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	p := Policy{Min: 100, Max: 400, Headroom: 32 << 20}
	stop := Start(p)
	defer stop()
	waitFor := func(what string, ok func(int) bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			runtime.GC()
			if ok(gcPercent()) {
				return
			}
		}
		t.Fatalf("%s: GOGC %d", what, gcPercent())
	}
	waitFor("small live heap", func(g int) bool { return g == 400 })
	big := make([]byte, 256<<20) // live: 8 × the headroom
	waitFor("256 MiB live", func(g int) bool { return g == 100 })
	runtime.KeepAlive(big)
	big = nil
	waitFor("freed again", func(g int) bool { return g == 400 })
	stop()
	debug.SetGCPercent(250)
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if g := gcPercent(); g != 250 {
		t.Errorf("after stop GOGC = %d, want 250 (set after stopping)", g)
	}
}
