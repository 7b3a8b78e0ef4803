package datasets_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// edgeHomophily returns the fraction of stored edges joining equal labels.
func edgeHomophily(g *graph.Graph) float64 {
	same := 0
	for i := range g.N {
		for k := g.Adj.Ptr[i]; k < g.Adj.Ptr[i+1]; k++ {
			if g.Labels[g.Adj.Ind[k]] == g.Labels[i] {
				same++
			}
		}
	}
	return float64(same) / float64(g.NumEdges())
}

// centroidAccuracy classifies every node by the nearest class mean of the
// features, the simplest measure of how much class signal they carry.
func centroidAccuracy(g *graph.Graph) float64 {
	x := toDense(g.Features)
	mean := tensor.New(g.NumClasses, x.Cols)
	count := make([]float64, g.NumClasses)
	for i, y := range g.Labels {
		count[y]++
		for j, v := range x.Row(i) {
			mean.Data[y*x.Cols+j] += v
		}
	}
	for c := range g.NumClasses {
		for j := range x.Cols {
			mean.Data[c*x.Cols+j] /= count[c]
		}
	}
	correct := 0
	for i, y := range g.Labels {
		best, arg := math.Inf(1), -1
		for c := range g.NumClasses {
			d := 0.0
			for j, v := range x.Row(i) {
				d += (v - mean.At(c, j)) * (v - mean.At(c, j))
			}
			if d < best {
				best, arg = d, c
			}
		}
		if arg == y {
			correct++
		}
	}
	return float64(correct) / float64(g.N)
}

func TestCSBM(t *testing.T) {
	for _, h := range []float64{0.1, 0.5, 0.9} {
		g, err := datasets.CSBM(2000, 4).Homophily(h).AvgDegree(10).Features(8).Seed(3).Done()
		if err != nil {
			t.Fatal(err)
		}
		if g.N != 2000 || g.NumClasses != 4 || g.NumFeatures() != 8 {
			t.Fatalf("N %d C %d F %d", g.N, g.NumClasses, g.NumFeatures())
		}
		checkSymmetric(t, g)
		// 10000 sampled pairs; a few coincide.
		if e := g.NumEdges(); e > 20000 || e < 19500 {
			t.Errorf("h=%v: %d stored edges, want about 2·N·d/2 = 20000", h, e)
		}
		if got := edgeHomophily(g); math.Abs(got-h) > 0.02 {
			t.Errorf("edge homophily %.3f, want %.2f", got, h)
		}
		for c, n := range g.ClassCounts(nil) {
			if n != 500 {
				t.Errorf("class %d has %d nodes, want 500", c, n)
			}
		}
	}
	// Feature signal 0 leaves the nearest-mean classifier near chance
	// (1/4, plus overfitting of 8 dimensions on 500 nodes per class);
	// signal 4 separates the classes.
	noise, _ := datasets.CSBM(2000, 4).FeatureSignal(0).Features(8).Done()
	clear, _ := datasets.CSBM(2000, 4).FeatureSignal(4).Features(8).Done()
	if a, b := centroidAccuracy(noise), centroidAccuracy(clear); a > 0.32 || b < 0.9 {
		t.Errorf("nearest-mean accuracy %.3f without signal, %.3f with; want ≈0.25 and > 0.9", a, b)
	}
}

