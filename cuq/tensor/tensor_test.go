package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func denseEqual(t *testing.T, what string, got, want *Dense, tol float64) {
	t.Helper()
	if !got.SameShape(want) {
		t.Fatalf("%s: shape %s, want %s", what, got.Shape(), want.Shape())
	}
	for i, w := range want.Data {
		g := got.Data[i]
		if math.IsNaN(g) != math.IsNaN(w) || math.Abs(g-w) > tol {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g, w)
		}
	}
}

// naiveMul is the textbook triple loop, the independent reference for the
// kernels.
func naiveMul(a, b *Dense) *Dense {
	return tripleLoop(a, b, func(x, y, s float64) float64 { return s + x*y })
}

// fmaMul is a·b with every element one chain of fused multiply-adds in
// order of the inner index: what the AVX2 kernels promise to compute,
// whichever of them handles an element.
func fmaMul(a, b *Dense) *Dense { return tripleLoop(a, b, math.FMA) }

// csrChains is S·b as spmmRow defines it: each element the chain over the
// row's stored entries in order, fused but in the last f mod 32 columns
// of b when there are fewer than four of them, where each product is
// rounded before it is added.
func csrChains(s *CSR, b *Dense) *Dense {
	out := New(s.Rows, b.Cols)
	tail := b.Cols % 32
	if tail >= 4 {
		tail = 0
	}
	for i := range s.Rows {
		for j := range b.Cols {
			var sum float64
			for q := s.Ptr[i]; q < s.Ptr[i+1]; q++ {
				if j >= b.Cols-tail {
					sum += float64(s.Val[q] * b.At(s.Ind[q], j))
				} else {
					sum = math.FMA(s.Val[q], b.At(s.Ind[q], j), sum)
				}
			}
			out.Set(i, j, sum)
		}
	}
	return out
}

// tripleLoop returns a·b with each element accumulated in order of the
// inner index k as s = step(a[i,k], b[k,j], s), starting from 0.
func tripleLoop(a, b *Dense, step func(x, y, s float64) float64) *Dense {
	out := New(a.Rows, b.Cols)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < b.Cols; j++ {
			s := 0.0
			for k := 0; k < a.Cols; k++ {
				s = step(a.At(i, k), b.At(k, j), s)
			}
			out.Set(i, j, s)
		}
	}
	return out
}

