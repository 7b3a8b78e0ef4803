package energy

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// gebmCase is a GEBM fit on 50 nodes with 4 logit columns, of which
// class 3 has no training node, and 4-dimensional embeddings; class 2's
// training nodes share their last embedding value.
type gebmCase struct {
	n, c, d           int
	fitLogits, fitEmb []float64 // with edges
	logits, emb       []float64 // without edges
	train, labels     []int
}

func newGEBMCase() gebmCase {
	const n, c, d = 50, 4, 4
	rng := rand.New(rand.NewPCG(11, 12))
	gc := gebmCase{n: n, c: c, d: d}
	fill := func(k int, scale float64) []float64 {
		x := make([]float64, k)
		for i := range x {
			x[i] = scale * rng.NormFloat64()
		}
		return x
	}
	gc.fitLogits, gc.fitEmb = fill(n*c, 3), fill(n*d, 1)
	gc.logits, gc.emb = fill(n*c, 3), fill(n*d, 1.5)
	for k := range 15 {
		gc.train = append(gc.train, 3*k)
		gc.labels = append(gc.labels, k%3)
	}
	for k, i := range gc.train {
		if gc.labels[k] == 2 {
			gc.fitEmb[i*d+d-1] = 0.25
		}
	}
	return gc
}

func TestGEBMAgainstDense(t *testing.T) {
	gc := newGEBMCase()
	n, c, d := gc.n, gc.c, gc.d
	adj, dense := testGraph(n, 5)
	for _, cfg := range []GEBMConfig{DefaultGEBM(), {Gamma: 0.5, Temperature: 2, Alpha: 0.3, Steps: 3}, {Gamma: 0, Temperature: 1, Alpha: 0.5, Steps: 0}} {
		m, err := FitGEBM(cfg, gc.fitLogits, c, gc.fitEmb, d, gc.train, gc.labels)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Classes(); !slices.Equal(got, []int{0, 1, 2}) {
			t.Fatalf("classes with evidence %v, want [0 1 2]", got)
		}
		got, err := m.Scores(adj, gc.logits, gc.emb)
		if err != nil {
			t.Fatal(err)
		}
		want := denseGEBM(gc, dense, cfg)
		for name, pair := range map[string][2][]float64{
			"independent": {got.Independent, want.Independent},
			"local":       {got.Local, want.Local},
			"group":       {got.Group, want.Group},
			"total":       {got.Total, want.Total},
		} {
			for i := range pair[1] {
				if math.Abs(pair[0][i]-pair[1][i]) > 1e-12*max(1, math.Abs(pair[1][i])) {
					t.Fatalf("%+v: %s energy of node %d: %.17g, dense %.17g", cfg, name, i, pair[0][i], pair[1][i])
				}
			}
		}
	}
}

