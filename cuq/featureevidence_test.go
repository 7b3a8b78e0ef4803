package cuq

import (
	"math"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// tinyGraph is a 7-node, 2-class graph: two triangles joined by an edge,
// and node 6 on its own.
func tinyGraph(t *testing.T) (*graph.Graph, graph.Split) {
	t.Helper()
	g, err := graph.NewBuilder(2).
		Node(0, 1, 0, 0.2).Node(0, 0.9, 0.1, 0).Node(0, 0.8, 0, 0.1).
		Node(1, 0, 1, 0.3).Node(1, 0.1, 0.9, 0).Node(1, 0, 0.7, 0.2).
		Node(1, 0.5, 0.5, 0.5).
		Chain(0, 1, 2, 0).Chain(3, 4, 5, 3).Edge(2, 3).Done()
	if err != nil {
		t.Fatal(err)
	}
	s, err := graph.FixedSplit([]int{0, 3}, []int{1, 4}, []int{2, 5, 6}, g.N)
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

func TestFeatureEvidence(t *testing.T) {
	g, s := tinyGraph(t)
	for _, b := range []*PostNetBuilder{GPN(), LOPGPN(), CUQPPR()} {
		m := must(b.Done(g))
		if _, err := m.Fit(s, MaxEpochs(5)); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(nil)
		if err != nil {
			t.Fatal(err)
		}
		feat, err := p.Uncertainty(uq.EUFeat)
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if !slices.Equal(p.Get(uq.EUFeat), p.EUFeat) || len(p.EUFeat) != g.N || slices.Contains(p.Available(), uq.EUFeat) {
			t.Fatalf("%s: EU_FEAT %v, available %v", m.Name(), p.EUFeat, p.Available())
		}
		// directly from the head's evidence β before pooling
		pn := m.fam.(*postNet)
		ops, err := pn.prepare(g)
		if err != nil {
			t.Fatal(err)
		}
		tape := pn.evaluation()
		beta := pn.evidence(tape, g, ops, nil).Data.Clone()
		tape.Release()
		c := float64(p.Classes)
		evidence := make([]float64, g.N) // Σ_c β_ic
		for i := range evidence {
			for _, b := range beta.Row(i) {
				evidence[i] += b
			}
			if want := -(c + evidence[i]); math.Abs(feat[i]-want) > 1e-12*math.Abs(want) {
				t.Fatalf("%s: EU_FEAT of node %d = %v, want −Σ(1+β) = %v", m.Name(), i, feat[i], want)
			}
		}
		// how pooling relates the two: α₀ − C = Π·(Σ_c β) for GPN's
		// propagation, Σ_c (Πα_ft)_c = Π·(Σ_c α_ft) for LOP-GPN's
		// mixture, no pooling for CUQ-PPR
		var pooled []float64
		var pi *tensor.Dense
		switch m.Name() {
		case "GPN":
			pi = ops.prop.Dense()
			pooled = make([]float64, g.N)
			for i := range pooled {
				pooled[i] = -p.EUPC[i] - c
			}
		case "LOP-GPN":
			pi = ops.mixture.pi.ToDense()
			pooled = make([]float64, g.N)
			for i := range pooled {
				for _, a := range p.Alpha.Row(i) {
					pooled[i] += a
				}
				for j := range evidence {
					pooled[i] -= pi.At(i, j) * c // Π is row-stochastic: compare Σβ
				}
			}
		default:
			for i := range feat {
				if feat[i] != p.EUPC[i] {
					t.Fatalf("%s: EU_FEAT %v ≠ EU_PC %v at node %d without pooling", m.Name(), feat[i], p.EUPC[i], i)
				}
			}
			continue
		}
		for i := range pooled {
			want := 0.0
			for j, e := range evidence {
				want += pi.At(i, j) * e
			}
			if math.Abs(pooled[i]-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s: pooled evidence of node %d = %v, want Π·Σβ = %v", m.Name(), i, pooled[i], want)
			}
		}
	}

	// APPNP has no PostNet head
	m := must(APPNP().Done(g))
	if _, err := m.Fit(s, MaxEpochs(3)); err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Uncertainty(uq.EUFeat); err == nil || p.EUFeat != nil {
		t.Fatal("APPNP has EU_FEAT")
	}
	if got, err := uq.ParseMeasure("eu_feat"); err != nil || got != uq.EUFeat || uq.EUFeat.String() != "EU_FEAT" ||
		uq.EUFeat.ReferenceKey() != "features" || slices.Contains(uq.AllMeasures, uq.EUFeat) {
		t.Fatal("EU_FEAT name, key or place")
	}
}