func TestFromCOOSumsDuplicatesAndSorts(t *testing.T) {
	s, err := FromCOO(3, 4, []int{2, 0, 2, 0, 2}, []int{3, 1, 0, 1, 3}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	want := MustFromSlice(3, 4, []float64{0, 6, 0, 0, 0, 0, 0, 0, 3, 0, 0, 6})
	denseEqual(t, "FromCOO", s.ToDense(), want, 0)
	if s.NNZ() != 3 || s.Ind[1] != 0 || s.Ind[2] != 3 {
		t.Errorf("row 2 not coalesced and sorted: %v", s.Ind)
	}
	if s.At(2, 3) != 6 || s.At(1, 1) != 0 {
		t.Error("At disagrees with the dense form")
	}
	if _, err := FromCOO(2, 2, []int{0, 2}, []int{0, 0}, nil); err == nil || !strings.Contains(err.Error(), "(2,0) out of range") {
		t.Errorf("out-of-range entry: %v", err)
	}
}

func TestNewCSRValidation(t *testing.T) {
	cases := []struct {
		ptr, ind []int
		want     string
	}{
		{[]int{0, 1}, []int{0, 0}, "2 indices, 2 values, row pointer ends at 1"},
		{[]int{1, 1, 1}, []int{0}, "starts at 1"},
		{[]int{0, 2, 1, 2}, []int{0, 1}, "decreases at row 1"},
		{[]int{0, 1, 2}, []int{0, 5}, "column index 5 out of range"},
		{[]int{0, 2, 2}, []int{1, 1}, "not strictly increasing"},
		{[]int{0, 1, 3}, []int{0, 1}, "row pointer ends at 3"},
	}
	for _, c := range cases {
		_, err := NewCSR(len(c.ptr)-1, 3, c.ptr, c.ind, make([]float64, len(c.ind)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewCSR(%v, %v): %v, want %q", c.ptr, c.ind, err, c.want)
		}
	}
	if _, err := NewCSR(2, 3, []int{0, 1, 2}, []int{2, 0}, []float64{1, 2}); err != nil {
		t.Errorf("valid CSR rejected: %v", err)
	}
}

func TestSparseProductsMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, f := range []int{1, 7, 16, 40, 64} { // narrow, axpy and 32-column block paths
		s := randomCSR(rng, 120, 90, 0.05)
		b := randomDense(rng, 90, f)
		denseEqual(t, "CSR·b", s.Mul(b), naiveMul(s.ToDense(), b), 1e-12)
		g := randomDense(rng, 120, f)
		got := New(90, f)
		s.TMulTo(got, g)
		denseEqual(t, "CSRᵀ·g", got, naiveMul(s.ToDense().T(), g), 1e-12)
		denseEqual(t, "Transpose", s.Transpose().ToDense(), s.ToDense().T(), 0)
		denseEqual(t, "DenseToCSR", DenseToCSR(s.ToDense()).ToDense(), s.ToDense(), 0)
	}
	// a large product goes through the parallel path
	s := randomCSR(rng, 2000, 500, 0.02)
	b := randomDense(rng, 500, 64)
	denseEqual(t, "parallel CSR·b", s.Mul(b), naiveMul(s.ToDense(), b), 1e-12)
}

func TestDenseProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	a, b := randomDense(rng, 30, 20), randomDense(rng, 20, 10)
	denseEqual(t, "a·b", Mul(a, b), naiveMul(a, b), 1e-12)
	out := New(20, 10)
	e := randomDense(rng, 30, 10)
	MulTo(out, a, true, e, false)
	denseEqual(t, "aᵀ·e", out, naiveMul(a.T(), e), 1e-12)
	f := randomDense(rng, 10, 30)
	out3 := New(20, 10)
	MulTo(out3, a, true, f, true)
	denseEqual(t, "aᵀ·fᵀ", out3, naiveMul(a.T(), f.T()), 1e-12)
	wide := randomDense(rng, 20, 77) // two 32-column blocks and a tail
	denseEqual(t, "a·wide", Mul(a, wide), naiveMul(a, wide), 1e-12)
	v := randomDense(rng, 20, 1)
	denseEqual(t, "a·v", Mul(a, v), naiveMul(a, v), 1e-12)
	w := randomDense(rng, 30, 1)
	atw := New(20, 1)
	MulTo(atw, a, true, w, false)
	denseEqual(t, "aᵀ·w", atw, naiveMul(a.T(), w), 1e-12)
	c := randomDense(rng, 10, 20)
	out2 := New(30, 10)
	MulTo(out2, a, false, c, true)
	denseEqual(t, "a·cᵀ", out2, naiveMul(a, c.T()), 1e-12)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "product 30x20 · 10x20 into 30x10") {
			t.Errorf("shape mismatch panic: %v", r)
		}
	}()
	MulTo(out2, a, false, c, false)
}

func TestCSRProductShapePanics(t *testing.T) {
	s := randomCSR(rand.New(rand.NewPCG(3, 3)), 4, 5, 0.5)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "CSR product 4x5 · 3x2") {
			t.Errorf("panic %v", r)
		}
	}()
	s.Mul(New(3, 2))
}

