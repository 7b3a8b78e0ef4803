package cuq

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/internal/digest"
)

// A TrainingCache lets models that train alike share one training. Fit
// with ShareTrainings(c) trains a fresh model only if no model with the
// same training has been fitted through c: otherwise it gives the model the
// trained State of the first (Model.SetState) and a copy of its History,
// marked Shared, without running an epoch. A model that can share is then
// bit for bit the model it would have been after training.
//
// Two trainings are the same when the models' configurations agree in
// everything that training reads (Model.Fit): the family and its layers,
// dropout, seeding, the DropEdge rate, the resolved Schedule, the initial
// parameters, and the contents of the graph and of the split's training
// and validation nodes. Names and what only prediction reads (MC
// dropout's and DropEdge's numbers of samples, say) do not count, so the
// grid's GCN, MC-Dropout-GCN, the post-hoc energy scores on a GCN and the
// first member of Ensemble-GCN train once per split and init. Only the
// key, a SHA-256 digest of all of this, decides; computing it reads the
// graph's features and adjacency once per Fit. A model fitted, stepped or
// given a state before (whose training goes on from there) trains as
// without a cache.
//
// Fits of the same training running at once wait for the first, which
// trains; if it fails, the next one trains. A TrainingCache keeps the most
// recently used trainings whose states and histories fit in its budget of
// memory, and is safe for concurrent use.
type TrainingCache struct {
	mu      sync.Mutex
	budget  int64 // bytes
	tick    uint64
	entries map[[sha256.Size]byte]*sharedTraining
}

// sharedTraining is one training of a TrainingCache: running until done is
// closed, then holding its outcome.
type sharedTraining struct {
	done  chan struct{}
	ok    bool // trained: state and hist are set
	state State
	hist  *History
	used  uint64 // the cache's tick when last used
	bytes int64  // the memory of state and hist
}

// NewTrainingCache returns a TrainingCache that keeps trainings of up to
// budget bytes in all (their parameters, buffers and histories), and at
// least the most recent one.
func NewTrainingCache(budget int64) *TrainingCache {
	return &TrainingCache{budget: budget, entries: map[[sha256.Size]byte]*sharedTraining{}}
}

// ShareTrainings makes Fit share trainings through c (see TrainingCache). A
// committee and an energy model pass it on to their members and their
// base. A Fit that shares reports no epochs to OnEpoch. nil changes nothing.
func ShareTrainings(c *TrainingCache) FitOption {
	return fitOptionFunc(func(o *fitOptions) { o.share = c })
}

// Len returns the number of trainings c holds.
func (c *TrainingCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.entries {
		if e.ok {
			n++
		}
	}
	return n
}

// fit runs train for m under key, or gives m the training already done
// under key.
func (c *TrainingCache) fit(ctx context.Context, key [sha256.Size]byte, m *Model, train func() (*History, error)) (*History, error) {
	for {
		c.mu.Lock()
		e, found := c.entries[key]
		if !found {
			e = &sharedTraining{done: make(chan struct{})}
			c.entries[key] = e
			c.touch(e)
			c.mu.Unlock()
			return c.own(key, e, m, train)
		}
		c.touch(e)
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !e.ok { // the training failed: the next Fit trains
			c.mu.Lock()
			c.drop(key, e)
			c.mu.Unlock()
			continue
		}
		if err := m.SetState(e.state); err != nil {
			return nil, fmt.Errorf("cuq: %s: a shared training does not fit: %w", m.name, err)
		}
		h := *e.hist
		h.Epochs, h.Shared = slices.Clone(h.Epochs), true
		return &h, nil
	}
}

// own trains m as the first Fit of key and stores the outcome, or drops
// the entry when training fails.
func (c *TrainingCache) own(key [sha256.Size]byte, e *sharedTraining, m *Model, train func() (*History, error)) (*History, error) {
	defer close(e.done)
	hist, err := train()
	var state State
	if err == nil {
		state, err = m.State()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.drop(key, e)
		return hist, err
	}
	h := *hist
	h.Epochs = slices.Clone(hist.Epochs)
	e.state, e.hist, e.ok = state, &h, true
	e.bytes = int64(len(h.Epochs)) * int64(unsafe.Sizeof(EpochStats{}))
	for _, part := range [][][]float64{state.Params, state.Buffers, {state.LogPrior}} {
		for _, v := range part {
			e.bytes += 8 * int64(len(v))
		}
	}
	c.evict()
	return hist, nil
}

// drop removes the unfinished entry e of key, unless another has taken its
// place; c.mu is held.
func (c *TrainingCache) drop(key [sha256.Size]byte, e *sharedTraining) {
	if c.entries[key] == e {
		delete(c.entries, key)
	}
}

// touch marks e as used now; c.mu is held.
func (c *TrainingCache) touch(e *sharedTraining) {
	c.tick++
	e.used = c.tick
}

// evict drops the least recently used finished trainings while they take
// more than the budget, keeping the most recent; c.mu is held.
func (c *TrainingCache) evict() {
	for {
		var oldest [sha256.Size]byte
		finished, found, total := 0, false, int64(0)
		for k, e := range c.entries {
			if !e.ok {
				continue
			}
			finished, total = finished+1, total+e.bytes
			if !found || e.used < c.entries[oldest].used {
				oldest, found = k, true
			}
		}
		if total <= c.budget || finished <= 1 {
			return
		}
		delete(c.entries, oldest)
	}
}

// trainingKey is the digest of everything the Fit of a fresh model m on
// split with schedule s reads: m's recipe (see config.recipe), its
// parameters' and buffers' values (changed, perhaps, through
// Model.Parameters), its graph's contents, and the split's training and
// validation nodes. The random streams are the recipe's seeding's, since a
// fresh model has drawn nothing from them.
func (m *Model) trainingKey(split graph.Split, s Schedule) [sha256.Size]byte {
	flows, others := m.fam.params()
	return digest.Sum(m.recipe, s, snapshot(append(flows, others...)), snapshot(m.buffers()), m.g, split.Train, split.Val)
}

// recipe returns the digest of what training reads of c for a model of
// family fam: everything but the name, the schedule (Fit resolves its own)
// and what only prediction reads, MC dropout's samples and DropEdge's.
func (c *config) recipe(fam family) [sha256.Size]byte {
	r := *c
	r.name, r.schedule, r.newFamily = "", Schedule{}, nil
	r.sampling = sampling{}
	if c.sampling.kind == dropEdge && c.sampling.p > 0 {
		r.sampling = sampling{kind: dropEdge, p: c.sampling.p}
	}
	return digest.Sum(fmt.Sprintf("%T", fam), r)
}