// denseGEBM computes GEBM's energies from the definitions, with dense
// matrices and the 95% range of 50 values hand-worked: the values ranked
// ⌊0.025·50⌋ = 1 and ⌊0.975·50⌋ − 1 = 47 (0-based) in increasing order.
func denseGEBM(gc gebmCase, adj [][]float64, cfg GEBMConfig) GEBMScores {
	n, c, d := gc.n, gc.c, gc.d
	const classes = 3 // class 3 has no training node
	mean := make([][]float64, classes)
	variance := make([][]float64, classes)
	for k := range classes {
		var rows [][]float64
		for j, i := range gc.train {
			if gc.labels[j] == k {
				rows = append(rows, gc.fitEmb[i*d:(i+1)*d])
			}
		}
		mean[k], variance[k] = make([]float64, d), make([]float64, d)
		for f := range d {
			for _, r := range rows {
				mean[k][f] += r[f] / float64(len(rows))
			}
			for _, r := range rows {
				variance[k][f] += (r[f] - mean[k][f]) * (r[f] - mean[k][f]) / float64(len(rows))
			}
		}
		if k == 2 {
			// The constant dimension has variance 0: 1e-8, 1e-7 and
			// 1e-6 are added before it exceeds 1e-6.
			for f := range d {
				variance[k][f] += 1e-8 + 1e-7 + 1e-6
			}
		}
	}
	dist := func(h []float64, k int) float64 {
		s := 0.0
		for f := range d {
			s += (h[f] - mean[k][f]) * (h[f] - mean[k][f]) / variance[k][f]
		}
		return s
	}
	rangeOf := func(x []float64) (float64, float64) {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[1], s[47]
	}
	ev := make([]float64, n*classes)
	for k := range classes {
		ds, ls := make([]float64, n), make([]float64, n)
		for i := range n {
			ds[i] = dist(gc.fitEmb[i*d:(i+1)*d], k)
			ls[i] = gc.fitLogits[i*c+k]
		}
		mlo, mhi := rangeOf(ds)
		llo, lhi := rangeOf(ls)
		for i := range n {
			corr := (dist(gc.emb[i*d:(i+1)*d], k)-mlo)/(mhi-mlo)*(lhi-llo) + llo
			ev[i*classes+k] = gc.logits[i*c+k] - cfg.Gamma*corr
		}
	}
	withLoops := make([][]float64, n)
	for i := range adj {
		withLoops[i] = slices.Clone(adj[i])
		withLoops[i][i] = 1 // the test graph has no self loops
	}
	p := rowNormalizeDense(withLoops)
	energyOf := func(x []float64) []float64 {
		e := make([]float64, n)
		for i := range n {
			s := 0.0
			for k := range classes {
				s += math.Exp(x[i*classes+k] / cfg.Temperature)
			}
			e[i] = -cfg.Temperature * math.Log(s)
		}
		return e
	}
	var out GEBMScores
	out.Independent = energyOf(ev)
	out.Local = energyOf(denseDiffuse(p, ev, classes, cfg.Alpha, cfg.Steps))
	out.Group = denseDiffuse(p, out.Independent, 1, cfg.Alpha, cfg.Steps)
	for i := range n {
		out.Total = append(out.Total, out.Independent[i]+out.Local[i]+out.Group[i])
	}
	return out
}

func TestGEBMErrors(t *testing.T) {
	gc := newGEBMCase()
	def := DefaultGEBM()
	for _, tc := range []struct {
		name         string
		cfg          GEBMConfig
		logits, emb  []float64
		train, label []int
		want         string
	}{
		{"gamma", GEBMConfig{Gamma: -1, Temperature: 1, Alpha: 0.5, Steps: 1}, gc.fitLogits, gc.fitEmb, gc.train, gc.labels, "γ = -1"},
		{"alpha", GEBMConfig{Gamma: 1, Temperature: 1, Alpha: 2, Steps: 1}, gc.fitLogits, gc.fitEmb, gc.train, gc.labels, "α = 2"},
		{"temperature", GEBMConfig{Gamma: 1, Alpha: 0.5, Steps: 1}, gc.fitLogits, gc.fitEmb, gc.train, gc.labels, "temperature 0"},
		{"rows", def, gc.fitLogits, gc.fitEmb[:8], gc.train, gc.labels, "50 rows of logits but 2 of embeddings"},
		{"no training nodes", def, gc.fitLogits, gc.fitEmb, nil, nil, "needs training nodes"},
		{"label", def, gc.fitLogits, gc.fitEmb, []int{0}, []int{4}, "label 4, not in [0, 4)"},
		{"node", def, gc.fitLogits, gc.fitEmb, []int{50}, []int{0}, "training node 50 outside"},
		{"labels", def, gc.fitLogits, gc.fitEmb, []int{0, 1}, []int{0}, "2 training nodes but 1 labels"},
	} {
		_, err := FitGEBM(tc.cfg, tc.logits, gc.c, tc.emb, gc.d, tc.train, tc.label)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// All nodes at one distance: the range of the correction is empty.
	flat := make([]float64, len(gc.fitEmb))
	if _, err := FitGEBM(def, gc.fitLogits, gc.c, flat, gc.d, gc.train, gc.labels); err == nil || !strings.Contains(err.Error(), "degenerate range") {
		t.Errorf("constant embeddings: error %v", err)
	}
	m, err := FitGEBM(def, gc.fitLogits, gc.c, gc.fitEmb, gc.d, gc.train, gc.labels)
	if err != nil {
		t.Fatal(err)
	}
	adj, _ := testGraph(gc.n-1, 1)
	if _, err := m.Scores(adj, gc.logits, gc.emb); err == nil || !strings.Contains(err.Error(), "50 nodes of logits, adjacency of 49") {
		t.Errorf("mismatched adjacency: error %v", err)
	}
}
