//go:build !amd64 || purego

package tensor

func reluKernel(dst, src []float64) int { return 0 }

func reluGradKernel(dst, g, x []float64) int { return 0 }

func dropoutKernel(dst, x []float64, keep []uint8, draws []uint32, threshold uint32, scale float64) int {
	return 0
}

func dropoutGradKernel(dst, g []float64, keep []uint8, scale float64) int { return 0 }
