package tensor

import "math"

// ReLU sets dst[i] = max(src[i], 0) for i < len(src), with Go's max: +0
// for a negative number and for −0, src[i] itself otherwise, NaN staying
// NaN. dst must be at least as long as src and may be src itself. On
// amd64 with AVX2 four elements go through a kernel at a time, with the
// bits the Go loop gives there (a NaN comes out with its sign bit
// cleared, as Go's max on amd64 returns it); elsewhere the Go loop runs.
func ReLU(dst, src []float64) {
	if len(dst) < len(src) {
		panic("tensor.ReLU: destination shorter than source")
	}
	i := reluKernel(dst[:len(src)], src)
	dst, src = dst[i:len(src)], src[i:]
	for k, v := range src {
		dst[k] = max(v, 0)
	}
}

// AddReLUGrad adds to dst the gradient g of a ReLU at x: dst[i] += g[i]
// where x[i] > 0 and dst[i] += +0 elsewhere (NaN included), for i <
// len(x). dst and g must be at least as long as x. With AVX2 four
// elements go through a kernel at a time, with the Go loop's bits (a NaN
// added to a NaN is NaN on every path, but which of the two comes out
// depends on an operand order the compiler chooses).
func AddReLUGrad(dst, g, x []float64) {
	if len(dst) < len(x) || len(g) < len(x) {
		panic("tensor.AddReLUGrad: gradient or destination shorter than x")
	}
	i := reluGradKernel(dst[:len(x)], g[:len(x)], x)
	dst, g, x = dst[i:len(x)], g[i:len(x)], x[i:]
	for k, v := range x {
		// Masking the bits gives g[k] or +0 without a branch on the
		// sign, which is as good as random.
		dst[k] += math.Float64frombits(math.Float64bits(g[k]) & -uint64(b2u(v > 0)))
	}
}

// Dropout decides and applies dropout to the elements of x, one 32-bit
// random draw each: for i < len(x),
//
//	keep[i] = 1 if draws[i] ≥ threshold, else 0,
//	dst[i]  = x[i]·scale if keep[i] = 1, else +0,
//
// so that an element is dropped with probability threshold / 2³² and a
// kept one is scaled (by 1/(1−p) for dropout of probability p). dst,
// keep and draws must be at least as long as x; dst may be x itself. With
// AVX2 four elements go through a kernel at a time, with the Go loop's
// bits.
func Dropout(dst, x []float64, keep []uint8, draws []uint32, threshold uint32, scale float64) {
	if len(dst) < len(x) || len(keep) < len(x) || len(draws) < len(x) {
		panic("tensor.Dropout: destination, decisions or draws shorter than x")
	}
	i := dropoutKernel(dst[:len(x)], x, keep[:len(x)], draws[:len(x)], threshold, scale)
	dst, x, keep, draws = dst[i:len(x)], x[i:], keep[i:len(x)], draws[i:len(x)]
	for k, r := range draws {
		kept := b2u(r >= threshold)
		keep[k] = kept
		// −kept is a mask of all ones or zeros, and masking the bits of
		// the scaled value gives it or +0 without a branch on random
		// bits, which the processor cannot predict.
		dst[k] = math.Float64frombits(math.Float64bits(x[k]*scale) & -uint64(kept))
	}
}

// AddDropoutGrad adds to dst the gradient g of a Dropout whose decisions
// are keep: dst[i] += scale·g[i] where keep[i] = 1 and dst[i] += +0 where
// keep[i] = 0, for i < len(g). dst and keep must be at least as long as
// g, and keep must hold only zeros and ones. With AVX2 four elements go
// through a kernel at a time, with the Go loop's bits (but for the NaN a
// sum of two NaNs passes on, as for AddReLUGrad).
func AddDropoutGrad(dst, g []float64, keep []uint8, scale float64) {
	if len(dst) < len(g) || len(keep) < len(g) {
		panic("tensor.AddDropoutGrad: destination or decisions shorter than the gradient")
	}
	i := dropoutGradKernel(dst[:len(g)], g, keep[:len(g)], scale)
	dst, g, keep = dst[i:len(g)], g[i:], keep[i:len(g)]
	for k, v := range g {
		dst[k] += math.Float64frombits(math.Float64bits(scale*v) & -uint64(keep[k]))
	}
}

// b2u returns 1 for true and 0 for false; the compiler makes it a
// flag-setting instruction, not a branch.
func b2u(b bool) uint8 {
	var u uint8
	if b {
		u = 1
	}
	return u
}