// MulAddRowTo, dense and sparse, equals the product followed by adding the
// row to every row, bit for bit; with an empty inner dimension it is the
// row repeated; mismatched shapes panic with them.
func TestMulAddRowTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, f := range []int{1, 3, 7, 64, 70} {
		a, b := randomDense(rng, 40, 30), randomDense(rng, 30, f)
		s := randomCSR(rng, 40, 30, 0.1)
		r := randomDense(rng, 1, f).Data
		for name, m := range map[string]Matrix{"dense": a, "CSR": s} {
			want := New(40, f)
			m.MulTo(want, b)
			for i := 0; i < want.Rows; i++ {
				for j := range want.Row(i) {
					want.Row(i)[j] += r[j]
				}
			}
			got := New(40, f)
			got.Fill(1e300)
			m.MulAddRowTo(got, b, r)
			denseEqual(t, fmt.Sprintf("%s MulAddRowTo, %d columns", name, f), got, want, 0)
		}
	}
	empty := New(2, 3)
	MulAddRowTo(empty, New(2, 0), New(0, 3), []float64{1, 2, 3})
	denseEqual(t, "empty inner dimension", empty, MustFromSlice(2, 3, []float64{1, 2, 3, 1, 2, 3}), 0)
	for name, f := range map[string]func(){
		"product 4x5 · 5x2 plus a row of 3 into 4x2": func() { MulAddRowTo(New(4, 2), New(4, 5), New(5, 2), make([]float64, 3)) },
		"CSR product 4x5 · 3x2 plus a row of 2":      func() { randomCSR(rng, 4, 5, 0.5).MulAddRowTo(New(4, 2), New(3, 2), make([]float64, 2)) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), name) {
					t.Errorf("panic %v, want one mentioning %q", r, name)
				}
			}()
			f()
		}()
	}
}

func TestParallelForCoversRangeOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100000} {
		if err := coversOnce(n, n*1000); err != nil {
			t.Fatal(err)
		}
	}
	if Workers(10) != 1 {
		t.Error("a tiny job must run on the calling goroutine")
	}
}

// ParallelForRows visits every row once and gives each goroutine about
// the same number of entries plus rows: within one row's cost of an equal
// share, however the entries lie (all in the last rows here, as the
// high-degree nodes of a locality order can be), through the team and
// through goroutines of their own (a call from within a chunk).
func TestParallelForRowsSplitsAtEqualShares(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 1000
	ptr := make([]int, n+1)
	ptr[0] = 7 // offsets need not start at 0
	for i := range n {
		d := 0
		if i >= 3*n/4 {
			d = 50 + i%13
		}
		ptr[i+1] = ptr[i] + d
	}
	total := ptr[n] - ptr[0] + n
	check := func(name string) {
		var mu sync.Mutex
		hits := make([]int, n)
		var costs []int
		ParallelForRows(ptr, parallelThreshold, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				hits[i]++
			}
			costs = append(costs, ptr[hi]-ptr[lo]+hi-lo)
		})
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("%s: row %d visited %d times", name, i, h)
			}
		}
		if len(costs) != 4 {
			t.Fatalf("%s: %d chunks, want 4", name, len(costs))
		}
		for _, c := range costs {
			if share := total / 4; c < share-64 || c > share+64 {
				t.Errorf("%s: chunk costs %v, want each within a row (63) of %d", name, costs, share)
				break
			}
		}
	}
	check("team")
	ParallelFor(2, 2*parallelThreshold, func(lo, hi int) {
		if lo == 0 {
			check("nested")
		}
	})
	for _, p := range [][]int{nil, {3}} {
		ParallelForRows(p, 1, func(lo, hi int) { t.Errorf("body called for %v", p) })
	}
}

// While n runs hold ShareCores, a kernel uses GOMAXPROCS/n goroutines (at
// least one); releasing twice counts once.
func TestShareCoresDividesTheCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	large := 1 << 30
	if got := Workers(large); got != 4 {
		t.Fatalf("no runs sharing: %d workers, want 4", got)
	}
	a := ShareCores()
	if got := Workers(large); got != 4 {
		t.Errorf("one run: %d workers, want 4", got)
	}
	b := ShareCores()
	c := ShareCores()
	if got := Workers(large); got != 1 {
		t.Errorf("three runs on four cores: %d workers, want 1", got)
	}
	c()
	c()
	if got := Workers(large); got != 2 {
		t.Errorf("two runs (one released twice): %d workers, want 2", got)
	}
	var chunks atomic.Int32
	ParallelFor(100, large, func(lo, hi int) { chunks.Add(1) })
	if chunks.Load() != 2 {
		t.Errorf("ParallelFor with two runs on four cores made %d chunks, want 2", chunks.Load())
	}
	a()
	b()
	if got := Workers(large); got != 4 {
		t.Errorf("all released: %d workers, want 4", got)
	}
}

