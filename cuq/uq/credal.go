package uq

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// A CredalSet is a closed convex set K of distributions over C classes: the
// imprecise prediction of a committee (the convex hull of its members,
// Hull) or of a Dirichlet read as an Imprecise Dirichlet Model (IDM). Its
// measures, each exact (docs/guide/credal.md gives the sources), are
//
//	lower_k = min_{p∈K} p_k,  upper_k = max_{p∈K} p_k
//	H*(K)   = max_{p∈K} H(p)                   upper entropy   (total)
//	H_*(K)  = min_{p∈K} H(p)                   lower entropy   (aleatoric)
//	EU      = H*(K) − H_*(K)                   credal epistemic uncertainty
//	GH(K)   = Σ_{A⊆Ω} m(A) log₂|A|             generalized Hartley measure
//	size(K) = Σ_k (upper_k − lower_k)          width of the class intervals
//
// with H(p) = −Σ_k p_k ln p_k in nats, Ω the set of classes and m the Möbius
// inverse of the lower probability P_(A) = min_{p∈K} Σ_{k∈A} p_k,
// m(A) = Σ_{B⊆A} (−1)^{|A∖B|} P_(B). Events A are bit sets: class k is in A
// when bit k of A is set.
type CredalSet interface {
	// Classes is the number of classes C.
	Classes() int
	// Lower and Upper return the class bounds lower_k and upper_k.
	Lower() []float64
	Upper() []float64
	// LowerProbability returns P_(A) of the event A, a bit set of classes.
	LowerProbability(event uint64) float64
	// UpperEntropy returns H*(K); it fails only when an iterative solver
	// does not reach its tolerance.
	UpperEntropy() (float64, error)
	// LowerEntropy returns H_*(K).
	LowerEntropy() float64
	// GeneralizedHartley returns GH(K); it fails when the computation needs
	// the 2^C events and C > MaxGHClasses.
	GeneralizedHartley() (float64, error)
	// Size returns Σ_k (upper_k − lower_k).
	Size() float64
	// Vertices returns points whose convex hull is K.
	Vertices() [][]float64
}

var (
	_ CredalSet = (*Hull)(nil)
	_ CredalSet = (*IDM)(nil)
)

// MaxGHClasses is the largest number of classes for which the generalized
// Hartley measure of a Hull is computed: it needs the lower probability of
// all 2^C events.
const MaxGHClasses = 16

// UpperEntropyTol is the tolerance, in nats, of Hull.UpperEntropy: the value
// returned is the entropy of a point of the hull and lies in
// [H* − UpperEntropyTol, H*].
const UpperEntropyTol = 1e-10

// upperEntropyMaxIter bounds the Frank–Wolfe iterations of
// Hull.UpperEntropy.
const upperEntropyMaxIter = 100000

// Hull is the credal set of a finite committee: the convex hull
// K = {Σ_s w_s p⁽ˢ⁾ : w ≥ 0, Σ_s w_s = 1} of S class distributions p⁽ˢ⁾.
// A linear function attains its extremes over K at a member, so
//
//	lower_k = min_s p⁽ˢ⁾_k,  upper_k = max_s p⁽ˢ⁾_k,  P_(A) = min_s Σ_{k∈A} p⁽ˢ⁾_k,
//
// and the concave entropy attains its minimum at a member,
// H_* = min_s H(p⁽ˢ⁾). The maximum H* is found by pairwise Frank–Wolfe over
// the weights w with exact line search, stopped by the duality gap
//
//	H* ≤ max_s CE(p⁽ˢ⁾, q) = max_s −Σ_k p⁽ˢ⁾_k ln q_k   for every q = Σ_s w_s p⁽ˢ⁾,
//
// (equality at the maximiser), once max_s CE(p⁽ˢ⁾, q) − H(q) ≤
// UpperEntropyTol.
type Hull struct {
	members      [][]float64
	lower, upper []float64
}

