package uq

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// h returns −Σ p ln p of the given probabilities, written out for the
// hand-computed cases.
func h(p ...float64) float64 {
	var s float64
	for _, v := range p {
		if v > 0 {
			s -= v * math.Log(v)
		}
	}
	return s
}

type credalWant struct {
	lower, upper             []float64
	hUpper, hLower, gh, size float64
}

func checkCredal(t *testing.T, name string, set CredalSet, want credalWant) {
	t.Helper()
	const tol = 1e-9
	for k, l := range set.Lower() {
		if !close(l, want.lower[k], 1e-12) {
			t.Errorf("%s: lower = %v, want %v", name, set.Lower(), want.lower)
			break
		}
	}
	for k, u := range set.Upper() {
		if !close(u, want.upper[k], 1e-12) {
			t.Errorf("%s: upper = %v, want %v", name, set.Upper(), want.upper)
			break
		}
	}
	up, err := set.UpperEntropy()
	if err != nil || !close(up, want.hUpper, tol) {
		t.Errorf("%s: H* = %.12g, %v, want %.12g", name, up, err, want.hUpper)
	}
	if got := set.LowerEntropy(); !close(got, want.hLower, 1e-12) {
		t.Errorf("%s: H_* = %.12g, want %.12g", name, got, want.hLower)
	}
	gh, err := set.GeneralizedHartley()
	if err != nil || !close(gh, want.gh, 1e-12) {
		t.Errorf("%s: GH = %.12g, %v, want %.12g", name, gh, err, want.gh)
	}
	if got := set.Size(); !close(got, want.size, 1e-12) {
		t.Errorf("%s: size = %.12g, want %.12g", name, got, want.size)
	}
}

func mustHull(t *testing.T, members ...[]float64) *Hull {
	t.Helper()
	hull, err := NewHull(members...)
	if err != nil {
		t.Fatal(err)
	}
	return hull
}