// A panic in a chunk of ParallelFor reaches its caller, who can recover
// it, after every chunk has returned, whichever chunk panicked.
func TestParallelForPanicReachesCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: the chunks run on the calling goroutine")
	}
	n := 4 * runtime.GOMAXPROCS(0)
	for _, bad := range []int{0, n - 1} {
		var finished atomic.Int32
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != fmt.Sprintf("chunk of %d", bad) {
					t.Errorf("recovered %v, want the panic of the chunk of %d", r, bad)
				}
			}()
			ParallelFor(n, n*parallelThreshold, func(lo, hi int) {
				defer finished.Add(1)
				if lo <= bad && bad < hi {
					panic(fmt.Sprintf("chunk of %d", bad))
				}
			})
		}()
		if got, want := int(finished.Load()), Workers(n*parallelThreshold); got != want {
			t.Errorf("%d of %d chunks had returned when the panic reached the caller", got, want)
		}
	}
}

// coversOnce runs ParallelFor over n indices at the given cost and
// reports an index not visited exactly once.
func coversOnce(n, cost int) error {
	hits := make([]int32, n)
	ParallelFor(n, cost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&hits[i], 1)
		}
	})
	for i, h := range hits {
		if h != 1 {
			return fmt.Errorf("index %d of %d visited %d times", i, n, h)
		}
	}
	return nil
}

// The team's helpers block once they have polled for spinWait without a
// chunk, and the next ParallelFor wakes them.
func TestParallelForWakesBlockedHelpers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	if err := coversOnce(1000, 1000*parallelThreshold); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !allParked() {
		if time.Now().After(deadline) {
			t.Fatal("the helpers did not block within 10 s of their last chunk")
		}
		time.Sleep(spinWait)
	}
	for range 3 {
		if err := coversOnce(1000, 1000*parallelThreshold); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * spinWait)
	}
}

// allParked reports whether every helper of the team has blocked.
func allParked() bool {
	crew.mu.Lock()
	defer crew.mu.Unlock()
	for _, h := range crew.helpers {
		if !h.parked.Load() {
			return false
		}
	}
	return len(crew.helpers) > 0
}

// A ParallelFor within a chunk of another, and ParallelFors from several
// goroutines at once, find the team busy and give each chunk a goroutine;
// every index is still visited once.
func TestParallelForNestedAndConcurrent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	n := 64
	hits := make([]int32, n*n)
	ParallelFor(n, n*parallelThreshold, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ParallelFor(n, n*parallelThreshold, func(l, h int) {
				for j := l; j < h; j++ {
					atomic.AddInt32(&hits[i*n+j], 1)
				}
			})
		}
	})
	for k, h := range hits {
		if h != 1 {
			t.Fatalf("nested: index (%d, %d) visited %d times", k/n, k%n, h)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Go(func() {
			for range 50 {
				if err := coversOnce(997, 997*parallelThreshold); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
}

func TestDenseHelpers(t *testing.T) {
	if _, err := FromSlice(2, 3, make([]float64, 5)); err == nil {
		t.Error("FromSlice accepted 5 values for 2x3")
	}
	d := MustFromSlice(2, 2, []float64{1, 2, 3, 4})
	e := d.Clone()
	e.AddScaled(2, d)
	if e.Sum() != 30 || d.Sum() != 10 {
		t.Errorf("AddScaled/Clone: %v %v", e, d)
	}
	d.Set(0, 1, math.NaN())
	if d.AllFinite() {
		t.Error("NaN not detected")
	}
}

// The products mix the eight- and four-row register kernels, the one-row
// kernels and the axpy loops by shape and by how ParallelFor splits the
// rows. On every path (AVX-512, AVX2, portable Go) they must all round
// alike: the result equals the in-order fused chain bit for bit, for any
// split (1 and 3 workers; 3 puts chunk ends off the four-row blocks).
func TestDenseProductKernelsAgree(t *testing.T) {
	forEachKernelSet(t, testDenseProductKernels)
}

func testDenseProductKernels(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(11, 12))
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{1, 4, 9, 70, 137} {
			for _, k := range []int{1, 5, 67} {
				for _, m := range []int{2, 3, 4, 7, 8, 10, 16, 33, 64, 70} {
					a, b, g := randomDense(rng, n, k), randomDense(rng, k, m), randomDense(rng, n, m)
					ab, atg := New(n, m), New(k, m)
					MulTo(ab, a, false, b, false)
					MulTo(atg, a, true, g, false)
					what := fmt.Sprintf("%d workers, %dx%d · %dx%d", procs, n, k, k, m)
					denseEqual(t, "a·b, "+what, ab, fmaMul(a, b), 0)
					denseEqual(t, "aᵀ·g, "+what, atg, fmaMul(a.T(), g), 0)
				}
			}
		}
	}
}

// axpy4 and axpy are, on every path and for every length (the 8-, 4- and
// 1-element tails included), the fused multiply-adds of their definition.
func TestAxpyKernels(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 9))
		row := func(n int) []float64 { return randomDense(rng, 1, n).Data }
		for n := 0; n < 41; n++ {
			o, b0, b1, b2, b3 := row(n), row(n), row(n), row(n), row(n)
			orig, o1 := append([]float64(nil), o...), append([]float64(nil), o...)
			axpy4(o, b0, b1, b2, b3, 0.5, -1.5, 2, 0.25)
			axpy(o1, b2, -3)
			for j := 0; j < n; j++ {
				want := math.FMA(0.25, b3[j], math.FMA(2, b2[j], math.FMA(-1.5, b1[j], math.FMA(0.5, b0[j], orig[j]))))
				if want1 := math.FMA(-3, b2[j], orig[j]); o[j] != want || o1[j] != want1 {
					t.Fatalf("n=%d j=%d: axpy4 %v want %v; axpy %v want %v", n, j, o[j], want, o1[j], want1)
				}
			}
		}
	})
}

