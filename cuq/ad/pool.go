package ad

import (
	"sync"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Pool keeps the storage of the matrices that tapes released, for the next
// tapes that need matrices of the same sizes: the epochs of a training run
// and its evaluation passes build the same ops on the same shapes, so from
// the second epoch on their values and gradients reuse memory instead of
// having the runtime allocate, zero and collect it. It keeps the
// decisions of Dropout the same way. Storage of a size that the last
// poolAge releases did not use is dropped, so that passes over other
// graphs do not make the pool grow. A Pool is safe for concurrent use.
type Pool struct {
	mu      sync.Mutex
	free    map[int]*freeList[float64] // matrix storage, by length
	masks   map[int]*freeList[uint8]   // dropout decisions, by length
	release int                        // releases so far
}

// freeList holds unused storage of one length and the release that last
// used that length.
type freeList[T any] struct {
	data [][]T
	used int
}

// poolAge is the number of releases after which the pool drops storage of
// a length no tape has asked for.
const poolAge = 8

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{free: map[int]*freeList[float64]{}, masks: map[int]*freeList[uint8]{}}
}

// get returns a rows×cols matrix from the pool, or a new one; the
// contents of a recycled matrix are whatever it last held.
func (p *Pool) get(rows, cols int) *tensor.Dense {
	p.mu.Lock()
	data := take(p.free, rows*cols, p.release)
	p.mu.Unlock()
	if data == nil {
		return tensor.New(rows, cols)
	}
	return &tensor.Dense{Rows: rows, Cols: cols, Data: data}
}

// getMask returns n bytes from the pool, or new ones; the contents of
// recycled bytes are whatever they last held.
func (p *Pool) getMask(n int) []uint8 {
	p.mu.Lock()
	m := take(p.masks, n, p.release)
	p.mu.Unlock()
	if m == nil {
		m = make([]uint8, n)
	}
	return m
}

// put returns the storage of the matrices ds and the masks ms to the pool,
// then drops the storage of lengths unused for poolAge releases.
func (p *Pool) put(ds []*tensor.Dense, ms [][]uint8) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release++
	for _, d := range ds {
		give(p.free, d.Data, p.release)
	}
	for _, m := range ms {
		give(p.masks, m, p.release)
	}
	age(p.free, p.release)
	age(p.masks, p.release)
}

// take removes and returns a slice of length n from lists, or nil when
// there is none, and marks the length used at release.
func take[T any](lists map[int]*freeList[T], n, release int) []T {
	l := lists[n]
	if l == nil {
		return nil
	}
	l.used = release
	k := len(l.data)
	if k == 0 {
		return nil
	}
	s := l.data[k-1]
	l.data[k-1] = nil
	l.data = l.data[:k-1]
	return s
}

// give adds s to lists, marking its length used at release.
func give[T any](lists map[int]*freeList[T], s []T, release int) {
	n := len(s)
	if n == 0 {
		return
	}
	l := lists[n]
	if l == nil {
		l = &freeList[T]{}
		lists[n] = l
	}
	l.data, l.used = append(l.data, s), release
}

// age drops the lists whose length no release since release − poolAge
// used.
func age[T any](lists map[int]*freeList[T], release int) {
	for n, l := range lists {
		if release-l.used > poolAge {
			delete(lists, n)
		}
	}
}
