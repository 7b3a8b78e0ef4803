//go:build arm64 && !purego

package nn

// flowNEON selects the NEON kernels of flow_arm64.s, which run the forward
// chains of a block of eight nodes and their backward pass, four lanes at a
// time, for the paper's latent size, D = 16, computing exactly what the
// portable forwardBlock and backwardBlock compute (every ARMv8-A processor
// has NEON).
var flowNEON = true

//go:noescape
func radialForward8NEON(zt, x0, a, b *float64, layers, classes int, out, rec *float64)

//go:noescape
func radialBackward4NEON(rec, zt, gi, x0, b, sigA, sigB *float64, layers, classes int, gz, accX0, accA, accB *float64)

// forwardKernel runs forwardBlock with the NEON kernel and reports whether
// it could.
func (f *RadialFlows) forwardKernel(zt []float64, c int, s layerScalars, res *blockResult, rec []float64) bool {
	if !flowNEON || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	_ = zt[16*lanes-1]
	var out [3 * lanes]float64
	radialForward8NEON(&zt[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, f.Classes, &out[0], f.recordStart(rec))
	res.set(&out)
	return true
}

// backwardKernel runs backwardBlock with the NEON kernel, four lanes at a
// time (a group of four without gradient is skipped), and reports whether
// it could.
func (f *RadialFlows) backwardKernel(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads) bool {
	if !flowNEON || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	a := f.backwardArgsOf(rec, zL, c, s, gz, acc)
	for h := 0; h < lanes; h += 4 {
		if noGradient4(gi, h) {
			continue
		}
		radialBackward4NEON(&rec[a.lastRec+h], &zL[h], &gi[h], a.x0, a.b, a.sigA, a.sigB, f.Layers, f.Classes, &gz[h],
			&acc.x0[a.last*16*lanes+h], &acc.a[a.last*lanes+h], &acc.b[a.last*lanes+h])
	}
	return true
}

func (f *RadialFlows) forwardPairKernel(za, zb []float64, c int, s layerScalars, ra, rb *blockResult, reca, recb []float64) bool {
	return false
}

func (f *RadialFlows) pairKernel(c int) bool { return false }