func mustIDM(t *testing.T, beta []float64, s float64) *IDM {
	t.Helper()
	m, err := NewIDM(beta, s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHullByHand checks hulls whose measures are worked out by hand; the
// Möbius masses are in the comments.
func TestHullByHand(t *testing.T) {
	ln2, log2of3 := math.Ln2, math.Log2(3)
	for _, tc := range []struct {
		name    string
		members [][]float64
		want    credalWant
	}{
		// The segment [0.6, 0.9] of p₀: H* at the point nearest ½, H_* at
		// the farthest. m({0}) = 0.6, m({1}) = 0.1, m(Ω) = 0.3.
		{"two classes", [][]float64{{0.9, 0.1}, {0.6, 0.4}},
			credalWant{[]float64{0.6, 0.1}, []float64{0.9, 0.4}, h(0.6, 0.4), h(0.9, 0.1), 0.3, 0.6}},
		// The segment holds ½: H* = ln 2. m(Ω) = 1 − 0.3 − 0.2.
		{"two classes through ½", [][]float64{{0.8, 0.2}, {0.3, 0.7}},
			credalWant{[]float64{0.3, 0.2}, []float64{0.8, 0.7}, ln2, h(0.8, 0.2), 0.5, 1}},
		// Symmetric in classes 0 and 1: H* at the midpoint. P_: {0} .2,
		// {1} .2, {2} .1, {0,1} .9, {0,2} .3, {1,2} .3, so m({0,1}) = .5,
		// m({0,2}) = m({1,2}) = 0, m(Ω) = 1 − 1.5 + .5 = 0.
		{"three classes, segment", [][]float64{{0.7, 0.2, 0.1}, {0.2, 0.7, 0.1}},
			credalWant{[]float64{0.2, 0.2, 0.1}, []float64{0.7, 0.7, 0.1}, h(0.45, 0.45, 0.1), h(0.7, 0.2, 0.1), 0.5, 1}},
		// An edge of the simplex: class 2 has no mass anywhere; m({0,1}) = 1.
		{"edge", [][]float64{{1, 0, 0}, {0, 1, 0}},
			credalWant{[]float64{0, 0, 0}, []float64{1, 1, 0}, ln2, 0, 1, 2}},
		{"single distribution", [][]float64{{0.5, 0.3, 0.2}},
			credalWant{[]float64{0.5, 0.3, 0.2}, []float64{0.5, 0.3, 0.2}, h(0.5, 0.3, 0.2), h(0.5, 0.3, 0.2), 0, 0}},
		{"repeated distribution", [][]float64{{0.5, 0.3, 0.2}, {0.5, 0.3, 0.2}},
			credalWant{[]float64{0.5, 0.3, 0.2}, []float64{0.5, 0.3, 0.2}, h(0.5, 0.3, 0.2), h(0.5, 0.3, 0.2), 0, 0}},
		{"vertex", [][]float64{{0, 1, 0}},
			credalWant{[]float64{0, 1, 0}, []float64{0, 1, 0}, 0, 0, 0, 0}},
		// The whole simplex: P_(A) = 0 for A ≠ Ω, m(Ω) = 1.
		{"whole simplex", [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			credalWant{[]float64{0, 0, 0}, []float64{1, 1, 1}, math.Log(3), 0, log2of3, 3}},
		{"whole simplex and an inner point", [][]float64{{0.2, 0.3, 0.5}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			credalWant{[]float64{0, 0, 0}, []float64{1, 1, 1}, math.Log(3), 0, log2of3, 3}},
	} {
		checkCredal(t, tc.name, mustHull(t, tc.members...), tc.want)
	}
}

// TestIDMByHand checks β = (3, 1, 0), s = 2: β₀ = 4, l = (1/2, 1/6, 0),
// ε = 1/3. The water level over the sorted l = (0, 1/6, 1/2) is
// (0 + 1/6 + 1/3)/2 = 1/4, so H* = H(1/2, 1/4, 1/4) = 1.5 ln 2; H_* is at
// l + ε e₀ = (5/6, 1/6, 0).
func TestIDMByHand(t *testing.T) {
	m := mustIDM(t, []float64{3, 1, 0}, 2)
	checkCredal(t, "IDM", m, credalWant{
		lower: []float64{0.5, 1.0 / 6, 0}, upper: []float64{5.0 / 6, 0.5, 1.0 / 3},
		hUpper: 1.5 * math.Ln2, hLower: h(5.0/6, 1.0/6), gh: math.Log2(3) / 3, size: 1,
	})
	if got := m.Imprecision(); !close(got, 1.0/3, 1e-15) {
		t.Errorf("ε = %v, want 1/3", got)
	}
	// Without evidence the IDM is the whole simplex, whatever s.
	checkCredal(t, "no evidence", mustIDM(t, []float64{0, 0, 0, 0}, 0.5), credalWant{
		lower: []float64{0, 0, 0, 0}, upper: []float64{1, 1, 1, 1}, hUpper: math.Log(4), gh: 2, size: 4,
	})
	// l = (2, 2, 1)/(5+1), ε = 1/6: the level (1/6 + 1/6)/1 = 1/3 raises
	// class 2 alone and reaches the next l = 1/3: H* = H(⅓, ⅓, ⅓) = ln 3.
	checkCredal(t, "level reaches uniform", mustIDM(t, []float64{2, 2, 1}, 1), credalWant{
		lower: []float64{1.0 / 3, 1.0 / 3, 1.0 / 6}, upper: []float64{0.5, 0.5, 1.0 / 3},
		hUpper: math.Log(3), hLower: h(0.5, 1.0/3, 1.0/6), gh: math.Log2(3) / 6, size: 0.5,
	})
	// With much evidence the IDM shrinks to the distribution β/β₀.
	big := mustIDM(t, []float64{5e12, 3e12, 2e12}, 3)
	if up, _ := big.UpperEntropy(); !close(up, h(0.5, 0.3, 0.2), 1e-10) || !close(big.LowerEntropy(), h(0.5, 0.3, 0.2), 1e-10) {
		t.Errorf("IDM of much evidence: H* = %v, H_* = %v, want both %v", up, big.LowerEntropy(), h(0.5, 0.3, 0.2))
	}
}

// TestIDMMatchesHullOfVertices checks the IDM's closed forms against the
// general algorithms on the hull of its vertices, the same set: the water
// level against Frank–Wolfe, the greedy vertex against the minimum over
// the vertices, and ε log₂ C against the Möbius inverse of the hull's lower
// probabilities, and the IDM's own lower probabilities through
// GeneralizedHartley.
func TestIDMMatchesHullOfVertices(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		c := 2 + trial%6
		beta := make([]float64, c)
		for k := range beta {
			if rng.IntN(4) > 0 {
				beta[k] = math.Exp(rng.NormFloat64() * 2)
			}
		}
		m := mustIDM(t, beta, 0.1+3*rng.Float64())
		hull := mustHull(t, m.Vertices()...)
		upIDM, _ := m.UpperEntropy()
		upHull, err := hull.UpperEntropy()
		if err != nil || upHull > upIDM+1e-12 || upIDM-upHull > UpperEntropyTol {
			t.Fatalf("β = %v: IDM H* = %.15g, hull H* = %.15g (%v)", beta, upIDM, upHull, err)
		}
		if !close(m.LowerEntropy(), hull.LowerEntropy(), 1e-12) {
			t.Fatalf("β = %v: IDM H_* = %v, hull H_* = %v", beta, m.LowerEntropy(), hull.LowerEntropy())
		}
		ghIDM, _ := m.GeneralizedHartley()
		ghHull, err := hull.GeneralizedHartley()
		if err != nil || !close(ghIDM, ghHull, 1e-12) {
			t.Fatalf("β = %v: IDM GH = %v, hull GH = %v (%v)", beta, ghIDM, ghHull, err)
		}
		lower := make([]float64, 1<<c)
		for a := range lower {
			lower[a] = m.LowerProbability(uint64(a))
			if !close(lower[a], hull.LowerProbability(uint64(a)), 1e-12) {
				t.Fatalf("β = %v: P_(%b) = %v by the IDM, %v by the hull", beta, a, lower[a], hull.LowerProbability(uint64(a)))
			}
		}
		if gh, err := GeneralizedHartley(lower); err != nil || !close(gh, ghIDM, 1e-12) {
			t.Fatalf("β = %v: Möbius GH = %v (%v), closed form %v", beta, gh, err, ghIDM)
		}
		if !close(m.Size(), hull.Size(), 1e-12) {
			t.Fatalf("β = %v: IDM size %v, hull size %v", beta, m.Size(), hull.Size())
		}
	}
}

// randomDistribution draws from Dir(1, …, 1), with some entries set to 0
// when sparse.
func randomDistribution(rng *rand.Rand, c int, sparse bool) []float64 {
	p := make([]float64, c)
	var s float64
	for k := range p {
		if sparse && rng.IntN(3) == 0 {
			continue
		}
		p[k] = -math.Log(1 - rng.Float64())
		s += p[k]
	}
	if s == 0 {
		p[rng.IntN(c)], s = 1, 1
	}
	for k := range p {
		p[k] /= s
	}
	return p
}

// TestHullTwoClassesExact checks random two-class hulls, segments [a, b] of
// p₀, against H* = H(clamp(½, a, b)) and H_* = min(H(a), H(b)).
func TestHullTwoClassesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		s := 1 + rng.IntN(5)
		members := make([][]float64, s)
		a, b := 1.0, 0.0
		for i := range members {
			members[i] = randomDistribution(rng, 2, false)
			a, b = min(a, members[i][0]), max(b, members[i][0])
		}
		hull := mustHull(t, members...)
		mid := min(max(0.5, a), b)
		up, err := hull.UpperEntropy()
		if want := h(mid, 1-mid); err != nil || math.Abs(up-want) > UpperEntropyTol || up > want+1e-14 {
			t.Fatalf("%v: H* = %.15g (%v), want %.15g", members, up, err, want)
		}
		if got, want := hull.LowerEntropy(), min(h(a, 1-a), h(b, 1-b)); !close(got, want, 1e-14) {
			t.Fatalf("%v: H_* = %v, want %v", members, got, want)
		}
		// m({0}) = a, m({1}) = 1 − b, m(Ω) = b − a.
		if gh, _ := hull.GeneralizedHartley(); !close(gh, b-a, 1e-12) {
			t.Fatalf("%v: GH = %v, want %v", members, gh, b-a)
		}
	}
}

// inTriangle reports whether θ lies in the triangle of a, b, c (all on the
// 2-simplex), with barycentric coordinates from the first two components.
func inTriangle(theta, a, b, c []float64) bool {
	x, y := theta[0]-c[0], theta[1]-c[1]
	ax, ay, bx, by := a[0]-c[0], a[1]-c[1], b[0]-c[0], b[1]-c[1]
	det := ax*by - bx*ay
	if det == 0 {
		return false
	}
	u := (x*by - bx*y) / det
	v := (ax*y - x*ay) / det
	const eps = 1e-12
	return u >= -eps && v >= -eps && u+v <= 1+eps
}

// TestHullBruteForce compares the upper and lower entropies of random
// three-class hulls of 3 to 6 members with a grid search over the
// 2-simplex: a grid point lies in the hull when it lies in the triangle of
// some three members (Carathéodory). No grid point in the hull may beat
// H* or fall below H_*, and the best grid point must come within the
// grid's resolution.
func TestHullBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 300
	for trial := range 40 {
		s := 3 + trial%4
		members := make([][]float64, s)
		for i := range members {
			members[i] = randomDistribution(rng, 3, trial%5 == 0)
		}
		hull := mustHull(t, members...)
		up, err := hull.UpperEntropy()
		if err != nil {
			t.Fatal(err)
		}
		low := hull.LowerEntropy()
		best, worst, inside := math.Inf(-1), math.Inf(1), 0
		theta := make([]float64, 3)
		for i := 0; i <= n; i++ {
			for j := 0; i+j <= n; j++ {
				theta[0], theta[1] = float64(i)/n, float64(j)/n
				theta[2] = 1 - theta[0] - theta[1]
				in := false
				for a := 0; a < s && !in; a++ {
					for b := a + 1; b < s && !in; b++ {
						for c := b + 1; c < s && !in; c++ {
							in = inTriangle(theta, members[a], members[b], members[c])
						}
					}
				}
				if in {
					inside++
					e := h(theta...)
					best, worst = max(best, e), min(worst, e)
				}
			}
		}
		if inside < 20 {
			continue // a sliver the grid cannot resolve
		}
		if best > up+1e-12 || up-best > 0.02 {
			t.Errorf("trial %d: H* = %.10g, best of %d grid points %.10g", trial, up, inside, best)
		}
		// The entropy is steep near the faces, where the lowest points lie:
		// the grid's nearest points inside the hull are within about
		// (1/n)(ln n + 1) per class of them.
		if worst < low-1e-12 || worst-low > 0.1 {
			t.Errorf("trial %d: H_* = %.10g, worst of %d grid points %.10g", trial, low, inside, worst)
		}
	}
}

