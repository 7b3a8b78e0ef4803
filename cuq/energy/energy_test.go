package energy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func TestFreeHandValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logits []float64
		t      float64
		want   float64
	}{
		{"uniform two", []float64{0, 0}, 1, -math.Ln2},
		{"1 2 3", []float64{1, 2, 3}, 1, -math.Log(math.E + math.E*math.E + math.E*math.E*math.E)},
		{"T = 2", []float64{2, 4}, 2, -2 * math.Log(math.E+math.E*math.E)},
		// exp(1000) overflows: the energy is −(1000 + log(1 + e⁻¹)).
		{"large", []float64{1000, 999}, 1, -(1000 + math.Log1p(math.Exp(-1)))},
		{"large equal", []float64{800, 800, 800}, 1, -(800 + math.Log(3))},
		// exp(−1000) underflows to 0: the energy is 1000 − log 2.
		{"very negative", []float64{-1000, -1000}, 1, 1000 - math.Ln2},
		{"one class", []float64{-3.5}, 0.5, 3.5},
	} {
		got, err := Free(tc.logits, len(tc.logits), tc.t)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(got[0]-tc.want) > 1e-12*max(1, math.Abs(tc.want)) {
			t.Errorf("%s: Free = %.17g, want %.17g", tc.name, got[0], tc.want)
		}
	}
}

func TestFreeRows(t *testing.T) {
	// Two nodes, three classes: each row is its own energy.
	got, err := Free([]float64{0, 0, 0, 5, 0, 0}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-math.Log(3), -math.Log(math.Exp(5) + 2)}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-13 {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestFreeErrors(t *testing.T) {
	for _, tc := range []struct {
		logits  []float64
		classes int
		t       float64
		want    string
	}{
		{[]float64{1, 2}, 2, 0, "temperature 0"},
		{[]float64{1, 2}, 2, math.Inf(1), "temperature +Inf"},
		{[]float64{1, 2}, 2, math.NaN(), "temperature NaN"},
		{[]float64{1, 2, 3}, 2, 1, "not a multiple"},
		{[]float64{1, 2}, 0, 1, "0 columns"},
		{[]float64{1, math.NaN()}, 2, 1, "row 0, column 1 is NaN"},
	} {
		_, err := Free(tc.logits, tc.classes, tc.t)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Free(%v, %d, %v) error %v, want %q", tc.logits, tc.classes, tc.t, err, tc.want)
		}
	}
}

// testGraph returns the adjacency of n nodes with random undirected edges,
// random positive weights on some, and node n−1 isolated, as CSR and as a
// dense matrix.
func testGraph(n int, seed uint64) (*tensor.CSR, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	dense := make([][]float64, n)
	for i := range dense {
		dense[i] = make([]float64, n)
	}
	for i := 0; i < n-1; i++ {
		for j := i + 1; j < n-1; j++ {
			if rng.Float64() < 0.15 {
				w := 1.0
				if rng.Float64() < 0.3 {
					w = 0.5 + rng.Float64()
				}
				dense[i][j], dense[j][i] = w, w
			}
		}
	}
	var ri, ci []int
	var val []float64
	for i := range dense {
		for j, w := range dense[i] {
			if w != 0 {
				ri, ci, val = append(ri, i), append(ci, j), append(val, w)
			}
		}
	}
	adj, err := tensor.FromCOO(n, n, ri, ci, val)
	if err != nil {
		panic(err)
	}
	return adj, dense
}

// denseDiffuse iterates x ← αx + (1−α)Px with a dense P, column by column.
func denseDiffuse(p [][]float64, x []float64, cols int, alpha float64, steps int) []float64 {
	n := len(p)
	cur := append([]float64(nil), x...)
	for range steps {
		next := make([]float64, n*cols)
		for i := range n {
			for c := range cols {
				s := 0.0
				for j := range n {
					s += p[i][j] * cur[j*cols+c]
				}
				next[i*cols+c] = alpha*cur[i*cols+c] + (1-alpha)*s
			}
		}
		cur = next
	}
	return cur
}

// rowNormalizeDense returns D⁻¹M for a dense M, zero rows kept zero.
func rowNormalizeDense(m [][]float64) [][]float64 {
	out := make([][]float64, len(m))
	for i, row := range m {
		out[i] = make([]float64, len(row))
		s := 0.0
		for _, v := range row {
			s += v
		}
		for j, v := range row {
			if s > 0 {
				out[i][j] = v / s
			}
		}
	}
	return out
}

func TestGNNSafeAgainstDense(t *testing.T) {
	const n, c = 30, 4
	adj, dense := testGraph(n, 7)
	rng := rand.New(rand.NewPCG(3, 4))
	logits := make([]float64, n*c)
	for k := range logits {
		logits[k] = 6 * rng.NormFloat64()
	}
	p := rowNormalizeDense(dense)
	for _, tc := range []struct {
		t, alpha float64
		steps    int
	}{{1, 0.5, 2}, {1, 0.5, 0}, {2, 0.3, 7}, {0.5, 1, 3}, {1, 0, 4}} {
		e := make([]float64, n)
		for i := range e {
			s := 0.0
			for _, z := range logits[i*c : (i+1)*c] {
				s += math.Exp(z / tc.t)
			}
			e[i] = -tc.t * math.Log(s)
		}
		want := denseDiffuse(p, e, 1, tc.alpha, tc.steps)
		got, err := GNNSafe(adj, logits, c, tc.t, tc.alpha, tc.steps)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*max(1, math.Abs(want[i])) {
				t.Fatalf("T=%v α=%v K=%d: node %d: %.17g, dense %.17g", tc.t, tc.alpha, tc.steps, i, got[i], want[i])
			}
		}
		// The isolated node keeps α^K of its energy.
		if w := math.Pow(tc.alpha, float64(tc.steps)) * e[n-1]; math.Abs(got[n-1]-w) > 1e-12*max(1, math.Abs(w)) {
			t.Errorf("isolated node: %v, want α^K·E = %v", got[n-1], w)
		}
	}
}

