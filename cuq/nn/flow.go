package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/freelist"
)

// RadialFlows is one chain of L radial flow layers per class on D-dim
// latents, the class-conditional densities of a Posterior Network. Layer l
// of class c has a centre x₀ ∈ Rᴰ and raw scalars a′, b′:
//
//	a = softplus(a′),  b = −a + softplus(b′)  (keeps the layer invertible)
//	r = ‖z − x₀‖,  h = 1/(a + r)
//	z′ = z + b·h·(z − x₀)
//	log|det ∂z′/∂z| = (D−1)·log(1 + b h) + log(1 + b h − b h² r)
//
// and the density of class c is a standard normal base pushed through the
// chain:
//
//	log p(z | c) = −(D/2)·log 2π − ½‖z_L‖² + Σ_l log|det_l|.
//
// The whole chain is one fused op: the forward pass keeps no intermediate
// values; the backward pass recomputes each (node, class) chain in a small
// local buffer and back-propagates through it, so memory is O(N·C) whatever
// L and D are, and the work runs in parallel over nodes.
//
// Chains run eight nodes at a time, one per lane (see lanes), with the
// same arithmetic in the AVX-512 and AVX2 kernels (D = 16, the paper's
// size) and in the portable code (any D), and the parameter gradients are
// summed in a fixed order: the results are the same to the bit on every
// machine, whatever its number of cores.
type RadialFlows struct {
	Classes, Layers, Dim int
	X0                   *ad.Value // (Layers·Classes)×Dim, row l·Classes + c
	A, B                 *ad.Value // Layers×Classes raw a′ and b′
}

// NewRadialFlows returns per-class radial flows initialised as the
// reference: x₀, a′, b′ ~ U(±1/√D).
func NewRadialFlows(name string, classes, layers, dim int, rng *rand.Rand) (*RadialFlows, error) {
	if classes < 1 || layers < 0 || dim < 1 {
		return nil, fmt.Errorf("nn.NewRadialFlows: %d classes, %d layers, dimension %d", classes, layers, dim)
	}
	bound := 1 / math.Sqrt(float64(dim))
	return &RadialFlows{
		Classes: classes, Layers: layers, Dim: dim,
		X0: ad.Param(name+".x0", Uniform(rng, layers*classes, dim, bound)),
		A:  ad.Param(name+".a", Uniform(rng, layers, classes, bound)),
		B:  ad.Param(name+".b", Uniform(rng, layers, classes, bound)),
	}, nil
}

// Params returns x₀, a′ and b′.
func (f *RadialFlows) Params() []*ad.Value { return []*ad.Value{f.X0, f.A, f.B} }

// lanes is the number of chains computed together: nodes 8k…8k+7 form
// block k, node 8k+i runs in lane i. A block's latents are stored
// transposed, component j of lane i at [lanes·j + i], as are its records
// and gradients.
const lanes = 8

// allLanes lists the lanes of a block in order.
var allLanes = [lanes]int{0, 1, 2, 3, 4, 5, 6, 7}

// chunkNodes is the number of nodes (a multiple of lanes) whose parameter
// gradients are summed together before the chunks' sums are added in
// chunk order: the order of every sum is fixed by the node indices alone,
// not by how the work is split among cores.
const chunkNodes = 256

