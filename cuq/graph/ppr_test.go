package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// randomGraph returns an undirected graph on n nodes with about m random
// edges (no self loops).
func randomGraph(t testing.TB, n, m int, seed uint64) *tensor.CSR {
	rng := rand.New(rand.NewPCG(seed, 1))
	var ri, ci []int
	for e := 0; e < m; e++ {
		i, j := rng.IntN(n), rng.IntN(n)
		if i != j {
			ri = append(ri, i)
			ci = append(ci, j)
		}
	}
	a, err := tensor.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ToUndirected(a)
}

// closedFormPPR computes Σ_{k<K} t(1−t)^k Â^k + (1−t)^K Â^K densely.
func closedFormPPR(a *tensor.Dense, tp float64, k int) *tensor.Dense {
	n := a.Rows
	pow := tensor.New(n, n)
	for i := 0; i < n; i++ {
		pow.Set(i, i, 1)
	}
	sum := tensor.New(n, n)
	for step := 0; step < k; step++ {
		sum.AddScaled(tp*math.Pow(1-tp, float64(step)), pow)
		pow = tensor.Mul(a, pow)
	}
	sum.AddScaled(math.Pow(1-tp, float64(k)), pow)
	return sum
}

func TestPPRDenseMatchesClosedForm(t *testing.T) {
	adj := randomGraph(t, 12, 20, 3)
	for _, norm := range []struct {
		name string
		f    func(*tensor.CSR) *tensor.CSR
	}{{"sym", SymNorm}, {"rw", RWNorm}} {
		ahat := norm.f(adj)
		for _, k := range []int{0, 1, 2, 10} {
			p, err := NewPPR(ahat, 0.1, k)
			if err != nil {
				t.Fatal(err)
			}
			want := closedFormPPR(ahat.ToDense(), 0.1, k)
			assertDense(t, norm.name+" Dense", p.Dense(), 12, 12, want.Data, 1e-13)

			// Apply on the identity gives Π too.
			x := tensor.New(12, 12)
			for i := 0; i < 12; i++ {
				x.Set(i, i, 1)
			}
			dst := tensor.New(12, 12)
			if err := p.Apply(dst, x); err != nil {
				t.Fatal(err)
			}
			assertDense(t, norm.name+" Apply(I)", dst, 12, 12, want.Data, 1e-13)
		}
	}
}

