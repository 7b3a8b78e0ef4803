package truth_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/truth"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// oracle is a classifier whose uncertainties are the ground truth of the
// graph it is given (times sign), computed from the generator the test
// knows: the sweep must then report Spearman ±1 and AUROC 1 or 0 for
// every measure, which checks the pairing of measures with ground truths,
// the node order and the split.
type oracle struct {
	g     *graph.Graph
	gt    *datasets.CSBMTruth
	sign  float64
	truth datasets.GroundTruth
}

func (o *oracle) Name() string { return "oracle" }

func (o *oracle) Schedule() cuq.Schedule { return cuq.Schedule{} }

func (o *oracle) Fit(split graph.Split, _ ...cuq.FitOption) (*cuq.History, error) {
	var err error
	o.truth, err = o.gt.Uncertainty(o.g, split.Train)
	return &cuq.History{}, err
}

func (o *oracle) Predict(g *graph.Graph) (*cuq.Prediction, error) {
	scale := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = o.sign * x
		}
		return out
	}
	prob := tensor.New(g.N, g.NumClasses)
	for i, y := range g.Labels {
		prob.Set(i, y, 1)
	}
	return &cuq.Prediction{Model: "oracle", Graph: g, Classes: g.NumClasses, Class: g.Labels, Prob: prob,
		Measures: uq.Measures{TU: scale(o.truth.Total), AU: scale(o.truth.Aleatoric), EU: scale(o.truth.Epistemic)}}, nil
}

// oraclePreset builds an oracle: a cuq.ClassifierBuilder of the test's own.
type oraclePreset func(g *graph.Graph) (cuq.Classifier, error)

func (o oraclePreset) Classifier(g *graph.Graph) (cuq.Classifier, error) { return o(g) }

func TestSweepOracle(t *testing.T) {
	const n, h, s, seed = 300, 0.8, 1.0, 4
	for _, sign := range []float64{1, -1} {
		model := truth.Model{Name: "oracle", Preset: oraclePreset(func(g *graph.Graph) (cuq.Classifier, error) {
			// The graph the sweep draws, regenerated with the sweep's
			// defaults to obtain its truth.
			_, gt, err := datasets.CSBM(n, 3).BernoulliEdges().Homophily(h).AvgDegree(5).Features(16).
				FeatureSignal(s).Seed(seed).DoneWithTruth()
			return &oracle{g: g, gt: gt, sign: sign}, err
		})}
		table, err := truth.Sweep(model).Nodes(n).Homophily(h).Signal(s).Seeds(seed).Done()
		if err != nil {
			t.Fatal(err)
		}
		if len(table) != 3 {
			t.Fatalf("%d rows, want TU, AU and EU", len(table))
		}
		wantAUROC := (1 + sign) / 2
		for _, r := range table {
			if math.Abs(r.Spearman-sign) > 1e-12 || math.Abs(r.AUROC-wantAUROC) > 1e-12 || r.Accuracy != 1 {
				t.Errorf("sign %v, %s against %s: Spearman %v, AUROC %v, accuracy %v; want %v, %v, 1",
					sign, r.Measure, r.Truth, r.Spearman, r.AUROC, r.Accuracy, sign, wantAUROC)
			}
		}
	}
}

func TestTruthOf(t *testing.T) {
	want := map[uq.Measure]truth.Kind{uq.TU: truth.Total, uq.LC: truth.Total, uq.AU: truth.Aleatoric,
		uq.EU: truth.Epistemic, uq.EUPC: truth.Epistemic, uq.EUSO: truth.Epistemic}
	for m, k := range want {
		if got := truth.TruthOf(m); got != k {
			t.Errorf("TruthOf(%s) = %s, want %s", m, got, k)
		}
	}
}

