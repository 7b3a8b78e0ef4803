//go:build amd64 && !purego

package nn

import "golang.org/x/sys/cpu"

// chainAVX reports whether radialChain16 can run: it needs AVX2 and FMA.
var chainAVX = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func radialChain16(z, x0, a, b *float64, layers, classes int) (produ, prodq float64)

// fastChain runs the forward chain of class c in assembly when the latent
// has 16 dimensions (the paper's size); ok is false otherwise.
func (f *RadialFlows) fastChain(z []float64, c int, s layerScalars) (produ, prodq float64, ok bool) {
	if !chainAVX || f.Dim != 16 || f.Layers == 0 {
		return 0, 0, false
	}
	_ = z[15]
	produ, prodq = radialChain16(&z[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, f.Classes)
	return produ, prodq, true
}

//go:noescape
func radialChain16x4(zt, x0, a, b *float64, layers, classes int, out *float64)

// forwardBlock writes log p(z_i | c) for the four nodes i0..i0+3 and every
// class into logp (N×C, row-major) with the four-lane kernel; ok is false
// when the kernel does not apply (no AVX2/FMA, or a latent size other
// than 16).
func (f *RadialFlows) forwardBlock(z []float64, i0 int, s layerScalars, logp []float64, scratch *[2 * 64]float64) bool {
	if !chainAVX || f.Dim != 16 || f.Layers == 0 {
		return false
	}
	zt, work := scratch[:64], scratch[64:]
	for k := 0; k < 4; k++ {
		row := z[(i0+k)*16 : (i0+k+1)*16]
		for j, v := range row {
			zt[4*j+k] = v
		}
	}
	var out [12]float64
	C := f.Classes
	for c := 0; c < C; c++ {
		copy(work, zt)
		radialChain16x4(&work[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, C, &out[0])
		for k := 0; k < 4; k++ {
			logp[(i0+k)*C+c] = logDensity(16, out[8+k], out[k], out[4+k])
		}
	}
	return true
}
