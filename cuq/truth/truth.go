// Package truth measures how well a model's uncertainty ranks nodes by
// their ground-truth uncertainty, on contextual stochastic block models
// whose generator is known (datasets.CSBMTruth, after Fuchsgruber et al.,
// "Uncertainty for Active Learning on Graphs", ICML 2024).
//
// Sweep draws independent-edge CSBM graphs over a grid of homophily h and
// feature signal s, trains every model on a split of each, and compares
// each uncertainty measure of its prediction on the test nodes with the
// matching ground truth (TruthOf): TU and LC with the total ground truth
// 1 − p(yᵢ | X, A, y_train), AU with the aleatoric 1 − p(yᵢ | X, A, y₋ᵢ),
// and EU, EU_PC and EU_SO with the epistemic
// ln p(yᵢ | X, A, y₋ᵢ) − ln p(yᵢ | X, A, y_train), by Spearman's rank
// correlation and by the AUROC of detecting the nodes in the ground
// truth's top fraction q (package eval). docs/guide/groundtruth.md holds the
// definitions and measured results.
package truth

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Kind names a ground-truth uncertainty.
type Kind int

// The ground truths of datasets.GroundTruth.
const (
	Total     Kind = iota // 1 − p(yᵢ | X, A, y_O)
	Aleatoric             // 1 − p(yᵢ | X, A, y₋ᵢ)
	Epistemic             // ln p(yᵢ | X, A, y₋ᵢ) − ln p(yᵢ | X, A, y_O)
)

