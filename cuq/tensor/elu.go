package tensor

import "math"

// ELU sets dst[i] = x for x = src[i] > 0 and math.Expm1(x) otherwise
// (the exponential linear unit with α = 1), for i < len(src), to math's
// bit; dst must be at least as long as src and may be src itself. On amd64
// with AVX2 four elements go through a kernel at a time that does
// math.Expm1's operations for x ≤ 0 lane by lane (see eluTable); blocks
// with an argument at or below −56·ln 2 (where Expm1 returns −1) or NaN
// are left to the Go loop.
func ELU(dst, src []float64) {
	if len(dst) < len(src) {
		panic("tensor.ELU: destination shorter than source")
	}
	for i := 0; i < len(src); {
		i += eluKernel(dst[i:len(src)], src[i:])
		for end := min(i+4, len(src)); i < end; i++ {
			v := src[i]
			if v <= 0 {
				v = math.Expm1(v)
			}
			dst[i] = v
		}
	}
}
