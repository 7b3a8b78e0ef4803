package chart

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// pathGraph returns the path 0 – 1 – 2 – 3 – 4 with two classes, labels
// 0, 1, 0, 1, 0.
func pathGraph(t *testing.T) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(2)
	for i := range 5 {
		b.Node(i%2, float64(i))
	}
	g, err := b.Chain(0, 1, 2, 3, 4).Done()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// testPrediction returns a prediction on a path 0 – 1 – 2 – 3 – 4 with two
// classes: nodes 0 to 3 are predicted right, node 4 wrong; node 4 is the
// most uncertain by every measure, so rejecting it first helps.
func testPrediction(t *testing.T) *cuq.Prediction {
	t.Helper()
	return &cuq.Prediction{
		Model: "Toy", Graph: pathGraph(t), Classes: 2, Class: []int{0, 1, 0, 1, 1},
		Measures: uq.Measures{
			TU:   []float64{0.1, 0.2, 0.3, 0.4, 0.6},
			AU:   []float64{0.05, 0.1, 0.1, 0.2, 0.3},
			EU:   []float64{0.05, 0.1, 0.2, 0.2, 0.3},
			EUPC: []float64{-9, -8, -7, -6, -2},
		},
	}
}

func TestARCOf(t *testing.T) {
	p := testPrediction(t)
	_, opt := optionOf(t, ARCOf(p, []int{0, 1, 2, 3, 4}))
	s := series(t, opt)
	if len(s) != 4 {
		t.Fatalf("%d curves, want TU, AU, EU, EU_PC (no LC, no EU_SO)", len(s))
	}
	x := opt["xAxis"].([]any)[0].(map[string]any)["data"].([]any)
	if len(x) != 100 || x[99] != "0.99" {
		t.Errorf("%d rejection fractions ending at %v, want 100 ending at 0.99 (the one-node point dropped)", len(x), x[len(x)-1])
	}
	// TU: 4 of 5 right without rejection; after rejecting node 4 all right.
	tu := s[0]["data"].([]any)
	if tu[0] != 0.8 || tu[99] != 1.0 {
		t.Errorf("TU curve starts at %v and ends at %v, want 0.8 and 1", tu[0], tu[99])
	}
	if color, dash := MeasureStyle(uq.AU); s[1]["color"] != color || s[1]["lineStyle"].(map[string]any)["type"] == "solid" || dash != Dashed {
		t.Errorf("AU drawn %v, want its colour %s and a dashed line", s[1], color)
	}
	if _, err := ARCOf(p, []int{0}).Measures(uq.EUSO).Done(); err == nil || !strings.Contains(err.Error(), "Toy has no EU_SO") {
		t.Errorf("missing measure: error %v", err)
	}
	if _, err := ARCOf(nil, nil).Done(); err == nil {
		t.Error("nil prediction: no error")
	}
}

func TestDecompositionOf(t *testing.T) {
	p := testPrediction(t)
	_, opt := optionOf(t, DecompositionOf(p, []int{0, 1, 4}).OOD([]int{2, 3}))
	var names []string
	for _, s := range series(t, opt) {
		names = append(names, s["name"].(string))
	}
	if strings.Join(names, ",") != "correct (2),wrong (1),OOD (2)" {
		t.Errorf("series %v, want correct (2), wrong (1), OOD (2)", names)
	}
	if sub := opt["title"].([]any)[0].(map[string]any)["subtext"].(string); !strings.HasPrefix(sub, "ID accuracy 66.7% (3 ID, 2 OOD nodes)") {
		t.Errorf("subtitle %q lacks the ID accuracy", sub)
	}
	if _, err := DecompositionOf(p, []int{7}).Done(); err == nil || !strings.Contains(err.Error(), "node 7 out of range") {
		t.Errorf("bad node: error %v", err)
	}
	if _, err := DecompositionOf(p, []int{0}).OOD([]int{-1}).Done(); err == nil || !strings.Contains(err.Error(), "OOD node -1 out of range") {
		t.Errorf("bad OOD node: error %v", err)
	}
	first := &cuq.Prediction{Model: "APPNP", Measures: uq.Measures{TU: []float64{1}}}
	if _, err := DecompositionOf(first, []int{0}).Done(); err == nil || !strings.Contains(err.Error(), "APPNP has no AU and EU") {
		t.Errorf("first-order model: error %v", err)
	}
	if _, err := Decomposition([]float64{1}, []float64{1}, []Outcome{OOD}).OOD([]int{0}).Done(); err == nil {
		t.Error("OOD without a prediction: no error")
	}
}

