//go:build (amd64 || arm64) && !purego

package tensor

import "math/bits"

// checkRowIndices panics unless every index selects one of the rows of b:
// the assembly kernels read b without bounds checks.
func checkRowIndices(ind []int, rows int) {
	for _, j := range ind {
		if j < 0 || j >= rows {
			panic("tensor: CSR column index out of range")
		}
	}
}

// checkScatterBlock panics unless scatterBlock's kernels, which read and
// write without bounds checks, stay within o, b and scale.
func checkScatterBlock(o []float64, ldo int, masks []uint8, b []float64, ldb, cols int, scale []float64) {
	var any uint8
	for _, m := range masks {
		any |= m
	}
	_ = o[(len(masks)-1)*ldo+cols-1]
	if any != 0 {
		top := 7 - bits.LeadingZeros8(any)
		_, _ = b[top*ldb+cols-1], scale[top]
	}
}