// NewHull returns the convex hull of the given distributions, which it
// copies, each divided by its sum (so that rounding in the sums cannot
// mislead the duality gap of UpperEntropy). It returns an error if there are none, they differ in length or
// have fewer than one class, or one has a negative or non-finite entry or
// does not sum to 1 within 1e-6.
func NewHull(members ...[]float64) (*Hull, error) {
	if len(members) == 0 {
		return nil, errors.New("uq: NewHull: no members")
	}
	k := len(members[0])
	if k < 1 {
		return nil, errors.New("uq: NewHull: members have no classes")
	}
	for s, p := range members {
		if len(p) != k {
			return nil, fmt.Errorf("uq: NewHull: member %d has %d classes, member 0 has %d", s, len(p), k)
		}
		if err := checkProbabilities(p, k); err != nil {
			return nil, fmt.Errorf("uq: NewHull: member %d: %w", s, err)
		}
	}
	return newHull(members), nil
}

// newHull returns the hull of members, valid distributions of equal length,
// which it copies normalised.
func newHull(members [][]float64) *Hull {
	k := len(members[0])
	data := make([]float64, len(members)*k)
	own := make([][]float64, len(members))
	for s, p := range members {
		own[s] = data[s*k : (s+1)*k]
		var sum float64
		for _, v := range p {
			sum += v
		}
		for c, v := range p {
			own[s][c] = v / sum
		}
	}
	h := &Hull{members: own, lower: slices.Clone(own[0]), upper: slices.Clone(own[0])}
	for _, p := range own[1:] {
		for k, v := range p {
			h.lower[k] = min(h.lower[k], v)
			h.upper[k] = max(h.upper[k], v)
		}
	}
	return h
}

// Classes returns the number of classes.
func (h *Hull) Classes() int { return len(h.lower) }

// Members returns the committee's distributions; they are the hull's own.
func (h *Hull) Members() [][]float64 { return h.members }

// Vertices returns the members, whose convex hull is the set.
func (h *Hull) Vertices() [][]float64 { return h.members }

// Lower returns lower_k = min_s p⁽ˢ⁾_k.
func (h *Hull) Lower() []float64 { return slices.Clone(h.lower) }

// Upper returns upper_k = max_s p⁽ˢ⁾_k.
func (h *Hull) Upper() []float64 { return slices.Clone(h.upper) }

// Size returns Σ_k (max_s p⁽ˢ⁾_k − min_s p⁽ˢ⁾_k).
func (h *Hull) Size() float64 {
	var size float64
	for k, u := range h.upper {
		size += u - h.lower[k]
	}
	return size
}

// LowerProbability returns P_(A) = min_s Σ_{k∈A} p⁽ˢ⁾_k, with P_(Ω) = 1 and
// P_(∅) = 0 exactly. Classes outside [0, C) in the bit set are ignored.
func (h *Hull) LowerProbability(event uint64) float64 {
	event &= fullEvent(h.Classes())
	if event == fullEvent(h.Classes()) {
		return 1
	}
	lo := math.Inf(1)
	for _, p := range h.members {
		var sum float64
		for a := event; a != 0; a &= a - 1 {
			sum += p[bits.TrailingZeros64(a)]
		}
		lo = min(lo, sum)
	}
	return lo
}

// LowerEntropy returns H_* = min_s H(p⁽ˢ⁾).
func (h *Hull) LowerEntropy() float64 {
	lo := math.Inf(1)
	for _, p := range h.members {
		lo = min(lo, CategoricalEntropy(p))
	}
	return lo
}

