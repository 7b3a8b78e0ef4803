package cuq

import (
	"math"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Fit hands the first layer's product of the features from each
// validation pass to the next training step. Training with and without
// the handing must give the same bits: every epoch's loss and validation
// loss, and every prediction, also with outputs taken during Fit, which
// must keep their values; and the product must have been handed at
// every main epoch after the first, or the comparison shows nothing.
func TestFitHandsFirstProductsWithoutChangingBits(t *testing.T) {
	g, err := datasets.CSBM(300, 3).Homophily(0.8).AvgDegree(5).Features(24).FeatureSignal(1).Seed(8).Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.1, 0.2, 0.7).Seed(2))
	if err != nil {
		t.Fatal(err)
	}
	binary, err := datasets.Synthetic() // sparse 0/1 features (a CSR operand)
	if err != nil {
		t.Fatal(err)
	}
	binarySplit, err := binary.Split(graph.Stratified(0.05, 0.15, 0.8))
	if err != nil {
		t.Fatal(err)
	}
	hits := map[string]func(*Model) int{
		"APPNP":   func(m *Model) int { return m.fam.(*firstOrder).head.(*appnpHead).enc.first.memo.Hits() },
		"GCN":     func(m *Model) int { return m.fam.(*firstOrder).head.(*gcnHead).first.memo.Hits() },
		"GPN":     func(m *Model) int { return m.fam.(*postNet).enc.first.memo.Hits() },
		"CUQ-GCN": func(m *Model) int { return m.fam.(*postNet).enc.first.memo.Hits() },
	}
	builders := map[string]func() ModelBuilder{
		"APPNP": func() ModelBuilder { return APPNP() }, "GCN": func() ModelBuilder { return GCN() },
		"GPN": func() ModelBuilder { return GPN() }, "CUQ-GCN": func() ModelBuilder { return CUQGCN() },
	}
	for _, c := range []struct {
		g     *graph.Graph
		split graph.Split
	}{{g, split}, {binary, binarySplit}} {
		for name, build := range builders {
			train := func(hand bool) (*Model, *History, *Prediction) {
				defer func(was bool) { handFirstProducts = was }(handFirstProducts)
				handFirstProducts = hand
				m, err := build().Done(c.g)
				if err != nil {
					t.Fatal(err)
				}
				s := m.Schedule()
				s.MaxEpochs, s.WarmupEpochs = 12, min(s.WarmupEpochs, 3)
				// With handing on, an output taken during Fit (as a
				// notebook's live chart would) must keep its values: no
				// output may be the matrix that holds the handed
				// product.
				var early []*tensor.Dense
				var earlyValues [][]float64
				onEpoch := OnEpoch(func(e EpochStats) {
					if !hand || e.Phase != TrainPhase || e.Epoch != 2 {
						return
					}
					out, err := m.Forward(nil)
					if err != nil {
						t.Fatal(err)
					}
					early, earlyValues = append(early, out), append(earlyValues, slices.Clone(out.Data))
				})
				hist, err := m.Fit(c.split, s, onEpoch)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if hand && len(early) == 0 {
					t.Fatalf("%s: no output taken during Fit", name)
				}
				for k, d := range early {
					if !tensor.SameBits(d.Data, earlyValues[k]) {
						t.Fatalf("%s on %s: output %d taken during Fit changed after it", name, c.g.Name, k)
					}
				}
				pred, err := m.Predict(c.g)
				if err != nil {
					t.Fatal(err)
				}
				return m, hist, pred
			}
			handed, hist, pred := train(true)
			plain, wantHist, wantPred := train(false)
			main := 0
			for k, e := range hist.Epochs {
				w := wantHist.Epochs[k]
				if !sameFloat(e.Loss, w.Loss) || !sameFloat(e.ValCE, w.ValCE) {
					t.Fatalf("%s on %s, %s epoch %d: loss %v, validation loss %v; without handing %v, %v", name, c.g.Name, e.Phase, e.Epoch, e.Loss, e.ValCE, w.Loss, w.ValCE)
				}
				if e.Phase == TrainPhase {
					main++
				}
			}
			for i, v := range pred.Prob.Data {
				if !sameFloat(v, wantPred.Prob.Data[i]) {
					t.Fatalf("%s on %s: probability %d is %v, without handing %v", name, c.g.Name, i, v, wantPred.Prob.Data[i])
				}
			}
			if got := hits[name](handed); got != main-1 {
				t.Errorf("%s on %s: %d training steps took a handed product in %d main epochs, want %d", name, c.g.Name, got, main, main-1)
			}
			if got := hits[name](plain); got != 0 {
				t.Errorf("%s on %s: %d products handed with handing off", name, c.g.Name, got)
			}
		}
	}
}

func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
