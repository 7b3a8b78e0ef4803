package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// StructureFraction is the fraction of the edges that the structure-noise
// settings (RandomEdges, DICE) perturb.
const StructureFraction = 0.1

// ConformalAlpha is the miscoverage level of the grid's conformal
// prediction sets: each set should hold the label with probability at
// least 1 − ConformalAlpha = 90%.
const ConformalAlpha = 0.1

// ConformalSeed seeds the grid's split of the test nodes into calibration
// and evaluation halves, and the randomisation of the APS and RAPS scores.
const ConformalSeed = 42

// conformalScores are the scores of the grid's conformal prediction sets
// (conformal.DefaultScores), scoreNames their names in records and tables.
var (
	conformalScores = conformal.DefaultScores()
	scoreNames      = []string{"APS", "RAPS", "DAPS"}
)

// severities returns the severities of the sweep of noise.
func severities(noise graph.Noise) []float64 {
	if noise == graph.Gaussian {
		return graph.GaussianSeverities
	}
	return graph.BernoulliSeverities
}

// shiftEvaluator evaluates a classification-trained model on shifted
// graphs, without retraining: predict returns the model's prediction on a
// shifted graph.
type shiftEvaluator struct {
	predict func(*graph.Graph) (*cuq.Prediction, error)
	// predictNodes, when set, predicts for some nodes alone, with the
	// bits predict gives them (cuq.Model.PredictNodes).
	predictNodes func(*graph.Graph, []int) (*cuq.Prediction, error)
	labels       []int
	test         []int
}

// predictOn returns the model's prediction on g for the given nodes:
// predictNodes's if set, else predict's for every node.
func (e shiftEvaluator) predictOn(g *graph.Graph, nodes []int) (*cuq.Prediction, error) {
	if e.predictNodes != nil {
		return e.predictNodes(g, nodes)
	}
	return e.predict(g)
}

// evaluate predicts on the perturbed graph p and evaluates the detection
// of its OOD test nodes, and the accuracy on all test nodes.
func (e shiftEvaluator) evaluate(p *graph.Perturbed, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	pred, err := e.predict(p.Graph)
	if err != nil {
		return nil, err
	}
	res, err := detection(pred, e.labels, p.IDTest, p.OODTest)
	if err != nil {
		return nil, err
	}
	if res.Accuracy, err = eval.Accuracy(pred.Class, e.labels, e.test); err != nil {
		return nil, err
	}
	return res, nil
}

// sweep evaluates the feature noise at every severity of its sweep.
func (e shiftEvaluator) sweep(g *graph.Graph, split graph.Split, noise graph.Noise) (*Result, error) {
	res := &Result{}
	for _, severity := range severities(noise) {
		p, err := e.evaluate(graph.PerturbFeaturesWith(g, split, graph.FeatureShift{
			Noise: noise, Budget: NoiseBudget, Severity: severity, Seed: NoiseSeed}))
		if err != nil {
			return nil, fmt.Errorf("severity %v: %w", severity, err)
		}
		p.Severity = severity
		res.Sweep = append(res.Sweep, p)
	}
	return res, nil
}

// classificationMetrics records in res the metrics beyond the paper on the
// test nodes of split: calibration (with its reliability bins) before and
// after temperature scaling fitted on the validation nodes, and for every
// measure the AURC and the detection of misclassified nodes; the coverage
// and set sizes of conformal prediction sets calibrated on half of the
// test nodes and evaluated on the other half.
func classificationMetrics(pred *cuq.Prediction, split graph.Split, res *Result) error {
	res.Metrics = map[string]float64{}
	if err := calibrationMetrics(pred, split, res); err != nil {
		return err
	}
	if err := selectiveMetrics(pred, split.Test, res); err != nil {
		return err
	}
	return conformalMetrics(pred, split.Test, res)
}

// put sets metric m of measure or score of (empty for none) in res.Metrics.
func (res *Result) put(m Metric, of string, v float64) { res.Metrics[m.Key(of)] = v }

// calibrationMetrics records in res the calibration of the test nodes of
// split, with its reliability bins, before and after temperature scaling
// fitted on the validation nodes.
func calibrationMetrics(pred *cuq.Prediction, split graph.Split, res *Result) error {
	test := split.Test
	cal, err := pred.Calibration(test, eval.CalibrationOptions{})
	if err != nil {
		return err
	}
	res.put(ECE, "", cal.ECE)
	res.put(AdaptiveECE, "", cal.AdaptiveECE)
	res.put(MCE, "", cal.MCE)
	res.put(Brier, "", cal.Brier)
	res.put(NLL, "", cal.NLL)
	res.Reliability = make([]BinCount, len(cal.Bins))
	for k, b := range cal.Bins {
		if b.Count > 0 {
			res.Reliability[k] = BinCount{Count: b.Count, Correct: int(math.Round(b.Accuracy * float64(b.Count))),
				ConfidenceSum: b.Confidence * float64(b.Count)}
		}
	}
	scaled, t, err := pred.TemperatureScaled(split.Val)
	if err != nil {
		return err
	}
	if cal, err = scaled.Calibration(test, eval.CalibrationOptions{}); err != nil {
		return err
	}
	res.put(Temperature, "", t)
	res.put(ECEScaled, "", cal.ECE)
	res.put(NLLScaled, "", cal.NLL)
	return nil
}

