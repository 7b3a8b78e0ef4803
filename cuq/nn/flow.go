package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
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
	out := tensor.New(n, C)
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
				if f.forwardPairKernel(work, work2, c, s, &res, &res2) {
					for k := 0; k < m; k++ {
						out.Data[(i0+k)*C+c] = logDensity(D, res.sq[k], res.produ[k], res.prodq[k])
						out.Data[(i0+k)*C+c+1] = logDensity(D, res2.sq[k], res2.produ[k], res2.prodq[k])
					}
					c++
					continue
				}
				f.forwardBlock(work, c, s, &res, nil)
				for k := 0; k < m; k++ {
					out.Data[(i0+k)*C+c] = logDensity(D, res.sq[k], res.produ[k], res.prodq[k])
				}
			}
		}
	})
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		f.backward(z.Data, g, s, grads)
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
func (f *RadialFlows) forwardBlock(zt []float64, c int, s layerScalars, res *blockResult, rec []float64) {
	if f.forwardKernel(zt, c, s, res, rec) {
		return
	}
	D, C, R := f.Dim, f.Classes, f.recordSize()
	for k := 0; k < lanes; k++ {
		pu, pq := 1.0, 1.0
		for l := 0; l < f.Layers; l++ {
			idx := l*C + c
			x0 := f.X0.Data.Data[idx*D : (idx+1)*D]
			var part [4]float64
			for j := range x0 {
				d := zt[lanes*j+k] - x0[j]
				if j < 4 {
					part[j] = d * d
				} else {
					part[j%4] = math.FMA(d, d, part[j%4])
				}
			}
			r := math.Sqrt((part[0] + part[1]) + (part[2] + part[3]))
			h := 1 / (s.a[idx] + r)
			u := float64(s.b[idx] * h)
			pu *= 1 + u
			pq *= (1 + u) - float64(u*h*r)
			if rec != nil {
				layer := rec[l*R : (l+1)*R]
				for j := range x0 {
					layer[lanes*j+k] = zt[lanes*j+k]
				}
				layer[lanes*D+k], layer[lanes*(D+1)+k] = r, h
			}
			for j := range x0 {
				zj := zt[lanes*j+k]
				zt[lanes*j+k] = math.FMA(zj-x0[j], u, zj)
			}
		}
		sq := 0.0
		for j := 0; j < D; j++ {
			v := zt[lanes*j+k]
			sq = math.FMA(v, v, sq)
		}
		res.produ[k], res.prodq[k], res.sq[k] = pu, pq, sq
	}
}