// UpperEntropy returns H* = max_{w∈Δ} H(Σ_s w_s p⁽ˢ⁾) within
// UpperEntropyTol, by pairwise Frank–Wolfe from the uniform weights. It
// returns an error if the duality gap is still above the tolerance after
// 100000 iterations.
func (h *Hull) UpperEntropy() (float64, error) {
	n := len(h.members)
	k := h.Classes()
	w := make([]float64, n)
	for s := range w {
		w[s] = 1 / float64(n)
	}
	q := make([]float64, k)
	logq := make([]float64, k)
	d := make([]float64, k)
	var gap float64
	for it := 0; it < upperEntropyMaxIter; it++ {
		clear(q)
		for s, p := range h.members {
			for c, v := range p {
				q[c] += float64(w[s] * v)
			}
		}
		ent := 0.0
		for c, v := range q {
			logq[c] = math.Log(v)
			if v > 0 {
				ent -= float64(v * logq[c])
			}
		}
		// The Frank–Wolfe vertex t maximises the gradient
		// ∂H/∂w_s = CE(p⁽ˢ⁾, q) − 1; the away vertex a minimises it over
		// the members in use.
		t, a := -1, -1
		gmax, gmin := math.Inf(-1), math.Inf(1)
		for s, p := range h.members {
			g := 0.0
			for c, v := range p {
				if v > 0 {
					g -= float64(v * logq[c])
				}
			}
			if t < 0 || g > gmax {
				t, gmax = s, g
			}
			if w[s] > 0 && g < gmin {
				a, gmin = s, g
			}
		}
		if gap = gmax - ent; gap <= UpperEntropyTol {
			return ent, nil
		}
		for c := range d {
			d[c] = h.members[t][c] - h.members[a][c]
		}
		step := lineSearchEntropy(q, d, w[a])
		w[t] += step
		w[a] -= step
		if step == 0 {
			// No progress along the pair: the gap is rounding.
			return ent, nil
		}
	}
	return 0, fmt.Errorf("uq: Hull.UpperEntropy: duality gap %.3g nats above %g after %d iterations", gap, UpperEntropyTol, upperEntropyMaxIter)
}

// GeneralizedHartley returns GH = Σ_A m(A) log₂|A| with m the Möbius
// inverse of P_ over all 2^C events; it returns an error if C >
// MaxGHClasses.
func (h *Hull) GeneralizedHartley() (float64, error) {
	c := h.Classes()
	if c > MaxGHClasses {
		return 0, fmt.Errorf("uq: generalized Hartley measure of a committee's hull of %d classes: it needs the lower probabilities of all 2^%d events, computed for at most %d classes", c, c, MaxGHClasses)
	}
	n := 1 << c
	lower := make([]float64, n)
	sum := make([]float64, n)
	for s, p := range h.members {
		// Subset sums: sum[A] = sum[A without its lowest class] + p_lowest.
		for a := 1; a < n; a++ {
			sum[a] = sum[a&(a-1)] + p[bits.TrailingZeros(uint(a))]
			if s == 0 || sum[a] < lower[a] {
				lower[a] = sum[a]
			}
		}
	}
	lower[n-1] = 1
	return GeneralizedHartley(lower)
}

// GeneralizedHartley returns GH = Σ_{A≠∅} m(A) log₂|A| for the lower
// probabilities lower[A] of all 2^C events A (bit sets, lower[0] the empty
// event), m the Möbius inverse m(A) = Σ_{B⊆A} (−1)^{|A∖B|} P_(B) (Abellán
// and Moral 2000; Abellán, Klir and Moral 2006). It takes O(C·2^C) time. It
// returns an error if len(lower) is not 2^C for 1 ≤ C ≤ MaxGHClasses or an
// entry is not finite.
func GeneralizedHartley(lower []float64) (float64, error) {
	n := len(lower)
	if n < 2 || n&(n-1) != 0 || n > 1<<MaxGHClasses {
		return 0, fmt.Errorf("uq: GeneralizedHartley: %d lower probabilities, want 2^C for 1 ≤ C ≤ %d", n, MaxGHClasses)
	}
	m := slices.Clone(lower)
	for a, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("uq: GeneralizedHartley: lower probability %v of event %#b is not finite", v, a)
		}
	}
	// The Möbius transform one class at a time: after class i, m[A] is the
	// alternating sum over the subsets of A that differ from A in classes
	// 0..i only.
	for bit := 1; bit < n; bit <<= 1 {
		for a := range m {
			if a&bit != 0 {
				m[a] -= m[a^bit]
			}
		}
	}
	var gh float64
	for a := 3; a < n; a++ {
		if size := bits.OnesCount(uint(a)); size > 1 {
			gh += float64(m[a] * math.Log2(float64(size)))
		}
	}
	return gh, nil
}

