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
func radialChain16x4(zt, x0, a, b *float64, layers, classes int, out, rec *float64)

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
		radialChain16x4(&work[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, C, &out[0], nil)
		for k := 0; k < 4; k++ {
			logp[(i0+k)*C+c] = logDensity(16, out[8+k], out[k], out[4+k])
		}
	}
	return true
}

// laneRecord holds what the four-lane kernel records of four chains: per
// layer the transposed input (64 values), r and h (4 each), and the
// transposed outputs z_L; and the buffers of the four-lane backward pass:
// the transposed latent gradient and per-lane accumulators of the
// parameter gradients (per layer and class: 64 values for x₀, 4 for a′ and
// for b′), which flush adds into a worker's flowAcc.
type laneRecord struct {
	layers []float64
	work   []float64
	gz     []float64
	x0     []float64
	a, b   []float64
}

// newLaneRecord returns the buffers for recordBlock and backBlock, or nil
// when the four-lane kernels do not apply.
func (f *RadialFlows) newLaneRecord() *laneRecord {
	if !chainAVX || f.Dim != 16 || f.Layers == 0 {
		return nil
	}
	n := f.Layers * f.Classes
	return &laneRecord{layers: make([]float64, 72*f.Layers), work: make([]float64, 64), gz: make([]float64, 64),
		x0: make([]float64, 64*n), a: make([]float64, 4*n), b: make([]float64, 4*n)}
}

//go:noescape
func radialBack16x4(rec, zt, gi, x0, b, sigA, sigB *float64, layers, classes int, gz, accX0, accA, accB *float64)

// backBlock back-propagates the four chains of class c that recordBlock
// recorded in lr, with output gradients gi, adding the parameter
// gradients to lr's per-lane accumulators and the latent gradient of
// chain k to gz[k] when it is not nil. Every gi must be non-zero: a lane
// without gradient is skipped by the single-chain path instead, so that a
// non-finite chain it does not need cannot reach the accumulators.
func (f *RadialFlows) backBlock(c int, gi *[4]float64, s layerScalars, lr *laneRecord, gz [4][]float64) {
	L, C := f.Layers, f.Classes
	last := (L-1)*C + c
	radialBack16x4(&lr.layers[72*(L-1)], &lr.work[0], &gi[0], &f.X0.Data.Data[16*last], &s.b[last], &s.sigA[last], &s.sigB[last],
		L, C, &lr.gz[0], &lr.x0[64*last], &lr.a[4*last], &lr.b[4*last])
	for k, row := range gz {
		for j := range row {
			row[j] += lr.gz[4*j+k]
		}
	}
}

// flush adds the per-lane accumulators into acc, lane by lane, and clears
// them.
func (lr *laneRecord) flush(acc flowAcc) {
	for i := range acc.x0 {
		l := lr.x0[4*i : 4*i+4]
		acc.x0[i] += l[0] + l[1] + l[2] + l[3]
	}
	for i := range acc.a {
		a, b := lr.a[4*i:4*i+4], lr.b[4*i:4*i+4]
		acc.a[i] += a[0] + a[1] + a[2] + a[3]
		acc.b[i] += b[0] + b[1] + b[2] + b[3]
	}
	clear(lr.x0)
	clear(lr.a)
	clear(lr.b)
}

// recordBlock runs the chains of class c for nodes i0..i0+3 of z (N×16,
// row-major) and records them in lr.
func (f *RadialFlows) recordBlock(z []float64, i0, c int, s layerScalars, lr *laneRecord) bool {
	for k := 0; k < 4; k++ {
		for j, v := range z[(i0+k)*16 : (i0+k+1)*16] {
			lr.work[4*j+k] = v
		}
	}
	var out [12]float64
	radialChain16x4(&lr.work[0], &f.X0.Data.Data[c*16], &s.a[c], &s.b[c], f.Layers, f.Classes, &out[0], &lr.layers[0])
	return true
}

// extract copies lane k of the record into the single-chain layout.
func (lr *laneRecord) extract(k int, rec *chainRecord, zL []float64) {
	for l := range rec.states {
		blk := lr.layers[72*l : 72*l+72]
		in := rec.inputs[16*l : 16*l+16]
		for j := range in {
			in[j] = blk[4*j+k]
		}
		rec.states[l] = layerState{r: blk[64+k], h: blk[68+k]}
	}
	for j := range zL[:16] {
		zL[j] = lr.work[4*j+k]
	}
}
