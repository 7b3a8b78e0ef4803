package chart

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestDirichletDensityByHand(t *testing.T) {
	for _, tc := range []struct {
		alpha, theta []float64
		want         float64
	}{
		// Dir(1,1,1) is uniform: Γ(3) = 2.
		{[]float64{1, 1, 1}, []float64{0.2, 0.3, 0.5}, 2},
		// Γ(9)/(Γ(2)Γ(3)Γ(4)) · 0.2 · 0.3² · 0.5³ = 3360 · 0.00225 = 7.56.
		{[]float64{2, 3, 4}, []float64{0.2, 0.3, 0.5}, 7.56},
		// Beta(2, 3) at 0.4: 12 · 0.4 · 0.6² = 1.728.
		{[]float64{2, 3}, []float64{0.4, 0.6}, 1.728},
		// Outside the simplex.
		{[]float64{2, 3}, []float64{0.5, 0.6}, 0},
		{[]float64{2, 3}, []float64{-0.1, 1.1}, 0},
		{[]float64{2, 3}, []float64{1}, 0},
	} {
		d, err := NewDirichlet(tc.alpha...)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Density(tc.theta); math.Abs(got-tc.want) > 1e-12*max(1, tc.want) {
			t.Errorf("Dir(%v) at %v = %.15g, want %g", tc.alpha, tc.theta, got, tc.want)
		}
	}
	d, _ := NewDirichlet(0.5, 2, 2)
	if got := d.LogDensity([]float64{0, 0.5, 0.5}); !math.IsInf(got, 1) {
		t.Errorf("log density on a face with α < 1 = %v, want +Inf", got)
	}
}

func TestNewDirichletErrors(t *testing.T) {
	for _, tc := range []struct {
		alpha []float64
		want  string
	}{
		{[]float64{1}, "1 concentrations, need at least 2"},
		{[]float64{1, 0}, "α[1] = 0"},
		{[]float64{math.NaN(), 1}, "α[0] = NaN"},
		{[]float64{1, math.Inf(1)}, "α[1] = +Inf"},
	} {
		if _, err := NewDirichlet(tc.alpha...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewDirichlet(%v): error %v, want %q", tc.alpha, err, tc.want)
		}
	}
}