// IDM is the credal set of a Dirichlet read as Walley's (1996) Imprecise
// Dirichlet Model, or a linear pool of such sets: for lower bounds l ≥ 0
// and ε = 1 − Σ_k l_k > 0,
//
//	K = {l + ε t : t ∈ Δ},  lower_k = l_k,  upper_k = l_k + ε,
//	P_(A) = Σ_{k∈A} l_k (A ≠ Ω),  m({k}) = l_k,  m(Ω) = ε,
//
// a copy of the simplex shrunk by ε around l (a linear-vacuous mixture).
// Evidence β ≥ 0 with prior strength s > 0 gives l_k = β_k/(β₀+s) and
// ε = s/(β₀+s), β₀ = Σ_k β_k (NewIDM). The measures are exact and in closed
// form:
//
//	H*     = H(max(l, λ)), λ the water level with Σ_k max(l_k, λ) = 1
//	H_*    = H(l + ε e_j), j = argmax_k l_k
//	GH     = ε log₂ C
//	size   = C ε
//
// H_* is at a vertex l + ε e_j because H is concave, and the vertex of the
// largest l_j because H(l + ε e_j) − H(l) decreases in l_j.
type IDM struct {
	lower []float64
	eps   float64
}

// NewIDM returns the IDM of the evidence β (pseudo-counts, β_k ≥ 0) with
// prior strength s > 0: l_k = β_k/(β₀+s), ε = s/(β₀+s). A Dirichlet Dir(α)
// with α = prior + β (PostNet and GKDE: prior 1) has β = α − prior. It
// returns an error for no classes, a negative or non-finite β_k, or s not
// finite and positive.
func NewIDM(evidence []float64, s float64) (*IDM, error) {
	if len(evidence) == 0 {
		return nil, errors.New("uq: NewIDM: no classes")
	}
	if !(s > 0) || math.IsInf(s, 1) {
		return nil, fmt.Errorf("uq: NewIDM: prior strength s = %v, want finite and > 0", s)
	}
	var b0 float64
	for k, b := range evidence {
		if !(b >= 0) || math.IsInf(b, 1) {
			return nil, fmt.Errorf("uq: NewIDM: evidence β[%d] = %v, want finite and ≥ 0", k, b)
		}
		b0 += b
	}
	l := make([]float64, len(evidence))
	for k, b := range evidence {
		l[k] = b / (b0 + s)
	}
	return &IDM{lower: l, eps: s / (b0 + s)}, nil
}

// LinearPool returns the set Σ_j w_j K_j of the weighted sums of one point
// of each IDM K_j, the credal set of a linear opinion pool such as
// LOP-GPN's mixture Σ_j w_j Dir(α_j). It is again an IDM, with
// l = Σ_j w_j l_j and ε = Σ_j w_j ε_j. It returns an error for no sets, sets
// of different class counts, or weights that are negative, not finite or do
// not sum to 1 within 1e-6.
func LinearPool(weights []float64, sets ...*IDM) (*IDM, error) {
	if len(sets) == 0 || len(weights) != len(sets) {
		return nil, fmt.Errorf("uq: LinearPool: %d weights for %d sets, want equal and > 0", len(weights), len(sets))
	}
	pool := &IDM{lower: make([]float64, sets[0].Classes())}
	var sum float64
	for j, set := range sets {
		w := weights[j]
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("uq: LinearPool: weight %d is %v, want finite and ≥ 0", j, w)
		}
		if set.Classes() != len(pool.lower) {
			return nil, fmt.Errorf("uq: LinearPool: set %d has %d classes, set 0 has %d", j, set.Classes(), len(pool.lower))
		}
		sum += w
		pool.addScaled(w, set)
	}
	if math.Abs(sum-1) > weightSumTol {
		return nil, fmt.Errorf("uq: LinearPool: weights sum to %v, want 1", sum)
	}
	return pool, nil
}

// addScaled adds w·l and w·ε of set to m.
func (m *IDM) addScaled(w float64, set *IDM) {
	for k, v := range set.lower {
		m.lower[k] += float64(w * v)
	}
	m.eps += float64(w * set.eps)
}

// Classes returns the number of classes.
func (m *IDM) Classes() int { return len(m.lower) }

