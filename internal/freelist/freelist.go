// Package freelist keeps temporaries between calls for any goroutine to
// take again, and lets the garbage collector have those left unused.
//
// A kernel that needs a large temporary for one call (a product's padded
// copy, a backward pass's accumulators) and is called every epoch should
// not allocate it every epoch: fresh memory must be zeroed or faulted in,
// and collected. sync.Pool keeps such values per processor, and a Get on
// a processor whose own cache is empty cannot take the value another
// processor keeps in its private slot, so a goroutine that moved between
// processors allocates anew; with few, large values that happens often
// enough to matter and makes the memory a pass allocates vary from run to
// run. A List keeps its values in one stack that every goroutine shares.
//
// Like sync.Pool, a List ages its values with the collections: a value
// not taken again before the second collection after it was put back is
// dropped, so a program that stops using a kernel gets its memory back.
package freelist

import (
	"runtime"
	"sync"
	"weak"
)

// List is a stack of values to reuse, safe for concurrent use. The zero
// List is empty and ready to use; a List must not be copied after first
// use.
type List[T any] struct {
	mu sync.Mutex
	// fresh holds the values put since the last collection, aged those
	// that have outlived one collection since they were put.
	fresh, aged []T
	// registered ages the List with the collections from its first Put.
	registered sync.Once
}

// Get removes and returns a value, and whether there was one: the most
// recently put of those put since the last collection, else of the older
// ones.
func (l *List[T]) Get() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := pop(&l.fresh); ok {
		return v, true
	}
	return pop(&l.aged)
}

// pop removes and returns the last value of s, and whether there was one.
func pop[T any](s *[]T) (T, bool) {
	var zero T
	n := len(*s)
	if n == 0 {
		return zero, false
	}
	v := (*s)[n-1]
	(*s)[n-1] = zero // no reference left behind for the collector
	*s = (*s)[:n-1]
	return v, true
}

// Put gives v back for a later Get.
func (l *List[T]) Put(v T) {
	// Registering takes the registry's lock, which afterGC holds while it
	// takes the List's: never the other way round.
	l.registered.Do(func() { register(agerOf[T]{weak.Make(l)}) })
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fresh = append(l.fresh, v)
}

// age drops the values that have now outlived two collections and marks
// the others as having outlived one.
func (l *List[T]) age() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.aged)
	l.aged, l.fresh = l.fresh, l.aged[:0]
}

// ager ages a List of any type while the List is reachable; the registry
// holds its Lists weakly, so that a List in an operator the program has
// dropped is collected with the operator.
type ager interface {
	// age ages the List and reports whether it is still reachable.
	age() bool
}

type agerOf[T any] struct{ list weak.Pointer[List[T]] }

func (a agerOf[T]) age() bool {
	l := a.list.Value()
	if l == nil {
		return false
	}
	l.age()
	return true
}

var (
	listsMu sync.Mutex
	lists   []ager
)

// register ages a's List after every collection while it is reachable.
func register(a ager) {
	listsMu.Lock()
	defer listsMu.Unlock()
	if len(lists) == 0 {
		arm()
	}
	lists = append(lists, a)
}

// arm runs afterGC once a fresh, unreachable object is collected, that is
// after the next collection. The object is 64 bytes so that it is not
// placed in a tiny-allocation block, whose cleanups may never run.
func arm() {
	runtime.AddCleanup(new([64]byte), func(struct{}) { afterGC() }, struct{}{})
}

// afterGC ages every reachable list, forgets the others, and arms itself
// for the next collection while any list is left.
func afterGC() {
	listsMu.Lock()
	defer listsMu.Unlock()
	kept := lists[:0]
	for _, a := range lists {
		if a.age() {
			kept = append(kept, a)
		}
	}
	clear(lists[len(kept):])
	lists = kept
	if len(lists) > 0 {
		arm()
	}
}
