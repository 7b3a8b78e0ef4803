package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// randomCSR returns a rows×cols matrix with the given density of uniform
// random entries.
func randomCSR(rng *rand.Rand, rows, cols int, density float64) *CSR {
	var ri, ci []int
	var val []float64
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if rng.Float64() < density {
				ri, ci, val = append(ri, i), append(ci, j), append(val, rng.Float64())
			}
		}
	}
	s, err := FromCOO(rows, cols, ri, ci, val)
	if err != nil {
		panic(err)
	}
	return s
}

func randomDense(rng *rand.Rand, rows, cols int) *Dense {
	d := New(rows, cols)
	for i := range d.Data {
		d.Data[i] = rng.NormFloat64()
	}
	return d
}

// reportFlops reports throughput in GFLOP/s for flops floating-point
// operations per iteration.
func reportFlops(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// CoraML's bag-of-words features: 2995×2879 at 1.75% density, times the
// 2879×64 first-layer weights, and the transposed product of the weight
// gradient.
func BenchmarkSpMMFeatures(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := randomCSR(rng, 2995, 2879, 0.0175)
	w := randomDense(rng, 2879, 64)
	g := randomDense(rng, 2995, 64)
	flops := 2 * float64(x.NNZ()) * 64
	b.Run("XW", func(b *testing.B) {
		out := New(2995, 64)
		for b.Loop() {
			x.MulTo(out, w)
		}
		reportFlops(b, flops)
	})
	b.Run("XtG", func(b *testing.B) {
		out := New(2879, 64)
		for b.Loop() {
			x.TMulTo(out, g)
		}
		reportFlops(b, flops)
	})
}

// randomAdjacency returns a symmetric n-node adjacency with about entries
// stored entries between distinct random nodes, and a self loop on every
// node.
func randomAdjacency(rng *rand.Rand, n, entries int) *CSR {
	var ri, ci []int
	for len(ri) < entries {
		i, j := rng.IntN(n), rng.IntN(n)
		if i != j {
			ri, ci = append(ri, i, j), append(ci, j, i)
		}
	}
	for i := 0; i < n; i++ {
		ri, ci = append(ri, i), append(ci, i)
	}
	a, _ := FromCOO(n, n, ri, ci, nil)
	return a
}

// Propagation over a CoraML-sized adjacency: 3k nodes, 16k edges plus self
// loops, 64 columns.
func BenchmarkSpMMAdjacency(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3000
	a := randomAdjacency(rng, n, 16000)
	x := randomDense(rng, n, 64)
	out := New(n, 64)
	for b.Loop() {
		a.MulTo(out, x)
	}
	reportFlops(b, 2*float64(a.NNZ())*64)
}

// A propagation step of class scores or evidence (the narrow kernels, 4 to
// 16 columns) over random adjacencies with self loops: CoraML's size (3k
// nodes, 16k entries), Amazon Photos' nodes with half its entries (7,650
// nodes, 119k entries) and Amazon Computers' size (13,752 nodes, 505k
// entries, about 38 a row). A row's chains of multiply-adds are
// latency-bound, which is why the kernels take rows two at a time;
// GOMAXPROCS=1 times one core.
func BenchmarkSpMMNarrow(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, g := range []struct {
		name           string
		nodes, entries int
	}{{"CoraML", 3000, 16000}, {"Photos", 7650, 119000}, {"Computers", 13752, 505000}} {
		a := randomAdjacency(rng, g.nodes, g.entries)
		for _, f := range []int{7, 8, 10, 16} {
			x, out := randomDense(rng, g.nodes, f), New(g.nodes, f)
			b.Run(fmt.Sprintf("%s/%d", g.name, f), func(b *testing.B) {
				for b.Loop() {
					a.MulTo(out, x)
				}
				reportFlops(b, 2*float64(a.NNZ())*float64(f))
			})
		}
	}
}

// Dense 3k×64 times 64×64, the hidden-layer products.
func BenchmarkDenseMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, w := randomDense(rng, 3000, 64), randomDense(rng, 64, 64)
	out := New(3000, 64)
	for b.Loop() {
		MulTo(out, x, false, w, false)
	}
	reportFlops(b, 2*3000*64*64)
}

// Amazon Computers' dense features (767 columns) times the 767×64
// first-layer weights, on 3000 of its 13,752 rows, and the transposed
// product of the weight gradient: the largest products of training on the
// Amazon graphs.
func BenchmarkDenseFeatures(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, w, g := randomDense(rng, 3000, 767), randomDense(rng, 767, 64), randomDense(rng, 3000, 64)
	b.Run("x·w", func(b *testing.B) {
		out := New(3000, 64)
		for b.Loop() {
			MulTo(out, x, false, w, false)
		}
		reportFlops(b, 2*3000*767*64)
	})
	b.Run("xᵀ·g", func(b *testing.B) {
		out := New(767, 64)
		for b.Loop() {
			MulTo(out, x, true, g, false)
		}
		reportFlops(b, 2*3000*767*64)
	})
}

