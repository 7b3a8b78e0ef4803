//go:build (!amd64 && !arm64) || purego

package nn

func (f *RadialFlows) forwardKernel(zt []float64, c int, s layerScalars, res *blockResult, rec []float64) bool {
	return false
}

func (f *RadialFlows) backwardKernel(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads) bool {
	return false
}

func (f *RadialFlows) forwardPairKernel(za, zb []float64, c int, s layerScalars, ra, rb *blockResult, reca, recb []float64) bool {
	return false
}

func (f *RadialFlows) pairKernel(c int) bool { return false }
