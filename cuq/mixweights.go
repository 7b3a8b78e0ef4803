package cuq

import (
	"runtime"
	"sync"
	"weak"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// LOP-GPN's mixture weights Π = Σₖ t(1−t)ᵏ Âᵏ (K steps over the
// random-walk adjacency) depend on the graph's adjacency and the
// propagation's settings only, yet each model derives its own. Without
// pruning Π is a dense N × N matrix: on CoraML its derivation (K sparse
// products with N columns, then 9 M entries copied into a CSR matrix)
// takes about a fifth of a LOP-GPN job. The models of a grid (every
// split and init, and the leave-out-classes graph, which keeps the
// adjacency) therefore share one Π per adjacency through mixtureWeights.

// mixture is linear pooling's mixture weights Π: the matrix, and the same
// arrays as the validated weights of the N mixtures, with each row's
// entropy, which every prediction's EU_SO reads.
type mixture struct {
	pi      *tensor.CSR
	weights *uq.MixtureWeights
}

// newMixture validates pi as the weights of N mixtures over its columns.
func newMixture(pi *tensor.CSR) (*mixture, error) {
	w, err := uq.NewMixtureWeights(pi.Ptr, pi.Ind, pi.Val, pi.Cols)
	if err != nil {
		return nil, err
	}
	return &mixture{pi, w}, nil
}

// entropyOf returns Σᵢ H_cat(Πᵢ) over the given rows, summed in their
// order: LOP-GPN's loss subtracts it for the training rows.
func (m *mixture) entropyOf(rows []int) float64 {
	h := 0.0
	for _, i := range rows {
		h += m.weights.RowEntropy(i)
	}
	return h
}

// mixtureBudget is the memory mixtureWeights keeps after the models that
// used it are gone: CoraML's and CiteSeer's dense Π (0.2 and 0.4 GB), not
// PubMed's (9 GB), which stays with its model.
const mixtureBudget = 1 << 30

// mixtureWeights is the process's cache of mixture weights.
var mixtureWeights = newWeightCache(mixtureBudget)

// weightKey names one Π: the adjacency, held weakly so that the cache
// does not keep a graph alive, and the propagation's settings.
type weightKey struct {
	adj      weak.Pointer[tensor.CSR]
	teleport float64
	steps    int
	pruneAt  float64
}

// weightEntry is one Π of a weightCache: being derived until ready is
// closed, then holding the mixture (nil when the derivation failed).
type weightEntry struct {
	ready chan struct{}
	mix   *mixture
	err   error
	bytes int64
	used  uint64
}

// weightCache keeps derived mixture weights by adjacency, the most
// recently used within budget bytes; an entry goes when its adjacency is
// collected. It is safe for concurrent use: derivations of one key running
// at once wait for the first.
type weightCache struct {
	mu      sync.Mutex
	budget  int64
	tick    uint64
	entries map[weightKey]*weightEntry
}

func newWeightCache(budget int64) *weightCache {
	return &weightCache{budget: budget, entries: map[weightKey]*weightEntry{}}
}

// get returns the Π of adj with the given settings, calling derive on the
// first request. A failed derivation is not kept: its error goes to the
// requests that waited for it, and the next request derives again.
func (c *weightCache) get(adj *tensor.CSR, teleport float64, steps int, pruneAt float64, derive func() (*mixture, error)) (*mixture, error) {
	key := weightKey{weak.Make(adj), teleport, steps, pruneAt}
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.tick++
		e.used = c.tick
		c.mu.Unlock()
		<-e.ready
		return e.mix, e.err
	}
	e := &weightEntry{ready: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()
	runtime.AddCleanup(adj, c.forget, key)

	e.mix, e.err = derive()
	c.mu.Lock()
	if e.err != nil {
		delete(c.entries, key)
	} else {
		c.tick++
		e.used, e.bytes = c.tick, e.mix.bytes()
		c.evict(key)
	}
	c.mu.Unlock()
	close(e.ready)
	return e.mix, e.err
}

// evict makes room for the entry of key, just derived: it drops that entry
// if it alone exceeds the budget, else the least recently used others
// while the entries do. The caller holds c.mu.
func (c *weightCache) evict(key weightKey) {
	if c.entries[key].bytes > c.budget {
		delete(c.entries, key)
		return
	}
	total := int64(0)
	for _, e := range c.entries {
		total += e.bytes
	}
	for total > c.budget {
		var oldest weightKey
		for k, e := range c.entries {
			if k != key && e.bytes > 0 && (oldest == (weightKey{}) || e.used < c.entries[oldest].used) {
				oldest = k
			}
		}
		total -= c.entries[oldest].bytes
		delete(c.entries, oldest)
	}
}

// forget drops the entry of an adjacency that has been collected.
func (c *weightCache) forget(key weightKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}

// len returns the number of entries derived or being derived.
func (c *weightCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// bytes is the memory of the mixture's arrays, with the 32-bit copy of
// Π's column indices that its products build and the rows' entropies.
func (m *mixture) bytes() int64 {
	return int64(16*len(m.pi.Ptr) + 12*len(m.pi.Ind) + 8*len(m.pi.Val))
}
