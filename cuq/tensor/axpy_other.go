//go:build (!amd64 && !arm64) || purego

package tensor

const useAVX = false

func axpy4(o, b0, b1, b2, b3 []float64, v0, v1, v2, v3 float64) {
	axpy4Go(o, b0, b1, b2, b3, v0, v1, v2, v3)
}

func axpy(o, b []float64, v float64) { axpyGo(o, b, v) }

func gemmRowBlocks(o, a, b []float64, ldb int) int { return 0 }

func gemmRows4(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	return gemmRows4Go(o, ldo, a, lda, astep, b, ldb, k, cols)
}

func spmmRowBlocks(o, val []float64, ind []int, b []float64, ldb int) int { return 0 }

func spmmRowNarrow(o, val []float64, ind []int, b []float64, c, ldb int) bool { return false }

func narrowColumns(f int) bool { return false }

func spmmRowsNarrow(out []float64, ptr []int, ind32 []int32, val, b []float64, f, lo, hi int, bl blend) bool {
	return false
}

const useAVX512 = false

func gemmRows8(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	return 0
}

func binarySumKernel(o []float64, ldo int, pat []uint8, chunks int, tables, scale, bias []float64) bool {
	return false
}