// Every column count from 1 to 40 covers the narrow register kernel (4 to
// 31 columns, and the remainder after a 32-column block) with all its
// block overlaps, and the loops below four columns; on every path each
// element is the chain csrChains defines, and rows with no stored entry
// must come out zero even when the output held other values.
func TestNarrowSparseProductsMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := randomCSR(rng, 60, 50, 0.08)
	ptr := append([]int(nil), s.Ptr...)
	for _, i := range []int{0, 17, 59} { // empty some rows
		n := ptr[i+1] - ptr[i]
		s.Ind = append(s.Ind[:ptr[i]:ptr[i]], s.Ind[ptr[i+1]:]...)
		s.Val = append(s.Val[:ptr[i]:ptr[i]], s.Val[ptr[i+1]:]...)
		for r := i + 1; r <= s.Rows; r++ {
			ptr[r] -= n
		}
	}
	s.Ptr = ptr
	if _, err := NewCSR(s.Rows, s.Cols, s.Ptr, s.Ind, s.Val); err != nil {
		t.Fatal(err)
	}
	forEachKernelSet(t, func(t *testing.T) {
		for f := 1; f <= 40; f++ {
			b := randomDense(rng, 50, f)
			got := New(60, f)
			got.Fill(1e300)
			s.MulTo(got, b)
			denseEqual(t, "CSR·b, "+b.Shape(), got, csrChains(s, b), 0)
		}
	})
}

// On every path every element of a product of 4 to 31 columns is one chain
// of fused multiply-adds over the row's entries in order, whether its rows
// run one call per row (spmmRowNarrow) or many rows per call
// (spmmRowsNarrow, up to 16 columns), across chunk and worker boundaries;
// a call there holds about four times the 64 entries that the kernels
// prefetch ahead (prefetchAhead in narrow_amd64.h), so the prefetches run
// ahead of the products and stop at the call's last entry.
func TestNarrowSparseProductsAreFMAChains(t *testing.T) {
	forEachKernelSet(t, testNarrowSparseChains)
}

func testNarrowSparseChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	// b of 70 rows stays in cache; one of 33,000 rows has at least a
	// megabyte from four columns on, which the amd64 kernels prefetch.
	for _, bRows := range []int{70, 33000} {
		s := randomCSR(rng, 3*spmmChunk+5, bRows, 4.2/float64(bRows))
		for f := 4; f < 32; f++ {
			testNarrowSparseChain(t, s, randomDense(rng, bRows, f))
		}
	}
}