// selectiveMetrics records in res, for every measure, the AURC of the test
// nodes and, when some are right and some wrong, the detection of the
// misclassified ones.
func selectiveMetrics(pred *cuq.Prediction, test []int, res *Result) error {
	right, wrong, err := pred.SplitByCorrectness(test)
	if err != nil {
		return err
	}
	for _, m := range pred.Available() {
		rc, err := pred.RiskCoverage(m, test)
		if err != nil {
			return err
		}
		res.put(AURC, m.String(), rc.AURC())
		if len(right) == 0 || len(wrong) == 0 {
			continue
		}
		d, err := pred.MisclassificationDetection(m, test)
		if err != nil {
			return err
		}
		res.put(MisclassAUROC, m.String(), d.AUROC)
		res.put(MisclassAUPR, m.String(), d.AUPRPositive)
	}
	return nil
}

// conformalMetrics records in res the coverage and set sizes of the
// conformal prediction sets calibrated on half of the test nodes and
// evaluated on the other half.
func conformalMetrics(pred *cuq.Prediction, test []int, res *Result) error {
	sets, err := pred.Conformal(test, conformal.Options{Scores: conformalScores, Alpha: ConformalAlpha, Seed: ConformalSeed})
	if err != nil {
		return err
	}
	res.SetSizes = map[string][]int{}
	for k, c := range sets {
		name := scoreNames[k]
		res.put(Coverage, name, c.Coverage)
		res.put(SetSize, name, c.MeanSize)
		res.put(Singletons, name, c.SingletonRate)
		res.SetSizes[name] = c.SizeCounts()
	}
	return nil
}

// graphCalibration records the test accuracy, the classwise ECE and the
// ECE and NLL of the test nodes of pred before calibration, after
// temperature scaling (fitted on the validation nodes) and after CaGCN
// and GATS with their defaults (fitted on the split: GATS also uses the
// training nodes); and at each stage the ECE of the test nodes of every
// degree group and every homophily group, with the groups' sizes (see
// ECEByDegree and ECEByHomophily).
func graphCalibration(pred *cuq.Prediction, split graph.Split) (*Result, error) {
	test := split.Test
	acc, err := eval.Accuracy(pred.Class, pred.Graph.Labels, test)
	if err != nil {
		return nil, err
	}
	res := &Result{Accuracy: acc, Metrics: map[string]float64{}}
	groups, err := newNodeGroups(pred)
	if err != nil {
		return nil, err
	}
	record := func(p *cuq.Prediction, ece, nll, byDegree, byHomophily Metric) (eval.Calibration, error) {
		cal, err := p.Calibration(test, groups.opts)
		if err != nil {
			return eval.Calibration{}, err
		}
		res.Metrics[ece.Key("")], res.Metrics[nll.Key("")] = cal.ECE, cal.NLL
		recordGroupECE(res.Metrics, cal, byDegree, byHomophily)
		return cal, nil
	}
	cal, err := record(pred, ECE, NLL, ECEByDegree, ECEByHomophily)
	if err != nil {
		return nil, err
	}
	res.Metrics[ClasswiseECE.Key("")] = cal.ClasswiseECE
	groups.recordNodes(res.Metrics, cal)
	scaled, _, err := pred.TemperatureScaled(split.Val)
	if err != nil {
		return nil, err
	}
	if _, err := record(scaled, ECEScaled, NLLScaled, ECEScaledByDegree, ECEScaledByHomophily); err != nil {
		return nil, err
	}
	cagcn, _, err := cuq.CaGCN().Done().Calibrate(pred, split)
	if err != nil {
		return nil, fmt.Errorf("CaGCN: %w", err)
	}
	if _, err := record(cagcn, ECECaGCN, NLLCaGCN, ECECaGCNByDegree, ECECaGCNByHomophily); err != nil {
		return nil, err
	}
	gats, _, err := cuq.GATS().Done().Calibrate(pred, split)
	switch {
	case errors.Is(err, cuq.ErrTemperature):
		// GATS's unconstrained bias can drive a node's temperature to
		// zero or below (seen with GKDE on small graphs): the run has no
		// GATS metrics, and the table shows none.
		return res, nil
	case err != nil:
		return nil, fmt.Errorf("GATS: %w", err)
	}
	_, err = record(gats, ECEGATS, NLLGATS, ECEGATSByDegree, ECEGATSByHomophily)
	return res, err
}

// nodeGroups are the degree and homophily groups of a graph's nodes that
// graphCalibration records the ECE of.
type nodeGroups struct {
	// opts give every node's degree and local homophily.
	opts eval.CalibrationOptions
	// degreeLabels name the degree groups of the whole graph, the groups
	// of every run on it.
	degreeLabels []string
}

