package truth_test

import (
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
		{"model", truth.Sweep(truth.Model{Name: "bad", Preset: cuq.GPN().MaxEpochs(0)}), "bad: "},
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