// Imprecision returns ε = 1 − Σ_k l_k, the width of every class interval.
func (m *IDM) Imprecision() float64 { return m.eps }

// Lower returns l.
func (m *IDM) Lower() []float64 { return slices.Clone(m.lower) }

// Upper returns l + ε.
func (m *IDM) Upper() []float64 {
	u := slices.Clone(m.lower)
	for k := range u {
		u[k] += m.eps
	}
	return u
}

// Vertices returns the C vertices l + ε e_k.
func (m *IDM) Vertices() [][]float64 {
	vs := make([][]float64, len(m.lower))
	for k := range vs {
		vs[k] = slices.Clone(m.lower)
		vs[k][k] += m.eps
	}
	return vs
}

// Size returns C ε.
func (m *IDM) Size() float64 { return float64(len(m.lower)) * m.eps }

// LowerProbability returns Σ_{k∈A} l_k, and 1 for A = Ω. Classes outside
// [0, C) in the bit set are ignored.
func (m *IDM) LowerProbability(event uint64) float64 {
	event &= fullEvent(m.Classes())
	if event == fullEvent(m.Classes()) {
		return 1
	}
	var sum float64
	for a := event; a != 0; a &= a - 1 {
		sum += m.lower[bits.TrailingZeros64(a)]
	}
	return sum
}

// LowerEntropy returns H(l + ε e_j) for the first j of the largest l_j.
func (m *IDM) LowerEntropy() float64 {
	j := 0
	for k, v := range m.lower {
		if v > m.lower[j] {
			j = k
		}
	}
	var h float64
	for k, v := range m.lower {
		if k == j {
			v += m.eps
		}
		h -= xlogx(v)
	}
	return h
}

// UpperEntropy returns H(max(l, λ)) with the water level λ found exactly:
// with l sorted ascending, λ = (l_(1) + … + l_(r) + ε)/r for the first r with
// λ ≤ l_(r+1). It never fails.
func (m *IDM) UpperEntropy() (float64, error) {
	sorted := slices.Clone(m.lower)
	slices.Sort(sorted)
	level, prefix := 0.0, 0.0
	for r, v := range sorted {
		prefix += v
		level = (prefix + m.eps) / float64(r+1)
		if r+1 == len(sorted) || level <= sorted[r+1] {
			break
		}
	}
	var h float64
	for _, v := range m.lower {
		h -= xlogx(max(v, level))
	}
	return h, nil
}

// GeneralizedHartley returns ε log₂ C: the Möbius inverse of P_ puts
// m({k}) = l_k on the singletons, which count log₂ 1 = 0, and ε on Ω.
func (m *IDM) GeneralizedHartley() (float64, error) {
	return m.eps * math.Log2(float64(len(m.lower))), nil
}

// xlogx returns x ln x, 0 at x = 0.
func xlogx(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return float64(x * math.Log(x))
}

// lineSearchEntropy returns the γ ∈ [0, hi] that maximises H(q + γd), for a
// direction d with Σ_k d_k = 0: the root of the decreasing derivative
// φ'(γ) = −Σ_k d_k ln(q_k + γ d_k), by Newton's method safeguarded by
// bisection, or an end of the interval.
func lineSearchEntropy(q, d []float64, hi float64) float64 {
	deriv := func(g float64) (f, df float64) {
		for k, dk := range d {
			if dk == 0 {
				continue
			}
			x := q[k] + float64(g*dk)
			f -= float64(dk * math.Log(x))
			df -= dk * dk / x
		}
		return f, df
	}
	if f, _ := deriv(hi); f >= 0 {
		return hi
	}
	if f, _ := deriv(0); !(f > 0) {
		return 0
	}
	lo, g := 0.0, hi/2
	for range 200 {
		f, df := deriv(g)
		switch {
		case f > 0:
			lo = g
		case f < 0:
			hi = g
		default:
			return g
		}
		next := g - f/df
		if !(next > lo && next < hi) {
			next = lo + float64((hi-lo)/2)
		}
		if next == g || hi-lo <= 1e-17 {
			return g
		}
		g = next
	}
	return g
}