// newNodeGroups returns the groups of pred's graph; none for a graph
// without edges.
func newNodeGroups(pred *cuq.Prediction) (*nodeGroups, error) {
	adj := pred.Graph.Adj
	if adj == nil {
		return &nodeGroups{}, nil
	}
	degree, err := eval.Degrees(adj.Ptr, adj.Ind)
	if err != nil {
		return nil, err
	}
	homophily, err := eval.LocalHomophily(adj.Ptr, adj.Ind, pred.Graph.Labels, pred.Classes)
	if err != nil {
		return nil, err
	}
	all, err := eval.DegreeGroups(degree, nil)
	if err != nil {
		return nil, err
	}
	g := &nodeGroups{opts: eval.CalibrationOptions{Degree: degree, Homophily: homophily}}
	for _, d := range all {
		g.degreeLabels = append(g.degreeLabels, degreeLabel(d.Lo, d.Hi))
	}
	return g, nil
}

// degreeLabel names the degree group of degrees lo, …, hi: "deg=1",
// "deg=3-4".
func degreeLabel(lo, hi float64) string {
	if lo == hi {
		return fmt.Sprintf("deg=%.0f", lo)
	}
	return fmt.Sprintf("deg=%.0f-%.0f", lo, hi)
}

// homophilyLabel names the homophily group of (lo, hi]: "h=0.2-0.4".
func homophilyLabel(lo, hi float64) string { return fmt.Sprintf("h=%.1f-%.1f", lo, hi) }

// recordGroupECE puts into metrics the ECE of every group of cal with
// nodes, under byDegree and byHomophily.
func recordGroupECE(metrics map[string]float64, cal eval.Calibration, byDegree, byHomophily Metric) {
	for _, c := range cal.ByDegree {
		if c.Count > 0 {
			metrics[byDegree.Key(degreeLabel(c.Lo, c.Hi))] = c.ECE
		}
	}
	for _, c := range cal.ByHomophily {
		if c.Count > 0 {
			metrics[byHomophily.Key(homophilyLabel(c.Lo, c.Hi))] = c.ECE
		}
	}
}

// recordNodes puts into metrics the number of nodes of every group of cal,
// and 0 for each degree group of the graph above cal's largest.
func (g *nodeGroups) recordNodes(metrics map[string]float64, cal eval.Calibration) {
	for k, label := range g.degreeLabels {
		n := 0
		if k < len(cal.ByDegree) {
			n = cal.ByDegree[k].Count
		}
		metrics[NodesByDegree.Key(label)] = float64(n)
	}
	for _, c := range cal.ByHomophily {
		metrics[NodesByHomophily.Key(homophilyLabel(c.Lo, c.Hi))] = float64(c.Count)
	}
}

// GraphConformalScores are the scores of the GraphConformal setting, with
// their names in records and tables: the grid's scores and the
// graph-aware SNAPS and NAPS with their defaults.
var (
	graphConformalScores = append(conformal.DefaultScores(), conformal.SNAPS{}, conformal.NAPS{})
	graphScoreNames      = append(slices.Clone(scoreNames), "SNAPS", "NAPS")
)

// graphSlabDirections is the number of random directions of the
// GraphConformal setting's worst-slab coverage (conformal's default is
// 1000): the worst slab's search dominates the setting's time.
const graphSlabDirections = 100

// graphConformal records the test accuracy and, for each of the
// graphConformalScores at level ConformalAlpha, calibrated on half of the
// test nodes (seed ConformalSeed), the coverage, mean set size and
// singleton rate and the conditional-coverage diagnostics CovGap, SSCV and
// worst-slab coverage (in the node features, graphSlabDirections
// directions).
func graphConformal(pred *cuq.Prediction, split graph.Split) (*Result, error) {
	test := split.Test
	acc, err := eval.Accuracy(pred.Class, pred.Graph.Labels, test)
	if err != nil {
		return nil, err
	}
	sets, err := pred.Conformal(test, conformal.Options{Scores: graphConformalScores, Alpha: ConformalAlpha, Seed: ConformalSeed,
		Diagnostics: &conformal.DiagnosticOptions{Slab: conformal.SlabOptions{Directions: graphSlabDirections, Seed: ConformalSeed}}})
	if err != nil {
		return nil, err
	}
	res := &Result{Accuracy: acc, Metrics: map[string]float64{}}
	for k, c := range sets {
		name := graphScoreNames[k]
		res.Metrics[Coverage.Key(name)] = c.Coverage
		res.Metrics[SetSize.Key(name)] = c.MeanSize
		res.Metrics[Singletons.Key(name)] = c.SingletonRate
		if d := c.Diagnostics; d != nil {
			res.Metrics[CovGap.Key(name)] = d.CovGap
			res.Metrics[SSCV.Key(name)] = d.SSCV
			res.Metrics[WorstSlab.Key(name)] = d.WorstSlab
		}
	}
	return res, nil
}
