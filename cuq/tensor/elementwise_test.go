package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// reluInputs returns n values: random normals, among which every kind of
// value a ReLU must handle: both zeros, both infinities, quiet and
// signalling NaNs of both signs with payloads, subnormals.
func reluInputs(rng *rand.Rand, n int) []float64 {
	special := []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000001,
		0xfff8000000000002, 0x7ff0000000000003, 0xfff0000000000004, 1, 1<<63 | 1, 0x3ff0000000000000, 0xbff0000000000000}
	x := make([]float64, n)
	for i := range x {
		if rng.IntN(4) == 0 {
			x[i] = math.Float64frombits(special[rng.IntN(len(special))])
		} else {
			x[i] = rng.NormFloat64()
		}
	}
	return x
}

// TestReLUMatchesGoMax compares ReLU and AddReLUGrad on every kernel path
// with their definitions, Go's max(x, 0) and dst + (x > 0 ? g : +0)
// evaluated element by element, bit for bit (NaN payloads and signs
// included, but for a NaN added to a NaN), at every length up to 40 and at a large one, in place and
// not.
func TestReLUMatchesGoMax(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		for _, n := range append(rangeTo(41), 1000, 4099) {
			x := reluInputs(rng, n)
			want := make([]float64, n)
			for i, v := range x {
				want[i] = max(v, 0)
			}
			got := make([]float64, n+3)
			ReLU(got, x)
			sameFloats(t, fmt.Sprintf("ReLU of %d", n), got[:n], want)
			in := append([]float64(nil), x...)
			ReLU(in, in)
			sameFloats(t, fmt.Sprintf("ReLU of %d in place", n), in, want)

			g, dst := reluInputs(rng, n), gradientSums(rng, n)
			wantGrad := append([]float64(nil), dst...)
			for i, v := range x {
				add := 0.0
				if v > 0 {
					add = g[i]
				}
				wantGrad[i] += add
			}
			AddReLUGrad(dst, g, x)
			sameFloats(t, fmt.Sprintf("AddReLUGrad of %d", n), dst, wantGrad)
		}
	})
	expectPanics(t, map[string]func(){
		"tensor.ReLU: destination shorter":       func() { ReLU(make([]float64, 2), make([]float64, 3)) },
		"tensor.AddReLUGrad: gradient or destin": func() { AddReLUGrad(make([]float64, 3), make([]float64, 2), make([]float64, 3)) },
	})
}

// gradientSums returns n gradients accumulated so far for a gradient
// kernel to add to: random normals and zeros of both signs, but no NaN,
// since which of two NaNs a sum returns depends on the order of its
// operands, which the compiler chooses.
func gradientSums(rng *rand.Rand, n int) []float64 {
	dst := make([]float64, n)
	for i := range dst {
		dst[i] = float64(rng.IntN(3)-1) * rng.NormFloat64()
	}
	return dst
}

func rangeTo(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// sameFloats fails t at the first element of got whose bits differ from
// want's.
func sameFloats(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d is %#x, want %#x", what, i, math.Float64bits(got[i]), math.Float64bits(want[i]))
		}
	}
}

// TestDropoutMatchesDefinition compares Dropout and AddDropoutGrad on
// every kernel path with their definitions evaluated element by element,
// bit for bit, at every length up to 40 and at a large one, for
// thresholds at both ends of the range and draws on either side of them.
func TestDropoutMatchesDefinition(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 16))
		for _, threshold := range []uint32{0, 1, 1 << 31, 0x80000001, math.MaxUint32} {
			scale := 1 / (1 - float64(threshold)/(1<<32))
			for _, n := range append(rangeTo(41), 1001) {
				x := reluInputs(rng, n)
				draws := make([]uint32, n)
				for i := range draws {
					switch rng.IntN(4) {
					case 0:
						draws[i] = threshold + uint32(rng.IntN(3)) - 1 // at it and on either side, wrapping
					case 1:
						draws[i] = uint32(rng.IntN(2)) * math.MaxUint32
					default:
						draws[i] = rng.Uint32()
					}
				}
				want, wantKeep := make([]float64, n), make([]uint8, n)
				for i, r := range draws {
					if r >= threshold {
						wantKeep[i], want[i] = 1, x[i]*scale
					}
				}
				got, keep := make([]float64, n+2), make([]uint8, n+2)
				Dropout(got, x, keep, draws, threshold, scale)
				what := fmt.Sprintf("Dropout of %d, threshold %#x", n, threshold)
				sameFloats(t, what, got[:n], want)
				for i, k := range wantKeep {
					if keep[i] != k {
						t.Fatalf("%s: decision %d is %d, want %d", what, i, keep[i], k)
					}
				}
				Dropout(x, x, keep, draws, threshold, scale)
				sameFloats(t, what+" in place", x, want)

				g, dst := reluInputs(rng, n), gradientSums(rng, n)
				wantGrad := append([]float64(nil), dst...)
				for i, k := range wantKeep {
					add := 0.0
					if k == 1 {
						add = scale * g[i]
					}
					wantGrad[i] += add
				}
				AddDropoutGrad(dst, g, keep, scale)
				sameFloats(t, fmt.Sprintf("AddDropoutGrad of %d, threshold %#x", n, threshold), dst, wantGrad)
			}
		}
	})
	expectPanics(t, map[string]func(){
		"tensor.Dropout: destination, decisions or draws shorter": func() {
			Dropout(make([]float64, 3), make([]float64, 3), make([]uint8, 3), make([]uint32, 2), 0, 1)
		},
		"tensor.AddDropoutGrad: destination or decisions shorter": func() {
			AddDropoutGrad(make([]float64, 3), make([]float64, 3), make([]uint8, 2), 1)
		},
	})
}

// expectPanics calls each function of cases and fails t unless it panics
// with a message that contains the function's key.
func expectPanics(t *testing.T, cases map[string]func()) {
	t.Helper()
	for want, f := range cases {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
					t.Errorf("panic %v, want one containing %q", r, want)
				}
			}()
			f()
		}()
	}
}
