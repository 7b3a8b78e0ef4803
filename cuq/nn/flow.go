package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

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

// LogDensity returns the N×C matrix log p(zᵢ | c) for latents z (N×D).
func (f *RadialFlows) LogDensity(t *ad.Tape, z *ad.Value) *ad.Value {
	if z.Data.Cols != f.Dim {
		panic(fmt.Sprintf("nn.RadialFlows: latents %s for flows of dimension %d", z.Shape(), f.Dim))
	}
	n, C, L, D := z.Data.Rows, f.Classes, f.Layers, f.Dim
	ab := f.scalars()
	out := tensor.New(n, C)
	cost := n * C * L * D * 4
	tensor.ParallelFor(n, cost, func(lo, hi int) {
		buf := make([]float64, D)
		var scratch [2 * 64]float64
		for i := lo; i < hi; i++ {
			if i+4 <= hi && f.forwardBlock(z.Data.Data, i, ab, out.Data, &scratch) {
				i += 3
				continue
			}
			zi := z.Data.Row(i)
			for c := 0; c < C; c++ {
				copy(buf, zi)
				out.Data[i*C+c] = f.chain(buf, c, ab, nil)
			}
		}
	})
	return t.Custom(out, func(g *tensor.Dense, grads []*tensor.Dense) {
		f.backward(z.Data, g, ab, grads)
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

// layerState is what the backward pass needs of one layer's forward.
type layerState struct {
	r, h float64
}

// chain pushes z (overwritten with z_L) through the flows of class c and
// returns log p(z | c). When rec is non-nil it records, per layer, the
// layer input (row l of rec.inputs) and r, h for the backward pass.
func (f *RadialFlows) chain(z []float64, c int, s layerScalars, rec *chainRecord) float64 {
	D := f.Dim
	// Σ_l log(1+u_l) and Σ_l log(1+q_l) are accumulated as products and
	// logged once: two logarithms per chain instead of two per layer.
	// 1+u and 1+q are positive for an invertible layer (b ≥ −a), and a
	// product of L such factors stays far inside float64's range.
	produ, prodq := 1.0, 1.0
	fast := false
	if rec == nil {
		if pu, pq, ok := f.fastChain(z, c, s); ok {
			produ, prodq, fast = pu, pq, true
		}
	}
	for l := 0; l < f.Layers && !fast; l++ {
		k := l*f.Classes + c
		x0 := f.X0.Data.Data[k*D : (k+1)*D]
		x0 = x0[:len(z)] // lets the compiler drop the bounds checks
		if rec != nil {
			copy(rec.inputs[l*D:(l+1)*D], z)
		}
		r2 := 0.0
		for j, zj := range z {
			d := zj - x0[j]
			r2 += d * d
		}
		r := math.Sqrt(r2)
		a, b := s.a[k], s.b[k]
		h := 1 / (a + r)
		bh := b * h
		for j := range z {
			z[j] += bh * (z[j] - x0[j])
		}
		produ *= 1 + bh
		prodq *= 1 + bh - b*h*h*r
		if rec != nil {
			rec.states[l] = layerState{r: r, h: h}
		}
	}
	sq := 0.0
	for _, v := range z {
		sq += v * v
	}
	return logDensity(D, sq, produ, prodq)
}

// logDensity assembles log p(z | c) = −(D/2)·log 2π − ½‖z_L‖² + Σ log|det|
// from ‖z_L‖² and the products Π(1+u_l), Π(1+q_l) of a chain.
func logDensity(d int, sq, produ, prodq float64) float64 {
	return -0.5*float64(d)*math.Log(2*math.Pi) - 0.5*sq + float64(d-1)*math.Log(produ) + math.Log(prodq)
}

type chainRecord struct {
	inputs []float64
	states []layerState
}

// flowAcc accumulates one worker's gradients of the flow parameters.
type flowAcc struct{ x0, a, b []float64 }

// backward adds the gradients of Σ g ⊙ logp to z, x₀, a′ and b′ (grads in
// that order; nil entries need no gradient). Each (node, class) chain is
// recomputed with its per-layer state recorded, then back-propagated layer
// by layer; where the vector kernels apply, four nodes at a time in both
// directions (their parameter gradients are summed per lane first, so the
// sums are ordered differently from the single-chain path's and may
// differ from it in the last bits).
func (f *RadialFlows) backward(z, g *tensor.Dense, s layerScalars, grads []*tensor.Dense) {
	n, C, L, D := z.Rows, f.Classes, f.Layers, f.Dim
	workers := tensor.Workers(n * C * L * D * 10)
	if workers > runtime.GOMAXPROCS(0) {
		workers = runtime.GOMAXPROCS(0)
	}
	accs := make([]flowAcc, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		accs[w] = flowAcc{make([]float64, L*C*D), make([]float64, L*C), make([]float64, L*C)}
		wg.Add(1)
		go func(a flowAcc) {
			defer wg.Done()
			bp := f.newBackprop(s, a)
			lanes := f.newLaneRecord()
			for i := lo; i < hi; i++ {
				var gzi [4][]float64
				if i+4 <= hi && lanes != nil && hasGradient(g, i, 4) {
					for k := range gzi {
						if grads[0] != nil {
							gzi[k] = grads[0].Row(i + k)
						}
					}
					for c := 0; c < C; c++ {
						if !f.recordBlock(z.Data, i, c, s, lanes) {
							break
						}
						gi := [4]float64{g.Data[i*C+c], g.Data[(i+1)*C+c], g.Data[(i+2)*C+c], g.Data[(i+3)*C+c]}
						if gi[0] != 0 && gi[1] != 0 && gi[2] != 0 && gi[3] != 0 {
							f.backBlock(c, &gi, s, lanes, gzi)
							continue
						}
						for k, gk := range gi {
							if gk != 0 {
								lanes.extract(k, bp.rec, bp.zc)
								bp.run(c, gk, gzi[k])
							}
						}
					}
					i += 3
					continue
				}
				if grads[0] != nil {
					gzi[0] = grads[0].Row(i)
				}
				for c := 0; c < C; c++ {
					if gi := g.Data[i*C+c]; gi != 0 {
						copy(bp.zc, z.Row(i))
						f.chain(bp.zc, c, s, bp.rec)
						bp.run(c, gi, gzi[0])
					}
				}
			}
			if lanes != nil {
				lanes.flush(a)
			}
		}(accs[w])
	}
	wg.Wait()
	for _, a := range accs {
		for idx, dst := range []*tensor.Dense{grads[1], grads[2], grads[3]} {
			if dst == nil {
				continue
			}
			src := [][]float64{a.x0, a.a, a.b}[idx]
			for j, v := range src {
				dst.Data[j] += v
			}
		}
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

// backprop holds one worker's buffers for back-propagating single chains.
type backprop struct {
	f            *RadialFlows
	s            layerScalars
	acc          flowAcc
	rec          *chainRecord
	zc, gz, diff []float64
}

func (f *RadialFlows) newBackprop(s layerScalars, a flowAcc) *backprop {
	L, D := f.Layers, f.Dim
	return &backprop{f: f, s: s, acc: a,
		rec: &chainRecord{inputs: make([]float64, L*D), states: make([]layerState, L)},
		zc:  make([]float64, D), gz: make([]float64, D), diff: make([]float64, D)}
}

// run back-propagates the output gradient gi of log p(z | c) through the
// chain recorded in bp.rec, whose output z_L is bp.zc, adding the latent
// gradient to gzi (when non-nil) and the parameter gradients to bp.acc.
func (bp *backprop) run(c int, gi float64, gzi []float64) {
	f, s, a, rec := bp.f, bp.s, bp.acc, bp.rec
	C, D := f.Classes, f.Dim
	gz, diff := bp.gz, bp.diff
	// ∂/∂z_L of −½‖z_L‖² is −z_L; every log-det term has weight gi.
	for j := range gz {
		gz[j] = -gi * bp.zc[j]
	}
	for l := f.Layers - 1; l >= 0; l-- {
		k := l*C + c
		x0 := f.X0.Data.Data[k*D : (k+1)*D]
		in := rec.inputs[l*D : (l+1)*D]
		r, h := rec.states[l].r, rec.states[l].h
		bv := s.b[k]
		u := bv * h
		q := u - bv*h*h*r
		gu := 0.0
		for j := range diff {
			diff[j] = in[j] - x0[j]
			gu += gz[j] * diff[j]
		}
		gu += gi * float64(D-1) / (1 + u)
		gq := gi / (1 + q)
		gb := gu*h + gq*(h-h*h*r)
		gh := gu*bv + gq*(bv-2*bv*h*r)
		gr := -gq*bv*h*h - gh*h*h
		ga := -gh * h * h
		// z_{l+1} = z_l + u·diff; diff and r depend on z_l and x₀.
		scale := 0.0
		if r > 0 {
			scale = gr / r
		}
		gx0 := a.x0[k*D : (k+1)*D]
		for j := range gz {
			gd := u*gz[j] + scale*diff[j]
			gz[j] += gd
			gx0[j] -= gd
		}
		a.a[k] += (ga - gb) * s.sigA[k]
		a.b[k] += gb * s.sigB[k]
	}
	for j := range gzi {
		gzi[j] += gz[j]
	}
}
