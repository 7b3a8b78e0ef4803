package ad

import (
	"sync"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Pool keeps the storage of the matrices that tapes released, for the next
// tapes that need matrices of the same sizes: the epochs of a training run
// and its evaluation passes build the same ops on the same shapes, so from
// the second epoch on their values and gradients reuse memory instead of
// having the runtime allocate, zero and collect it. Storage of a size that
// the last poolAge releases did not use is dropped, so that passes over
// other graphs do not make the pool grow. A Pool is safe for concurrent
// use.
type Pool struct {
	mu      sync.Mutex
	free    map[int]*freeList // by length
	release int               // releases so far
}

// freeList holds unused storage of one length and the release that last
// used that length.
type freeList struct {
	data [][]float64
	used int
}

// poolAge is the number of releases after which the pool drops storage of
// a length no tape has asked for.
const poolAge = 8

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{free: map[int]*freeList{}} }

// get returns a rows×cols matrix from the pool, or a new one; the
// contents of a recycled matrix are whatever it last held.
func (p *Pool) get(rows, cols int) *tensor.Dense {
	n := rows * cols
	p.mu.Lock()
	var data []float64
	if l := p.free[n]; l != nil {
		l.used = p.release
		if k := len(l.data); k > 0 {
			data, l.data[k-1] = l.data[k-1], nil
			l.data = l.data[:k-1]
		}
	}
	p.mu.Unlock()
	if data == nil {
		return tensor.New(rows, cols)
	}
	return &tensor.Dense{Rows: rows, Cols: cols, Data: data}
}

// put returns the storage of the matrices ds to the pool, then drops the
// storage of lengths unused for poolAge releases.
func (p *Pool) put(ds []*tensor.Dense) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release++
	for _, d := range ds {
		n := len(d.Data)
		if n == 0 {
			continue
		}
		l := p.free[n]
		if l == nil {
			l = &freeList{}
			p.free[n] = l
		}
		l.data, l.used = append(l.data, d.Data), p.release
	}
	for n, l := range p.free {
		if p.release-l.used > poolAge {
			delete(p.free, n)
		}
	}
}
