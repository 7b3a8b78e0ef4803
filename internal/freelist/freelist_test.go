package freelist

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Values come back last in, first out, to any goroutine, and Get on an
// empty List reports that it has none.
func TestGetReturnsWhatWasPut(t *testing.T) {
	var l List[[]float64]
	if _, ok := l.Get(); ok {
		t.Fatal("Get on an empty List returned a value")
	}
	a, b := make([]float64, 3), make([]float64, 5)
	l.Put(a)
	l.Put(b)
	got := make(chan []float64)
	go func() {
		v, _ := l.Get()
		got <- v
	}()
	if v := <-got; &v[0] != &b[0] {
		t.Fatal("Get did not return the last value put")
	}
	if v, ok := l.Get(); !ok || &v[0] != &a[0] {
		t.Fatal("second Get did not return the first value put")
	}
	if _, ok := l.Get(); ok {
		t.Fatal("a third Get returned a value")
	}
}

// Many goroutines taking and giving back values at once never share one:
// each value is held by one goroutine at a time.
func TestConcurrentUseSharesNoValue(t *testing.T) {
	var l List[*int]
	for range 4 {
		l.Put(new(int))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 1000 {
				v, ok := l.Get()
				if !ok {
					v = new(int)
				}
				*v = g
				runtime.Gosched()
				if *v != g {
					t.Error("a value was held by two goroutines")
					return
				}
				l.Put(v)
			}
		})
	}
	wg.Wait()
}

// collectUntil runs collections until ok holds, for at most five seconds:
// the aging runs in a cleanup after a collection, not during it.
func collectUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if ok() {
			return
		}
		runtime.GC()
	}
	t.Fatal(what)
}

// A value survives one collection and is dropped by the second one; a
// value taken and put back again starts aging anew.
func TestValuesAgeWithTheCollections(t *testing.T) {
	var l List[[]byte]
	lens := func() (int, int) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.fresh), len(l.aged)
	}
	l.Put(make([]byte, 1<<20))
	collectUntil(t, "the value never aged", func() bool { f, a := lens(); return f == 0 && a == 1 })
	v, ok := l.Get()
	if !ok {
		t.Fatal("an aged value was not returned")
	}
	l.Put(v)
	if f, a := lens(); f != 1 || a != 0 {
		t.Fatalf("after Get and Put: %d fresh, %d aged values, want 1 and 0", f, a)
	}
	collectUntil(t, "the value never aged", func() bool { f, a := lens(); return f == 0 && a == 1 })
	collectUntil(t, "the aged value was never dropped", func() bool { f, a := lens(); return f == 0 && a == 0 })
}

// The registry holds its Lists weakly: a List that the program drops is
// collected and leaves the registry.
func TestDroppedListsLeaveTheRegistry(t *testing.T) {
	registered := func() int {
		listsMu.Lock()
		defer listsMu.Unlock()
		return len(lists)
	}
	var keep List[int]
	keep.Put(1)
	before := registered()
	for range 10 {
		l := new(List[int])
		l.Put(1)
	}
	if n := registered(); n != before+10 {
		t.Fatalf("%d lists registered after putting into ten new ones, want %d", n, before+10)
	}
	collectUntil(t, "dropped lists stayed registered", func() bool { return registered() <= before })
	runtime.KeepAlive(&keep)
}

// Taking a value and giving it back allocates nothing once the list has
// held it.
func BenchmarkGetPut(b *testing.B) {
	var l List[[]float64]
	l.Put(make([]float64, 1024))
	b.ReportAllocs()
	for b.Loop() {
		v, _ := l.Get()
		l.Put(v)
	}
}
