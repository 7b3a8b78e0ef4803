package uq

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Two samples of two nodes with two classes, computed by hand: node 0's
// samples disagree, node 1's agree.
func TestSamplesByHand(t *testing.T) {
	probs := [][]float64{
		{0.8, 0.2, 0.3, 0.7},
		{0.4, 0.6, 0.3, 0.7},
	}
	ms, err := Samples(probs, 2)
	if err != nil {
		t.Fatal(err)
	}
	h := func(p float64) float64 { return -p*math.Log(p) - (1-p)*math.Log(1-p) }
	// node 0: p̄ = (0.6, 0.4)
	tu, au := h(0.6), (h(0.8)+h(0.4))/2
	want := map[string][2]float64{
		"TU": {tu, h(0.3)},
		"AU": {au, h(0.3)},
		"EU": {tu - au, 0},
		"LC": {0.4, 0.3},
	}
	got := map[string][]float64{"TU": ms.TU, "AU": ms.AU, "EU": ms.EU, "LC": ms.LC}
	for name, w := range want {
		for i := range w {
			if !close(got[name][i], w[i], 1e-14) {
				t.Errorf("%s[%d] = %v, want %v", name, i, got[name][i], w[i])
			}
		}
	}
	if ms.EU[1] != 0 {
		t.Errorf("EU of agreeing samples = %v, want exactly 0", ms.EU[1])
	}
	if ms.EU[0] < 0.08 || ms.EU[0] > 0.09 {
		t.Errorf("EU = %v, want ln-entropy gap ≈ 0.0863", ms.EU[0])
	}
	if ms.EUPC != nil || ms.EUSO != nil {
		t.Errorf("sampled prediction has Dirichlet measures: %v", ms.Available())
	}
	mean, err := SampleMean(probs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range []float64{0.6, 0.4, 0.3, 0.7} {
		if !close(mean[j], w, 1e-15) {
			t.Errorf("mean[%d] = %v, want %v", j, mean[j], w)
		}
	}
}

// randomProbs returns n random categorical distributions over k classes,
// row-major: normalised exponential draws, uniform on the simplex.
func randomProbs(r *rand.Rand, n, k int) []float64 {
	p := make([]float64, n*k)
	for i := 0; i < n; i++ {
		row := p[i*k : (i+1)*k]
		var s float64
		for c := range row {
			row[c] = r.ExpFloat64()
			s += row[c]
		}
		for c := range row {
			row[c] /= s
		}
	}
	return p
}

// Identical samples, however many, have EU = 0 and the measures of one
// categorical prediction; random samples have EU ≥ 0.
func TestSamplesAgreeingAndRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, k = 50, 5
	p := randomProbs(r, n, k)
	cat, err := Categorical(p, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, copies := range []int{1, 3, 7} {
		probs := make([][]float64, copies)
		for s := range probs {
			probs[s] = p
		}
		ms, err := Samples(probs, k)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if ms.EU[i] != 0 || !close(ms.TU[i], cat.TU[i], 1e-14) || !close(ms.AU[i], cat.TU[i], 1e-14) || !close(ms.LC[i], cat.LC[i], 1e-14) {
				t.Fatalf("%d copies, node %d: TU %v AU %v EU %v LC %v, want TU = AU = %v, EU = 0, LC = %v",
					copies, i, ms.TU[i], ms.AU[i], ms.EU[i], ms.LC[i], cat.TU[i], cat.LC[i])
			}
		}
	}
	// Random samples: EU = TU − AU ≥ 0 (Jensen).
	probs := make([][]float64, 4)
	for s := range probs {
		probs[s] = randomProbs(r, n, k)
	}
	ms, err := Samples(probs, k)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if ms.EU[i] <= 0 || !close(ms.EU[i], ms.TU[i]-ms.AU[i], 1e-12) {
			t.Errorf("node %d: EU %v, TU − AU = %v (disagreeing samples need EU > 0)", i, ms.EU[i], ms.TU[i]-ms.AU[i])
		}
	}
}

func TestSamplesErrors(t *testing.T) {
	for _, c := range []struct {
		probs [][]float64
		k     int
		want  string
	}{
		{nil, 2, "no samples"},
		{[][]float64{{0.5, 0.5}}, 0, "k = 0"},
		{[][]float64{{0.5, 0.5, 1}}, 2, "not a multiple"},
		{[][]float64{{0.5, 0.5}, {0.5, 0.5, 0.5, 0.5}}, 2, "sample 1 has length 4"},
		{[][]float64{{0.5, 0.5}, {1.5, -0.5}}, 2, "sample 1: row 0 has the entry -0.5"},
		{[][]float64{{0.5, math.NaN()}}, 2, "NaN"},
		{[][]float64{{0.5, 0.4}}, 2, "sums to 0.9"},
	} {
		_, err := Samples(c.probs, c.k)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Samples(%v, %d) error %v, want one containing %q", c.probs, c.k, err, c.want)
		}
	}
}
