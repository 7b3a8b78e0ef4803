//go:build arm64 && !purego

package nn

// flowNEON selects the NEON kernel of flow_arm64.s, which runs the forward
// chains of a block of eight nodes for the paper's latent size, D = 16,
// computing exactly what the portable forwardBlock computes (every ARMv8-A
// processor has NEON). The backward pass is the portable code.
var flowNEON = true

//go:noescape
func radialForward8NEON(zt, x0, a, b *float64, layers, classes int, out, rec *float64)

// forwardKernel runs forwardBlock with the NEON kernel and reports whether
// it could.
func (f *RadialFlows) forwardKernel(zt []float64, c int, s layerScalars, res *blockResult, rec []float64) bool {
	if !flowNEON || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	_ = zt[16*lanes-1]
	var out [3 * lanes]float64
	var r *float64
	if rec != nil {
		_ = rec[f.Layers*f.recordSize()-1]
		r = &rec[0]
	}
	radialForward8NEON(&zt[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, f.Classes, &out[0], r)
	copy(res.produ[:], out[:lanes])
	copy(res.prodq[:], out[lanes:2*lanes])
	copy(res.sq[:], out[2*lanes:])
	return true
}

func (f *RadialFlows) backwardKernel(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads) bool {
	return false
}

func (f *RadialFlows) forwardPairKernel(za, zb []float64, c int, s layerScalars, ra, rb *blockResult) bool {
	return false
}