// LogDensity returns the N×C matrix log p(zᵢ | c) for latents z (N×D).
func (f *RadialFlows) LogDensity(t *ad.Tape, z *ad.Value) *ad.Value {
	if z.Data.Cols != f.Dim {
		panic(fmt.Sprintf("nn.RadialFlows: latents %s for flows of dimension %d", z.Shape(), f.Dim))
	}
	n, C, D := z.Data.Rows, f.Classes, f.Dim
	s := f.scalars()
	out := t.AllocUninit(n, C) // every element is written below
	blocks := (n + lanes - 1) / lanes
	tensor.ParallelFor(blocks, n*C*f.Layers*D*4, func(lo, hi int) {
		zt, work, work2 := make([]float64, lanes*D), make([]float64, lanes*D), make([]float64, lanes*D)
		var res, res2 blockResult
		for blk := lo; blk < hi; blk++ {
			i0 := blk * lanes
			m := transposeBlock(zt, z.Data, i0)
			for c := 0; c < C; c++ {
				copy(work, zt)
				copy(work2, zt)
				if f.forwardPairKernel(work, work2, c, s, &res, &res2, nil, nil) {
					res.logDensities(D, m, out.Data[i0*C+c:], C)
					res2.logDensities(D, m, out.Data[i0*C+c+1:], C)
					c++
					continue
				}
				f.forwardBlock(work, c, s, &res, nil, allLanes[:m])
				res.logDensities(D, m, out.Data[i0*C+c:], C)
			}
		}
	})
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		f.backward(t, z.Data, g, s, grads)
	}, z, f.X0, f.A, f.B)
}

// layerScalars holds a and b of every (layer, class) and the derivatives of
// a, b with respect to the raw a′, b′.
type layerScalars struct {
	a, b, sigA, sigB []float64
}