func TestSweepErrors(t *testing.T) {
	gpn := truth.Model{Name: "GPN", Preset: cuq.GPN()}
	for _, c := range []struct {
		name string
		cfg  *truth.SweepConfig
		want string
	}{
		{"no models", truth.Sweep(), "sweep without models"},
		{"no preset", truth.Sweep(truth.Model{Name: "x"}), `model "x" has no preset`},
		{"empty grid", truth.Sweep(gpn).Signal(), "empty grid"},
		{"generator", truth.Sweep(gpn).Homophily(2), "homophily 2, signal 0.5, seed 1: datasets.CSBM: homophily 2 outside [0, 1]"},
		{"model", truth.Sweep(truth.Model{Name: "bad", Preset: cuq.GPN().Init(0)}), "bad: "},
		{"no classifier", truth.Sweep(truth.Model{Name: "none", Preset: noClassifier{}}), "none: the preset truth_test.noClassifier built no classifier"},
	} {
		_, err := c.cfg.Done()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// With homophily 0.9 and feature signal 2 a trained APPNP's TU ranks the
// nodes by the ground-truth total uncertainty (Spearman 0.55 to 0.77 and
// AUROC 0.80 to 0.89 on seeds 1 to 8) and GPN's AU correlates positively
// with the ground-truth aleatoric uncertainty (0.12 to 0.26 on seeds 1
// to 8). The thresholds leave a margin below the smallest values measured.
// noClassifier is a preset that builds nothing and says nothing.
type noClassifier struct{}

func (noClassifier) Classifier(*graph.Graph) (cuq.Classifier, error) { return nil, nil }

func TestSweepTrainedModels(t *testing.T) {
	appnp := truth.Model{Name: "APPNP", Preset: cuq.APPNP()}
	gpn := truth.Model{Name: "GPN", Preset: cuq.GPN()}
	table, err := truth.Sweep(appnp, gpn).Homophily(0.9).Signal(2).Seeds(1, 2, 3).Done()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range table {
		switch {
		case r.Model == "APPNP" && r.Measure == uq.TU:
			checked++
			if r.Truth != truth.Total || r.Spearman < 0.4 || r.AUROC < 0.7 {
				t.Errorf("seed %d: APPNP TU against %s: Spearman %.3f, AUROC %.3f; want > 0.4 and > 0.7", r.Seed, r.Truth, r.Spearman, r.AUROC)
			}
		case r.Model == "GPN" && r.Measure == uq.AU:
			checked++
			if r.Truth != truth.Aleatoric || r.Spearman < 0.05 {
				t.Errorf("seed %d: GPN AU against %s: Spearman %.3f, want > 0.05", r.Seed, r.Truth, r.Spearman)
			}
		}
		if r.Accuracy < 0.9 || r.BayesAccuracy < r.Accuracy-0.02 {
			t.Errorf("seed %d: %s accuracy %.3f, Bayes %.3f", r.Seed, r.Model, r.Accuracy, r.BayesAccuracy)
		}
	}
	if checked != 6 {
		t.Errorf("%d rows checked, want 6", checked)
	}
}

func TestTableMarkdown(t *testing.T) {
	table := truth.Table{
		{Model: "GPN", Homophily: 0.9, Signal: 2, Seed: 1, Measure: uq.AU, Truth: truth.Aleatoric, Spearman: 0.2, AUROC: 0.6, Accuracy: 0.9, BayesAccuracy: 1},
		{Model: "GPN", Homophily: 0.9, Signal: 2, Seed: 2, Measure: uq.AU, Truth: truth.Aleatoric, Spearman: math.NaN(), AUROC: 0.8, Accuracy: 0.8, BayesAccuracy: 0.9},
	}
	want := "| GPN | 0.9 | 2 | AU | aleatoric | 0.200 | 0.700 | 0.850 | 0.950 |\n"
	if got := table.Markdown(); !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 3 {
		t.Errorf("Markdown:\n%s\nwant a header and the line\n%s", got, want)
	}
}

// TestPointScatter draws a prediction whose AU is the ground truth and one
// whose AU is its negation: the points must pair each test node's rank by
// the truth with its rank by the score, and the legend give ρ = 1 and −1.
func TestPointScatter(t *testing.T) {
	p, err := truth.Sweep().Nodes(200).Point(0.8, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	if p.Graph.N != 200 || len(p.Split.Test) == 0 || len(p.Truth.Aleatoric) != 200 {
		t.Fatalf("point: %d nodes, %d test nodes, %d aleatoric truths", p.Graph.N, len(p.Split.Test), len(p.Truth.Aleatoric))
	}
	pred := func(name string, sign float64) *cuq.Prediction {
		au := make([]float64, p.Graph.N)
		for i, v := range p.Truth.Aleatoric {
			au[i] = sign * v
		}
		return &cuq.Prediction{Model: name, Graph: p.Graph, Classes: p.Graph.NumClasses, Class: p.Graph.Labels,
			Measures: uq.Measures{AU: au}}
	}
	c, err := p.Scatter(uq.AU, pred("right", 1), pred("reversed", -1))
	if err != nil {
		t.Fatal(err)
	}
	var opt struct {
		Series []struct {
			Name string
			Data [][2]float64
		}
	}
	if err := json.Unmarshal([]byte(c.Option()), &opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.Series) != 2 || opt.Series[0].Name != "right (ρ = 1.00)" || opt.Series[1].Name != "reversed (ρ = -1.00)" {
		t.Fatalf("series %v, want right (ρ = 1.00) and reversed (ρ = -1.00)", opt.Series)
	}
	// The fractional rank of test node i's truth, counted by hand: the
	// nodes below it plus half the others tied with it, over n − 1.
	n := len(p.Split.Test)
	rank := func(i int) float64 {
		below, tied := 0, 0
		for _, j := range p.Split.Test {
			switch v, w := p.Truth.Aleatoric[j], p.Truth.Aleatoric[i]; {
			case v < w:
				below++
			case v == w && j != i:
				tied++
			}
		}
		return (float64(below) + float64(tied)/2) / float64(n-1)
	}
	for k, reversed := range []bool{false, true} {
		pts := opt.Series[k].Data
		if len(pts) != n {
			t.Fatalf("series %d: %d points for %d test nodes", k, len(pts), n)
		}
		for j, i := range p.Split.Test {
			x, y := rank(i), rank(i)
			if reversed {
				y = 1 - x
			}
			if math.Abs(pts[j][0]-x) > 1e-12 || math.Abs(pts[j][1]-y) > 1e-12 {
				t.Fatalf("series %d, test node %d: point %v, want (%v, %v)", k, i, pts[j], x, y)
			}
		}
	}
	small := &cuq.Prediction{Model: "small", Class: make([]int, 10), Measures: uq.Measures{AU: make([]float64, 10)}}
	if _, err := p.Scatter(uq.AU, small); err == nil || !strings.Contains(err.Error(), "small predicts 10 nodes, the point's graph has 200") {
		t.Errorf("error %v for a prediction on another graph", err)
	}
	if _, err := p.Scatter(uq.AU); err == nil || !strings.Contains(err.Error(), "no predictions") {
		t.Errorf("error %v without predictions", err)
	}
}

func TestTableOfAndSpearman(t *testing.T) {
	row := func(model string, seed uint64, m uq.Measure, rho float64) truth.Row {
		return truth.Row{Model: model, Homophily: 0.9, Signal: 2, Seed: seed, Measure: m, Spearman: rho}
	}
	table := truth.Table{row("GPN", 1, uq.AU, 0.1), row("GPN", 1, uq.EU, 0.5), row("GPN", 2, uq.AU, 0.3),
		row("GPN", 3, uq.AU, math.NaN()), row("CUQ", 1, uq.AU, 0.7)}
	if got := table.Of(uq.AU); len(got) != 4 || got[1].Seed != 2 || got[3].Model != "CUQ" {
		t.Errorf("Of(AU) = %v", got)
	}
	// Seeds 1 and 2 (the NaN left out): mean 0.2, SE = sd/√2 = 0.1.
	st, err := table.Spearman("GPN", uq.AU, 0.9, 2)
	if err != nil || st.N != 2 || math.Abs(st.Mean-0.2) > 1e-12 || math.Abs(st.SE-0.1) > 1e-12 {
		t.Errorf("GPN AU: %+v, %v; want mean 0.2, SE 0.1 over 2 seeds", st, err)
	}
	if _, err := table.Spearman("GPN", uq.AU, 0.5, 2); err == nil || !strings.Contains(err.Error(), "no Spearman correlation of GPN's AU at h=0.5, s=2") {
		t.Errorf("error %v for a missing grid point", err)
	}
}