// String returns "total", "aleatoric" or "epistemic".
func (k Kind) String() string {
	switch k {
	case Total:
		return "total"
	case Aleatoric:
		return "aleatoric"
	case Epistemic:
		return "epistemic"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Definition returns the ground truth's formula, y_O being the observed
// (training) labels.
func (k Kind) Definition() string {
	switch k {
	case Total:
		return "1 − p(yᵢ | X, A, y_O)"
	case Aleatoric:
		return "1 − p(yᵢ | X, A, y₋ᵢ)"
	case Epistemic:
		return "ln p(yᵢ | X, A, y₋ᵢ) − ln p(yᵢ | X, A, y_O)"
	}
	return k.String()
}

// TruthOf returns the ground truth a measure estimates: Total for TU and
// LC, Aleatoric for AU, Epistemic for EU, EU_PC and EU_SO.
func TruthOf(m uq.Measure) Kind {
	switch m {
	case uq.AU:
		return Aleatoric
	case uq.EU, uq.EUPC, uq.EUSO:
		return Epistemic
	}
	return Total
}

func (k Kind) of(u datasets.GroundTruth) []float64 {
	switch k {
	case Aleatoric:
		return u.Aleatoric
	case Epistemic:
		return u.Epistemic
	}
	return u.Total
}

// Model is a named model preset: the sweep builds an untrained classifier
// of Preset on each of its graphs (Preset.Classifier) and fits it with
// the options Fit (none: the model's own schedule), e.g.
//
//	truth.Model{Name: "GPN", Preset: cuq.GPN(), Fit: []cuq.FitOption{cuq.MaxEpochs(100)}}
type Model struct {
	Name   string
	Preset cuq.ClassifierBuilder
	Fit    []cuq.FitOption
}

// Row is one model's measure on one graph of the sweep.
type Row struct {
	Model     string
	Homophily float64 // h of the generator
	Signal    float64 // feature signal s of the generator
	Seed      uint64  // the graph's seed
	Measure   uq.Measure
	Truth     Kind // the ground truth the measure is compared with
	// Spearman is the rank correlation of the measure with the ground
	// truth over the test nodes (eval.Spearman), NaN when either is
	// constant.
	Spearman float64
	// AUROC is eval.TopAUROC of the measure against the ground truth.
	AUROC float64
	// Accuracy is the model's test accuracy and BayesAccuracy that of the
	// arg max of the mean-field total posterior p(yᵢ | X, A, y_O), the
	// classifier that knows the generator.
	Accuracy, BayesAccuracy float64
	// Exact reports whether the total and epistemic ground truths are
	// exact (enumeration) or the mean-field approximation.
	Exact bool
}

// Table is the result of a sweep, one row per model, grid point, seed and
// measure, in that order.
type Table []Row

// SweepConfig configures a sweep; create it with Sweep, set options with
// its methods and run it with Done.
type SweepConfig struct {
	models    []Model
	homophily []float64
	signal    []float64
	seeds     []uint64
	nodes     int
	classes   int
	features  int
	degree    float64
	split     graph.SplitSpec
	q         float64
}

// Sweep starts a sweep of the given models. Defaults: 500 nodes in 3
// classes, 16 Gaussian features, average degree 5, homophily {0.5, 0.9},
// signal {0.5, 2}, seed {1}, the split graph.Stratified(0.05, 0.15, 0.8)
// with seed 1, and q = eval.DefaultTopFraction.
func Sweep(models ...Model) *SweepConfig {
	return &SweepConfig{
		models: models, homophily: []float64{0.5, 0.9}, signal: []float64{0.5, 2}, seeds: []uint64{1},
		nodes: 500, classes: 3, features: 16, degree: 5,
		split: graph.Stratified(0.05, 0.15, 0.8).Seed(1), q: eval.DefaultTopFraction,
	}
}

// Homophily sets the grid of homophily values h (datasets.CSBMConfig).
func (s *SweepConfig) Homophily(h ...float64) *SweepConfig { s.homophily = h; return s }

// Signal sets the grid of feature signals s: class means s·μ_c with
// ‖μ_c‖ ≈ 1 under unit Gaussian noise (datasets.CSBMConfig.FeatureSignal).
func (s *SweepConfig) Signal(snr ...float64) *SweepConfig { s.signal = snr; return s }

// Seeds sets the graph seeds; every grid point draws one graph per seed.
func (s *SweepConfig) Seeds(seeds ...uint64) *SweepConfig { s.seeds = seeds; return s }

// Nodes sets the number of nodes of each graph.
func (s *SweepConfig) Nodes(n int) *SweepConfig { s.nodes = n; return s }

// Classes sets the number of classes.
func (s *SweepConfig) Classes(c int) *SweepConfig { s.classes = c; return s }

// Features sets the feature dimension.
func (s *SweepConfig) Features(f int) *SweepConfig { s.features = f; return s }

// AvgDegree sets the expected degree.
func (s *SweepConfig) AvgDegree(d float64) *SweepConfig { s.degree = d; return s }

// Split sets the split drawn on every graph: the models train on its
// training nodes (the observed labels y_O of the ground truth) and are
// scored on its test nodes.
func (s *SweepConfig) Split(spec graph.SplitSpec) *SweepConfig { s.split = spec; return s }

// TopFraction sets q of the AUROC (eval.TopAUROC).
func (s *SweepConfig) TopFraction(q float64) *SweepConfig { s.q = q; return s }

// Done runs the sweep: for every homophily, signal and seed it draws
// datasets.CSBM(nodes, classes).BernoulliEdges() with those settings,
// computes the ground truth given the split's training labels, and for
// every model builds, fits and predicts it and compares each measure it
// has with the matching ground truth on the test nodes. Errors name the
// model and grid point.
func (s *SweepConfig) Done() (Table, error) {
	if len(s.models) == 0 {
		return nil, fmt.Errorf("truth: sweep without models")
	}
	if len(s.homophily) == 0 || len(s.signal) == 0 || len(s.seeds) == 0 {
		return nil, fmt.Errorf("truth: empty grid: %d homophily values, %d signals, %d seeds", len(s.homophily), len(s.signal), len(s.seeds))
	}
	for _, m := range s.models {
		if m.Preset == nil {
			return nil, fmt.Errorf("truth: model %q has no preset", m.Name)
		}
	}
	var table Table
	for _, h := range s.homophily {
		for _, snr := range s.signal {
			for _, seed := range s.seeds {
				rows, err := s.evaluate(h, snr, seed)
				if err != nil {
					return nil, fmt.Errorf("truth: homophily %v, signal %v, seed %d: %w", h, snr, seed, err)
				}
				table = append(table, rows...)
			}
		}
	}
	slices.SortStableFunc(table, func(a, b Row) int { return cmp.Compare(s.modelIndex(a.Model), s.modelIndex(b.Model)) })
	return table, nil
}

func (s *SweepConfig) modelIndex(name string) int {
	return slices.IndexFunc(s.models, func(m Model) bool { return m.Name == name })
}

// Point is one graph of a sweep: the CSBM drawn at one homophily, signal
// and seed, the sweep's split of it, and the ground truth given the
// split's training labels.
type Point struct {
	Homophily, Signal float64
	Seed              uint64
	Graph             *graph.Graph
	Split             graph.Split
	Truth             datasets.GroundTruth
	// BayesAccuracy is the test accuracy of the arg max of the total
	// posterior p(yᵢ | X, A, y_train), the classifier that knows the
	// generator.
	BayesAccuracy float64
}

// Point draws the sweep's graph at homophily h, signal snr and seed (the
// sweep's nodes, classes, features, degree and split; its models are not
// needed), so that a notebook can look at the models of one grid point
// node by node (Point.Scatter).
func (s *SweepConfig) Point(h, snr float64, seed uint64) (*Point, error) {
	g, gt, err := datasets.CSBM(s.nodes, s.classes).BernoulliEdges().Homophily(h).AvgDegree(s.degree).
		Features(s.features).FeatureSignal(snr).Seed(seed).DoneWithTruth()
	if err != nil {
		return nil, err
	}
	split, err := g.Split(s.split)
	if err != nil {
		return nil, err
	}
	u, err := gt.Uncertainty(g, split.Train)
	if err != nil {
		return nil, err
	}
	bayes, err := bayesAccuracy(g, gt, split)
	if err != nil {
		return nil, err
	}
	return &Point{Homophily: h, Signal: snr, Seed: seed, Graph: g, Split: split, Truth: u, BayesAccuracy: bayes}, nil
}

// evaluate evaluates every model on the graph of one grid point.
func (s *SweepConfig) evaluate(h, snr float64, seed uint64) ([]Row, error) {
	p, err := s.Point(h, snr, seed)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, m := range s.models {
		model, err := m.Preset.Classifier(p.Graph)
		if err == nil && model == nil {
			err = fmt.Errorf("the preset %T built no classifier", m.Preset)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		if _, err := model.Fit(p.Split, m.Fit...); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		pred, err := model.Predict(p.Graph)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		acc := pred.Accuracy(p.Split.Test)
		for _, measure := range pred.Available() {
			score, truth, err := p.compare(pred, measure)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.Name, err)
			}
			row := Row{Model: m.Name, Homophily: h, Signal: snr, Seed: seed, Measure: measure, Truth: TruthOf(measure),
				Accuracy: acc, BayesAccuracy: p.BayesAccuracy, Exact: p.Truth.Exact}
			// A constant score or truth (e.g. EU of a one-member committee)
			// has no rank correlation: NaN, not an error.
			row.Spearman, _ = eval.Spearman(score, truth)
			row.AUROC, _ = eval.TopAUROC(score, truth, s.q)
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// compare returns measure m of pred on the test nodes and the matching
// ground truth (TruthOf) of the same nodes.
func (p *Point) compare(pred *cuq.Prediction, m uq.Measure) (score, truth []float64, err error) {
	if len(pred.Class) != len(p.Graph.Labels) {
		return nil, nil, fmt.Errorf("%s predicts %d nodes, the point's graph has %d", pred.Name(), len(pred.Class), len(p.Graph.Labels))
	}
	score, err = pred.UncertaintyOf(m, p.Split.Test)
	if err != nil {
		return nil, nil, err
	}
	return score, pick(TruthOf(m).of(p.Truth), p.Split.Test), nil
}

// bayesAccuracy is the test accuracy of the arg max of the ground-truth
// total posterior, the classifier that knows the generator.
func bayesAccuracy(g *graph.Graph, gt *datasets.CSBMTruth, split graph.Split) (float64, error) {
	p, err := gt.TotalMeanField(g, split.Train)
	if err != nil {
		return 0, err
	}
	hits := 0
	for _, i := range split.Test {
		row := p.Row(i)
		if slices.Index(row, slices.Max(row)) == g.Labels[i] {
			hits++
		}
	}
	return float64(hits) / float64(max(len(split.Test), 1)), nil
}

func pick(v []float64, nodes []int) []float64 {
	out := make([]float64, len(nodes))
	for k, i := range nodes {
		out[k] = v[i]
	}
	return out
}

// Markdown returns the table in Markdown, one line per model, grid point
// and measure with Spearman, AUROC and the accuracies averaged over the
// seeds (NaN values left out of the means).
func (t Table) Markdown() string {
	type key struct {
		model   string
		h, s    float64
		measure uq.Measure
	}
	type sums struct{ rho, nRho, auroc, nAUROC, acc, bayes, n float64 }
	var keys []key
	acc := map[key]*sums{}
	for _, r := range t {
		k := key{r.Model, r.Homophily, r.Signal, r.Measure}
		a := acc[k]
		if a == nil {
			keys = append(keys, k)
			a = &sums{}
			acc[k] = a
		}
		if !math.IsNaN(r.Spearman) {
			a.rho += r.Spearman
			a.nRho++
		}
		if !math.IsNaN(r.AUROC) {
			a.auroc += r.AUROC
			a.nAUROC++
		}
		a.acc += r.Accuracy
		a.bayes += r.BayesAccuracy
		a.n++
	}
	var b strings.Builder
	b.WriteString("| model | h | s | measure | ground truth | Spearman | AUROC | accuracy | Bayes accuracy |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		a := acc[k]
		fmt.Fprintf(&b, "| %s | %g | %g | %s | %s | %.3f | %.3f | %.3f | %.3f |\n",
			k.model, k.h, k.s, k.measure, TruthOf(k.measure), a.rho/a.nRho, a.auroc/a.nAUROC, a.acc/a.n, a.bayes/a.n)
	}
	return b.String()
}

// Of returns the rows of t whose measure is one of measures, in order.
func (t Table) Of(measures ...uq.Measure) Table {
	var out Table
	for _, r := range t {
		if slices.Contains(measures, r.Measure) {
			out = append(out, r)
		}
	}
	return out
}

// Spearman returns the mean and standard error over the seeds of model's
// Spearman correlation for measure m at homophily h and signal s (NaN
// values left out), and an error when the table has no defined value
// there.
func (t Table) Spearman(model string, m uq.Measure, h, s float64) (eval.Stat, error) {
	var v []float64
	for _, r := range t {
		if r.Model == model && r.Measure == m && r.Homophily == h && r.Signal == s && !math.IsNaN(r.Spearman) {
			v = append(v, r.Spearman)
		}
	}
	if len(v) == 0 {
		return eval.Stat{}, fmt.Errorf("truth: no Spearman correlation of %s's %v at h=%g, s=%g", model, m, h, s)
	}
	return eval.Aggregate(v, 0), nil
}
