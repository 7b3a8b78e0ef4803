package cuq

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// mixtureOf fits a fresh model of b on g for one epoch and returns its
// mixture weights Π.
func mixtureOf(t *testing.T, b *PostNetBuilder, g *graph.Graph, split graph.Split) *tensor.CSR {
	t.Helper()
	m, err := b.Done(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(split, MaxEpochs(1)); err != nil {
		t.Fatal(err)
	}
	return m.fam.(*postNet).ops.val.mixture.pi
}

// Models on one adjacency share one Π, whatever their other settings, and
// it is the Π a model derives alone; another propagation or pruning gets
// its own.
func TestLOPGPNModelsShareMixtureWeights(t *testing.T) {
	g, split := testenv.Split(t, datasets.CSBM(120, 3).Homophily(0.8).AvgDegree(4).Features(8).Seed(4).Done,
		graph.Stratified(0.2, 0.2, 0.6))
	first := mixtureOf(t, LOPGPN(), g, split)
	if got := mixtureOf(t, LOPGPN().Seed(9).Latent(8), g, split); got != first {
		t.Errorf("a second LOP-GPN on the same adjacency derived Π again")
	}
	loc, err := graph.LeaveOutClasses(g, split, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := mixtureOf(t, LOPGPN(), loc.Graph, loc.Split); got != first {
		t.Errorf("LOP-GPN on the leave-out-classes graph, which keeps the adjacency, derived Π again")
	}
	pi, err := graph.NewPPR(graph.RWNorm(g.Adj), 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	alone := tensor.DenseToCSR(pi.Dense())
	if !tensor.SameBits(first.Val, alone.Val) || len(first.Ind) != len(alone.Ind) {
		t.Errorf("the shared Π is not the one derived alone")
	}
	mix, err := newMixture(first)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mix.entropyOf(split.Train), mixtureEntropy(rowsOf(first, split.Train)); got != want {
		t.Errorf("the training rows' entropy from the cached row entropies is %v, from the rows %v", got, want)
	}
	if got := mixtureOf(t, LOPGPN().Prune(0.01), g, split); got == first || len(got.Val) >= len(first.Val) {
		t.Errorf("pruned LOP-GPN got the dense Π (%d entries, dense %d)", len(got.Val), len(first.Val))
	}
	if got := mixtureOf(t, LOPGPN().Propagation(10, 0.2), g, split); got == first {
		t.Errorf("LOP-GPN with teleport 0.2 got the Π of teleport 0.1")
	}
}

// csrOfSize returns a CSR matrix of n entries on one row.
func csrOfSize(n int) *tensor.CSR {
	ind := make([]int, n)
	for j := range ind {
		ind[j] = j
	}
	return &tensor.CSR{Rows: 1, Cols: n, Ptr: []int{0, n}, Ind: ind, Val: make([]float64, n)}
}

// mixtureOfSize returns a mixture whose Π has n entries on one row, 20·n
// + 32 bytes by mixture.bytes.
func mixtureOfSize(n int) *mixture { return &mixture{pi: csrOfSize(n)} }

func TestWeightCacheKeepsRecentWithinBudget(t *testing.T) {
	c := newWeightCache(2*(20*100+32) + 10) // two matrices of 100 entries
	adjs := []*tensor.CSR{csrOfSize(1), csrOfSize(1), csrOfSize(1)}
	derived := 0
	get := func(a *tensor.CSR, size int) *tensor.CSR {
		t.Helper()
		mix, err := c.get(a, 0.1, 10, 0, func() (*mixture, error) { derived++; return mixtureOfSize(size), nil })
		if err != nil {
			t.Fatal(err)
		}
		return mix.pi
	}
	p0 := get(adjs[0], 100)
	get(adjs[1], 100)
	if get(adjs[0], 100) != p0 || derived != 2 {
		t.Fatalf("after deriving two and asking for the first again: %d derivations, want 2", derived)
	}
	get(adjs[2], 100) // over budget: the least recently used, adjs[1], goes
	if derived != 3 || c.len() != 2 {
		t.Fatalf("third matrix: %d derivations and %d entries, want 3 and 2", derived, c.len())
	}
	get(adjs[0], 100)
	if derived != 3 {
		t.Errorf("the recently used first matrix was evicted")
	}
	get(adjs[1], 100)
	if derived != 4 {
		t.Errorf("the least recently used matrix was kept")
	}
	big := csrOfSize(1)
	if p := get(big, 1000); len(p.Val) != 1000 || c.len() != 2 {
		t.Errorf("a matrix over the whole budget: %d entries returned, %d kept, want 1000 and the 2 others", len(p.Val), c.len())
	}
	get(big, 1000)
	if derived != 6 {
		t.Errorf("a matrix over the whole budget was kept (%d derivations, want 6)", derived)
	}
	runtime.KeepAlive(adjs)
}

// Requests of one key at once derive it once; a failed derivation is
// not kept, and its error reaches the requests that waited for it.
func TestWeightCacheDerivesOnceAndForgetsFailures(t *testing.T) {
	c := newWeightCache(1 << 20)
	adj := csrOfSize(1)
	var calls atomic.Int32
	release := make(chan struct{})
	fail := errors.New("derivation failed")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[k] = c.get(adj, 0.1, 10, 0, func() (*mixture, error) {
				calls.Add(1)
				<-release
				return nil, fail
			})
		}()
	}
	for c.len() == 0 {
		runtime.Gosched()
	}
	time.Sleep(10 * time.Millisecond) // let the others reach the entry
	close(release)
	wg.Wait()
	if n := calls.Load(); n < 1 || n > 4 {
		t.Fatalf("%d derivations", n)
	}
	for k, err := range errs {
		if !errors.Is(err, fail) {
			t.Errorf("request %d: error %v, want the derivation's", k, err)
		}
	}
	if c.len() != 0 {
		t.Errorf("a failed derivation was kept")
	}
	mix, err := c.get(adj, 0.1, 10, 0, func() (*mixture, error) { return mixtureOfSize(3), nil })
	if err != nil || len(mix.pi.Val) != 3 {
		t.Errorf("after a failure: %v, %v; want the new derivation", mix, err)
	}

	var once atomic.Int32
	other := csrOfSize(1)
	for k := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[k] = c.get(other, 0.1, 10, 0, func() (*mixture, error) {
				once.Add(1)
				time.Sleep(20 * time.Millisecond)
				return mixtureOfSize(2), nil
			})
		}()
	}
	wg.Wait()
	if n := once.Load(); n != 1 {
		t.Errorf("four requests at once derived %d times, want 1", n)
	}
	runtime.KeepAlive(adj)
	runtime.KeepAlive(other)
}

// An entry goes with its adjacency: the cache does not keep a graph's Π
// once the graph is collected.
func TestWeightCacheForgetsCollectedAdjacencies(t *testing.T) {
	c := newWeightCache(1 << 20)
	func() {
		adj := csrOfSize(4)
		if _, err := c.get(adj, 0.1, 10, 0, func() (*mixture, error) { return mixtureOfSize(4), nil }); err != nil {
			t.Fatal(err)
		}
	}()
	for range 200 {
		if c.len() == 0 {
			return
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	t.Errorf("the entry of a collected adjacency is still kept")
}
