//go:build (!amd64 && !arm64) || purego

package tensor

func axpy4(o, b0, b1, b2, b3 []float64, v0, v1, v2, v3 float64) {
	axpy4Go(o, b0, b1, b2, b3, v0, v1, v2, v3)
}

func axpy(o, b []float64, v float64) { axpyGo(o, b, v) }

func scatterBlock(o []float64, ldo int, masks []uint32, b []float64, ldb, cols int, scale []float64) {
	scatterBlockGo(o, ldo, masks, b, ldb, cols, scale)
}

func spmmRowBlocks(o, val []float64, ind []int, b []float64, ldb int) int { return 0 }

func spmmRowsWide(out []float64, ptr, ind []int, val, b []float64, f, lo, hi int) bool { return false }

func gemmRows4(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	return gemmRows4Go(o, ldo, a, lda, astep, b, ldb, k, cols)
}

func binarySumKernel(o []float64, ldo int, entries []uint32, start []int, tables, scale, bias []float64) bool {
	return false
}