func (f *RadialFlows) scalars() layerScalars {
	n := f.Layers * f.Classes
	s := layerScalars{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	for k := 0; k < n; k++ {
		ar, br := f.A.Data.Data[k], f.B.Data.Data[k]
		s.a[k] = ad.Softplus(ar)
		s.b[k] = -s.a[k] + ad.Softplus(br)
		s.sigA[k] = ad.Sigmoid(ar)
		s.sigB[k] = ad.Sigmoid(br)
	}
	return s
}

// transposeBlock writes rows i0…i0+7 of z into zt in the lane layout and
// returns how many of them exist; missing lanes are zero.
func transposeBlock(zt []float64, z *tensor.Dense, i0 int) int {
	m := min(lanes, z.Rows-i0)
	if m < lanes {
		clear(zt)
	}
	for k := 0; k < m; k++ {
		for j, v := range z.Row(i0 + k) {
			zt[lanes*j+k] = v
		}
	}
	return m
}

// blockResult is what a block's forward chains return per lane:
// Π_l(1+u_l), Π_l(1+q_l) and ‖z_L‖².
type blockResult struct {
	produ, prodq, sq [lanes]float64
}

// recordSize is the number of values a block's forward pass records per
// layer for the backward pass: the layer inputs (D·lanes), r and h.
func (f *RadialFlows) recordSize() int { return (f.Dim + 2) * lanes }

// forwardBlock pushes the block's latents zt (lane layout, overwritten with
// z_L) through the flows of class c. Per lane, with d = z − x₀:
//
//	r² = (s₀ + s₁) + (s₂ + s₃),  s_m = Σ_{j ≡ m mod 4} d_j² (in order of j, fused)
//	r = √r²,  h = 1/(a + r),  u = b·h
//	Π(1+u) ← Π(1+u)·(1 + u),  Π(1+q) ← Π(1+q)·((1 + u) − (u·h)·r)
//	z_j ← fma(d_j, u, z_j)
//
// and ‖z_L‖² is the fused sum of z_j² in order of j. The logarithms of the
// two products (a product of L positive factors stays far inside
// float64's range) give Σ_l log|det_l| at two logarithms per chain instead
// of two per layer. When rec is not nil, layer l records its input, r and
// h at rec[l·recordSize():].
//
// The assembly kernels compute all eight lanes. The portable code computes
// the lanes listed in active (the others keep undefined values), four at a
// time layer by layer: two pairs in step, each pair's distances in one
// pass over x₀, so that the square roots and divisions of different lanes,
// which do not depend on each other, overlap in the processor with the
// other pair's distances instead of each lane's chain waiting on its own.
// The last one or two lanes run as one pair, three as two; a missing lane
// repeats the last, which writes the same values again. (The backward
// pass recomputes only the lanes with a gradient, often one or two of a
// block in training.)
func (f *RadialFlows) forwardBlock(zt []float64, c int, s layerScalars, res *blockResult, rec []float64, active []int) {
	if f.forwardKernel(zt, c, s, res, rec) {
		return
	}
	D, C, R := f.Dim, f.Classes, f.recordSize()
	var small [4 * 32]float64
	z := laneQuad(D, &small)
	for p := 0; p < len(active); p += 4 {
		// Two pairs, or one when at most two lanes are left.
		n := 4
		if len(active)-p <= 2 {
			n = 2
		}
		var k [4]int
		for q := range n {
			k[q] = active[min(p+q, len(active)-1)]
		}
		for q, zq := range z[:n] {
			for j := range zq {
				zq[j] = zt[lanes*j+k[q]]
			}
		}
		pu, pq := [4]float64{1, 1, 1, 1}, [4]float64{1, 1, 1, 1}
		for l := 0; l < f.Layers; l++ {
			idx := l*C + c
			x0 := f.X0.Data.Data[idx*D : (idx+1)*D]
			var r, h, u [4]float64
			r[0], r[1] = pairDistances(z[0], z[1], x0)
			if n == 4 {
				r[2], r[3] = pairDistances(z[2], z[3], x0)
			}
			for q := range n {
				h[q] = 1 / (s.a[idx] + r[q])
				u[q] = float64(s.b[idx] * h[q])
				pu[q] = pu[q] * (1 + u[q])
				pq[q] = pq[q] * ((1 + u[q]) - float64(u[q]*h[q]*r[q]))
			}
			if rec != nil {
				recordLayer(rec[l*R:(l+1)*R], z[:n], k[:n], r[:n], h[:n])
			}
			pairStep(z[0], z[1], x0, u[0], u[1])
			if n == 4 {
				pairStep(z[2], z[3], x0, u[2], u[3])
			}
		}
		for q, zq := range z[:n] {
			sq := 0.0
			for j, v := range zq {
				sq = math.FMA(v, v, sq)
				zt[lanes*j+k[q]] = v
			}
			res.produ[k[q]], res.prodq[k[q]], res.sq[k[q]] = pu[q], pq[q], sq
		}
	}
}

// recordLayer writes what the backward pass needs of one layer into its
// block's record, in the lane layout: the layer inputs z[q] of lanes k[q],
// and their r[q] and h[q].
func recordLayer(layer []float64, z [][]float64, k []int, r, h []float64) {
	d := len(z[0])
	for q, zq := range z {
		for j, v := range zq {
			layer[lanes*j+k[q]] = v
		}
		layer[lanes*d+k[q]], layer[lanes*(d+1)+k[q]] = r[q], h[q]
	}
}

// pairStep moves two lanes' latents za and zb along their layer's flow:
// z_j ← fma(z_j − x₀_j, u, z_j).
func pairStep(za, zb, x0 []float64, ua, ub float64) {
	x0, zb = x0[:len(za)], zb[:len(za)]
	for j, x := range x0 {
		va, vb := za[j], zb[j]
		za[j], zb[j] = math.FMA(va-x, ua, va), math.FMA(vb-x, ub, vb)
	}
}

// laneQuad returns four vectors of d values for forwardBlock's four lanes,
// in small when it holds them.
func laneQuad(d int, small *[4 * 32]float64) (z [4][]float64) {
	buf := small[:]
	if 4*d > len(buf) {
		buf = make([]float64, 4*d)
	}
	for q := range z {
		z[q] = buf[q*d : (q+1)*d]
	}
	return z
}

// pairDistances returns r = ‖z − x₀‖ for two lanes' latents za and zb as
// forwardBlock defines it: r² = (s₀ + s₁) + (s₂ + s₃), s_m the fused sum of
// d_j² over j ≡ m mod 4 in order of j. d·d and fma(d, d, 0) are the same
// number, so every partial sum starts from zero.
func pairDistances(za, zb, x0 []float64) (ra, rb float64) {
	x0, zb = x0[:len(za)], zb[:len(za)]
	var a0, a1, a2, a3, b0, b1, b2, b3 float64
	j := 0
	for ; j+4 <= len(za); j += 4 {
		d0, d1, d2, d3 := za[j]-x0[j], za[j+1]-x0[j+1], za[j+2]-x0[j+2], za[j+3]-x0[j+3]
		a0, a1, a2, a3 = math.FMA(d0, d0, a0), math.FMA(d1, d1, a1), math.FMA(d2, d2, a2), math.FMA(d3, d3, a3)
		d0, d1, d2, d3 = zb[j]-x0[j], zb[j+1]-x0[j+1], zb[j+2]-x0[j+2], zb[j+3]-x0[j+3]
		b0, b1, b2, b3 = math.FMA(d0, d0, b0), math.FMA(d1, d1, b1), math.FMA(d2, d2, b2), math.FMA(d3, d3, b3)
	}
	for t := 0; j+t < len(za); t++ { // the last one to three components
		da, db := za[j+t]-x0[j+t], zb[j+t]-x0[j+t]
		switch t {
		case 0:
			a0, b0 = math.FMA(da, da, a0), math.FMA(db, db, b0)
		case 1:
			a1, b1 = math.FMA(da, da, a1), math.FMA(db, db, b1)
		default:
			a2, b2 = math.FMA(da, da, a2), math.FMA(db, db, b2)
		}
	}
	return math.Sqrt((a0 + a1) + (a2 + a3)), math.Sqrt((b0 + b1) + (b2 + b3))
}

// laneVectors returns two vectors of d values for a pair of lanes, in small
// when it holds both.
func laneVectors(d int, small *[64]float64) (a, b []float64) {
	buf := small[:]
	if 2*d > len(buf) {
		buf = make([]float64, 2*d)
	}
	return buf[:d], buf[d : 2*d]
}

// logDensities writes log p(z | c) of the block's first m lanes, lane k at
// out[k·stride]:
//
//	log p(z | c) = −(D/2)·log 2π − ½‖z_L‖² + (D−1)·log Π(1+u_l) + log Π(1+q_l)
//
// the logarithms (math.Log's) taken four lanes at a time where the
// processor allows (tensor.MathLog).
func (r *blockResult) logDensities(d, m int, out []float64, stride int) {
	var logu, logq [lanes]float64
	tensor.MathLog(logu[:m], r.produ[:m])
	tensor.MathLog(logq[:m], r.prodq[:m])
	for k := range m {
		out[k*stride] = float64(-0.5*float64(d)*log2Pi) - float64(0.5*r.sq[k]) + float64(float64(d-1)*logu[k]) + logq[k]
	}
}

// log2Pi is log 2π, computed once rather than for every density.
var log2Pi = math.Log(2 * math.Pi)

// laneGrads holds one worker's per-lane accumulators of the flow parameter
// gradients, in the lane layout: ∂x₀ of (layer, class) idx, component j,
// lane k at x0[(idx·D + j)·lanes + k]; ∂a′ and ∂b′ at [idx·lanes + k].
type laneGrads struct {
	x0, a, b []float64
}

// backward adds the gradients of Σ g ⊙ logp to z, x₀, a′ and b′ (grads in
// that order; nil entries need no gradient). Blocks of eight nodes are
// recomputed with their per-layer state recorded and back-propagated
// together, lanes whose output gradient is zero masked out (a CUQ loss
// touches the labelled nodes only, and GPN's clamp cuts the gradient of
// very unlikely classes). Each lane accumulates its own parameter
// gradients over a chunk of chunkNodes nodes; a chunk's sum is the sum of
// its lanes in order, and the gradients are the sum of the chunks in
// order.
func (f *RadialFlows) backward(t *ad.Tape, z, g *tensor.Dense, s layerScalars, grads []*tensor.Dense) {
	n, C, L, D := z.Rows, f.Classes, f.Layers, f.Dim
	P := L * C * (D + 2) // ∂x₀, then ∂a′, then ∂b′
	chunks := (n + chunkNodes - 1) / chunkNodes
	partial := t.AllocUninit(chunks, P).Data // every chunk's sums are written
	tensor.ParallelFor(chunks, n*C*L*D*10, func(lo, hi int) {
		sc := f.getScratch()
		for ch := lo; ch < hi; ch++ {
			for i0 := ch * chunkNodes; i0 < min(n, (ch+1)*chunkNodes); i0 += lanes {
				if m := min(lanes, n-i0); hasGradient(g, i0, m) {
					f.backwardClasses(sc, z, g, i0, m, s, grads[0])
				}
			}
			sc.acc.flush(partial[ch*P : (ch+1)*P])
		}
		scratchPool.Put(sc)
	})
	for p, dst := range grads[1:] {
		if dst == nil {
			continue
		}
		off, size := [3]int{0, L * C * D, L * C * (D + 1)}[p], len(dst.Data)
		for ch := 0; ch < chunks; ch++ {
			part := partial[ch*P+off : ch*P+off+size]
			for j, v := range part {
				dst.Data[j] += v
			}
		}
	}
}

// backwardClasses back-propagates every class's chains of the block of
// nodes i0 … i0+m−1 (a block with an output gradient), adding the
// parameter gradients to sc.acc and the gradients with respect to the
// latents to dz (when not nil). The chains of a class are recomputed with
// records and then run backward; with a kernel for two classes at once,
// the next class's chains run beside this one's when they have a gradient
// too.
func (f *RadialFlows) backwardClasses(sc *backwardScratch, z, g *tensor.Dense, i0, m int, s layerScalars, dz *tensor.Dense) {
	// backward runs the backward pass of class c+k, whose forward pass
	// left its records in sc.rec[k] and z_L in sc.work[k].
	backward := func(k, c int) {
		f.backwardBlock(sc.rec[k], sc.work[k], &sc.gi[k], c+k, s, sc.gz, sc.acc, sc.active[k])
		if dz != nil {
			addLaneGradients(dz, sc.gz, &sc.gi[k], i0, m)
		}
	}
	transposeBlock(sc.zt, z, i0)
	for c := 0; c < f.Classes; c++ {
		sc.gi[0], sc.active[0] = laneGradient(g, i0, m, c, sc.activeBuf[0][:0])
		if len(sc.active[0]) == 0 {
			continue
		}
		copy(sc.work[0], sc.zt)
		if f.pairKernel(c) {
			if sc.gi[1], sc.active[1] = laneGradient(g, i0, m, c+1, sc.activeBuf[1][:0]); len(sc.active[1]) > 0 {
				copy(sc.work[1], sc.zt)
				f.forwardPairKernel(sc.work[0], sc.work[1], c, s, &sc.res[0], &sc.res[1], sc.rec[0], sc.rec[1])
				backward(0, c)
				backward(1, c)
				c++
				continue
			}
		}
		f.forwardBlock(sc.work[0], c, s, &sc.res[0], sc.rec[0], sc.active[0])
		backward(0, c)
	}
}

// backwardScratch is the memory one goroutine of the backward pass works
// in: the lane accumulators, a block's latents, the final latents,
// records, results, output gradients and active lanes of two classes'
// chains, and a chain's gradient.
type backwardScratch struct {
	acc       laneGrads
	zt, gz    []float64
	work, rec [2][]float64
	res       [2]blockResult
	gi        [2][lanes]float64
	activeBuf [2][lanes]int
	active    [2][]int
}

// scratchPool keeps backward passes' scratch memory for the next, so that
// the epochs of a training run do not allocate it afresh. The accumulators
// go back cleared (laneGrads.flush clears them after each chunk).
var scratchPool freelist.List[*backwardScratch]

// getScratch returns scratch memory for f's backward pass: from
// scratchPool when it holds some of f's sizes, else new.
func (f *RadialFlows) getScratch() *backwardScratch {
	L, C, D, R := f.Layers, f.Classes, f.Dim, f.Layers*f.recordSize()
	// The latents' length fixes D, the records' then L, the accumulators'
	// then C.
	if sc, ok := scratchPool.Get(); ok &&
		len(sc.zt) == lanes*D && len(sc.rec[0]) == R && len(sc.acc.a) == L*C*lanes {
		return sc
	}
	return &backwardScratch{
		acc:  laneGrads{make([]float64, L*C*D*lanes), make([]float64, L*C*lanes), make([]float64, L*C*lanes)},
		zt:   make([]float64, lanes*D),
		gz:   make([]float64, lanes*D),
		work: [2][]float64{make([]float64, lanes*D), make([]float64, lanes*D)},
		rec:  [2][]float64{make([]float64, R), make([]float64, R)},
	}
}

// laneGradient returns the output gradients of class c for the block's
// first m lanes, nodes i0 … i0+m−1 (the others zero), and appends to
// active the lanes whose gradient is not zero.
func laneGradient(g *tensor.Dense, i0, m, c int, active []int) (gi [lanes]float64, _ []int) {
	C := g.Cols
	for k := 0; k < m; k++ {
		gi[k] = g.Data[(i0+k)*C+c]
		if gi[k] != 0 {
			active = append(active, k)
		}
	}
	return gi, active
}

// addLaneGradients adds to row i0+k of dst, for each of the block's first
// m lanes k with an output gradient (gi[k] ≠ 0), that lane's gradient with
// respect to its chain input, gz in the lane layout.
func addLaneGradients(dst *tensor.Dense, gz []float64, gi *[lanes]float64, i0, m int) {
	for k := 0; k < m; k++ {
		if gi[k] == 0 {
			continue
		}
		row := dst.Row(i0 + k)
		for j := range row {
			row[j] += gz[lanes*j+k]
		}
	}
}

// flush writes the sum of the lanes of every accumulator into out (∂x₀,
// ∂a′, ∂b′ one after the other) and clears the accumulators. The lanes
// are summed pairwise: ((l₀+l₁)+(l₂+l₃)) + ((l₄+l₅)+(l₆+l₇)).
func (acc laneGrads) flush(out []float64) {
	o := 0
	for _, a := range [][]float64{acc.x0, acc.a, acc.b} {
		for i := 0; i < len(a); i += lanes {
			l := a[i : i+lanes]
			out[o] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
			o++
		}
		clear(a)
	}
}

// hasGradient reports whether any of the rows i..i+count−1 of g is
// non-zero (CUQ losses touch the labelled nodes only).
func hasGradient(g *tensor.Dense, i, count int) bool {
	for _, v := range g.Data[i*g.Cols : (i+count)*g.Cols] {
		if v != 0 {
			return true
		}
	}
	return false
}

// backwardBlock back-propagates the block's chains of class c, recorded
// by forwardBlock in rec and ending in zL (lane layout), with output
// gradients gi: it writes each lane's gradient with respect to its chain
// input into gz and adds the parameter gradients to acc. Lanes whose gi is
// zero are left out (active lists the others, in order): their gz is
// undefined and acc does not change, so a non-finite chain that no
// gradient needs cannot reach the sums. Per lane
// and layer, from the last to the first, with d = in − x₀, u = b·h and
// q = u − (u·h)·r, starting from gz = −gi·z_L:
//
//	g_u = (Σ_{j even} d_j gz_j + Σ_{j odd} d_j gz_j) + gi·(D−1)/(1+u),  g_q = gi/(1+q)
//	g_b = g_u·h + g_q·(h − h²r),  g_h = g_u·b + g_q·(b − 2bhr)
//	g_r = −g_q·b·h² − g_h·h²,     g_a = −g_h·h²
//	gd_j = fma(d_j, g_r/r, u·gz_j)  (g_r/r taken as 0 unless r > 0)
//	gz_j += gd_j,  ∂x₀_j −= gd_j
//	∂a′ += (g_a − g_b)·σ(a′),  ∂b′ += g_b·σ(b′)
func (f *RadialFlows) backwardBlock(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads, active []int) {
	if f.backwardKernel(rec, zL, gi, c, s, gz, acc) {
		return
	}
	D, C, R := f.Dim, f.Classes, f.recordSize()
	var small [64]float64
	gza, gzb := laneVectors(D, &small)
	for p := 0; p < len(active); p += 2 {
		// Two lanes at a time, as in forwardBlock; a last odd lane is
		// computed twice and its gradients added once.
		ka, kb := active[p], active[min(p+1, len(active)-1)]
		pair := ka != kb
		for j := range gza {
			gza[j], gzb[j] = zL[lanes*j+ka]*(0-gi[ka]), zL[lanes*j+kb]*(0-gi[kb])
		}
		for l := f.Layers - 1; l >= 0; l-- {
			idx := l*C + c
			x0 := f.X0.Data.Data[idx*D : (idx+1)*D]
			layer := rec[l*R : (l+1)*R]
			x0, gzb := x0[:len(gza)], gzb[:len(gza)]
			var evenA, oddA, evenB, oddB float64 // Σ d_j gz_j over even and odd j
			for j := 0; j < len(gza); j++ {
				da, db := layer[lanes*j+ka]-x0[j], layer[lanes*j+kb]-x0[j]
				if j%2 == 0 {
					evenA, evenB = math.FMA(da, gza[j], evenA), math.FMA(db, gzb[j], evenB)
				} else {
					oddA, oddB = math.FMA(da, gza[j], oddA), math.FMA(db, gzb[j], oddB)
				}
			}
			ua, scaleA := f.layerGradients(layer, ka, idx, gi[ka], evenA+oddA, s, acc)
			ub, scaleB := ua, scaleA
			if pair {
				ub, scaleB = f.layerGradients(layer, kb, idx, gi[kb], evenB+oddB, s, acc)
			}
			ax := acc.x0[idx*D*lanes:]
			for j, x := range x0 {
				gda := math.FMA(layer[lanes*j+ka]-x, scaleA, float64(ua*gza[j]))
				gdb := math.FMA(layer[lanes*j+kb]-x, scaleB, float64(ub*gzb[j]))
				gza[j] += gda
				gzb[j] += gdb
				ax[lanes*j+ka] -= gda
				if pair {
					ax[lanes*j+kb] -= gdb
				}
			}
		}
		for j := range gza {
			gz[lanes*j+ka], gz[lanes*j+kb] = gza[j], gzb[j]
		}
	}
}

// layerGradients computes, for lane k of a block at the layer and class
// idx recorded in layer, with output gradient g and dot = Σ_j d_j gz_j
// (the even and the odd j summed apart, then added), the terms of
// backwardBlock: it adds ∂a′ and ∂b′ to acc and returns u and the factor
// g_r/r of d_j in gd_j.
func (f *RadialFlows) layerGradients(layer []float64, k, idx int, g, dot float64, s layerScalars, acc laneGrads) (u, scale float64) {
	D := f.Dim
	r, h, b := layer[lanes*D+k], layer[lanes*(D+1)+k], s.b[idx]
	u = float64(b * h)
	q := u - float64(u*h*r)
	gu := dot + float64(g*float64(D-1))/(1+u)
	gq := g / (1 + q)
	h2 := h * h
	gb := float64(gu*h) + float64(gq*(h-float64(h2*r)))
	gh := float64(gu*b) + float64(gq*(b-float64((b+b)*h*r)))
	gr := (0 - float64(gq*b*h*h)) - float64(gh*h*h)
	ga := 0 - float64(gh*h*h)
	acc.a[idx*lanes+k] = float64((ga-gb)*s.sigA[idx]) + acc.a[idx*lanes+k]
	acc.b[idx*lanes+k] = float64(gb*s.sigB[idx]) + acc.b[idx*lanes+k]
	if r > 0 {
		scale = gr / r
	}
	return u, scale
}
