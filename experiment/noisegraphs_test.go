package experiment

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"weak"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// The jobs of a split share its feature-noise graphs: a second request
// gets the graph the first built, which is the one graph.PerturbFeatures
// builds; another split, noise or graph gets its own; concurrent requests
// build once; only the noiseGraphsKept most recently used stay, and a
// graph that is gone takes its entries with it.
func TestPerturbedFeaturesAreShared(t *testing.T) {
	d := tinyDataset(t, "noise")
	s1, err := d.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := d.Split(2)
	if err != nil {
		t.Fatal(err)
	}
	get := func(g *graph.Graph, s graph.Split, noise graph.Noise) *graph.Perturbed {
		t.Helper()
		p, err := perturbedFeatures(g, s, noise, NoiseBudget, NoiseSeed)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	first := get(d.Graph, s1, graph.Gaussian)
	if again := get(d.Graph, s1, graph.Gaussian); again != first {
		t.Error("a second request for the same perturbation built it again")
	}
	alone, err := graph.PerturbFeatures(d.Graph, s1, graph.Gaussian, NoiseBudget, NoiseSeed)
	if err != nil {
		t.Fatal(err)
	}
	want, got := denseOf(alone.Graph.Features), denseOf(first.Graph.Features)
	for i := range want.Data {
		if math.Float64bits(want.Data[i]) != math.Float64bits(got.Data[i]) {
			t.Fatalf("shared perturbed feature %d = %v, built alone %v", i, got.Data[i], want.Data[i])
		}
	}
	if !slices.Equal(alone.OODTest, first.OODTest) || !slices.Equal(alone.IDTest, first.IDTest) {
		t.Error("the shared perturbation's OOD nodes differ from those built alone")
	}
	if get(d.Graph, s2, graph.Gaussian) == first || get(d.Graph, s1, graph.Bernoulli) == first {
		t.Error("another split or noise was given the same perturbed graph")
	}

	other := tinyDataset(t, "other")
	var wg sync.WaitGroup
	results := make([]*graph.Perturbed, 4)
	for i := range results {
		wg.Go(func() { results[i] = get(other.Graph, s1, graph.Gaussian) })
	}
	wg.Wait()
	for _, p := range results[1:] {
		if p != results[0] {
			t.Fatal("concurrent requests built the perturbation more than once")
		}
	}

	// A fifth perturbation pushes out the least recently used, first.
	get(other.Graph, s2, graph.Gaussian)
	if get(d.Graph, s1, graph.Gaussian) == first {
		t.Errorf("more than %d perturbed graphs kept", noiseGraphsKept)
	}

	gone := tinyDataset(t, "gone")
	get(gone.Graph, s1, graph.Gaussian)
	w := weak.Make(gone.Graph)
	gone = nil
	runtime.GC()
	if w.Value() != nil {
		t.Fatal("the cache keeps a graph alive")
	}
	get(d.Graph, s2, graph.Bernoulli)
	noiseGraphs.mu.Lock()
	defer noiseGraphs.mu.Unlock()
	for _, e := range noiseGraphs.entries {
		if e.key.graph == w {
			t.Error("an entry whose graph is gone is still kept")
		}
	}
}

// denseOf returns the entries of m, as the product of m by the identity.
func denseOf(m tensor.Matrix) *tensor.Dense {
	r, c := m.Dims()
	eye := tensor.New(c, c)
	for j := 0; j < c; j++ {
		eye.Data[j*c+j] = 1
	}
	out := tensor.New(r, c)
	m.MulTo(out, eye)
	return out
}
