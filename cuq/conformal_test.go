package cuq_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// TestConformalOfPrediction checks that Prediction.Conformal is
// conformal.New on the prediction's probabilities, labels and adjacency,
// every score on the same split, and its errors.
func TestConformalOfPrediction(t *testing.T) {
	g, err := graph.NewBuilder(3).Node(0, 1).Node(1, 2).Node(2, 3).Node(0, 4).Node(1, 5).Node(2, 6).
		Chain(0, 1, 2, 3, 4, 5).Done()
	if err != nil {
		t.Fatal(err)
	}
	prob := []float64{0.6, 0.3, 0.1, 0.2, 0.5, 0.3, 0.1, 0.1, 0.8, 0.4, 0.4, 0.2, 0.3, 0.3, 0.4, 0.25, 0.25, 0.5}
	p := &cuq.Prediction{Model: "Toy", Graph: g, Classes: 3, Class: []int{0, 1, 2, 0, 2, 2},
		Prob: tensor.MustFromSlice(6, 3, prob)}
	nodes := []int{0, 1, 2, 3, 4, 5}
	opts := conformal.Options{Alpha: 0.3, Seed: 9}
	res, err := p.Conformal(nodes, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results, want APS, RAPS and DAPS", len(res))
	}
	for k, s := range conformal.DefaultScores() {
		want, err := conformal.New(prob, 3, g.Labels).Graph(g.Adj).Score(s).Alpha(0.3).Nodes(nodes).Seed(9).Done()
		if err != nil {
			t.Fatal(err)
		}
		r := res[k]
		if r.Score != s.String() || r.Quantile != want.Quantile || !slices.Equal(r.Calibration, want.Calibration) ||
			!slices.EqualFunc(r.Sets, want.Sets, slices.Equal) || r.Coverage != want.Coverage {
			t.Errorf("%v: %+v, conformal.New gives %+v", s, r, want)
		}
		if !slices.Equal(r.Calibration, res[0].Calibration) {
			t.Errorf("%v calibrates on %v, APS on %v", s, r.Calibration, res[0].Calibration)
		}
	}
	bad := *p
	bad.Prob = nil
	if _, err := bad.Conformal(nodes, opts); err == nil || !strings.Contains(err.Error(), "Toy: conformal prediction needs the class probabilities") {
		t.Errorf("no probabilities: %v", err)
	}
	if _, err := p.Conformal([]int{0, 1, 9}, opts); err == nil || !strings.Contains(err.Error(), "cuq: Toy: conformal: node 9 outside [0, 6)") {
		t.Errorf("node out of range: %v", err)
	}
}

// TestConformalGraphScores checks what Prediction.Conformal fills in from
// the graph: a SNAPS score without a similarity graph runs as one with
// the KNNSimilarity of the graph's features, and diagnostics without
// features take the worst slabs in the graph's features.
func TestConformalGraphScores(t *testing.T) {
	b := graph.NewBuilder(3)
	x := []float64{1, 0, 2, 1, 1, 0, 3, 2, 0, 1, 2, 1}
	for i := range 12 {
		b.Node(i%3, x[i], x[(i+5)%12], x[(i+7)%12])
	}
	g, err := b.Chain(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).Done()
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]float64{{0.5, 0.3, 0.2}, {0.2, 0.5, 0.3}, {0.3, 0.2, 0.5}, {0.6, 0.1, 0.3}}
	var prob []float64
	for i := range 12 {
		prob = append(prob, rows[i%4]...)
	}
	p := &cuq.Prediction{Model: "Toy", Graph: g, Classes: 3, Class: make([]int, 12), Prob: tensor.MustFromSlice(12, 3, prob)}
	nodes := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	diag := &conformal.DiagnosticOptions{Slab: conformal.SlabOptions{Directions: 10}}
	scores := []conformal.Score{conformal.SNAPS{}, conformal.NAPS{MinCalibration: 1}}
	res, err := p.Conformal(nodes, conformal.Options{Scores: scores, Alpha: 0.3, Seed: 4, Diagnostics: diag})
	if err != nil {
		t.Fatal(err)
	}
	if scores[0].(conformal.SNAPS).Similarity != nil || diag.Features != nil {
		t.Error("Conformal changed the caller's options")
	}
	sim, err := conformal.KNNSimilarity(g.Features, conformal.DefaultSimilarNodes)
	if err != nil {
		t.Fatal(err)
	}
	withGraph := conformal.DiagnosticOptions{Features: g.Features, Slab: diag.Slab}
	want, err := conformal.Evaluate(prob, 3, g.Labels, g.Adj, nodes,
		conformal.Options{Scores: []conformal.Score{conformal.SNAPS{Similarity: sim}, scores[1]}, Alpha: 0.3, Seed: 4, Diagnostics: &withGraph})
	if err != nil {
		t.Fatal(err)
	}
	for k := range res {
		r, w := res[k], want[k]
		if r.Score != w.Score || !slices.EqualFunc(r.Sets, w.Sets, slices.Equal) || r.Diagnostics == nil || r.Diagnostics.WorstSlab != w.Diagnostics.WorstSlab ||
			r.Diagnostics.CovGap != w.Diagnostics.CovGap {
			t.Errorf("%s: %+v, want %+v", r.Score, r, w)
		}
	}
}

// TestConformalCoverageCoraML trains APPNP and GPN briefly on CoraML and
// checks the guarantee on their test nodes: the mean coverage over 20
// random calibration splits (half of the test nodes each) is at least
// 1−α − 4 standard errors, sqrt(α(1−α)(1/n + 1/m)/20) for n calibration
// and m evaluation nodes, for APS, RAPS and DAPS.
func TestConformalCoverageCoraML(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models on CoraML")
	}
	g, split := coraML(t)
	const alpha, splits = 0.1, 20
	for _, c := range []struct {
		b      cuq.ModelBuilder
		epochs int
	}{{cuq.APPNP(), 150}, {cuq.GPN(), 100}} {
		pred := fitPredict(t, must(c.b.Done(g)), split, cuq.MaxEpochs(c.epochs))
		scores := conformal.DefaultScores()
		sums, sizes := make([]float64, len(scores)), make([]float64, len(scores))
		var n, m int
		for seed := range uint64(splits) {
			res, err := pred.Conformal(split.Test, conformal.Options{Alpha: alpha, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range res {
				sums[k] += r.Coverage
				sizes[k] += r.MeanSize
			}
			n, m = len(res[0].Calibration), len(res[0].Nodes)
		}
		lo := 1 - alpha - 4*math.Sqrt(alpha*(1-alpha)*(1/float64(n)+1/float64(m))/splits)
		for k, s := range scores {
			cov := sums[k] / splits
			t.Logf("%s (accuracy %.3f), %v: mean coverage %.4f (≥ %.4f), mean set size %.3f",
				pred.Model, pred.Accuracy(split.Test), s, cov, lo, sizes[k]/splits)
			if cov < lo {
				t.Errorf("%s, %v: mean coverage %.4f over %d splits, below %.4f", pred.Model, s, cov, splits, lo)
			}
		}
	}
}