// Amazon Computers-shaped features (13,752 × 767 scaled 0/1 rows, 35%
// non-zero) times a 767 × 64 weight, the dense product and the subset-sum
// tables of ScaledBinary, and the transposed product Xᵀ·G of the weight
// gradient through X's non-zeros and as the dense product.
func BenchmarkScaledBinaryFeatures(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, w := scaledBinary(rng, 13752, 767, 0.35), randomDense(rng, 767, 64)
	sb, _ := NewScaledBinary(x)
	out := New(13752, 64)
	b.Run("dense", func(b *testing.B) {
		for b.Loop() {
			MulTo(out, x, false, w, false)
		}
		reportFlops(b, 2*13752*767*64)
	})
	b.Run("tables", func(b *testing.B) {
		for b.Loop() {
			sb.MulTo(out, w)
		}
		reportFlops(b, 2*13752*767*64)
	})
	g, gw := randomDense(rng, 13752, 64), New(767, 64)
	b.Run("transposed", func(b *testing.B) {
		for b.Loop() {
			sb.TMulTo(gw, g)
		}
		reportFlops(b, 2*13752*767*64)
	})
	b.Run("transposed-dense", func(b *testing.B) {
		for b.Loop() {
			MulTo(gw, x, true, g, false)
		}
		reportFlops(b, 2*13752*767*64)
	})
}

// The products of one run against those of ten runs side by side (ten
// times the columns), at Amazon Computers' shapes: the features through
// the subset-sum tables and their transposed product by 64 and 640
// columns, and a random adjacency with as many entries as Computers'
// (491,722 plus self loops) by 10 and 100, 16 and 160 columns. A wide
// model of many runs pays only where the wide product costs less than
// ten narrow ones (docs/records/performance.md).
func BenchmarkWideProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	sb, _ := NewScaledBinary(scaledBinary(rng, 13752, 767, 0.35))
	n := 13752
	a := randomAdjacency(rng, n, 491722)
	for _, m := range []int{64, 640} {
		w, out := randomDense(rng, 767, m), New(n, m)
		b.Run(fmt.Sprintf("tables/%d", m), func(b *testing.B) {
			for b.Loop() {
				sb.MulTo(out, w)
			}
		})
		g, gw := randomDense(rng, n, m), New(767, m)
		b.Run(fmt.Sprintf("transposed/%d", m), func(b *testing.B) {
			for b.Loop() {
				sb.TMulTo(gw, g)
			}
		})
	}
	for _, m := range []int{10, 100, 16, 160} {
		z, out := randomDense(rng, n, m), New(n, m)
		b.Run(fmt.Sprintf("propagation/%d", m), func(b *testing.B) {
			for b.Loop() {
				a.MulTo(out, z)
			}
		})
	}
}

// BenchmarkActivations runs ReLU, AddReLUGrad, Dropout and
// AddDropoutGrad over a hidden layer of 64 features on CoraML's and
// Amazon Computers' nodes, one call on one core, with the processor's
// kernels and with the Go loops (portable).
func BenchmarkActivations(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, nodes := range []int{2995, 13752} {
		n := nodes * 64
		x, g, dst := randomDense(rng, nodes, 64).Data, randomDense(rng, nodes, 64).Data, make([]float64, n)
		keep, draws := make([]uint8, n), make([]uint32, n)
		for i := range draws {
			draws[i] = rng.Uint32()
		}
		ops := []struct {
			name string
			run  func()
		}{
			{"relu", func() { ReLU(dst, x) }},
			{"relu-grad", func() { AddReLUGrad(dst, g, x) }},
			{"dropout", func() { Dropout(dst, x, keep, draws, 1<<31, 2) }},
			{"dropout-grad", func() { AddDropoutGrad(dst, g, keep, 2) }},
		}
		for _, path := range []string{Kernels(), "portable"} {
			for _, op := range ops {
				b.Run(fmt.Sprintf("%d/%s/%s", nodes, op.name, path), func(b *testing.B) {
					loop := func() {
						for b.Loop() {
							op.run()
						}
					}
					if path == "portable" {
						withPortableKernels(loop)
					} else {
						loop()
					}
				})
			}
		}
	}
}

// BenchmarkParallelFor times a ParallelFor of two chunks over a short
// kernel (a sum of 2¹⁶ values, some 30 µs per chunk) after 100 µs of
// serial work, as an epoch's kernels follow the tape's bookkeeping and the
// small operations between them: through the team, whose helper polls for
// the next chunk, and with a goroutine per chunk (spawnFor), which wakes
// an idle core each time. Needs two cores.
func BenchmarkParallelFor(b *testing.B) {
	x := make([]float64, 1<<16)
	for i := range x {
		x[i] = float64(i % 7)
	}
	var sums [2]float64
	body := func(lo, hi int) {
		s := 0.0
		for _, v := range x[lo:hi] {
			s += v
		}
		sums[lo*2/len(x)] = s
	}
	serial := func() {
		for start := time.Now(); time.Since(start) < 100*time.Microsecond; {
		}
	}
	b.Run("team", func(b *testing.B) {
		if Workers(len(x)) < 2 {
			b.Skip("one core")
		}
		for b.Loop() {
			serial()
			ParallelFor(len(x), len(x), body)
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		for b.Loop() {
			serial()
			spawnFor(len(x), 2, func(k, w int) int { return k * len(x) / w }, body)
		}
	})
}
