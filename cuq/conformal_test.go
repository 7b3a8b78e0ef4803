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
	for _, b := range []*cuq.Builder{cuq.APPNPModel(g).MaxEpochs(150), cuq.GPN(g).MaxEpochs(100)} {
		pred := fitPredict(t, b.MustBuild(), split)
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
