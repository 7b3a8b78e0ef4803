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

// backwardKernel runs backwardBlock with the NEON kernel, four lanes at a
// time (a group of four without gradient is skipped), and reports whether
// it could.
func (f *RadialFlows) backwardKernel(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads) bool {
	if !flowNEON || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	L, C := f.Layers, f.Classes
	_, _, _ = rec[L*f.recordSize()-1], zL[16*lanes-1], gz[16*lanes-1]
	last := (L-1)*C + c
	_, _, _ = acc.x0[(last+1)*16*lanes-1], acc.a[(last+1)*lanes-1], acc.b[(last+1)*lanes-1]
	lastRec := (L - 1) * f.recordSize()
	x0, b, sa, sb := &f.X0.Data.Data[last*16], &s.b[last], &s.sigA[last], &s.sigB[last]
	for h := 0; h < lanes; h += 4 {
		if gi[h] == 0 && gi[h+1] == 0 && gi[h+2] == 0 && gi[h+3] == 0 {
			continue
		}
		radialBackward4NEON(&rec[lastRec+h], &zL[h], &gi[h], x0, b, sa, sb, L, C, &gz[h],
			&acc.x0[last*16*lanes+h], &acc.a[last*lanes+h], &acc.b[last*lanes+h])
	}
	return true
}

func (f *RadialFlows) forwardPairKernel(za, zb []float64, c int, s layerScalars, ra, rb *blockResult) bool {
	return false
}
