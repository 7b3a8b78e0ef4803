//go:build amd64 && !purego

package nn

import "golang.org/x/sys/cpu"

// The assembly kernels run the chains of a block of eight nodes for the
// paper's latent size, D = 16: with AVX-512 all eight lanes at once, with
// AVX2 and FMA as two groups of four (the backward pass in two calls per
// block). Both compute exactly what the portable forwardBlock and
// backwardBlock compute.
var (
	flowAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	flowAVX512 = flowAVX2 && cpu.X86.HasAVX512F
)

//go:noescape
func radialForward4x2(zt, x0, a, b *float64, layers, classes int, out, rec *float64)

//go:noescape
func radialForward8(zt, x0, a, b *float64, layers, classes int, out, rec *float64)

//go:noescape
func radialForward8x2(za, zb, x0, a, b *float64, layers, classes int, outa, outb, reca, recb *float64)

//go:noescape
func radialBackward4(rec, zt, gi, x0, b, sigA, sigB *float64, layers, classes int, gz, accX0, accA, accB *float64)

//go:noescape
func radialBackward8(rec, zt, gi, x0, b, sigA, sigB *float64, layers, classes int, gz, accX0, accA, accB *float64)

// forwardKernel runs forwardBlock in assembly and reports whether it could.
func (f *RadialFlows) forwardKernel(zt []float64, c int, s layerScalars, res *blockResult, rec []float64) bool {
	if !flowAVX2 || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	_ = zt[16*lanes-1]
	var out [3 * lanes]float64
	x0, a, b := &f.X0.Data.Data[c*16], &s.a[c], &s.b[c]
	r := f.recordStart(rec)
	if flowAVX512 {
		radialForward8(&zt[0], x0, a, b, f.Layers, f.Classes, &out[0], r)
	} else {
		radialForward4x2(&zt[0], x0, a, b, f.Layers, f.Classes, &out[0], r)
	}
	res.set(&out)
	return true
}

// pairKernel reports whether forwardPairKernel can run the classes c and
// c+1: with AVX-512, for the paper's latent size.
func (f *RadialFlows) pairKernel(c int) bool {
	return flowAVX512 && f.Dim == 16 && f.Layers > 0 && c+1 < f.Classes
}

// forwardPairKernel runs forwardBlock for the classes c and c+1 at once,
// with records when reca and recb are not nil, and reports whether it
// could (pairKernel).
func (f *RadialFlows) forwardPairKernel(za, zb []float64, c int, s layerScalars, ra, rb *blockResult, reca, recb []float64) bool {
	if !f.pairKernel(c) {
		return false
	}
	_, _ = za[16*lanes-1], zb[16*lanes-1]
	var oa, ob [3 * lanes]float64
	radialForward8x2(&za[0], &zb[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, f.Classes, &oa[0], &ob[0],
		f.recordStart(reca), f.recordStart(recb))
	ra.set(&oa)
	rb.set(&ob)
	return true
}

// backwardKernel runs backwardBlock in assembly and reports whether it
// could.
func (f *RadialFlows) backwardKernel(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads) bool {
	if !flowAVX2 || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	a := f.backwardArgsOf(rec, zL, c, s, gz, acc)
	if flowAVX512 {
		radialBackward8(&rec[a.lastRec], &zL[0], &gi[0], a.x0, a.b, a.sigA, a.sigB, f.Layers, f.Classes, &gz[0],
			&acc.x0[a.last*16*lanes], &acc.a[a.last*lanes], &acc.b[a.last*lanes])
		return true
	}
	for h := 0; h < lanes; h += 4 {
		if noGradient4(gi, h) {
			continue
		}
		radialBackward4(&rec[a.lastRec+h], &zL[h], &gi[h], a.x0, a.b, a.sigA, a.sigB, f.Layers, f.Classes, &gz[h],
			&acc.x0[a.last*16*lanes+h], &acc.a[a.last*lanes+h], &acc.b[a.last*lanes+h])
	}
	return true
}