// logDensity assembles log p(z | c) = −(D/2)·log 2π − ½‖z_L‖² + Σ log|det|
// from ‖z_L‖² and the products Π(1+u_l), Π(1+q_l) of a chain.
func logDensity(d int, sq, produ, prodq float64) float64 {
	return float64(-0.5*float64(d)*math.Log(2*math.Pi)) - float64(0.5*sq) + float64(float64(d-1)*math.Log(produ)) + math.Log(prodq)
}

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
func (f *RadialFlows) backward(z, g *tensor.Dense, s layerScalars, grads []*tensor.Dense) {
	n, C, L, D := z.Rows, f.Classes, f.Layers, f.Dim
	P := L * C * (D + 2) // ∂x₀, then ∂a′, then ∂b′
	chunks := (n + chunkNodes - 1) / chunkNodes
	partial := make([]float64, chunks*P)
	tensor.ParallelFor(chunks, n*C*L*D*10, func(lo, hi int) {
		acc := laneGrads{make([]float64, L*C*D*lanes), make([]float64, L*C*lanes), make([]float64, L*C*lanes)}
		zt, work, gz := make([]float64, lanes*D), make([]float64, lanes*D), make([]float64, lanes*D)
		rec := make([]float64, L*f.recordSize())
		var res blockResult
		for ch := lo; ch < hi; ch++ {
			for i0 := ch * chunkNodes; i0 < min(n, (ch+1)*chunkNodes); i0 += lanes {
				m := min(lanes, n-i0)
				if !hasGradient(g, i0, m) {
					continue
				}
				transposeBlock(zt, z, i0)
				for c := 0; c < C; c++ {
					var gi [lanes]float64
					any := false
					for k := 0; k < m; k++ {
						gi[k] = g.Data[(i0+k)*C+c]
						any = any || gi[k] != 0
					}
					if !any {
						continue
					}
					copy(work, zt)
					f.forwardBlock(work, c, s, &res, rec)
					f.backwardBlock(rec, work, &gi, c, s, gz, acc)
					if grads[0] == nil {
						continue
					}
					for k := 0; k < m; k++ {
						if gi[k] == 0 {
							continue
						}
						row := grads[0].Row(i0 + k)
						for j := range row {
							row[j] += gz[lanes*j+k]
						}
					}
				}
			}
			acc.flush(partial[ch*P : (ch+1)*P])
		}
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
// zero are left out: their gz is undefined and acc does not change, so a
// non-finite chain that no gradient needs cannot reach the sums. Per lane
// and layer, from the last to the first, with d = in − x₀, u = b·h and
// q = u − (u·h)·r, starting from gz = −gi·z_L:
//
//	g_u = (Σ_{j even} d_j gz_j + Σ_{j odd} d_j gz_j) + gi·(D−1)/(1+u),  g_q = gi/(1+q)
//	g_b = g_u·h + g_q·(h − h²r),  g_h = g_u·b + g_q·(b − 2bhr)
//	g_r = −g_q·b·h² − g_h·h²,     g_a = −g_h·h²
//	gd_j = fma(d_j, g_r/r, u·gz_j)  (g_r/r taken as 0 unless r > 0)
//	gz_j += gd_j,  ∂x₀_j −= gd_j
//	∂a′ += (g_a − g_b)·σ(a′),  ∂b′ += g_b·σ(b′)
func (f *RadialFlows) backwardBlock(rec, zL []float64, gi *[lanes]float64, c int, s layerScalars, gz []float64, acc laneGrads) {
	if f.backwardKernel(rec, zL, gi, c, s, gz, acc) {
		return
	}
	D, C, R := f.Dim, f.Classes, f.recordSize()
	for k, g := range gi {
		if g == 0 {
			continue
		}
		ng := 0 - g
		for j := 0; j < D; j++ {
			gz[lanes*j+k] = zL[lanes*j+k] * ng
		}
		for l := f.Layers - 1; l >= 0; l-- {
			idx := l*C + c
			x0 := f.X0.Data.Data[idx*D : (idx+1)*D]
			layer := rec[l*R : (l+1)*R]
			r, h, b := layer[lanes*D+k], layer[lanes*(D+1)+k], s.b[idx]
			u := float64(b * h)
			q := u - float64(u*h*r)
			var even, odd float64
			for j := range x0 {
				d := layer[lanes*j+k] - x0[j]
				if j%2 == 0 {
					even = math.FMA(d, gz[lanes*j+k], even)
				} else {
					odd = math.FMA(d, gz[lanes*j+k], odd)
				}
			}
			gu := (even + odd) + float64(g*float64(D-1))/(1+u)
			gq := g / (1 + q)
			h2 := h * h
			gb := float64(gu*h) + float64(gq*(h-float64(h2*r)))
			gh := float64(gu*b) + float64(gq*(b-float64((b+b)*h*r)))
			gr := (0 - float64(gq*b*h*h)) - float64(gh*h*h)
			ga := 0 - float64(gh*h*h)
			acc.a[idx*lanes+k] = float64((ga-gb)*s.sigA[idx]) + acc.a[idx*lanes+k]
			acc.b[idx*lanes+k] = float64(gb*s.sigB[idx]) + acc.b[idx*lanes+k]
			scale := 0.0
			if r > 0 {
				scale = gr / r
			}
			ax := acc.x0[idx*D*lanes:]
			for j := range x0 {
				gd := math.FMA(layer[lanes*j+k]-x0[j], scale, float64(u*gz[lanes*j+k]))
				gz[lanes*j+k] += gd
				ax[lanes*j+k] -= gd
			}
		}
	}
}