// fullEvent returns Ω = {0, …, c−1} as a bit set.
func fullEvent(c int) uint64 {
	if c >= 64 {
		return math.MaxUint64
	}
	return 1<<c - 1
}

// SampleHulls returns the credal sets of a sampled prediction, as Samples
// takes it: node i's set is the hull of its S sampled distributions
// probs[s][i*k:(i+1)*k] (copied as NewHull does). It validates as Samples
// does.
func SampleHulls(probs [][]float64, k int) ([]CredalSet, error) {
	mean, err := SampleMean(probs, k)
	if err != nil {
		return nil, err
	}
	sets := make([]CredalSet, len(mean)/k)
	for i := range sets {
		members := make([][]float64, len(probs))
		for s, p := range probs {
			members[s] = p[i*k : (i+1)*k]
		}
		sets[i] = newHull(members)
	}
	return sets, nil
}

// DirichletIDMs returns the IDMs of N Dirichlets Dir(α_i) stored row-major
// in alpha (N×k), with evidence β_i = α_i − prior and prior strength s
// (s ≤ 0 means the default s = k, so that the class intervals shrink as
// 1/(β₀+k) with the evidence). It returns an error on invalid α or an
// α_ik < prior.
func DirichletIDMs(alpha []float64, k int, prior, s float64) ([]CredalSet, error) {
	n, err := checkRows("DirichletIDMs", alpha, k)
	if err != nil {
		return nil, err
	}
	if err := checkAlpha("DirichletIDMs", alpha, k); err != nil {
		return nil, err
	}
	if s <= 0 {
		s = float64(k)
	}
	sets := make([]CredalSet, n)
	beta := make([]float64, k)
	for i := range sets {
		for c, a := range alpha[i*k : (i+1)*k] {
			beta[c] = a - prior
		}
		m, err := NewIDM(beta, s)
		if err != nil {
			return nil, fmt.Errorf("uq: DirichletIDMs: row %d (prior %v): %w", i, prior, err)
		}
		sets[i] = m
	}
	return sets, nil
}

// MixtureIDMs returns the credal sets of N Dirichlet mixtures described as
// in Mixture: node i's set is the LinearPool, with the weights w_ij, of the
// components' IDMs (evidence α_j − prior, strength s; s ≤ 0 means s = k). It
// validates as Mixture does and returns an error for an α_jc < prior.
func MixtureIDMs(ptr, ind []int, w []float64, alpha []float64, k int, prior, s float64) ([]CredalSet, error) {
	comps, err := DirichletIDMs(alpha, k, prior, s)
	if err != nil {
		return nil, err
	}
	n, err := checkWeights(ptr, ind, w, len(comps))
	if err != nil {
		return nil, err
	}
	sets := make([]CredalSet, n)
	for i := range sets {
		pool := &IDM{lower: make([]float64, k)}
		for e := ptr[i]; e < ptr[i+1]; e++ {
			pool.addScaled(w[e], comps[ind[e]].(*IDM))
		}
		sets[i] = pool
	}
	return sets, nil
}

// Credal computes the credal measures of N credal sets, one per node:
// HUpper, HLower, EUCredal = HUpper − HLower (rounding below 0 returned as
// 0), GH and CredalSize; the other fields are nil. Large batches are split
// across goroutines. It returns the first error of a set's measures (a
// hull of more than MaxGHClasses classes) or a nil set.
func Credal(sets []CredalSet) (Measures, error) {
	n := len(sets)
	ms := Measures{HUpper: make([]float64, n), HLower: make([]float64, n), EUCredal: make([]float64, n),
		GH: make([]float64, n), CredalSize: make([]float64, n)}
	var cost int
	for i, set := range sets {
		if set == nil {
			return Measures{}, fmt.Errorf("uq: Credal: set %d is nil", i)
		}
		cost += set.Classes() * len(set.Vertices()) * 64
	}
	errs := make([]error, n)
	tensor.ParallelFor(n, cost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			set := sets[i]
			up, err := set.UpperEntropy()
			if err == nil {
				ms.GH[i], err = set.GeneralizedHartley()
			}
			if err != nil {
				errs[i] = fmt.Errorf("uq: Credal: node %d: %w", i, err)
				continue
			}
			low := set.LowerEntropy()
			ms.HUpper[i], ms.HLower[i], ms.EUCredal[i] = up, low, max(up-low, 0)
			ms.CredalSize[i] = set.Size()
		}
	})
	for _, err := range errs {
		if err != nil {
			return Measures{}, err
		}
	}
	return ms, nil
}

