//go:build !amd64 || purego

package nn

func (f *RadialFlows) fastChain(z []float64, c int, s layerScalars) (produ, prodq float64, ok bool) {
	return 0, 0, false
}

func (f *RadialFlows) forwardBlock(z []float64, i0 int, s layerScalars, logp []float64, scratch *[2 * 64]float64) bool {
	return false
}

type laneRecord struct{}

func (f *RadialFlows) newLaneRecord() *laneRecord { return nil }

func (f *RadialFlows) recordBlock(z []float64, i0, c int, s layerScalars, lr *laneRecord) bool {
	return false
}

func (lr *laneRecord) extract(k int, rec *chainRecord, zL []float64) {}

func (f *RadialFlows) backBlock(c int, gi *[4]float64, s layerScalars, lr *laneRecord, gz [4][]float64) {
}

func (lr *laneRecord) flush(acc flowAcc) {}