func TestGNNSafeHandPath(t *testing.T) {
	// Path 0 – 1 – 2 with energies E = (−1, −2, −4): one step of α = 0.5,
	// D⁻¹A averages the neighbours: (−2, −2.5, −2), so E¹ = (−1.5, −2.25, −3).
	adj, _ := tensor.FromCOO(3, 3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1}, []float64{1, 1, 1, 1})
	p, err := RowNormalized(adj)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Diffuse(p, []float64{-1, -2, -4}, 1, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-1.5, -2.25, -3}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("node %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestDiffuseErrors(t *testing.T) {
	adj, _ := testGraph(5, 1)
	p, _ := RowNormalized(adj)
	for _, tc := range []struct {
		x     []float64
		alpha float64
		steps int
		want  string
	}{
		{make([]float64, 5), 1.5, 1, "α = 1.5"},
		{make([]float64, 5), 0.5, -1, "-1 diffusion steps"},
		{make([]float64, 4), 0.5, 1, "4 rows, the operator 5"},
	} {
		if _, err := Diffuse(p, tc.x, 1, tc.alpha, tc.steps); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Diffuse error %v, want %q", err, tc.want)
		}
	}
	bad, _ := tensor.FromCOO(2, 2, []int{0, 1}, []int{1, 0}, []float64{-1, 1})
	if _, err := RowNormalized(bad); err == nil || !strings.Contains(err.Error(), "weight -1") {
		t.Errorf("negative weight: error %v", err)
	}
	if _, err := RowNormalized(&tensor.CSR{Rows: 2, Cols: 3, Ptr: make([]int, 3)}); err == nil || !strings.Contains(err.Error(), "not square") {
		t.Errorf("non-square: error %v", err)
	}
}
