package experiment

import (
	"slices"
	"sync"
	"weak"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// The feature-noise settings evaluate every model of a split on the same
// two perturbed graphs: graph.PerturbFeatures depends on the graph, the
// split, the noise, the budget and the seed, not on the model. Each job
// built them again, about 3% of the CoraML and CiteSeer grid, so the jobs
// now share them through noiseGraphs. runOrder runs a split's models
// together, so that a few graphs kept suffice.

// noiseGraphsKept is the number of perturbed graphs noiseGraphs keeps,
// the most recently used: both noises of the splits that two workers
// may be running at once.
const noiseGraphsKept = 4

// noiseKey names a perturbation but for its split, which noiseEntry
// holds: the clean graph, held weakly so that the cache does not keep a
// dataset alive, and the noise's parameters.
type noiseKey struct {
	graph  weak.Pointer[graph.Graph]
	noise  graph.Noise
	budget float64
	seed   uint64
}

// noiseEntry is one perturbed graph of noiseGraphs, built once by the
// first job that asks for it while the others wait.
type noiseEntry struct {
	key   noiseKey
	split graph.Split
	once  sync.Once
	p     *graph.Perturbed
	err   error
}

// noiseGraphs is the process's cache of feature-noise graphs, least
// recently used first.
var noiseGraphs struct {
	mu      sync.Mutex
	entries []*noiseEntry
}

// perturbedFeatures returns graph.PerturbFeatures(g, s, noise, budget,
// seed), built once for all the jobs that ask for it while it is among
// the noiseGraphsKept most recently used. The result is shared: callers
// must not modify it.
func perturbedFeatures(g *graph.Graph, s graph.Split, noise graph.Noise, budget float64, seed uint64) (*graph.Perturbed, error) {
	key := noiseKey{weak.Make(g), noise, budget, seed}
	noiseGraphs.mu.Lock()
	var hit *noiseEntry
	kept := make([]*noiseEntry, 0, noiseGraphsKept+1)
	for _, e := range noiseGraphs.entries {
		switch {
		case e.key.graph.Value() == nil: // its graph is gone
		case hit == nil && e.key == key && sameSplit(e.split, s):
			hit = e
		default:
			kept = append(kept, e)
		}
	}
	if hit == nil {
		hit = &noiseEntry{key: key, split: s}
	}
	kept = append(kept, hit)
	noiseGraphs.entries = kept[max(0, len(kept)-noiseGraphsKept):]
	noiseGraphs.mu.Unlock()
	hit.once.Do(func() { hit.p, hit.err = graph.PerturbFeatures(g, s, noise, budget, seed) })
	return hit.p, hit.err
}

// sameSplit reports whether a and b hold the same nodes in the same order.
func sameSplit(a, b graph.Split) bool {
	return slices.Equal(a.Train, b.Train) && slices.Equal(a.Val, b.Val) && slices.Equal(a.Test, b.Test) && slices.Equal(a.Unused, b.Unused)
}
