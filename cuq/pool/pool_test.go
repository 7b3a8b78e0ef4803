package pool

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func close(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestToyHead(t *testing.T) {
	h := ToyHead()
	if h.Classes() != 3 || h.Dim() != 2 || h.Budget() != 300 {
		t.Fatalf("ToyHead: %d classes, dimension %d, budget %v; want 3, 2, 300", h.Classes(), h.Dim(), h.Budget())
	}
	// At a class mean the own class gets 1 + (300/3)/(2π); the other
	// means are a side of the triangle, 3√3, away: d² = 27.
	peak := 1 + 100/(2*math.Pi)
	other := 1 + 100/(2*math.Pi)*math.Exp(-27.0/2)
	for c := range 3 {
		a, err := h.Alpha(h.Mean(c))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range a {
			want := other
			if k == c {
				want = peak
			}
			if !close(v, want, 1e-14) {
				t.Errorf("α at mean %d: α[%d] = %v, want %v", c, k, v, want)
			}
		}
	}
	// The centre of the triangle is 3 from every mean.
	a, _ := h.Alpha([]float64{0, 0})
	for k, v := range a {
		if want := 1 + 100/(2*math.Pi)*math.Exp(-4.5); !close(v, want, 1e-14) {
			t.Errorf("α at the centre: α[%d] = %v, want %v", k, v, want)
		}
	}
	b, _ := h.Evidence([]float64{0, 0})
	if !close(b[0], a[0]-1, 1e-15) {
		t.Errorf("Evidence = %v, want α − 1 = %v", b[0], a[0]-1)
	}
	// Triangle: corners at radius r, sides r√3.
	tri := Triangle(2)
	for c := range 3 {
		if r := math.Hypot(tri[c][0], tri[c][1]); !close(r, 2, 1e-15) {
			t.Errorf("Triangle(2): corner %d at radius %v", c, r)
		}
		d := math.Hypot(tri[c][0]-tri[(c+1)%3][0], tri[c][1]-tri[(c+1)%3][1])
		if !close(d, 2*math.Sqrt(3), 1e-15) {
			t.Errorf("Triangle(2): side %d has length %v, want 2√3", c, d)
		}
	}
}

func TestGaussianHeadDimensions(t *testing.T) {
	// In d = 3 the normalisation is (2π)^(−3/2).
	h, err := NewGaussianHead(40, []float64{0, 0, 0}, []float64{10, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := h.Alpha([]float64{0, 0, 1})
	if want := 1 + 20*math.Pow(2*math.Pi, -1.5)*math.Exp(-0.5); !close(a[0], want, 1e-14) {
		t.Errorf("α_0 = %v, want %v", a[0], want)
	}
	if m := h.Mean(2); m != nil {
		t.Errorf("Mean(2) of a two-class head = %v, want nil", m)
	}
}

func TestGaussianHeadErrors(t *testing.T) {
	for _, c := range []struct {
		budget float64
		means  [][]float64
		want   string
	}{
		{0, Triangle(1), "budget 0"},
		{math.Inf(1), Triangle(1), "budget +Inf"},
		{1, [][]float64{{0}}, "1 class means"},
		{1, [][]float64{{}, {}}, "dimension 0"},
		{1, [][]float64{{0, 0}, {1}}, "class 1 has dimension 1"},
		{1, [][]float64{{0, 0}, {1, math.NaN()}}, "not finite"},
	} {
		if _, err := NewGaussianHead(c.budget, c.means...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewGaussianHead(%v, %v) error = %v, want %q", c.budget, c.means, err, c.want)
		}
	}
	h := ToyHead()
	if _, err := h.Alpha([]float64{1}); err == nil || !strings.Contains(err.Error(), "dimension 1, the head's is 2") {
		t.Errorf("Alpha of a 1-d z: error %v", err)
	}
	if _, err := h.Evidence([]float64{1, math.Inf(-1)}); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("Evidence of an infinite z: error %v", err)
	}
}

func TestRepresentations(t *testing.T) {
	h := ToyHead()
	z, err := h.Representations([]int{2, 0, 1}, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	for j, y := range []int{2, 0, 1} {
		if m := h.Mean(y); z[j][0] != m[0] || z[j][1] != m[1] {
			t.Errorf("σ = 0: z[%d] = %v, want the mean of class %d %v", j, z[j], y, m)
		}
	}
	// σ > 0: reproducible, and the sample mean of the noise is near 0
	// with variance near σ².
	labels := make([]int, 4000)
	a, _ := h.Representations(labels, 0.5, 3)
	b, _ := h.Representations(labels, 0.5, 3)
	var s, s2 float64
	for j := range a {
		if a[j][0] != b[j][0] || a[j][1] != b[j][1] {
			t.Fatalf("same seed, different representations at node %d", j)
		}
		s += a[j][0]
		s2 += a[j][0] * a[j][0]
	}
	n := float64(len(a))
	if mean, v := s/n, s2/n-(s/n)*(s/n); math.Abs(mean) > 0.03 || math.Abs(v-0.25) > 0.02 {
		t.Errorf("x of class 0 around its mean 0: sample mean %v (want ≈ 0), variance %v (want ≈ 0.25)", mean, v)
	}
	if c, _ := h.Representations(labels, 0.5, 4); c[0][0] == a[0][0] {
		t.Errorf("seeds 3 and 4 gave the same first representation")
	}
	if _, err := h.Representations([]int{0, -1}, 1, 1); err == nil || !strings.Contains(err.Error(), "node 1 has label -1") {
		t.Errorf("label -1: error %v", err)
	}
	if _, err := h.Representations(nil, -1, 1); err == nil || !strings.Contains(err.Error(), "σ = -1") {
		t.Errorf("σ = −1: error %v", err)
	}
}

func TestPoolingString(t *testing.T) {
	want := []string{"PostNet alone", "log-linear (GPN)", "linear (LOP-GPN)", "behavioural (CUQ)"}
	for i, p := range Poolings {
		if p.String() != want[i] {
			t.Errorf("Pooling %d = %q, want %q", i, p, want[i])
		}
	}
	if s := Pooling(9).String(); s != "Pooling(9)" {
		t.Errorf("Pooling(9) = %q", s)
	}
}

// axioms builds the hand-made graph of the teaching notebook: a node near
// class 0 and a node far away, both alone; an ambiguous node alone; an
// ambiguous node with one confident neighbour (3–4); an ambiguous node
// with two neighbours in conflict (5–6, 5–7).
func axioms(t *testing.T) *graph.Graph {
	t.Helper()
	m := Triangle(3)
	b := graph.NewBuilder(3).
		Node(-1, m[0][0]+0.3, m[0][1]-0.2).Node(-1, 8, 8).Node(-1, 0, 0).
		Node(-1, 0, 0).Node(0, m[0]...).
		Node(-1, 0, 0).Node(0, m[0]...).Node(1, m[1]...)
	g, err := b.Edge(3, 4).Star(5, 6, 7).Done()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPooledAgainstDense checks every pooling against the formulas of the
// package documentation evaluated with the dense Π.
func TestPooledAgainstDense(t *testing.T) {
	g := axioms(t)
	for _, norm := range []struct {
		name string
		f    func(*tensor.CSR) *tensor.CSR
	}{{"rw", graph.RWNorm}, {"sym", graph.SymNorm}} {
		p, err := On(g).Norm(norm.f).Done()
		if err != nil {
			t.Fatal(err)
		}
		ppr, _ := graph.NewPPR(norm.f(g.Adj), 0.1, 10)
		pi := ppr.Dense()
		h := ToyHead()
		x := g.Features.(*tensor.Dense)
		lin, err := p.Measures(Linear)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.N {
			w, _ := p.Weights(i)
			ll := []float64{1, 1, 1}
			zbar := []float64{0, 0}
			var comps [][]float64
			var ws []float64
			for j := range g.N {
				if !close(w[j], pi.At(i, j), 1e-14) {
					t.Errorf("%s: Π[%d][%d] = %v, dense %v", norm.name, i, j, w[j], pi.At(i, j))
				}
				b, _ := h.Evidence(x.Row(j))
				for c := range 3 {
					ll[c] += pi.At(i, j) * b[c]
				}
				zbar[0] += pi.At(i, j) * x.At(j, 0)
				zbar[1] += pi.At(i, j) * x.At(j, 1)
				if pi.At(i, j) > 0 {
					a, _ := h.Alpha(x.Row(j))
					comps, ws = append(comps, a), append(ws, pi.At(i, j))
				}
			}
			own, _ := h.Alpha(x.Row(i))
			beh, _ := h.Alpha(zbar)
			for _, c := range []struct {
				pooling Pooling
				want    []float64
			}{{Alone, own}, {LogLinear, ll}, {Behavioural, beh}} {
				got, err := p.Alpha(c.pooling, i)
				if err != nil {
					t.Fatal(err)
				}
				for k := range got {
					if !close(got[k], c.want[k], 1e-12) {
						t.Errorf("%s: node %d %v: α = %v, want %v", norm.name, i, c.pooling, got, c.want)
						break
					}
				}
			}
			// The linear pool: the mixture of the nodes' own Dirichlets
			// with Π's row, normalised, as weights.
			var s float64
			for _, v := range ws {
				s += v
			}
			ind := make([]int, len(ws))
			for k := range ind {
				ind[k] = k
				ws[k] /= s
			}
			flat := make([]float64, 0, 3*len(comps))
			for _, a := range comps {
				flat = append(flat, a...)
			}
			want, err := uq.Mixture([]int{0, len(ws)}, ind, ws, flat, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range uq.AllMeasures {
				if !close(lin.Get(m)[i], want.Get(m)[0], 1e-12) {
					t.Errorf("%s: node %d linear %v = %v, want %v", norm.name, i, m, lin.Get(m)[i], want.Get(m)[0])
				}
			}
			o, _ := p.Opinion(i, Linear)
			if o.Components() != len(ws) {
				t.Errorf("%s: node %d: linear opinion has %d components, Π's row %d positive entries", norm.name, i, o.Components(), len(ws))
			}
		}
	}
}

// TestAxiomNumbers checks the numbers the teaching notebook states about
// its hand-made graph (two decimals), under the default RWNorm.
func TestAxiomNumbers(t *testing.T) {
	p, err := On(axioms(t)).Done()
	if err != nil {
		t.Fatal(err)
	}
	ms := map[Pooling]uq.Measures{}
	for _, pl := range Poolings {
		if ms[pl], err = p.Measures(pl); err != nil {
			t.Fatal(err)
		}
	}
	round := func(v float64) float64 { return math.Round(v*100) / 100 }
	for _, c := range []struct {
		what    string
		pooling Pooling
		m       uq.Measure
		node    int
		want    float64
	}{
		{"A1: the far node has the largest EU there is", Alone, uq.EU, 1, 0.27},
		{"A2: the ambiguous node alone", Alone, uq.EU, 2, 0.23},
		{"A2: GPN, one confident neighbour", LogLinear, uq.EU, 3, 0.08},
		{"A2: CUQ, one confident neighbour", Behavioural, uq.EU, 3, 0.12},
		{"A2: LOP-GPN, one confident neighbour", Linear, uq.EU, 3, 0.32},
		{"A3: GPN AU, one neighbour", LogLinear, uq.AU, 3, 0.58},
		{"A3: GPN AU, conflict", LogLinear, uq.AU, 5, 0.86},
		{"A3: GPN EU, conflict", LogLinear, uq.EU, 5, 0.08},
		{"A3: LOP-GPN AU, conflict", Linear, uq.AU, 5, 0.60},
		{"A3: LOP-GPN EU, conflict", Linear, uq.EU, 5, 0.44},
		{"A3: CUQ EU, conflict", Behavioural, uq.EU, 5, 0.22},
	} {
		if got := round(ms[c.pooling].Get(c.m)[c.node]); got != c.want {
			t.Errorf("%s: %v %v of node %d = %.2f, want %.2f", c.what, c.pooling, c.m, c.node, got, c.want)
		}
	}
	a, _ := p.Alpha(LogLinear, 5)
	if math.Round(a[0]*10) != 52 || math.Round(a[1]*10) != 52 || math.Round(a[2]*10) != 11 {
		t.Errorf("GPN's conflict node α = %v, want (5.2, 5.2, 1.1)", a)
	}
	if a0 := -ms[Behavioural].EUPC[5]; round(a0) != 3.85 {
		t.Errorf("CUQ's conflict node α0 = %v, want 3.85", a0)
	}
	// Node 5 sits at the origin, so its committee is Π₅₆·μ₀ + Π₅₇·μ₁.
	z, _ := p.Committee(5)
	w, _ := p.Weights(5)
	m := Triangle(3)
	for k := range 2 {
		if want := w[6]*m[0][k] + w[7]*m[1][k]; !close(z[k], want, 1e-12) {
			t.Errorf("committee of node 5 = %v, coordinate %d want %v", z, k, want)
		}
	}
}

func TestPooledErrors(t *testing.T) {
	g := axioms(t)
	for _, c := range []struct {
		b    *Builder
		want string
	}{
		{On(nil), "nil graph"},
		{On(g).Head(nil), "nil head"},
		{On(g).Representations([][]float64{{0, 0}}), "1 representations for 8 nodes"},
		{On(g).PPR(1.5, 10), "teleport 1.5"},
		{On(g).Head(must(NewGaussianHead(1, []float64{0}, []float64{1}))), "8x2 features, not the dense 8x1"},
		{On(g).Representations(make([][]float64, 8)), "node 0: representation of dimension 0"},
	} {
		if _, err := c.b.Done(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error = %v, want %q", err, c.want)
		}
	}
	p, _ := On(g).Done()
	if _, err := p.Opinion(8, LogLinear); err == nil || !strings.Contains(err.Error(), "node 8 outside [0, 8)") {
		t.Errorf("Opinion(8): %v", err)
	}
	if _, err := p.Alpha(Linear, 0); err == nil || !strings.Contains(err.Error(), "mixture") {
		t.Errorf("Alpha(Linear): %v", err)
	}
	if _, err := p.Measures(Pooling(7)); err == nil || !strings.Contains(err.Error(), "unknown pooling") {
		t.Errorf("Measures(Pooling(7)): %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
