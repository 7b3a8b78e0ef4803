package cuq_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// stateOf returns the trained state of m.
func stateOf(t *testing.T, m *cuq.Model) cuq.State {
	t.Helper()
	s, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameState reports whether two states hold the same bits.
func sameState(a, b cuq.State) bool {
	eq := func(x, y [][]float64) bool { return slices.EqualFunc(x, y, tensor.SameBits) }
	return eq(a.Params, b.Params) && eq(a.Buffers, b.Buffers) && tensor.SameBits(a.LogPrior, b.LogPrior)
}

// fitShared fits c on split with the schedule quick through cache and
// returns its history.
func fitShared(t *testing.T, c cuq.Classifier, split graph.Split, cache *cuq.TrainingCache) *cuq.History {
	t.Helper()
	h, err := c.Fit(split, quick, cuq.ShareTrainings(cache))
	if err != nil {
		t.Fatalf("%s: %v", c.Name(), err)
	}
	return h
}

// The grid's models built on one GCN train it once: MC dropout, the
// post-hoc energy scores and an ensemble's first member take the GCN's
// training, to the bit, with its history; the ensemble's second member,
// another init, trains, and is the model that init trains alone.
func TestShareTrainingsAmongModelsOfOneGCN(t *testing.T) {
	g, split := smallGraph(t)
	alone := must(cuq.GCN().Done(g))
	aloneHist, _ := train(t, alone, split, quick)
	second := must(cuq.GCN().Init(2).Done(g))
	train(t, second, split, quick)

	cache := cuq.NewTrainingCache(1 << 30)
	gcn := must(cuq.GCN().Done(g))
	if h := fitShared(t, gcn, split, cache); h.Shared {
		t.Fatal("the first Fit of a training reports it shared")
	}
	mcd := must(cuq.MCDropoutGCN().Done(g))
	energy := must(cuq.GEBM(cuq.GCN()).Done(g))
	ensemble := must(cuq.Ensemble(cuq.GCN(), 2).Done(g))
	for _, c := range []struct {
		model cuq.Classifier
		base  *cuq.Model
	}{{mcd, mcd}, {energy, energy.Base().(*cuq.Model)}} {
		h := fitShared(t, c.model, split, cache)
		if !h.Shared || h.BestEpoch != aloneHist.BestEpoch || len(h.Epochs) != len(aloneHist.Epochs) || h.Stopped != aloneHist.Stopped {
			t.Errorf("%s: shared %v, best epoch %d of %d (%q); the GCN alone: %d of %d (%q)", c.model.Name(), h.Shared,
				h.BestEpoch, len(h.Epochs), h.Stopped, aloneHist.BestEpoch, len(aloneHist.Epochs), aloneHist.Stopped)
		}
		if !sameState(stateOf(t, c.base), stateOf(t, alone)) {
			t.Errorf("%s: the shared state differs from the GCN trained alone", c.model.Name())
		}
	}
	h := fitShared(t, ensemble, split, cache)
	if h.Shared || !h.Members[0].Shared || h.Members[1].Shared {
		t.Errorf("ensemble shared %v, members %v and %v; want false, true, false", h.Shared, h.Members[0].Shared, h.Members[1].Shared)
	}
	for k, want := range []*cuq.Model{alone, second} {
		if !sameState(stateOf(t, ensemble.Members()[k]), stateOf(t, want)) {
			t.Errorf("ensemble member %d differs from init %d trained alone", k+1, k+1)
		}
	}
	if n := cache.Len(); n != 2 {
		t.Errorf("the cache holds %d trainings, want 2 (the GCN's inits 1 and 2)", n)
	}
	// What MC dropout samples at prediction is not part of training, but
	// the prediction still is MC dropout's.
	if p := predict(t, mcd); p.AU == nil {
		t.Error("the MC-dropout GCN that shared its training predicts without AU")
	}
}

// A model that trains otherwise does not share: another DropEdge rate,
// dropout, init, schedule, split or graph each trains anew, as do a second
// Fit of a trained model and a model whose parameters were changed.
func TestShareTrainingsKeepsOtherTrainingsApart(t *testing.T) {
	g, split := smallGraph(t)
	cache := cuq.NewTrainingCache(1 << 30)
	fitShared(t, must(cuq.GCN().Done(g)), split, cache)
	fitShared(t, must(cuq.DropEdgeGCN().Done(g)), split, cache)

	other := split
	other.Train, other.Test = split.Train[1:], slices.Sorted(slices.Values(append(slices.Clone(split.Test), split.Train[0])))
	changed := *g
	features := g.Features.(*tensor.Dense).Clone()
	features.Data[0] += 1
	changed.Features = features
	cases := map[string]struct {
		model cuq.Classifier
		split graph.Split
		opts  []cuq.FitOption
	}{
		"DropEdge, another rate": {must(cuq.DropEdgeGCN().DropEdge(0.2, 20).Done(g)), split, nil},
		"dropout":                {must(cuq.GCN().Conv(cuq.GCNConv(64).Dropout(0.4)).Done(g)), split, nil},
		"init":                   {must(cuq.GCN().Init(3).Done(g)), split, nil},
		"schedule":               {must(cuq.GCN().Done(g)), split, []cuq.FitOption{cuq.MaxEpochs(20)}},
		"split":                  {must(cuq.GCN().Done(g)), other, nil},
		"one feature":            {must(cuq.GCN().Done(&changed)), split, nil},
	}
	for name, c := range cases {
		h, err := c.model.Fit(c.split, append([]cuq.FitOption{quick, cuq.ShareTrainings(cache)}, c.opts...)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Shared {
			t.Errorf("%s: shared the training of another model", name)
		}
	}
	again := must(cuq.GCN().Done(g))
	fitShared(t, again, split, cache)
	if h := fitShared(t, again, split, cache); h.Shared {
		t.Error("a second Fit of a trained model took the cache's training instead of training on")
	}
	edited := must(cuq.GCN().Done(g))
	_, others := edited.Parameters()
	others[0].Data.Data[0] += 0.5
	if h := fitShared(t, edited, split, cache); h.Shared {
		t.Error("a model whose parameters were changed before Fit shared the training of the unchanged one")
	}
	if n := cache.Len(); n != 3+len(cases) {
		t.Errorf("the cache holds %d trainings, want %d", n, 3+len(cases))
	}
}

// Fits of one training at once train it once; a failed training leaves
// nothing behind, and a cache over its budget forgets its least recently
// used training (a budget of 1 byte keeps only the most recent).
func TestTrainingCacheConcurrencyFailureAndCapacity(t *testing.T) {
	g, split := smallGraph(t)
	cache := cuq.NewTrainingCache(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := must(cuq.GCN().Done(g)).Fit(split, quick, cuq.ShareTrainings(cache), cuq.WithContext(ctx)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit with a cancelled context: %v", err)
	}
	if n := cache.Len(); n != 0 {
		t.Fatalf("a failed training left %d trainings in the cache", n)
	}

	models := []*cuq.Model{must(cuq.GCN().Done(g)), must(cuq.GCN().Done(g)), must(cuq.GCN().Done(g))}
	shared := make([]bool, len(models))
	var wg sync.WaitGroup
	for k, m := range models {
		wg.Go(func() {
			h, err := m.Fit(split, quick, cuq.ShareTrainings(cache))
			if err != nil {
				t.Error(err)
				return
			}
			shared[k] = h.Shared
		})
	}
	wg.Wait()
	if n := len(slices.DeleteFunc(slices.Clone(shared), func(s bool) bool { return s })); n != 1 {
		t.Errorf("%d of %d concurrent Fits trained (shared: %v), want 1", n, len(models), shared)
	}
	for k := 1; k < len(models); k++ {
		if !sameState(stateOf(t, models[k]), stateOf(t, models[0])) {
			t.Errorf("concurrent Fit %d holds other bits than Fit 1", k+1)
		}
	}

	fitShared(t, must(cuq.GCN().Init(2).Done(g)), split, cache)
	if h := fitShared(t, must(cuq.GCN().Done(g)), split, cache); h.Shared {
		t.Error("a cache of 1 byte kept init 1's training after init 2's")
	}
	if n := cache.Len(); n != 1 {
		t.Errorf("a cache of 1 byte holds %d trainings", n)
	}
}