func TestNeighbourhoodOf(t *testing.T) {
	p := testPrediction(t)
	c, err := NeighbourhoodOf(p, 2).Size(3).Mark([]int{3}, "noisy").Done()
	if err != nil {
		t.Fatal(err)
	}
	s := series(t, decodeOption(t, c))[0]
	nodes := s["data"].([]any)
	if len(nodes) != 3 {
		t.Fatalf("%d nodes, want 3 (node 2 and its two neighbours)", len(nodes))
	}
	// Breadth first from node 2: 2, 1, 3; node 3 is marked.
	for k, want := range []string{"node 2, label 0, predicted 0", "node 1, label 1, predicted 1", "node 3, label 1, predicted 1 (noisy)"} {
		if got := nodes[k].(map[string]any)["name"]; got != want {
			t.Errorf("node %d is %q, want %q", k, got, want)
		}
	}
	if len(s["links"].([]any)) != 2 {
		t.Errorf("links %v, want the two path edges among the three nodes", s["links"])
	}
	for _, tc := range []struct {
		c    *NeighbourhoodChart
		want string
	}{
		{NeighbourhoodOf(p, 9), "center 9 out of range"},
		{NeighbourhoodOf(p, 0).Size(0), "size 0"},
		{NeighbourhoodOf(p, 0).Measures(uq.EU, uq.EUSO), "Toy has no EU_SO"},
	} {
		if _, err := tc.c.Done(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestHistoryOf(t *testing.T) {
	nan := math.NaN()
	h := &cuq.History{
		Epochs: []cuq.EpochStats{
			{Phase: cuq.WarmupPhase, Epoch: 1, Loss: 5, ValCE: nan},
			{Phase: cuq.WarmupPhase, Epoch: 2, Loss: 4, ValCE: nan},
			{Phase: cuq.TrainPhase, Epoch: 1, Loss: 3, ValCE: 1.2, ValAcc: 0.5},
			{Phase: cuq.TrainPhase, Epoch: 2, Loss: 2, ValCE: 0.9, ValAcc: 0.7},
			{Phase: cuq.TrainPhase, Epoch: 3, Loss: 1, ValCE: 1.0, ValAcc: 0.72},
		},
		BestEpoch: 2, BestValCE: 0.9, Stopped: "early stopping",
	}
	_, opt := optionOf(t, HistoryOf(h).Title("t"))
	s := series(t, opt)
	if ce := s[1]["data"].([]any); ce[0] != "-" || ce[3] != 0.9 {
		t.Errorf("validation CE %v: want missing during warm-up, 0.9 at the fourth epoch", ce)
	}
	best := s[0]["markLine"].(map[string]any)["data"].([]any)[0].(map[string]any)["xAxis"]
	if best != 3.0 {
		t.Errorf("best epoch marked at index %v, want 3 (training epoch 2 after two warm-up epochs)", best)
	}
	// The axis numbers epochs as the History does: the best epoch's label
	// is its BestEpoch, warm-up epochs are w1, w2.
	labels := opt["xAxis"].([]any)[0].(map[string]any)["data"].([]any)
	if want := []any{"w1", "w2", "1", "2", "3"}; !reflect.DeepEqual(labels, want) || labels[3] != strconv.Itoa(h.BestEpoch) {
		t.Errorf("epoch labels %v, want %v with the best epoch's label %d at index 3", labels, want, h.BestEpoch)
	}
	area := s[0]["markArea"].(map[string]any)["data"].([]any)[0].([]any)
	if area[1].(map[string]any)["xAxis"] != 1.0 {
		t.Errorf("warm-up shaded to %v, want index 1", area[1])
	}
	if opt["title"].(map[string]any)["subtext"] != "early stopping" {
		t.Errorf("subtitle %v, want why training stopped", opt["title"])
	}
	if _, err := HistoryOf(&cuq.History{}).Done(); err == nil {
		t.Error("empty history: no error")
	}
	h.Epochs[0].Loss = math.Inf(1)
	if _, err := HistoryOf(h).Done(); err == nil || !strings.Contains(err.Error(), "loss +Inf at epoch 1") {
		t.Errorf("infinite loss: error %v", err)
	}
}