// TestHullUpperEntropyMixtureGrid checks H* of random hulls of three
// members over 3 to 6 classes against a grid over the mixture weights w,
// whose points all lie in the hull.
func TestHullUpperEntropyMixtureGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 400
	for trial := range 30 {
		c := 3 + trial%4
		members := [][]float64{randomDistribution(rng, c, trial%3 == 0), randomDistribution(rng, c, false), randomDistribution(rng, c, trial%2 == 0)}
		hull := mustHull(t, members...)
		up, err := hull.UpperEntropy()
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(-1)
		q := make([]float64, c)
		for i := 0; i <= n; i++ {
			for j := 0; i+j <= n; j++ {
				w := [3]float64{float64(i) / n, float64(j) / n, float64(n-i-j) / n}
				for k := range q {
					q[k] = w[0]*members[0][k] + w[1]*members[1][k] + w[2]*members[2][k]
				}
				best = max(best, h(q...))
			}
		}
		if best > up+1e-12 || up-best > 1e-3 {
			t.Errorf("trial %d: H* = %.12g, best of the weight grid %.12g", trial, up, best)
		}
	}
}

// TestHullUpperEntropyIndependentSolver checks H* of larger random hulls
// against an independent solver, exponentiated gradient on the weights,
// w_s ← w_s exp(η CE(p⁽ˢ⁾, q)) / Z: its point q gives the lower bound H(q)
// and the duality bound max_s CE(p⁽ˢ⁾, q) ≥ H*, so H* must lie between.
func TestHullUpperEntropyIndependentSolver(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 50 {
		c, s := 2+rng.IntN(15), 1+rng.IntN(30)
		members := make([][]float64, s)
		for i := range members {
			members[i] = randomDistribution(rng, c, trial%2 == 0)
		}
		hull := mustHull(t, members...)
		up, err := hull.UpperEntropy()
		if err != nil {
			t.Fatalf("trial %d (C = %d, S = %d): %v", trial, c, s, err)
		}
		w := make([]float64, s)
		for i := range w {
			w[i] = 1 / float64(s)
		}
		q := make([]float64, c)
		var dual float64
		for range 3000 {
			clear(q)
			for i, p := range members {
				for k, v := range p {
					q[k] += w[i] * v
				}
			}
			var z float64
			dual = 0
			for i, p := range members {
				ce := crossEntropy(p, q)
				dual = max(dual, ce)
				w[i] *= math.Exp(0.5 * ce)
				z += w[i]
			}
			for i := range w {
				w[i] /= z
			}
		}
		if up < h(q...)-1e-12 || up > dual+1e-12 {
			t.Errorf("trial %d (C = %d, S = %d): H* = %.15g outside the independent bounds [%.15g, %.15g]", trial, c, s, up, h(q...), dual)
		}
	}
}

