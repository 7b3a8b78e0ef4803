//go:build (amd64 || arm64) && !purego

package tensor

// checkRowIndices panics unless every index selects one of the rows of b:
// the assembly kernels read b without bounds checks.
func checkRowIndices(ind []int, rows int) {
	for _, j := range ind {
		if j < 0 || j >= rows {
			panic("tensor: CSR column index out of range")
		}
	}
}