func testNarrowSparseChain(t *testing.T, s *CSR, b *Dense) {
	f := b.Cols
	want := New(s.Rows, f)
	for i := range s.Rows {
		for j := range f {
			var sum float64
			for q := s.Ptr[i]; q < s.Ptr[i+1]; q++ {
				sum = math.FMA(s.Val[q], b.At(s.Ind[q], j), sum)
			}
			want.Set(i, j, sum)
		}
	}
	got := New(s.Rows, f)
	got.Fill(math.NaN())
	s.MulTo(got, b)
	denseEqual(t, "CSR·b, "+b.Shape(), got, want, 0)
}

// A column index changed after NewCSR checked it, past the rows of b or
// negative, makes every product panic instead of reading outside b,
// whichever kernel its width selects (the narrow ones, the 32- and
// 64-column blocks and their tails), wherever the index is among its
// row's entries.
func TestCSRProductsRefuseBadIndices(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, bad := range []int{70, -1} {
		for _, f := range []int{2, 6, 12, 20, 32, 40, 64, 72, 128} {
			for _, where := range []string{"first", "middle", "last"} {
				s := randomCSR(rng, 3*spmmChunk, 70, 0.06)
				q := len(s.Ind) / 2
				switch where {
				case "first":
					q = s.Ptr[1]
				case "last":
					q = s.Ptr[2] - 1
				}
				s.Ind[q] = bad
				b := randomDense(rng, 70, f)
				func() {
					defer func() {
						if r := recover(); r == nil {
							t.Errorf("index %d, %s of its row, %d columns: no panic", bad, where, f)
						}
					}()
					s.MulTo(New(s.Rows, f), b)
				}()
			}
		}
	}
}

// MulAddTo equals α·S·b + β·c computed in two passes, bit for bit, for
// every kernel width (the blend inside the narrow kernels, 4 to 16 columns).
func TestCSRMulAddTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range []int{3, 4, 6, 7, 8, 10, 13, 16, 20, 64} {
		s := randomCSR(rng, 80, 80, 0.05)
		b, c := randomDense(rng, 80, f), randomDense(rng, 80, f)
		want := s.Mul(b)
		for i, v := range want.Data {
			want.Data[i] = float64(0.9*v) + float64(0.1*c.Data[i]) // unfused, as on amd64
		}
		got := New(80, f)
		s.MulAddTo(got, b, 0.9, c, 0.1)
		denseEqual(t, "MulAddTo", got, want, 0)
	}
}

// MulPickTo gives each row's picked element of S·b with the bits of
// MulTo, for every kernel width (fused columns, the narrow kernels, the
// 64- and 32-column blocks and their rounded-first tails), rows of
// different lengths and empty ones, columns mixing fused and rounded-first
// within a group of four rows, and enough entries to run on all cores; bad
// shapes and columns panic with them.
func TestCSRMulPickTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, f := range []int{1, 2, 3, 4, 7, 8, 13, 16, 33, 35, 64, 66, 99} {
		for _, rows := range []int{1, 6, 203} {
			s := randomCSR(rng, rows, 700, 0.3)
			s.Ptr[rows/2+1] = s.Ptr[rows/2] // an empty row, its entries moved to the next
			b := randomDense(rng, 700, f)
			cols := make([]int, rows)
			for i := range cols {
				cols[i] = rng.IntN(f)
			}
			want := s.Mul(b)
			got := make([]float64, rows)
			s.MulPickTo(got, b, cols)
			for i, j := range cols {
				if w := want.At(i, j); math.Float64bits(got[i]) != math.Float64bits(w) {
					t.Fatalf("f=%d rows=%d: element (%d, %d) = %v, MulTo gives %v", f, rows, i, j, got[i], w)
				}
			}
		}
	}
	s := randomCSR(rng, 4, 5, 0.5)
	for _, c := range []struct {
		name string
		pick func()
		want string
	}{
		{"shape", func() { s.MulPickTo(make([]float64, 4), New(3, 2), make([]int, 4)) }, "CSR product 4x5 · 3x2 picked by 4 columns into 4 elements"},
		{"columns", func() { s.MulPickTo(make([]float64, 4), New(5, 2), make([]int, 3)) }, "picked by 3 columns"},
		{"range", func() { s.MulPickTo(make([]float64, 4), New(5, 2), []int{0, 1, 2, 0}) }, "column 2 of row 2 out of range"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.pick()
		}()
	}
}

