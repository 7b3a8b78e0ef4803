package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// scaledBinary returns a rows×cols matrix of scaled 0/1 rows of the given
// density, as binarised and normalised bag-of-words features, with some
// empty rows.
func scaledBinary(rng *rand.Rand, rows, cols int, density float64) *Dense {
	d := New(rows, cols)
	for i := 0; i < rows; i++ {
		if i%7 == 3 {
			continue // an empty row
		}
		row := d.Row(i)
		n := 0
		for j := range row {
			if rng.Float64() < density {
				row[j] = 1
				n++
			}
		}
		for j := range row {
			row[j] /= math.Max(float64(n), 1)
		}
	}
	return d
}

func TestNewScaledBinaryRecognisesRows(t *testing.T) {
	ok := MustFromSlice(3, 4, []float64{0.5, 0, 0.5, 0, 0, 0, 0, 0, 0, 2, 2, 2})
	if _, is := NewScaledBinary(ok); !is {
		t.Error("rows of equal non-zeros were not recognised")
	}
	for name, d := range map[string]*Dense{
		"two values in a row": MustFromSlice(2, 2, []float64{1, 2, 0, 0}),
		"infinite":            MustFromSlice(1, 2, []float64{math.Inf(1), math.Inf(1)}),
		"NaN":                 MustFromSlice(1, 2, []float64{math.NaN(), 0}),
	} {
		if _, is := NewScaledBinary(d); is {
			t.Errorf("%s: recognised as scaled binary", name)
		}
	}
}

// The tables compute X·W + r exactly when every sum is exact: with W and r
// small integers and power-of-two scales there is no rounding, so the
// product must equal the dense one bit for bit, for any width of W (the
// slices of 32 columns and a narrower last one) and any width of X (a last
// chunk of fewer than four columns), on every kernel set.
func TestScaledBinaryProductsExact(t *testing.T) {
	forEachKernelSet(t, testScaledBinaryExact)
}

func testScaledBinaryExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, cols := range []int{1, 3, 10, 767} {
		x := New(37, cols)
		for i := 0; i < x.Rows; i++ {
			s := math.Ldexp(1, -rng.IntN(6))
			for j := 0; j < cols; j++ {
				if rng.IntN(3) == 0 {
					x.Set(i, j, s)
				}
			}
		}
		sb, ok := NewScaledBinary(x)
		if !ok {
			t.Fatal("not recognised")
		}
		for _, m := range []int{1, 5, 32, 40, 64, 70} {
			w, r := New(cols, m), make([]float64, m)
			for k := range w.Data {
				w.Data[k] = float64(rng.IntN(17) - 8)
			}
			for k := range r {
				r[k] = float64(rng.IntN(9) - 4)
			}
			got, want := New(37, m), New(37, m)
			sb.MulAddRowTo(got, w, r)
			MulAddRowTo(want, x, w, r)
			denseEqual(t, fmt.Sprintf("%d×%d · %d×%d + r", 37, cols, cols, m), got, want, 0)
			sb.MulTo(got, w)
			MulTo(want, x, false, w, false)
			denseEqual(t, "X·W", got, want, 0)
			g := randomDense(rng, 37, m)
			gotT, wantT := New(cols, m), New(cols, m)
			sb.TMulTo(gotT, g)
			MulTo(wantT, x, true, g, false)
			denseEqual(t, "Xᵀ·G", gotT, wantT, 0)
		}
	}
}

// With general weights the tables' sums round differently from the dense
// product's chain, within a few units in the last place.
func TestScaledBinaryProductsClose(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	x := scaledBinary(rng, 300, 767, 0.35)
	sb, _ := NewScaledBinary(x)
	w := randomDense(rng, 767, 64)
	got, want := New(300, 64), New(300, 64)
	sb.MulTo(got, w)
	MulTo(want, x, false, w, false)
	denseEqual(t, "X·W", got, want, 1e-13)
}

