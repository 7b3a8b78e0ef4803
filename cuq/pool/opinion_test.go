package pool

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// integrate returns the integral of f over the 3-class simplex by the
// midpoint rule on an n×n grid of the unit square (θ0, θ1) folded onto the
// triangle θ0 + θ1 ≤ 1.
func integrate(f func([]float64) float64, n int) float64 {
	h := 1 / float64(n)
	var s float64
	for a := range n {
		for b := range n - a {
			// Upward cell: centroid; downward cells are counted by the
			// pair (a, b) below the diagonal.
			x, y := (float64(a)+1.0/3)*h, (float64(b)+1.0/3)*h
			s += f([]float64{x, y, 1 - x - y}) * h * h / 2
			if a+b < n-1 {
				x, y = (float64(a)+2.0/3)*h, (float64(b)+2.0/3)*h
				s += f([]float64{x, y, 1 - x - y}) * h * h / 2
			}
		}
	}
	return s
}

func TestDirichletDensity(t *testing.T) {
	// Dir(1,1,1) is uniform with density Γ(3) = 2; Dir(2,1,1) is
	// Γ(4)/Γ(2)·θ0 = 6θ0.
	flat, _ := Dirichlet(1, 1, 1)
	tilt, _ := Dirichlet(2, 1, 1)
	for _, th := range [][]float64{{0.2, 0.3, 0.5}, {1, 0, 0}, {0.6, 0.4, 0}} {
		if d := flat.Density(th); !close(d, 2, 1e-14) {
			t.Errorf("Dir(1,1,1) at %v = %v, want 2", th, d)
		}
		if d := tilt.Density(th); !close(d, 6*th[0], 1e-14) {
			t.Errorf("Dir(2,1,1) at %v = %v, want %v", th, d, 6*th[0])
		}
	}
	for _, o := range []*Opinion{
		must(Dirichlet(2, 3, 4)),
		must(Mixture([]float64{1, 3}, [][]float64{{5, 2, 2}, {2, 2, 5}})),
	} {
		if s := integrate(o.Density, 400); !close(s, 1, 1e-4) {
			t.Errorf("%v integrates to %v, want 1", o, s)
		}
	}
	// Outside the simplex and on a face with α < 1.
	d, _ := Dirichlet(0.5, 2, 2)
	for _, c := range []struct {
		theta []float64
		want  float64
	}{
		{[]float64{0.5, 0.5}, math.Inf(-1)},
		{[]float64{-0.1, 0.6, 0.5}, math.Inf(-1)},
		{[]float64{0.3, 0.3, 0.3}, math.Inf(-1)},
		{[]float64{0, 0.5, 0.5}, math.Inf(1)},
	} {
		if got := d.LogDensity(c.theta); got != c.want {
			t.Errorf("LogDensity(%v) = %v, want %v", c.theta, got, c.want)
		}
	}
	if got := d.Density3([3]float64{0.2, 0.3, 0.5}); !close(got, d.Density([]float64{0.2, 0.3, 0.5}), 0) {
		t.Errorf("Density3 = %v, Density %v", got, d.Density([]float64{0.2, 0.3, 0.5}))
	}
}

func TestOpinionMeasures(t *testing.T) {
	d, _ := Dirichlet(50, 1, 1)
	ms, err := d.Measures()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := uq.Dirichlet([]float64{50, 1, 1}, 3)
	for _, m := range uq.AllMeasures {
		if !close(ms.Get(m)[0], want.Get(m)[0], 1e-12) {
			t.Errorf("%v = %v, uq.Dirichlet %v", m, ms.Get(m)[0], want.Get(m)[0])
		}
	}
	// A mixture of two Dirichlets with weights 1:3, normalised to ¼, ¾:
	// mean ¼·(1/2, 1/4, 1/4) + ¾·(0.1, 0.1, 0.8) = (0.2, 0.1375, 0.6625).
	m, err := Mixture([]float64{1, 3}, [][]float64{{2, 1, 1}, {1, 1, 8}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Weight(0) != 0.25 || m.Weight(1) != 0.75 || m.Weight(2) != 0 {
		t.Errorf("weights %v, %v, %v; want 0.25, 0.75, 0", m.Weight(0), m.Weight(1), m.Weight(2))
	}
	for c, w := range []float64{0.2, 0.1375, 0.6625} {
		if got := m.Mean()[c]; !close(got, w, 1e-15) {
			t.Errorf("mean[%d] = %v, want %v", c, got, w)
		}
	}
	mm, _ := m.Measures()
	au := 0.25*uq.ExpectedEntropy([]float64{2, 1, 1}) + 0.75*uq.ExpectedEntropy([]float64{1, 1, 8})
	if !close(mm.AU[0], au, 1e-14) || !close(mm.TU[0], uq.CategoricalEntropy([]float64{0.2, 0.1375, 0.6625}), 1e-14) || mm.EUPC[0] != -(0.25*4+0.75*10) {
		t.Errorf("mixture AU %v (want %v), TU %v, EU_PC %v (want −8.5)", mm.AU[0], au, mm.TU[0], mm.EUPC[0])
	}
	if m.String() != "mixture of 2 Dirichlets" || must(Dirichlet(5.24, 5.2, 1.06)).String() != "Dir(5.2, 5.2, 1.1)" {
		t.Errorf("String: %q, %q", m, must(Dirichlet(5.24, 5.2, 1.06)))
	}
	if a := m.Alpha(1); a[2] != 8 || m.Alpha(2) != nil || m.Classes() != 3 {
		t.Errorf("Alpha(1) = %v, Alpha(2) = %v, Classes %d", a, m.Alpha(2), m.Classes())
	}
}

func TestOpinionErrors(t *testing.T) {
	for _, c := range []struct {
		w    []float64
		a    [][]float64
		want string
	}{
		{nil, nil, "0 weights for 0 components"},
		{[]float64{1}, [][]float64{{1}}, "1 concentrations"},
		{[]float64{-1}, [][]float64{{1, 1}}, "weight 0 is -1"},
		{[]float64{0, 0}, [][]float64{{1, 1}, {1, 1}}, "weights sum to 0"},
		{[]float64{1, 1}, [][]float64{{1, 1}, {1, 1, 1}}, "component 1 has 3"},
		{[]float64{1}, [][]float64{{1, 0}}, "α[1] = 0"},
		{[]float64{1}, [][]float64{{1, math.NaN()}}, "α[1] = NaN"},
	} {
		if _, err := Mixture(c.w, c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Mixture(%v, %v) error = %v, want %q", c.w, c.a, err, c.want)
		}
	}
	if _, err := Dirichlet(1, -2, 1); err == nil || !strings.HasPrefix(err.Error(), "pool.Dirichlet: ") {
		t.Errorf("Dirichlet(1, −2, 1) error = %v", err)
	}
}