// MulValuesTo and TMulValuesTo give S'·b and S'ᵀ·b of the matrix S' with
// S's pattern and new values, bit for bit as S'.MulTo and S'.TMulTo, again
// after the values change (the caches of the pattern must not keep old
// values), and refuse a value slice of the wrong length.
func TestValuesProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	p := randomCSR(rng, 40, 30, 0.2)
	b, bt := randomDense(rng, 30, 12), randomDense(rng, 40, 12)
	for round := 0; round < 3; round++ {
		val := randomDense(rng, 1, p.NNZ()).Data
		fresh := &CSR{Rows: p.Rows, Cols: p.Cols, Ptr: p.Ptr, Ind: p.Ind, Val: val}
		want, got := New(40, 12), New(40, 12)
		fresh.MulTo(want, b)
		p.MulValuesTo(got, val, b)
		denseEqual(t, fmt.Sprintf("S'·b, round %d", round), got, want, 0)
		want, got = New(30, 12), New(30, 12)
		fresh.TMulTo(want, bt)
		p.TMulValuesTo(got, val, bt)
		denseEqual(t, fmt.Sprintf("S'ᵀ·b, round %d", round), got, want, 0)
	}
	short := make([]float64, p.NNZ()-1)
	for name, product := range map[string]func(){
		"MulValuesTo":  func() { p.MulValuesTo(New(40, 12), short, b) },
		"TMulValuesTo": func() { p.TMulValuesTo(New(30, 12), short, bt) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s accepted one value too few", name)
				}
			}()
			product()
		}()
	}
}

// On every path a CSR product computes every element as the dense
// product does, the same chain of fused multiply-adds over the
// stored entries in order (the zeros the dense product adds change
// nothing): the 64- and 32-column blocks and the narrow remainder agree
// with the in-order chain bit for bit.
func TestWideSparseProductsAreFMAChains(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		for _, f := range []int{32, 40, 64, 70, 100, 128} {
			s := randomCSR(rng, 50, 80, 0.1)
			b := randomDense(rng, 80, f)
			denseEqual(t, fmt.Sprintf("CSR·b, %d columns", f), s.Mul(b), fmaMul(s.ToDense(), b), 0)
		}
	})
}

// A row without entries is a zero row of the product whatever the
// destination held before, on every path: the wide kernels called row
// after row, the narrow multi-row kernels and the portable loops; the
// other rows are the in-order fused chains, alone or blended (MulAddTo).
func TestSparseProductsClearEmptyRows(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(41, 42))
		for _, f := range []int{4, 8, 16, 32, 40, 64, 128} {
			var ri, ci []int
			var val []float64
			for i := 0; i < 2*spmmChunk+5; i++ {
				if i%3 == 0 || i == 2*spmmChunk+4 {
					continue // empty, the last row among them
				}
				for j := 0; j < 30; j++ {
					if rng.Float64() < 0.2 {
						ri, ci, val = append(ri, i), append(ci, j), append(val, rng.NormFloat64())
					}
				}
			}
			s, err := FromCOO(2*spmmChunk+5, 30, ri, ci, val)
			if err != nil {
				t.Fatal(err)
			}
			b, c := randomDense(rng, 30, f), randomDense(rng, s.Rows, f)
			got := New(s.Rows, f)
			for i := range got.Data {
				got.Data[i] = math.NaN()
			}
			s.MulTo(got, b)
			want := fmaMul(s.ToDense(), b)
			denseEqual(t, fmt.Sprintf("CSR·b, %d columns", f), got, want, 0)
			for i := range got.Data {
				got.Data[i] = math.NaN()
			}
			s.MulAddTo(got, b, 0.9, c, 0.1)
			for i, v := range want.Data {
				want.Data[i] = float64(0.9*v) + float64(0.1*c.Data[i])
			}
			denseEqual(t, fmt.Sprintf("0.9·CSR·b + 0.1·c, %d columns", f), got, want, 0)
		}
	})
}