// NonDominated returns the classes not dominated under interval dominance,
// ascending: class k is dominated when lower_j > upper_k for some j. The
// class of the largest upper bound is never dominated, so the set is never
// empty for C ≥ 1. It returns nil when the lengths differ.
func NonDominated(lower, upper []float64) []int {
	if len(lower) != len(upper) {
		return nil
	}
	best := math.Inf(-1)
	for _, l := range lower {
		best = max(best, l)
	}
	var out []int
	for k, u := range upper {
		if !(best > u) {
			out = append(out, k)
		}
	}
	return out
}

// PredictionSets are the credal prediction sets of some labelled nodes,
// with the fields of conformal.Result that apply to them, so that they can
// be shown beside the conformal sets.
type PredictionSets struct {
	// Classes is the number of classes, the largest possible set size.
	Classes int
	// Nodes holds the nodes, in the order given.
	Nodes []int
	// Sets[k] holds the classes of the set of Nodes[k], ascending; Sizes[k]
	// is its size and Covered[k] whether it holds the node's label.
	Sets    [][]int
	Sizes   []int
	Covered []bool
	// Coverage is the fraction of nodes whose label is in their set,
	// MeanSize the mean set size, SingletonRate and EmptyRate the fractions
	// of sets of one class and of none (never, under interval dominance).
	Coverage, MeanSize, SingletonRate, EmptyRate float64
}

// SizeCounts returns how many nodes have a set of each size 0, 1, …,
// Classes.
func (r PredictionSets) SizeCounts() []int {
	counts := make([]int, r.Classes+1)
	for _, s := range r.Sizes {
		counts[s]++
	}
	return counts
}

// CredalPredictionSets returns the NonDominated sets of the given nodes'
// credal sets (sets[i] is node i's) with their coverage of the labels and
// their sizes. It returns an error for no nodes, a node outside sets or
// labels, a nil set, or a label outside [0, C).
func CredalPredictionSets(sets []CredalSet, labels, nodes []int) (PredictionSets, error) {
	if len(nodes) == 0 {
		return PredictionSets{}, errors.New("uq: CredalPredictionSets: no nodes")
	}
	r := PredictionSets{Nodes: slices.Clone(nodes), Sets: make([][]int, len(nodes)), Sizes: make([]int, len(nodes)), Covered: make([]bool, len(nodes))}
	var covered, singletons, empty, total int
	for n, i := range nodes {
		if i < 0 || i >= len(sets) || i >= len(labels) || sets[i] == nil {
			return PredictionSets{}, fmt.Errorf("uq: CredalPredictionSets: node %d has no credal set or label (%d sets, %d labels)", i, len(sets), len(labels))
		}
		c := sets[i].Classes()
		if n == 0 {
			r.Classes = c
		} else if c != r.Classes {
			return PredictionSets{}, fmt.Errorf("uq: CredalPredictionSets: node %d has %d classes, node %d has %d", i, c, nodes[0], r.Classes)
		}
		if y := labels[i]; y < 0 || y >= c {
			return PredictionSets{}, fmt.Errorf("uq: CredalPredictionSets: node %d has the label %d, want one of %d classes", i, y, c)
		}
		set := NonDominated(sets[i].Lower(), sets[i].Upper())
		r.Sets[n], r.Sizes[n] = set, len(set)
		r.Covered[n] = slices.Contains(set, labels[i])
		total += len(set)
		if r.Covered[n] {
			covered++
		}
		switch len(set) {
		case 0:
			empty++
		case 1:
			singletons++
		}
	}
	m := float64(len(nodes))
	r.Coverage, r.MeanSize = float64(covered)/m, float64(total)/m
	r.SingletonRate, r.EmptyRate = float64(singletons)/m, float64(empty)/m
	return r, nil
}