func TestGeneralizedHartleyErrors(t *testing.T) {
	for _, tc := range []struct {
		lower []float64
		want  string
	}{
		{nil, "0 lower probabilities"},
		{[]float64{0, 0.5, 1}, "3 lower probabilities"},
		{[]float64{0, math.NaN()}, "NaN of event 0b1 is not finite"},
	} {
		if _, err := GeneralizedHartley(tc.lower); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GeneralizedHartley(%v): error %v, want %q", tc.lower, err, tc.want)
		}
	}
	// One class: the single event Ω, log₂ 1 = 0.
	if gh, err := GeneralizedHartley([]float64{0, 1}); gh != 0 || err != nil {
		t.Errorf("GH of one class = %v, %v", gh, err)
	}
	wide := make([]float64, MaxGHClasses+1)
	wide[0] = 1
	if _, err := mustHull(t, wide).GeneralizedHartley(); err == nil || !strings.Contains(err.Error(), "hull of 17 classes") {
		t.Errorf("GH of 17 classes: error %v", err)
	}
	if _, err := Credal([]CredalSet{mustHull(t, wide)}); err == nil || !strings.Contains(err.Error(), "node 0") {
		t.Errorf("Credal of 17 classes: error %v", err)
	}
	// The IDM's closed form has no such limit.
	if gh, err := mustIDM(t, make([]float64, 40), 1).GeneralizedHartley(); err != nil || !close(gh, math.Log2(40), 1e-15) {
		t.Errorf("GH of the vacuous IDM of 40 classes = %v, %v", gh, err)
	}
}

func TestCredalConstructorErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(NewHull()), "no members"},
		{second(NewHull([]float64{})), "no classes"},
		{second(NewHull([]float64{1, 0}, []float64{1})), "member 1 has 1 classes"},
		{second(NewHull([]float64{0.5, 0.6})), "member 0: row 0 sums to 1.1"},
		{second(NewHull([]float64{-0.5, 1.5})), "member 0: row 0 has the entry -0.5"},
		{second(NewIDM(nil, 1)), "no classes"},
		{second(NewIDM([]float64{1}, 0)), "s = 0"},
		{second(NewIDM([]float64{1}, math.Inf(1))), "s = +Inf"},
		{second(NewIDM([]float64{1, -1}, 1)), "β[1] = -1"},
		{second(LinearPool(nil)), "0 weights for 0 sets"},
		{second(LinearPool([]float64{0.5, 0.6}, mustIDM(t, []float64{1, 1}, 1), mustIDM(t, []float64{1, 1}, 1))), "weights sum to 1.1"},
		{second(LinearPool([]float64{-1, 2}, mustIDM(t, []float64{1, 1}, 1), mustIDM(t, []float64{1, 1}, 1))), "weight 0 is -1"},
		{second(LinearPool([]float64{0.5, 0.5}, mustIDM(t, []float64{1, 1}, 1), mustIDM(t, []float64{1}, 1))), "set 1 has 1 classes"},
		{second(DirichletIDMs([]float64{2, 0.5}, 2, 1, 0)), "row 0 (prior 1): uq: NewIDM: evidence β[1] = -0.5"},
		{second(DirichletIDMs([]float64{2, 0}, 2, 1, 0)), "not a valid Dirichlet parameter"},
		{second(MixtureIDMs([]int{0, 1}, []int{1}, []float64{1}, []float64{2, 2}, 2, 1, 0)), "component 1 out of range"},
		{second(SampleHulls([][]float64{{0.5, 0.5}, {1}}, 2)), "length 1 is not a multiple of k = 2"},
		{second(Credal([]CredalSet{nil})), "set 0 is nil"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want %q", tc.err, tc.want)
		}
	}
}

// crossEntropy returns −Σ_k p_k ln q_k, terms with p_k = 0 counting 0 and
// +Inf if some p_k > 0 has q_k = 0.
func crossEntropy(p, q []float64) float64 {
	var ce float64
	for k, v := range p {
		if v > 0 {
			ce -= v * math.Log(q[k])
		}
	}
	return ce
}

