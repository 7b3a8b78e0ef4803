package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// shuffledBand returns an undirected graph whose nodes, in some order, join
// each of the next width nodes of that order (a band), with every node of
// nodes 0 … n−1 given a random label, and the band order itself: node
// band[k] is the k-th node of the band. Components > 1 cuts the band into
// that many pieces, and isolated adds nodes without edges.
func shuffledBand(t testing.TB, n, width, components, isolated int, seed uint64) (*tensor.CSR, []int) {
	rng := rand.New(rand.NewPCG(seed, 2))
	total := n + isolated
	band := rng.Perm(total)
	piece := (n + components - 1) / components
	var ri, ci []int
	for k := range n {
		for d := 1; d <= width && k+d < n && (k+d)/piece == k/piece; d++ {
			ri = append(ri, band[k])
			ci = append(ci, band[k+d])
		}
	}
	a, err := tensor.FromCOO(total, total, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ToUndirected(a), band
}

// TestLocalityOrderRecoversAPath gives localityOrder a path whose nodes
// carry random labels, in three pieces and with isolated nodes: the order
// must be a permutation that puts every two neighbours next to each other.
// The path in its own order must be kept (nil).
func TestLocalityOrderRecoversAPath(t *testing.T) {
	a, _ := shuffledBand(t, 3000, 1, 3, 7, 1)
	order := localityOrder(a)
	if order == nil {
		t.Fatal("no order for a path with shuffled labels")
	}
	seen := make([]bool, a.Rows)
	for _, i := range order {
		if i < 0 || i >= a.Rows || seen[i] {
			t.Fatalf("order is not a permutation of 0…%d: node %d", a.Rows-1, i)
		}
		seen[i] = true
	}
	if len(order) != a.Rows {
		t.Fatalf("order has %d nodes, want %d", len(order), a.Rows)
	}
	position := inverseOrder(order)
	for i := range a.Rows {
		for _, j := range a.Ind[a.Ptr[i]:a.Ptr[i+1]] {
			if d := abs(position[i] - position[j]); d != 1 {
				t.Fatalf("neighbours %d and %d at positions %d and %d", i, j, position[i], position[j])
			}
		}
	}
	path, err := tensor.FromCOO(5, 5, []int{0, 1, 2, 3}, []int{1, 2, 3, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if order := localityOrder(ToUndirected(path)); order != nil {
		t.Errorf("a path in its own order reordered as %v", order)
	}
}

// TestLocalityOrderKeepsPPRBits propagates signals of several widths, in
// place and not, through PPR operators of a graph whose labels are
// shuffled, with the steps reordered and in the graph's own order: Apply
// and ApplyT must give the same bits. The symmetric and the random-walk
// normalisations both, and a signal wide enough to go in slices.
func TestLocalityOrderKeepsPPRBits(t *testing.T) {
	cases := []struct {
		n    int
		cols []int
	}{
		{2000, []int{1, 3, 4, 7, 10, 16, 33}},
		{60000, []int{48}}, // 23 MB: slices of 44 and 4 columns
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range cases {
		n := c.n
		adj, _ := shuffledBand(t, n-5, 4, 2, 5, uint64(n))
		for _, norm := range []struct {
			name string
			a    *tensor.CSR
		}{{"SymNorm", SymNorm(adj)}, {"RWNorm", RWNorm(adj)}} {
			ordered, own := newPPRBoth(t, norm.a)
			if ordered.order == nil {
				t.Fatalf("%s, %d nodes: no order for shuffled labels", norm.name, n)
			}
			for _, cols := range c.cols {
				x := tensor.New(n, cols)
				for k := range x.Data {
					x.Data[k] = rng.NormFloat64()
				}
				for _, op := range []string{"Apply", "ApplyT"} {
					want := tensor.New(n, cols)
					apply(t, own, op, want, x)
					got := tensor.New(n, cols)
					apply(t, ordered, op, got, x)
					sameBits(t, fmt.Sprintf("%s %s, %d×%d", norm.name, op, n, cols), got, want)
					inPlace := x.Clone()
					apply(t, ordered, op, inPlace, inPlace)
					sameBits(t, fmt.Sprintf("%s %s in place, %d×%d", norm.name, op, n, cols), inPlace, want)
				}
			}
		}
	}
}

// newPPRBoth returns the PPR operators (t = 0.1, K = 10) of a with the
// steps reordered and in a's own order.
func newPPRBoth(t *testing.T, a *tensor.CSR) (ordered, own *PPR) {
	t.Helper()
	ordered, err := NewPPR(a, 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	useLocalityOrder = false
	defer func() { useLocalityOrder = true }()
	if own, err = NewPPR(a, 0.1, 10); err != nil {
		t.Fatal(err)
	}
	if own.order != nil {
		t.Fatal("reordered with useLocalityOrder off")
	}
	return ordered, own
}

func apply(t *testing.T, p *PPR, op string, dst, x *tensor.Dense) {
	t.Helper()
	f := p.Apply
	if op == "ApplyT" {
		f = p.ApplyT
	}
	if err := f(dst, x); err != nil {
		t.Fatal(err)
	}
}

func sameBits(t *testing.T, what string, got, want *tensor.Dense) {
	t.Helper()
	for k, g := range got.Data {
		if math.Float64bits(g) != math.Float64bits(want.Data[k]) {
			t.Fatalf("%s: element (%d, %d) is %v reordered, %v in the graph's order", what, k/got.Cols, k%got.Cols, g, want.Data[k])
		}
	}
}

// BenchmarkPPRNodeOrder propagates 10, 16 and 64 columns through the K = 10
// steps of PPR on a graph of about Amazon Computers' size (13,752 nodes, a
// band of 18 neighbours on each side: 494,730 entries, 508,482 with self
// loops) whose node labels are shuffled, with the steps in the locality
// order and in the labels' order. Set GOMAXPROCS=1 to time one core. The
// band is the best case of the order; docs/records/performance.md gives
// the gain on the Amazon graphs themselves.
func BenchmarkPPRNodeOrder(b *testing.B) {
	adj, _ := shuffledBand(b, 13752, 18, 1, 0, 3)
	a := SymNorm(adj)
	ordered, err := NewPPR(a, 0.1, 10)
	if err != nil {
		b.Fatal(err)
	}
	useLocalityOrder = false
	own, err := NewPPR(a, 0.1, 10)
	useLocalityOrder = true
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, cols := range []int{10, 16, 64} {
		x, dst := tensor.New(a.Rows, cols), tensor.New(a.Rows, cols)
		for k := range x.Data {
			x.Data[k] = rng.NormFloat64()
		}
		for _, p := range []struct {
			name string
			ppr  *PPR
		}{{"ordered", ordered}, {"labels", own}} {
			b.Run(fmt.Sprintf("%d/%s", cols, p.name), func(b *testing.B) {
				for b.Loop() {
					if err := p.ppr.Apply(dst, x); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