func TestMixtureDensity(t *testing.T) {
	m, err := NewMixture([]float64{1, 3}, [][]float64{{2, 3, 4}, {1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	// Weights normalised to 1/4, 3/4: 7.56/4 + 2·3/4 = 3.39.
	if got := m.Density([]float64{0.2, 0.3, 0.5}); math.Abs(got-3.39) > 1e-12 {
		t.Errorf("mixture density %.15g, want 3.39", got)
	}
	// Far in the tail the log-sum-exp stays finite where the sum underflows.
	far, _ := NewMixture([]float64{1, 1}, [][]float64{{2000, 1, 1}, {3000, 1, 1}})
	if got := far.LogDensity([]float64{0.001, 0.4995, 0.4995}); math.IsInf(got, 0) || got > -1000 {
		t.Errorf("tail log density %v, want a finite large negative number", got)
	}
	for _, tc := range []struct {
		w    []float64
		a    [][]float64
		want string
	}{
		{[]float64{1}, nil, "1 weights for 0 components"},
		{[]float64{-1}, [][]float64{{1, 1}}, "weight 0 is -1"},
		{[]float64{0, 0}, [][]float64{{1, 1}, {1, 1}}, "weights sum to 0"},
		{[]float64{1, 1}, [][]float64{{1, 1}, {1, 1, 1}}, "component 1 has 3 classes"},
		{[]float64{1}, [][]float64{{1, -2}}, "component 0: chart.NewDirichlet"},
	} {
		if _, err := NewMixture(tc.w, tc.a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewMixture(%v, %v): error %v, want %q", tc.w, tc.a, err, tc.want)
		}
	}
}

func TestSimplexGridGeometry(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		g, err := NewSimplexGrid(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Cells) != n*n {
			t.Errorf("n=%d: %d cells, want %d", n, len(g.Cells), n*n)
		}
		up := 0
		for _, c := range g.Cells {
			if c.Up {
				up++
			}
			for _, v := range c.Vertices {
				if s := v[0] + v[1] + v[2]; math.Abs(s-1) > 1e-12 || v[0] < -1e-12 || v[1] < 0 || v[2] < 0 {
					t.Fatalf("n=%d: vertex %v not in the simplex", n, v)
				}
			}
		}
		if up != n*(n+1)/2 {
			t.Errorf("n=%d: %d upward cells, want %d", n, up, n*(n+1)/2)
		}
	}
	g, _ := NewSimplexGrid(1)
	if c := g.Cells[0].Centroid; math.Abs(c[0]-1.0/3) > 1e-15 || math.Abs(c[2]-1.0/3) > 1e-15 {
		t.Errorf("centroid of the whole simplex %v, want (1/3, 1/3, 1/3)", c)
	}
	if _, err := NewSimplexGrid(0); err == nil || !strings.Contains(err.Error(), "0 divisions") {
		t.Errorf("n=0: error %v", err)
	}
	if _, err := g.Integrate([]float64{1, 2}); err == nil || !strings.Contains(err.Error(), "2 values for 1 cells") {
		t.Errorf("Integrate length: error %v", err)
	}
}

func TestDensitiesIntegrateToOne(t *testing.T) {
	g, err := NewSimplexGrid(120)
	if err != nil {
		t.Fatal(err)
	}
	mix, err := NewMixture([]float64{0.3, 0.7}, [][]float64{{12, 2, 2}, {2, 3, 9}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    func([3]float64) float64
		tol  float64
	}{
		{"Dir(1,1,1)", mustDir(t, 1, 1, 1).Density3, 1e-12},
		{"Dir(2,3,4)", mustDir(t, 2, 3, 4).Density3, 1e-3},
		{"Dir(2,5,9)", mustDir(t, 2, 5, 9).Density3, 2e-3},
		{"mixture", mix.Density3, 2e-3},
	} {
		got, err := g.Integrate(g.Eval(tc.f))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-1) > tc.tol {
			t.Errorf("∫ %s over the simplex = %.6f, want 1 ± %g", tc.name, got, tc.tol)
		}
	}
}

func mustDir(t *testing.T, alpha ...float64) *Dirichlet {
	t.Helper()
	d, err := NewDirichlet(alpha...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSimplexesShareOneScale(t *testing.T) {
	// f = θ3 at the centroids: upward (0,0) → 1/6, downward (0,0) → 1/3;
	// the second panel is twice the first.
	f := func(th [3]float64) float64 { return th[2] }
	g := func(th [3]float64) float64 { return 2 * th[2] }
	c, err := Simplexes([3]string{"a", "b", "c"}, SimplexPanel{"f", f}, SimplexPanel{"2f", g}).Resolution(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	opt := c.Option()
	for _, want := range []string{
		`[0,0,1,0.16666666666666666]`,
		`[0,0,0,0.3333333333333333]`,
		`[0,1,1,0.6666666666666666]`,
		`[0,1,1,1.3333333333333333]`, // the same cell in the second panel
		`"name":"a"`, `"name":"c"`, `var h = 1 / 2,`, `"progressive":0`,
	} {
		if !strings.Contains(opt, want) {
			t.Errorf("simplex figure lacks %s:\n%.2000s", want, opt)
		}
	}
	vm := decodeVisualMap(t, opt)
	if vm["min"] != 0.0 || vm["max"] != 1.3333333333333333 || len(vm["seriesIndex"].([]any)) != 2 {
		t.Errorf("visual map %v: want one scale [0, 4/3] over both panels", vm)
	}
	logc, err := Simplexes([3]string{}, SimplexPanel{"f", f}).Resolution(2).Log().Done()
	if err != nil {
		t.Fatal(err)
	}
	if vm := decodeVisualMap(t, logc.Option()); math.Abs(vm["max"].(float64)-math.Log10(2.0/3)) > 1e-12 {
		t.Errorf("log scale max %v, want log10(2/3)", vm["max"])
	}
	for _, tc := range []struct {
		s    *SimplexChart
		want string
	}{
		{Simplexes([3]string{}), "no panels"},
		{Simplexes([3]string{}, SimplexPanel{"f", f}).Resolution(0), "0 divisions"},
		{Simplexes([3]string{}, SimplexPanel{Title: "none"}), `panel 0 ("none") has no density`},
		{Simplexes([3]string{}, SimplexPanel{"nan", func([3]float64) float64 { return math.NaN() }}).Resolution(2), `panel "nan": density NaN`},
	} {
		if _, err := tc.s.Done(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// decodeVisualMap returns the visual map of an option without functions.
func decodeVisualMap(t *testing.T, opt string) map[string]any {
	t.Helper()
	i := strings.Index(opt, `"visualMap":`)
	if i < 0 {
		t.Fatalf("no visual map in %.300s", opt)
	}
	var vm map[string]any
	if err := json.NewDecoder(strings.NewReader(opt[i+len(`"visualMap":`):])).Decode(&vm); err != nil {
		t.Fatal(err)
	}
	return vm
}