func TestCSBMBagOfWords(t *testing.T) {
	const words, s = 30, 0.6
	g, err := datasets.CSBM(1000, 5).Features(500).BagOfWords(words).FeatureSignal(s).Done()
	if err != nil {
		t.Fatal(err)
	}
	x, ok := g.Features.(*tensor.CSR)
	if !ok {
		t.Fatalf("bag-of-words features stored as %T", g.Features)
	}
	// Class c's topic is words [100c, 100c+100). A word occurrence lies in
	// the own topic with probability s + (1−s)/5 = 0.68 (counting distinct
	// words only lowers it slightly, as topic words repeat more).
	own := 0
	for i, y := range g.Labels {
		for k := x.Ptr[i]; k < x.Ptr[i+1]; k++ {
			if x.Ind[k]/100 == y {
				own++
			}
			if x.Val[k] != 1 {
				t.Fatalf("x[%d][%d] = %v, want 1", i, x.Ind[k], x.Val[k])
			}
		}
	}
	if frac := float64(own) / float64(x.NNZ()); frac < 0.62 || frac > 0.69 {
		t.Errorf("own-topic fraction %.3f, want just under 0.68", frac)
	}
	if x.NNZ() > 1000*words || x.NNZ() < 1000*words*9/10 {
		t.Errorf("%d non-zeros for %d draws", x.NNZ(), 1000*words)
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	a, _ := datasets.CSBM(300, 3).Seed(7).Done()
	b, _ := datasets.CSBM(300, 3).Seed(7).Done()
	c, _ := datasets.CSBM(300, 3).Seed(8).Done()
	same := func(g, h *graph.Graph) bool {
		return slices.Equal(g.Adj.Ind, h.Adj.Ind) && slices.Equal(toDense(g.Features).Data, toDense(h.Features).Data)
	}
	if !same(a, b) || same(a, c) {
		t.Error("the same seed must give the same graph and another seed another graph")
	}
}

func TestSyntheticErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		done func() (*graph.Graph, error)
		want string
	}{
		{"homophily", datasets.CSBM(100, 2).Homophily(1.5).Done, "datasets.CSBM: homophily 1.5 outside [0, 1]"},
		{"NaN homophily", datasets.CSBM(100, 2).Homophily(math.NaN()).Done, "homophily NaN"},
		{"tiny classes", datasets.CSBM(5, 3).Done, "5 nodes in 3 classes"},
		{"one class", datasets.CSBM(10, 1).Done, "with a single class"},
		{"degree", datasets.CSBM(10, 2).AvgDegree(6).Done, "average degree 6 outside"},
		{"features", datasets.CSBM(100, 2).Features(0).Done, "0 features"},
		{"signal", datasets.CSBM(100, 2).FeatureSignal(-1).Done, "feature signal -1"},
		{"bow signal", datasets.CSBM(100, 2).BagOfWords(5).FeatureSignal(2).Done, "bag-of-words feature signal 2, want a probability"},
		{"bow words", datasets.CSBM(100, 2).BagOfWords(0).Done, "0 words per node"},
		{"lattice size", datasets.Lattice(0, 3).Done, "datasets.Lattice: 0x3 grid"},
		{"lattice overflow", datasets.Lattice(1<<40, 1<<40).Done, "grid exceeds 2^31 nodes"},
		{"lattice classes", datasets.Lattice(2, 2).Classes(5).Done, "5 classes on 4 cells"},
		{"ba m", datasets.BarabasiAlbert(3, 3).Done, "datasets.BarabasiAlbert: 3 nodes with 3 edges per new node"},
		{"ba classes", datasets.BarabasiAlbert(10, 1).Classes(0).Done, "0 classes for 10 nodes"},
		{"ba many classes", datasets.BarabasiAlbert(10, 1).Classes(1 << 50).Done, "classes for 10 nodes, want 1 to 10"},
		// With homophily 1 new nodes copy the clique classes 0 and 1 only.
		{"ba empty class", datasets.BarabasiAlbert(6, 1).Classes(6).Homophily(1).Done, "has no nodes; use more nodes or fewer classes"},
	} {
		if _, err := c.done(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestLattice(t *testing.T) {
	g, err := datasets.Lattice(3, 4).Classes(3).Features(5).Done()
	if err != nil {
		t.Fatal(err)
	}
	// A 3×4 grid has 3·3 horizontal and 2·4 vertical edges.
	if g.N != 12 || g.NumEdges() != 2*17 || g.NumFeatures() != 5 {
		t.Errorf("N %d edges %d F %d, want 12, 34, 5", g.N, g.NumEdges(), g.NumFeatures())
	}
	checkSymmetric(t, g)
	deg := g.Degrees()
	// Corners 2, border 3, interior 4; node 5 = (1, 1) is interior.
	if deg[0] != 2 || deg[11] != 2 || deg[1] != 3 || deg[5] != 4 || g.Adj.At(5, 1) != 1 || g.Adj.At(5, 4) != 1 || g.Adj.At(3, 4) != 0 {
		t.Errorf("degrees %v", deg)
	}
	for c, n := range g.ClassCounts(nil) {
		if n == 0 {
			t.Errorf("class %d is empty", c)
		}
	}
	big, _ := datasets.Lattice(60, 60).Classes(6).Done()
	if slices.Max(big.Degrees()) != 4 {
		t.Errorf("max degree %d, want 4", slices.Max(big.Degrees()))
	}
	// Voronoi regions: most edges lie inside a region.
	if h := edgeHomophily(big); h < 0.9 {
		t.Errorf("edge homophily %.3f of Voronoi regions, want > 0.9", h)
	}
}

func TestBarabasiAlbert(t *testing.T) {
	const m = 3
	maxDeg := func(n int) int {
		g, err := datasets.BarabasiAlbert(n, m).Done()
		if err != nil {
			t.Fatal(err)
		}
		// A clique on m+1 nodes, then m distinct edges per new node.
		if want := 2 * (m*(m+1)/2 + (n-m-1)*m); g.NumEdges() != want {
			t.Errorf("n=%d: %d stored edges, want %d", n, g.NumEdges(), want)
		}
		if slices.Min(g.Degrees()) < m {
			t.Errorf("n=%d: a node has degree below m", n)
		}
		checkSymmetric(t, g)
		return slices.Max(g.Degrees())
	}
	// The largest degree grows with the graph (like √N): unbounded degree.
	if small, large := maxDeg(300), maxDeg(9000); large < 3*small {
		t.Errorf("max degree %d at N=300, %d at N=9000; want growth ≈ √30", small, large)
	}
	// Homophily 0 assigns classes at random: about 1/3 intra-class edges.
	for _, c := range []struct{ h, lo, hi float64 }{{0, 0.28, 0.40}, {0.9, 0.85, 1}} {
		g, _ := datasets.BarabasiAlbert(3000, m).Classes(3).Homophily(c.h).Seed(2).Done()
		if e := edgeHomophily(g); e < c.lo || e > c.hi {
			t.Errorf("homophily %v: edge homophily %.3f, want in [%v, %v]", c.h, e, c.lo, c.hi)
		}
	}
}

func TestSynthetic(t *testing.T) {
	g, err := datasets.Synthetic()
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 3000 || g.NumClasses != 7 || g.NumFeatures() != 2879 || g.Name != "Synthetic" {
		t.Errorf("N %d C %d F %d name %q", g.N, g.NumClasses, g.NumFeatures(), g.Name)
	}
	if _, ok := g.Features.(*tensor.CSR); !ok {
		t.Errorf("features stored as %T, want CSR", g.Features)
	}
	// Rows are normalised binary bag-of-words vectors: values 1/nnz.
	checkNormalizedBinary(t, g, g.Features.(*tensor.CSR).NNZ())
	if d := float64(g.NumEdges()) / float64(g.N); d < 5.2 || d > 5.4 {
		t.Errorf("average degree %.2f, want ≈ 5.4", d)
	}
}

func TestArxivLike(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 169k nodes")
	}
	g, err := datasets.ArxivLike(1)
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 169343 || g.NumClasses != 40 || g.NumFeatures() != 128 {
		t.Errorf("N %d C %d F %d", g.N, g.NumClasses, g.NumFeatures())
	}
	if _, ok := g.Features.(*tensor.Dense); !ok {
		t.Errorf("features stored as %T, want dense", g.Features)
	}
	if e := g.NumEdges() / 2; e < 1140000 || e > 1190000 {
		t.Errorf("%d undirected edges, want about 1.17 million", e)
	}
	counts := g.ClassCounts(nil)
	if counts[0] < 10*counts[39] || slices.Min(counts) == 0 {
		t.Errorf("class sizes %v, want skewed ∝ 1/(c+1) and none empty", counts)
	}
	if h := edgeHomophily(g); math.Abs(h-0.65) > 0.02 {
		t.Errorf("edge homophily %.3f, want ≈ 0.65", h)
	}
}