func TestPPRSingleStepByHand(t *testing.T) {
	// K = 1: Π = (1−t)Â + tI. Path 0–1–2 with rw: Â rows [½ ½ 0], [⅓ ⅓ ⅓], [0 ½ ½].
	p, err := NewPPR(RWNorm(undirected(t, 3, [2]int{0, 1}, [2]int{1, 2})), 0.25, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.MustFromSlice(3, 1, []float64{1, 2, 3})
	dst := tensor.New(3, 1)
	if err := p.Apply(dst, x); err != nil {
		t.Fatal(err)
	}
	// (1−t)Âx = 0.75·[1.5, 2, 2.5]; + 0.25·x.
	assertDense(t, "Apply", dst, 3, 1, []float64{0.75*1.5 + 0.25, 0.75*2 + 0.5, 0.75*2.5 + 0.75}, 1e-15)
}

func TestPPRRowsSumToOneForRW(t *testing.T) {
	p, err := NewPPR(RWNorm(randomGraph(t, 30, 40, 5)), 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	pi := p.Dense()
	for i := 0; i < pi.Rows; i++ {
		s := 0.0
		for _, v := range pi.Row(i) {
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("row %d of Π sums to %v, want 1", i, s)
		}
	}
}

func TestPPRApplyInPlaceAndTranspose(t *testing.T) {
	// A directed graph makes Â and Π asymmetric.
	a := csr(t, 5, 5, [3]float64{0, 1, 1}, [3]float64{1, 2, 1}, [3]float64{2, 0, 1},
		[3]float64{3, 1, 2}, [3]float64{4, 3, 1}, [3]float64{0, 4, 1})
	p, err := NewPPR(RWNorm(a), 0.2, 4)
	if err != nil {
		t.Fatal(err)
	}
	pi := p.Dense()
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.New(5, 3)
	for k := range x.Data {
		x.Data[k] = rng.NormFloat64()
	}
	want := tensor.Mul(pi, x)
	inPlace := x.Clone()
	if err := p.Apply(inPlace, inPlace); err != nil {
		t.Fatal(err)
	}
	assertDense(t, "Apply in place", inPlace, 5, 3, want.Data, 1e-13)

	wantT := tensor.New(5, 3)
	tensor.MulTo(wantT, pi, true, x, false)
	got := tensor.New(5, 3)
	if err := p.ApplyT(got, x); err != nil {
		t.Fatal(err)
	}
	assertDense(t, "ApplyT", got, 5, 3, wantT.Data, 1e-13)
}

// TestPPRApplySlicedReusesScratch propagates a signal too large for one
// piece (100,000 × 36 float64 is 28.8 MB, above pprCacheBytes), so that
// apply takes it in slices of columns through reused scratch matrices,
// three times, the last time in place. Every column must be exactly what
// a signal of only its group of four columns gives (propagated in one
// piece): the narrow kernels' chains of fused multiply-adds do not depend
// on the width from four columns on.
func TestPPRApplySlicedReusesScratch(t *testing.T) {
	const n, cols, group = 100000, 36, 4
	if w := sliceWidth(n, cols); w >= cols || sliceWidth(n, group) != group {
		t.Fatalf("sliceWidth(%d, %d) = %d, sliceWidth(%d, %d) = %d: want slices, then one piece",
			n, cols, w, n, group, sliceWidth(n, group))
	}
	p, err := NewPPR(SymNorm(randomGraph(t, n, 3*n, 5)), 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 3 {
		x := tensor.New(n, cols)
		for k := range x.Data {
			x.Data[k] = rng.NormFloat64()
		}
		want := tensor.New(n, cols)
		for c := 0; c < cols; c += group {
			piece, out := tensor.New(n, group), tensor.New(n, group)
			copyColumns(piece, x, c, nil)
			if err := p.Apply(out, piece); err != nil {
				t.Fatal(err)
			}
			pasteColumns(want, out, c, nil)
		}
		got := tensor.New(n, cols)
		if round == 2 {
			got = x
		}
		if err := p.Apply(got, x); err != nil {
			t.Fatal(err)
		}
		for k, g := range got.Data {
			if g != want.Data[k] {
				t.Fatalf("round %d: (Πx)[%d,%d] = %v sliced, %v in groups of %d", round, k/cols, k%cols, g, want.Data[k], group)
			}
		}
	}
}

func TestSparsePrunedExactAtZeroThreshold(t *testing.T) {
	p, err := NewPPR(RWNorm(randomGraph(t, 40, 60, 7)), 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.N() != 40 || p.K() != 10 || p.Teleport() != 0.1 || p.Adj().Rows != 40 {
		t.Errorf("accessors: N %d, K %d, t %v", p.N(), p.K(), p.Teleport())
	}
	sp := p.SparsePruned(0)
	assertWellFormed(t, "SparsePruned", sp)
	want := p.Dense()
	assertDense(t, "SparsePruned(0)", sp.ToDense(), 40, 40, want.Data, 1e-12)
	assertDense(t, "SparsePruned(NaN)", p.SparsePruned(math.NaN()).ToDense(), 40, 40, want.Data, 1e-12)
}

func TestSparsePrunedByHand(t *testing.T) {
	// K = 1, t = 0.1 on the rw path 0–1–2: X = 0.9Â + 0.1I has rows
	// [0.55 0.45 0], [0.3 0.4 0.3], [0 0.45 0.55]. With threshold 0.35 row 1
	// loses 0.6, which goes to its diagonal.
	p, err := NewPPR(RWNorm(undirected(t, 3, [2]int{0, 1}, [2]int{1, 2})), 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	sp := p.SparsePruned(0.35)
	assertWellFormed(t, "SparsePruned", sp)
	assertDense(t, "SparsePruned(0.35)", sp.ToDense(), 3, 3, []float64{
		0.55, 0.45, 0,
		0, 1, 0,
		0, 0.45, 0.55,
	}, 1e-15)
	if sp.NNZ() != 5 {
		t.Errorf("NNZ = %d, want 5 (pruned entries removed)", sp.NNZ())
	}
	// A threshold above every entry leaves the identity, even where the
	// diagonal itself was pruned.
	id := p.SparsePruned(0.9)
	assertDense(t, "SparsePruned(0.9)", id.ToDense(), 3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-15)
}

func TestSparsePrunedInvariants(t *testing.T) {
	adj := randomGraph(t, 200, 600, 11)
	for _, norm := range []func(*tensor.CSR) *tensor.CSR{SymNorm, RWNorm} {
		p, err := NewPPR(norm(adj), 0.1, 10)
		if err != nil {
			t.Fatal(err)
		}
		exact := p.SparsePruned(0)
		sp := p.SparsePruned(0.01)
		assertWellFormed(t, "SparsePruned", sp)
		if sp.NNZ() >= exact.NNZ() {
			t.Errorf("pruning kept %d of %d entries", sp.NNZ(), exact.NNZ())
		}
		for i := 0; i < sp.Rows; i++ {
			s := 0.0
			for k := sp.Ptr[i]; k < sp.Ptr[i+1]; k++ {
				s += sp.Val[k]
				if sp.Ind[k] != i && sp.Val[k] < 0.01 {
					t.Fatalf("row %d keeps off-diagonal entry %v below the threshold", i, sp.Val[k])
				}
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("row %d sums to %v, want 1", i, s)
			}
		}
	}
}

func TestPPRErrors(t *testing.T) {
	sq := undirected(t, 2, [2]int{0, 1})
	_, err := NewPPR(nil, 0.1, 10)
	assertErr(t, err, "nil adjacency")
	_, err = NewPPR(csr(t, 2, 3), 0.1, 10)
	assertErr(t, err, "want square")
	_, err = NewPPR(sq, 1.5, 10)
	assertErr(t, err, "teleport 1.5 outside [0, 1]")
	_, err = NewPPR(sq, math.NaN(), 10)
	assertErr(t, err, "teleport NaN")
	_, err = NewPPR(sq, 0.1, -1)
	assertErr(t, err, "negative number of iterations")
	bad := sq.Clone()
	bad.Val[0] = math.Inf(1)
	_, err = NewPPR(bad, 0.1, 1)
	assertErr(t, err, "NaN or Inf")

	p, err := NewPPR(sq, 0.1, 2)
	if err != nil {
		t.Fatal(err)
	}
	assertErr(t, p.Apply(tensor.New(3, 1), tensor.New(3, 1)), "signal is 3x1, want 2 rows")
	assertErr(t, p.Apply(tensor.New(2, 2), tensor.New(2, 1)), "destination is 2x2, want 2x1")
	assertErr(t, p.ApplyT(nil, tensor.New(2, 1)), "nil matrix")
}

func BenchmarkSymNorm(b *testing.B) {
	adj := randomGraph(b, 3000, 8000, 1) // ≈16k stored entries
	for b.Loop() {
		SymNorm(adj)
	}
	b.ReportMetric(float64(adj.NNZ()), "entries")
}

func BenchmarkPPRApply(b *testing.B) {
	adj := randomGraph(b, 3000, 8000, 1)
	p, err := NewPPR(SymNorm(adj), 0.1, 10)
	if err != nil {
		b.Fatal(err)
	}
	x := tensor.New(3000, 64)
	for k := range x.Data {
		x.Data[k] = float64(k%7) - 3
	}
	dst := tensor.New(3000, 64)
	for b.Loop() {
		if err := p.Apply(dst, x); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPPRApplyArxivSize propagates a 40-column signal (class scores)
// over a random graph of OGBN Arxiv's size, 169,343 nodes and 1.17 M
// undirected edges: APPNP's forward pass there, which gathers rows of the
// signal from the last-level cache at best.
func BenchmarkPPRApplyArxivSize(b *testing.B) {
	const n, cols = 169343, 40
	p, err := NewPPR(SymNorm(randomGraph(b, n, 1166243, 1)), 0.1, 10)
	if err != nil {
		b.Fatal(err)
	}
	x, dst := tensor.New(n, cols), tensor.New(n, cols)
	for k := range x.Data {
		x.Data[k] = float64(k%7) - 3
	}
	for b.Loop() {
		if err := p.Apply(dst, x); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSparsePruned(b *testing.B) {
	p, err := NewPPR(RWNorm(randomGraph(b, 3000, 8000, 1)), 0.1, 10)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p.SparsePruned(0.01)
	}
}
