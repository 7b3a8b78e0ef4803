package uq

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/special"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"gonum.org/v1/gonum/stat/distuv"
)

const eulerGamma = 0.57721566490153286060651209008240243104215933593992

func close(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// harmonic returns H_n = Σ_{i≤n} 1/i, so that ψ(n+1) = H_n − γ for integer n.
func harmonic(n int) float64 {
	var h float64
	for i := 1; i <= n; i++ {
		h += 1 / float64(i)
	}
	return h
}

func TestMeanAndCategoricalEntropy(t *testing.T) {
	got := Mean([]float64{1, 3, 4}, nil)
	for k, want := range []float64{0.125, 0.375, 0.5} {
		if got[k] != want {
			t.Errorf("Mean[%d] = %v, want %v", k, got[k], want)
		}
	}
	buf := make([]float64, 1, 8)
	if m := Mean([]float64{2, 2}, buf); &m[0] != &buf[0] || len(m) != 2 {
		t.Errorf("Mean did not reuse dst of sufficient capacity")
	}
	if m := Mean([]float64{1, 0}, nil); !math.IsNaN(m[0]) {
		t.Errorf("Mean of invalid α = %v, want NaN", m)
	}
	cases := []struct {
		p    []float64
		want float64
	}{
		{[]float64{0.5, 0, 0.5}, math.Ln2},
		{[]float64{1, 0, 1}, math.Ln2}, // renormalised
		{[]float64{0, 1, 0}, 0},
		{[]float64{0.25, 0.25, 0.25, 0.25}, math.Log(4)},
		{[]float64{0.2, 0.8}, -0.2*math.Log(0.2) - 0.8*math.Log(0.8)},
	}
	for _, c := range cases {
		if got := CategoricalEntropy(c.p); !close(got, c.want, 1e-15) {
			t.Errorf("CategoricalEntropy(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	for _, p := range [][]float64{{0, 0}, {0.5, -0.1, 0.6}, {math.NaN(), 1}, {math.Inf(1), 1}, nil} {
		if got := CategoricalEntropy(p); !math.IsNaN(got) {
			t.Errorf("CategoricalEntropy(%v) = %v, want NaN", p, got)
		}
	}
}

// TestBetaClosedForms checks K = 2, where Dir(a, b) is Beta(a, b):
// h = ln B(a,b) − (a−1)ψ(a) − (b−1)ψ(b) + (a+b−2)ψ(a+b).
func TestBetaClosedForms(t *testing.T) {
	for _, ab := range [][2]float64{{1, 1}, {2, 2}, {0.5, 0.5}, {3.7, 1.2}, {40, 7}, {0.1, 12}} {
		a, b := ab[0], ab[1]
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		want := la + lb - lab - (a-1)*special.Digamma(a) - (b-1)*special.Digamma(b) + (a+b-2)*special.Digamma(a+b)
		if got := DirichletEntropy([]float64{a, b}); !close(got, want, 1e-12) {
			t.Errorf("h(Beta(%v,%v)) = %v, want %v", a, b, got, want)
		}
	}
	// Beta(2,2): ln B = ln(1/6), ψ(2) = 1−γ, ψ(4) = 11/6−γ ⇒ h = 5/3 − ln 6.
	if got, want := DirichletEntropy([]float64{2, 2}), 5.0/3-math.Log(6); !close(got, want, 1e-14) {
		t.Errorf("h(Beta(2,2)) = %v, want %v", got, want)
	}
	// Uniform θ on [0,1]: E[H(Bernoulli(θ))] = ∫ −θlnθ − (1−θ)ln(1−θ) dθ = 1/2.
	if got := ExpectedEntropy([]float64{1, 1}); !close(got, 0.5, 1e-15) {
		t.Errorf("AU(Beta(1,1)) = %v, want 0.5", got)
	}
	// Integer α: ψ(n+1) = H_n − γ, so AU = Σ θ̄_k (H_{α0} − H_{α_k}).
	for _, al := range [][]int{{3, 1}, {2, 5}, {4, 4, 1}, {1, 2, 3, 4}} {
		var a0 int
		alpha := make([]float64, len(al))
		for k, v := range al {
			a0 += v
			alpha[k] = float64(v)
		}
		var want float64
		for _, v := range al {
			want += float64(v) / float64(a0) * (harmonic(a0) - harmonic(v))
		}
		if got := ExpectedEntropy(alpha); !close(got, want, 1e-13) {
			t.Errorf("AU(%v) = %v, want %v", al, got, want)
		}
	}
	if got := ExpectedEntropy([]float64{3, 1}); !close(got, 11.0/24, 1e-15) {
		t.Errorf("AU(3,1) = %v, want 11/24", got)
	}
}

// TestUniformDirichletEntropy: Dir(1,…,1) is uniform on the simplex, whose
// volume is 1/(K−1)!, so h = −ln((K−1)!).
func TestUniformDirichletEntropy(t *testing.T) {
	for k := 2; k <= 12; k++ {
		alpha := make([]float64, k)
		fact := 1.0
		for i := range alpha {
			alpha[i] = 1
		}
		for i := 2; i < k; i++ {
			fact *= float64(i)
		}
		if got, want := DirichletEntropy(alpha), -math.Log(fact); !close(got, want, 1e-13) {
			t.Errorf("h(Dir(1^%d)) = %v, want %v", k, got, want)
		}
	}
}

// sampleDirichlet draws θ ~ Dir(alpha) as normalised Gamma(α_k, 1) variates.
func sampleDirichlet(g []distuv.Gamma, theta []float64) {
	var s float64
	for k := range g {
		theta[k] = g[k].Rand()
		s += theta[k]
	}
	for k := range theta {
		theta[k] /= s
	}
}

// TestMonteCarlo estimates E[H(Θ)] and −E[ln p(Θ)] by sampling and compares
// them with AU and EU_SO within 5 standard errors.
func TestMonteCarlo(t *testing.T) {
	src := rand.NewPCG(1, 2)
	for _, alpha := range [][]float64{{2, 3.5, 0.7}, {1, 1, 1, 1}, {5, 0.5}, {12, 3, 9, 1.5, 6}} {
		g := make([]distuv.Gamma, len(alpha))
		var a0, lnNorm float64
		for k, a := range alpha {
			g[k] = distuv.Gamma{Alpha: a, Beta: 1, Src: src}
			a0 += a
			lg, _ := math.Lgamma(a)
			lnNorm -= lg
		}
		lg0, _ := math.Lgamma(a0)
		lnNorm += lg0
		const n = 40000
		theta := make([]float64, len(alpha))
		var sH, sH2, sL, sL2 float64
		for range n {
			sampleDirichlet(g, theta)
			h := CategoricalEntropy(theta)
			l := lnNorm // ln p(θ) = lnΓ(α0) − Σ lnΓ(α_k) + Σ (α_k − 1) ln θ_k
			for k, a := range alpha {
				l += (a - 1) * math.Log(theta[k])
			}
			sH, sH2 = sH+h, sH2+h*h
			sL, sL2 = sL-l, sL2+l*l
		}
		mH, mL := sH/n, sL/n
		seH := math.Sqrt((sH2/n - mH*mH) / n)
		seL := math.Sqrt((sL2/n - mL*mL) / n)
		if got := ExpectedEntropy(alpha); math.Abs(got-mH) > 5*seH {
			t.Errorf("AU(%v) = %v, Monte Carlo %v ± %v", alpha, got, mH, seH)
		}
		if got := DirichletEntropy(alpha); math.Abs(got-mL) > 5*seL {
			t.Errorf("h(Dir(%v)) = %v, Monte Carlo %v ± %v", alpha, got, mL, seL)
		}
	}
}

func TestEpistemicDecreasesWithEvidence(t *testing.T) {
	base := []float64{0.3, 1.2, 2.5, 0.9}
	prevEU, prevSO := math.Inf(1), math.Inf(1)
	for _, s := range []float64{0.5, 1, 2, 5, 20, 100, 1000, 5000} {
		alpha := make([]float64, len(base))
		for k, a := range base {
			alpha[k] = a * s
		}
		ms, err := Dirichlet(alpha, len(alpha))
		if err != nil {
			t.Fatal(err)
		}
		eu, so := ms.EU[0], ms.EUSO[0]
		if eu < 0 {
			t.Errorf("scale %v: EU = %v < 0", s, eu)
		}
		if eu >= prevEU {
			t.Errorf("scale %v: EU %v (before %v) did not decrease", s, eu, prevEU)
		}
		// The differential entropy falls with the evidence once every α_k ≥ 1
		// (below, mass piles up in the corners and h is low too).
		if s > 4 && so >= prevSO {
			t.Errorf("scale %v: EU_SO %v (before %v) did not decrease", s, so, prevSO)
		}
		if !close(ms.TU[0], CategoricalEntropy(base), 1e-14) {
			t.Errorf("scale %v: TU = %v changed under scaling of α", s, ms.TU[0])
		}
		prevEU, prevSO = eu, so
	}
}

// exactEntropy evaluates the exact Dirichlet entropy whatever α0.
func exactEntropy(alpha []float64) float64 {
	a0, _ := concentration(alpha)
	return exactDirichletEntropy(alpha, a0)
}

// TestApproximationBranch: with every α_c large the Gaussian approximation
// agrees with the exact entropy, so the switch at α0 = 1e4 is nearly
// continuous, and the gap shrinks like 1/α.
func TestApproximationBranch(t *testing.T) {
	for _, w := range [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}, {0.1, 0.2, 0.3, 0.15, 0.25}} {
		below := make([]float64, len(w))
		at := make([]float64, len(w))
		far := make([]float64, len(w))
		for k, v := range w {
			below[k] = v * EntropyApproxThreshold * (1 - 1e-9)
			at[k] = v * EntropyApproxThreshold * (1 + 1e-9)
			far[k] = v * 1e6
		}
		hb, ha := DirichletEntropy(below), DirichletEntropy(at)
		if !close(hb, exactEntropy(below), 1e-12) {
			t.Errorf("below the threshold %v: got %v, want the exact %v", w, hb, exactEntropy(below))
		}
		gap := math.Abs(ha-hb) / math.Abs(hb)
		if gap > 1e-4 {
			t.Errorf("%v: relative jump at α0 = 1e4 is %v (exact %v, approximation %v)", w, gap, hb, ha)
		}
		gapFar := math.Abs(DirichletEntropy(far)-exactEntropy(far)) / math.Abs(exactEntropy(far))
		if gapFar > gap/50 {
			t.Errorf("%v: relative error at α0 = 1e6 is %v, want ≪ %v", w, gapFar, gap)
		}
	}
}

func TestDirichletBatch(t *testing.T) {
	const n, k = 3000, 4
	rng := rand.New(rand.NewPCG(7, 8))
	alpha := make([]float64, n*k)
	for i := range alpha {
		alpha[i] = 1 + math.Exp(rng.Float64()*20-4)
	}
	ms, err := Dirichlet(alpha, k)
	if err != nil {
		t.Fatal(err)
	}
	if got := ms.Available(); len(got) != 6 {
		t.Errorf("Available = %v, want all six measures", got)
	}
	for i := 0; i < n; i++ {
		a := alpha[i*k : (i+1)*k]
		p := Mean(a, nil)
		var a0, maxp float64
		for c := range a {
			a0 += a[c]
			maxp = math.Max(maxp, p[c])
		}
		tu, au := CategoricalEntropy(p), ExpectedEntropy(a)
		want := []float64{tu, au, tu - au, -a0, DirichletEntropy(a), 1 - maxp}
		for j, m := range AllMeasures {
			if got := ms.Get(m)[i]; !close(got, want[j], 1e-12) {
				t.Fatalf("node %d %v = %v, want %v", i, m, got, want[j])
			}
		}
		if ms.EU[i] < -1e-12 {
			t.Fatalf("node %d EU = %v < 0", i, ms.EU[i])
		}
	}
}

func TestCategoricalBatch(t *testing.T) {
	ms, err := Categorical([]float64{0.5, 0.5, 0, 0.1, 0.7, 0.2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ms.AU != nil || ms.EU != nil || ms.EUPC != nil || ms.EUSO != nil {
		t.Errorf("Categorical set epistemic measures: %+v", ms)
	}
	if got := ms.Available(); len(got) != 2 || got[0] != TU || got[1] != LC {
		t.Errorf("Available = %v, want [TU LC]", got)
	}
	wantTU := []float64{math.Ln2, -(0.1*math.Log(0.1) + 0.7*math.Log(0.7) + 0.2*math.Log(0.2))}
	wantLC := []float64{0.5, 0.3}
	for i := range wantTU {
		if !close(ms.TU[i], wantTU[i], 1e-15) || !close(ms.LC[i], wantLC[i], 1e-15) {
			t.Errorf("node %d: TU %v LC %v, want %v %v", i, ms.TU[i], ms.LC[i], wantTU[i], wantLC[i])
		}
	}
}

func TestMixture(t *testing.T) {
	alpha := []float64{1, 1, 3, 1, 2.5, 7}
	// node 0: only component 2; node 1: ½ Dir(1,1) + ½ Dir(3,1);
	// node 2: ½ Dir(3,1) + ½ Dir(3,1) (two identical components).
	ptr := []int{0, 1, 3, 5}
	ind := []int{2, 0, 1, 1, 1}
	w := []float64{1, 0.5, 0.5, 0.5, 0.5}
	ms, err := Mixture(ptr, ind, w, alpha, 2)
	if err != nil {
		t.Fatal(err)
	}
	single, _ := Dirichlet(alpha[4:6], 2)
	for _, m := range AllMeasures {
		if got, want := ms.Get(m)[0], single.Get(m)[0]; !close(got, want, 1e-14) {
			t.Errorf("one-component mixture %v = %v, want the Dirichlet's %v", m, got, want)
		}
	}
	// p̄ = ½(½,½) + ½(¾,¼) = (5/8, 3/8); AU = ½·½ + ½·11/24 = 23/48.
	tu := -(0.625*math.Log(0.625) + 0.375*math.Log(0.375))
	au := 23.0 / 48
	h := 0.5*DirichletEntropy([]float64{1, 1}) + 0.5*DirichletEntropy([]float64{3, 1}) + math.Ln2
	want := []float64{tu, au, tu - au, -3, h, 0.375}
	for j, m := range AllMeasures {
		if got := ms.Get(m)[1]; !close(got, want[j], 1e-14) {
			t.Errorf("two-component mixture %v = %v, want %v", m, got, want[j])
		}
	}
	same, _ := Dirichlet([]float64{3, 1}, 2)
	for _, m := range AllMeasures {
		want := same.Get(m)[0]
		if m == EUSO {
			want += math.Ln2 // the bound adds H(w) = ln 2
		}
		if got := ms.Get(m)[2]; !close(got, want, 1e-14) {
			t.Errorf("identical components %v = %v, want %v", m, got, want)
		}
	}
	mean, err := MixtureMean(ptr, ind, w, alpha, 2)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range []float64{2.5 / 9.5, 7 / 9.5, 0.625, 0.375, 0.75, 0.25} {
		if !close(mean[c], want, 1e-15) {
			t.Errorf("MixtureMean[%d] = %v, want %v", c, mean[c], want)
		}
	}
}

// Weights validated once give, for any components, the measures and means
// of Mixture and MixtureMean to the bit, and refuse components of another
// number.
func TestMixtureWeightsReused(t *testing.T) {
	ptr, ind := []int{0, 2, 3}, []int{0, 2, 1}
	w := []float64{0.3, 0.7, 1}
	mw, err := NewMixtureWeights(ptr, ind, w, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, alpha := range [][]float64{{1, 2, 5, 1, 0.5, 4}, {9, 1, 2, 2, 1.5, 30}} {
		ms, mean, err := mw.Mixture(alpha, 2)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Mixture(ptr, ind, w, alpha, 2)
		for _, m := range AllMeasures {
			if !tensor.SameBits(ms.Get(m), want.Get(m)) {
				t.Errorf("%v = %v, Mixture gives %v", m, ms.Get(m), want.Get(m))
			}
		}
		wantMean, _ := MixtureMean(ptr, ind, w, alpha, 2)
		if !tensor.SameBits(mean, wantMean) {
			t.Errorf("means %v, MixtureMean gives %v", mean, wantMean)
		}
	}
	if _, _, err := mw.Mixture([]float64{1, 1, 1, 1}, 2); err == nil || !strings.Contains(err.Error(), "over 3") {
		t.Errorf("two components for weights over three: error %v", err)
	}
	if _, err := NewMixtureWeights(ptr, ind, []float64{0.3, 0.6, 1}, 3); err == nil || !strings.Contains(err.Error(), "sum to") {
		t.Errorf("a row summing to 0.9: error %v", err)
	}
}

func TestErrors(t *testing.T) {
	good := []float64{1, 2, 3, 4}
	cases := []struct {
		name, want string
		err        func() error
	}{
		{"k zero", "k = 0", func() error { _, err := Dirichlet(good, 0); return err }},
		{"ragged", "not a multiple of k = 3", func() error { _, err := Dirichlet(good, 3); return err }},
		{"zero alpha", "row 1 is not a valid Dirichlet", func() error { _, err := Dirichlet([]float64{1, 2, 0, 4}, 2); return err }},
		{"nan alpha", "row 0 is not a valid", func() error { _, err := Dirichlet([]float64{math.NaN(), 2}, 2); return err }},
		{"inf alpha", "row 0 is not a valid", func() error { _, err := Dirichlet([]float64{math.Inf(1), 2}, 2); return err }},
		{"bad probs", "row 1 is not a probability vector", func() error { _, err := Categorical([]float64{1, 0, 0, 0}, 2); return err }},
		{"empty ptr", "row pointer is empty", func() error { _, err := Mixture(nil, nil, nil, good, 2); return err }},
		{"ptr end", "must run from 0 to 1", func() error { _, err := Mixture([]int{0, 2}, []int{0}, []float64{1}, good, 2); return err }},
		{"ptr order", "decreases at row 1 (2 > 1)", func() error {
			_, err := Mixture([]int{0, 2, 1, 2}, []int{0, 1}, []float64{0.5, 0.5}, good, 2)
			return err
		}},
		{"lengths", "2 component indices but 1 weights", func() error { _, err := Mixture([]int{0, 2}, []int{0, 1}, []float64{1}, good, 2); return err }},
		{"index", "component 2 out of range [0, 2)", func() error { _, err := Mixture([]int{0, 1}, []int{2}, []float64{1}, good, 2); return err }},
		{"negative", "weight -0.5", func() error {
			_, err := Mixture([]int{0, 2}, []int{0, 1}, []float64{-0.5, 1.5}, good, 2)
			return err
		}},
		{"sum", "weights sum to 0.9", func() error { _, err := Mixture([]int{0, 1}, []int{0}, []float64{0.9}, good, 2); return err }},
		{"mean", "not a multiple", func() error { _, err := MixtureMean([]int{0}, nil, nil, good, 3); return err }},
	}
	for _, c := range cases {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "uq: ") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	for _, f := range []func([]float64) float64{ExpectedEntropy, DirichletEntropy} {
		if v := f([]float64{1, -1}); !math.IsNaN(v) {
			t.Errorf("invalid α gave %v, want NaN", v)
		}
		if v := f(nil); !math.IsNaN(v) {
			t.Errorf("empty α gave %v, want NaN", v)
		}
	}
}

func TestMeasureNames(t *testing.T) {
	for _, m := range AllMeasures {
		got, err := ParseMeasure(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMeasure(%q) = %v, %v", m.String(), got, err)
		}
		got, err = ParseMeasure(m.ReferenceKey())
		if err != nil || got != m {
			t.Errorf("ParseMeasure(%q) = %v, %v", m.ReferenceKey(), got, err)
		}
	}
	want := map[string]Measure{"eupc": EUPC, " eu_so ": EUSO, "aleatoric": LC, "total": LC, "epistemic": EUPC, "epistemic_entropy_diff": EU}
	for s, m := range want {
		if got, err := ParseMeasure(s); err != nil || got != m {
			t.Errorf("ParseMeasure(%q) = %v, %v, want %v", s, got, err, m)
		}
	}
	if _, err := ParseMeasure("variance"); err == nil || !strings.Contains(err.Error(), `"variance"`) {
		t.Errorf("ParseMeasure(variance) error = %v", err)
	}
	if s := Measure(99).String(); s != "Measure(99)" {
		t.Errorf("String of unknown measure = %q", s)
	}
	if Measure(-1).ReferenceKey() != "" || (Measures{}).Get(Measure(99)) != nil {
		t.Errorf("unknown measure has a key or values")
	}
}

func BenchmarkDirichletCoraML(b *testing.B) {
	benchDirichlet(b, 2995, 7)
}

func BenchmarkDirichletArxiv(b *testing.B) {
	benchDirichlet(b, 169343, 40)
}

func benchDirichlet(b *testing.B, n, k int) {
	rng := rand.New(rand.NewPCG(1, 1))
	alpha := make([]float64, n*k)
	for i := range alpha {
		alpha[i] = 1 + math.Exp(rng.Float64()*30-30)*1e4
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Dirichlet(alpha, k); err != nil {
			b.Fatal(err)
		}
	}
}
