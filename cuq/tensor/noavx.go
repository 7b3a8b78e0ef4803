//go:build !amd64 || purego

package tensor

// Without the amd64 kernels (other architectures, arm64 included, and the
// build tag purego) the products take their portable paths.

const (
	useAVX    = false
	useAVX512 = false
)

func gemmRowBlocks(o, a, b []float64, ldb int) int { return 0 }

func spmmRowNarrow(o, val []float64, ind []int, b []float64, c, ldb int) bool { return false }

func narrowColumns(f int) bool { return false }

func spmmRowsNarrow(out []float64, ptr []int, ind32 []int32, val, b []float64, f, lo, hi int, bl blend) bool {
	return false
}

func gemmRows8(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	return 0
}

func gemmRows6(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	return 0
}