func second[T any](_ T, err error) error { return err }

// TestLinearPool checks the pool of two IDMs against the Minkowski sum
// w₁K₁ + w₂K₂: its vertices are the weighted sums of the components'
// vertices of the same class, and every weighted sum of points of the
// components lies in it.
func TestLinearPool(t *testing.T) {
	a := mustIDM(t, []float64{4, 0, 0}, 1) // l = (.8, 0, 0), ε = .2
	b := mustIDM(t, []float64{0, 1, 0}, 1) // l = (0, .5, 0), ε = .5
	pool, err := LinearPool([]float64{0.25, 0.75}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	// l = (.2, .375, 0), ε = .05 + .375 = .425; the water level over the
	// sorted (0, .2, .375) is (0 + .2 + .425)/2 = .3125.
	checkCredal(t, "pool", pool, credalWant{
		lower: []float64{0.2, 0.375, 0}, upper: []float64{0.625, 0.8, 0.425},
		hUpper: h(0.3125, 0.375, 0.3125), hLower: h(0.2, 0.8, 0), gh: 0.425 * math.Log2(3), size: 3 * 0.425,
	})
	rng := rand.New(rand.NewPCG(13, 14))
	for range 100 {
		ta, tb := randomDistribution(rng, 3, false), randomDistribution(rng, 3, false)
		for k := range 3 {
			p := 0.25*(0.8*b2f(k == 0)+0.2*ta[k]) + 0.75*(0.5*b2f(k == 1)+0.5*tb[k])
			if p < pool.Lower()[k]-1e-15 || p > pool.Upper()[k]+1e-15 {
				t.Fatalf("pooled point component %d = %v outside [%v, %v]", k, p, pool.Lower()[k], pool.Upper()[k])
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestCredalBatches checks the batch constructors and Credal against the
// single sets.
func TestCredalBatches(t *testing.T) {
	probs := [][]float64{
		{0.9, 0.1, 0.5, 0.5},
		{0.6, 0.4, 0.5, 0.5},
	}
	hulls, err := SampleHulls(probs, 2)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Credal(hulls)
	if err != nil {
		t.Fatal(err)
	}
	// Node 0 is the first case of TestHullByHand, node 1 a single point.
	want := Measures{HUpper: []float64{h(0.6, 0.4), math.Ln2}, HLower: []float64{h(0.9, 0.1), math.Ln2},
		EUCredal: []float64{h(0.6, 0.4) - h(0.9, 0.1), 0}, GH: []float64{0.3, 0}, CredalSize: []float64{0.6, 0}}
	for _, m := range CredalMeasures {
		for i, v := range ms.Get(m) {
			if !close(v, want.Get(m)[i], 1e-9) {
				t.Errorf("%v[%d] = %v, want %v", m, i, v, want.Get(m)[i])
			}
		}
	}
	if ms.TU != nil || !slices.Equal(ms.Available(), CredalMeasures) {
		t.Errorf("Credal sets %v, want the credal measures only", ms.Available())
	}

	// α = 1 + β with the default s = C = 2: β = (3, 1) gives l = (.5, 1/6).
	idms, err := DirichletIDMs([]float64{4, 2, 1, 1}, 2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkCredal(t, "Dirichlet node 0", idms[0], credalWant{lower: []float64{0.5, 1.0 / 6}, upper: []float64{5.0 / 6, 0.5},
		hUpper: math.Ln2, hLower: h(5.0/6, 1.0/6), gh: 1.0 / 3, size: 2.0 / 3})
	checkCredal(t, "Dirichlet node 1", idms[1], credalWant{lower: []float64{0, 0}, upper: []float64{1, 1},
		hUpper: math.Ln2, gh: 1, size: 2})

	// Node 0 pools both components equally, node 1 is component 0 alone.
	mix, err := MixtureIDMs([]int{0, 2, 3}, []int{0, 1, 0}, []float64{0.5, 0.5, 1}, []float64{4, 2, 1, 1}, 2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkCredal(t, "mixture node 0", mix[0], credalWant{lower: []float64{0.25, 1.0 / 12}, upper: []float64{11.0 / 12, 0.75},
		hUpper: math.Ln2, hLower: h(11.0/12, 1.0/12), gh: 2.0 / 3, size: 4.0 / 3})
	if !slices.Equal(mix[1].Lower(), idms[0].Lower()) || !slices.Equal(mix[1].Upper(), idms[0].Upper()) {
		t.Errorf("mixture of one component %v–%v, want the Dirichlet's %v–%v", mix[1].Lower(), mix[1].Upper(), idms[0].Lower(), idms[0].Upper())
	}
}

func TestNonDominatedAndPredictionSets(t *testing.T) {
	for _, tc := range []struct {
		lower, upper []float64
		want         []int
	}{
		{[]float64{0.5, 0.1, 0}, []float64{0.8, 0.45, 0.2}, []int{0}},
		{[]float64{0.5, 0.1, 0}, []float64{0.8, 0.5, 0.2}, []int{0, 1}}, // 0.5 > 0.5 is false
		{[]float64{0, 0, 0}, []float64{1, 1, 1}, []int{0, 1, 2}},
		{[]float64{0.3}, []float64{0.3, 0.4}, nil},
	} {
		if got := NonDominated(tc.lower, tc.upper); !slices.Equal(got, tc.want) {
			t.Errorf("NonDominated(%v, %v) = %v, want %v", tc.lower, tc.upper, got, tc.want)
		}
	}
	sets := []CredalSet{
		mustHull(t, []float64{0.9, 0.1, 0}, []float64{0.7, 0.2, 0.1}), // {0}
		mustIDM(t, []float64{0, 0, 0}, 3),                             // {0, 1, 2}
		mustIDM(t, []float64{5, 4, 0}, 1),                             // l = (.5, .4, 0), ε = .1: {0, 1}
	}
	r, err := CredalPredictionSets(sets, []int{0, 2, 2}, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Sizes, []int{1, 3, 2}) || !slices.Equal(r.Covered, []bool{true, true, false}) ||
		!close(r.Coverage, 2.0/3, 1e-15) || r.MeanSize != 2 || !close(r.SingletonRate, 1.0/3, 1e-15) || r.EmptyRate != 0 ||
		!slices.Equal(r.SizeCounts(), []int{0, 1, 1, 1}) || !slices.Equal(r.Sets[2], []int{0, 1}) {
		t.Errorf("prediction sets %+v", r)
	}
	for _, tc := range []struct {
		labels, nodes []int
		want          string
	}{
		{[]int{0, 0, 0}, nil, "no nodes"},
		{[]int{0, 0, 0}, []int{3}, "node 3 has no credal set"},
		{[]int{0, 3, 0}, []int{1}, "node 1 has the label 3"},
	} {
		if _, err := CredalPredictionSets(sets, tc.labels, tc.nodes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CredalPredictionSets(%v, %v): error %v, want %q", tc.labels, tc.nodes, err, tc.want)
		}
	}
	mixed := []CredalSet{sets[0], mustIDM(t, []float64{1, 1}, 1)}
	if _, err := CredalPredictionSets(mixed, []int{0, 0}, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "node 1 has 2 classes, node 0 has 3") {
		t.Errorf("mixed class counts: error %v", err)
	}
}

func TestCredalMeasureNames(t *testing.T) {
	for _, m := range CredalMeasures {
		name := m.String()
		for _, s := range []string{name, strings.ToLower(name), strings.ReplaceAll(name, "_", "")} {
			if got, err := ParseMeasure(s); err != nil || got != m {
				t.Errorf("ParseMeasure(%q) = %v, %v, want %v", s, got, err, m)
			}
		}
		if m.ReferenceKey() != "" {
			t.Errorf("%v has the reference key %q", m, m.ReferenceKey())
		}
	}
	names := make([]string, len(CredalMeasures))
	for i, m := range CredalMeasures {
		names[i] = m.String()
	}
	if want := []string{"H_UPPER", "H_LOWER", "EU_CREDAL", "GH", "CREDAL_SIZE"}; !slices.Equal(names, want) {
		t.Errorf("credal names %v, want %v", names, want)
	}
	// The paper's list is unchanged and first in Available.
	if len(AllMeasures) != 6 || AllMeasures[5] != LC || HUpper != EUFeat+1 {
		t.Errorf("AllMeasures = %v, HUpper = %d", AllMeasures, HUpper)
	}
	ms := Measures{TU: []float64{1}, GH: []float64{0}}
	if got := ms.Available(); !slices.Equal(got, []Measure{TU, GH}) {
		t.Errorf("Available = %v, want [TU GH]", got)
	}
}