// The table kernels of every kernel set (AVX-512, AVX2, NEON) compute what
// the portable code computes, bit for bit, with general weights, where
// the order of the tables' additions shows in the rounding.
func TestScaledBinaryKernelsMatchPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	x := scaledBinary(rng, 101, 767, 0.35)
	sb, _ := NewScaledBinary(x)
	w, r := randomDense(rng, 767, 70), randomDense(rng, 1, 70).Data
	product := func() *Dense {
		out := New(101, 70)
		sb.MulAddRowTo(out, w, r)
		return out
	}
	var want *Dense
	withPortableKernels(func() { want = product() })
	forEachKernelSet(t, func(t *testing.T) { denseEqual(t, "X·W + r", product(), want, 0) })
}

// The tables leave out the chunks of a row without bits, whose entry
// T_c[0] = +0 would change no sum. The products must therefore have the
// bits of the sums over every chunk in order, worked out here by
// definition, with general weights (where a different order of additions
// shows in the rounding) and with pairs of opposite rows of W, whose
// entries are exactly +0 although their chunks have bits. Zero chunks come
// in runs, alone, at a row's start and end, and rows with no bits at all.
func TestScaledBinaryTablesSumEveryChunk(t *testing.T) {
	forEachKernelSet(t, testScaledBinaryEveryChunk)
}

func testScaledBinaryEveryChunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	const rows, cols, m = 41, 99, 40
	x := New(rows, cols)
	for i := range rows {
		if i%9 == 4 {
			continue // no bits at all
		}
		s := 1 / float64(1+rng.IntN(7))
		for j := range cols {
			chunk := j / binaryChunk
			if chunk%5 != 0 && chunk%7 != i%7 && rng.IntN(3) == 0 {
				x.Set(i, j, s)
			}
		}
	}
	w, r := randomDense(rng, cols, m), randomDense(rng, 1, m).Data
	for k := 0; k+1 < cols; k += 12 {
		for j := range m {
			w.Set(k+1, j, -w.At(k, j)) // chunk 3k/12 with bits 0 and 1: T = +0
		}
	}
	sb, ok := NewScaledBinary(x)
	if !ok {
		t.Fatal("not recognised")
	}
	got := New(rows, m)
	sb.MulAddRowTo(got, w, r)
	chunks := (cols + binaryChunk - 1) / binaryChunk
	for i := range rows {
		var scale float64
		for j := range cols {
			if x.At(i, j) != 0 {
				scale = x.At(i, j)
			}
		}
		for j := range m {
			sum := 0.0
			for c := range chunks {
				// T_c[p] = T_c[p without its lowest bit] + that bit's row:
				// the rows of p's bits added from the highest down.
				entry := 0.0
				for b := min(cols, (c+1)*binaryChunk) - 1; b >= c*binaryChunk; b-- {
					if x.At(i, b) != 0 {
						entry += w.At(b, j)
					}
				}
				sum += entry
			}
			if want := math.FMA(scale, sum, r[j]); math.Float64bits(got.At(i, j)) != math.Float64bits(want) {
				t.Fatalf("(X·W + r)[%d,%d] = %v, the sum over every chunk is %v", i, j, got.At(i, j), want)
			}
		}
	}
}

func TestScaledBinaryShapePanics(t *testing.T) {
	sb, _ := NewScaledBinary(New(3, 4))
	defer func() {
		if recover() == nil {
			t.Error("a 3×4 · 5×2 product did not panic")
		}
	}()
	sb.MulTo(New(3, 2), New(5, 2))
}

// Xᵀ·G through the non-zeros of X is, on every kernel path, the chain of
// fused multiply-adds in order of the rows of X (fmaMul, the definition
// the dense product follows too), for widths below, at and beyond the
// kernels' blocks, with the rows of the output split among workers; it
// overwrites what dst held.
func TestScaledBinaryTransposedBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	x := scaledBinary(rng, 301, 767, 0.35)
	sb, ok := NewScaledBinary(x)
	if !ok {
		t.Fatal("not recognised")
	}
	forEachKernelSet(t, func(t *testing.T) {
		for _, m := range []int{1, 3, 4, 5, 16, 17, 64, 70, 96, 135} {
			g := randomDense(rng, 301, m)
			got := randomDense(rng, 767, m)
			sb.TMulTo(got, g)
			want := fmaMul(x.T(), g)
			denseEqual(t, fmt.Sprintf("Xᵀ·G, %d columns", m), got, want, 0)
		}
	})
}
