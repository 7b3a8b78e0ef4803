package experiment

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// NoiseBudget is the fraction of each node group whose features are replaced
// in the feature-noise settings, as in the reference implementation.
const NoiseBudget = 0.1

// NoiseSeed seeds the feature noise, as the reference's set_seed(42).
const NoiseSeed = 42

// PredictedAlpha is the key, next to the measure names, of the
// accuracy-rejection curve of the reference's prediction_epistemic
// confidence α_ŷ, the pseudo-count of the predicted class (uncertainty
// −α_ŷ). First-order models (APPNP) have none.
const PredictedAlpha = "ALPHA_PRED"

// Job is one training run of the grid and the settings evaluated with the
// trained model. Trained names the setting whose model the job trains:
// Classification for the model of the clean graph, which every setting
// without a model of its own evaluates (the noise settings re-use the
// classification model of the same split and init, as the reference
// does, without retraining), or a setting that trains its own model
// (LeaveOutClasses), which the job then evaluates alone.
type Job struct {
	Dataset  string
	Model    Model
	Split    int // 1-based
	Init     int // 1-based
	Trained  Setting
	Settings []Setting
}

// String describes the job, e.g. "CoraML GPN split 1 init 1
// [classification gaussian]".
func (j Job) String() string {
	return fmt.Sprintf("%s %s split %d init %d %v", j.Dataset, j.Model, j.Split, j.Init, j.Settings)
}

// kind names the model a job trains in its record's file name: "clean"
// for the classification model, else the setting's name.
func (j Job) kind() string {
	if j.Trained == Classification {
		return "clean"
	}
	return j.Trained.String()
}

// Path is the job's record file relative to the output directory:
// runs/<dataset>/<model>/s<split>_i<init>_<kind>.json, kind "clean" for
// the classification model, else the name of the setting it trains for
// ("loc").
func (j Job) Path() string {
	return filepath.Join("runs", j.Dataset, j.Model.Key(), fmt.Sprintf("s%02d_i%02d_%s.json", j.Split, j.Init, j.kind()))
}

// validate checks that the job's settings fit its graph.
func (j Job) validate() error {
	if j.Split < 1 || j.Init < 1 {
		return fmt.Errorf("experiment: job %v: split and init are numbered from 1", j)
	}
	if len(j.Settings) == 0 {
		return fmt.Errorf("experiment: job %v: no settings", j)
	}
	if j.Trained != Classification && !j.Trained.ownModel() {
		return fmt.Errorf("experiment: job %v: setting %v has no model of its own to train", j, j.Trained)
	}
	for _, s := range j.Settings {
		own := j.Trained != Classification
		if s.ownModel() != own || own && s != j.Trained {
			return fmt.Errorf("experiment: job %v: setting %v cannot share a model with the others", j, s)
		}
	}
	return nil
}

// RunOptions change how RunJob trains.
type RunOptions struct {
	// MaxEpochs, when positive, replaces the preset's maximum number of
	// training epochs (for quick runs and tests).
	MaxEpochs int
	// OnEpoch, when set, is called after every training epoch.
	OnEpoch func(cuq.EpochStats)
	// IndependentDropout draws the job's dropout masks from the stream of
	// its split (Grid.IndependentDropout); false draws the reference's,
	// the same on every split.
	IndependentDropout bool
	// Trainings, when set, shares trainings with the other jobs run with
	// it (cuq.ShareTrainings): a model whose training another job already
	// did takes its trained state, bit for bit what it would have trained.
	Trainings *cuq.TrainingCache
}

// RunJob trains the job's model on d and evaluates it in the job's
// settings:
//
//   - Classification: accuracy on the test nodes and the accuracy-rejection
//     curve of every measure the model has (and of PredictedAlpha);
//   - LeaveOutClasses: the model is trained on the graph whose last
//     d.LeftOut classes are unlabelled; ID accuracy on the ID test nodes,
//     OOD accuracy (0 by construction) on the left-out test nodes, and the
//     AUROC of each measure for ID vs OOD test nodes;
//   - GaussianNoise, BernoulliNoise: the classification model is evaluated
//     on a graph whose features of 10% of the nodes are replaced
//     (graph.PerturbFeatures, seed 42); accuracy on all test nodes, ID and
//     OOD accuracy on the clean and perturbed test nodes, AUROCs;
//   - RandomEdges, DICE: the classification model is evaluated on a graph
//     whose edges are perturbed (graph.PerturbStructure, StructureFraction
//     of them, seed 42); the OOD test nodes are those incident to a changed
//     edge. GKDE, which has nothing to train, is estimated anew there;
//   - GaussianSweep, BernoulliSweep: the noise settings at every severity
//     of the noise's sweep, one result per severity in Result.Sweep.
//
// Each OOD result also holds the mean uncertainty of the ID and OOD test
// nodes per measure, for the Change columns of id_ood.csv, and every
// result the metrics beyond the paper (Result.Metrics; see Metric).
func RunJob(ctx context.Context, d *Dataset, j Job, o RunOptions) (*Record, error) {
	if err := j.validate(); err != nil {
		return nil, err
	}
	if j.Dataset != d.Name {
		return nil, fmt.Errorf("experiment: job %v given dataset %s", j, d.Name)
	}
	fail := func(err error) (*Record, error) { return nil, fmt.Errorf("experiment: %v: %w", j, err) }
	split, err := d.Split(j.Split)
	if err != nil {
		return fail(err)
	}
	g, train, labels := d.Graph, split, d.Graph.Labels
	var own *training
	if j.Trained != Classification {
		if own, err = j.Trained.record().train(d, split, j.Split); err != nil {
			return fail(err)
		}
		g, train, labels = own.graph, own.split, own.labels
	}
	start := time.Now()
	model, hist, err := j.fit(ctx, d, g, train, o)
	if err != nil {
		return fail(err)
	}
	rec := &Record{
		Dataset: j.Dataset, Model: j.Model.Key(), Split: j.Split, Init: j.Init, MaxEpochs: o.MaxEpochs, IndependentDropout: o.IndependentDropout,
		Epochs: len(hist.Epochs), BestEpoch: hist.BestEpoch, TrainSeconds: time.Since(start).Seconds(),
		SharedTrainings: sharedTrainings(hist), Results: map[string]*Result{},
	}
	rec.setTrained(j.Trained)
	start = time.Now()
	pred, err := model.Predict(nil)
	if err != nil {
		return fail(err)
	}
	if rec.ValAccuracy, rec.ValChance, err = hist.Validation(pred, labels, train.Val); err != nil {
		return fail(err)
	}
	shift := shiftEvaluator{predict: j.shiftPredict(d, g, train, model, o), labels: labels, test: split.Test}
	if m, ok := model.(*cuq.Model); ok && j.Model != GKDE {
		shift.predictNodes = m.PredictNodes
	}
	e := &evaluation{pred: pred, shift: shift, d: d, split: split, own: own}
	for _, s := range j.Settings {
		res, err := s.record().evaluate(e)
		if err != nil {
			return fail(fmt.Errorf("%v: %w", s, err))
		}
		rec.Results[s.String()] = res
	}
	rec.EvalSeconds = time.Since(start).Seconds()
	return rec, nil
}

// sharedTrainings counts the trainings of h taken from another job: its
// members' for a committee, else 0 or 1.
func sharedTrainings(h *cuq.History) int {
	n := 0
	for _, m := range h.Members {
		if m.Shared {
			n++
		}
	}
	if h.Members == nil && h.Shared {
		n = 1
	}
	return n
}

// dropoutStream returns the stream of job j's dropout masks: its split's
// with o.IndependentDropout, else 0, the reference's.
func (o RunOptions) dropoutStream(j Job) uint64 {
	if o.IndependentDropout {
		return uint64(j.Split)
	}
	return 0
}

// fit builds job j's model on graph g of d and trains it on the nodes of
// train.
func (j Job) fit(ctx context.Context, d *Dataset, g *graph.Graph, train graph.Split, o RunOptions) (cuq.Classifier, *cuq.History, error) {
	model, err := j.Model.classifier(d, g, j.Init, o.dropoutStream(j))
	if err != nil {
		return nil, nil, err
	}
	fitOpts := []cuq.FitOption{Schedule(d.Name, model, o.MaxEpochs), cuq.WithContext(ctx), cuq.ShareTrainings(o.Trainings)}
	if o.OnEpoch != nil {
		fitOpts = append(fitOpts, cuq.OnEpoch(o.OnEpoch))
	}
	hist, err := model.Fit(train, fitOpts...)
	if err != nil {
		return nil, nil, err
	}
	return model, hist, nil
}

// shiftPredict returns how model, job j's trained on graph g, predicts on
// a shifted graph: with model itself, except GKDE's, whose estimate
// belongs to its adjacency: on a graph with other edges it is estimated
// anew from the same training labels, which trains nothing.
func (j Job) shiftPredict(d *Dataset, g *graph.Graph, train graph.Split, model cuq.Classifier, o RunOptions) func(*graph.Graph) (*cuq.Prediction, error) {
	if j.Model != GKDE {
		return model.Predict
	}
	return func(shifted *graph.Graph) (*cuq.Prediction, error) {
		if shifted.Adj == g.Adj {
			return model.Predict(shifted)
		}
		m, err := j.Model.classifier(d, shifted, j.Init, o.dropoutStream(j))
		if err != nil {
			return nil, err
		}
		if _, err := m.Fit(train); err != nil {
			return nil, err
		}
		return m.Predict(nil)
	}
}

// classification evaluates the test nodes of split: accuracy, one
// accuracy-rejection curve per available measure, and the metrics beyond
// the paper (see classificationMetrics).
func classification(pred *cuq.Prediction, split graph.Split) (*Result, error) {
	test := split.Test
	acc, err := eval.Accuracy(pred.Class, pred.Graph.Labels, test)
	if err != nil {
		return nil, err
	}
	res := &Result{Accuracy: acc, ARC: map[string][]float64{}}
	correct := pred.Correct(test)
	curve := func(key string, u []float64) error {
		c, err := eval.ARC(u, correct)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		for i, a := range c.Acc {
			if math.IsNaN(a) {
				return fmt.Errorf("%s: accuracy-rejection curve undefined at p = %v", key, c.P[i])
			}
		}
		res.ARC[key] = c.Acc
		return nil
	}
	for _, m := range pred.Available() {
		u, err := pred.UncertaintyOf(m, test)
		if err != nil {
			return nil, err
		}
		if err := curve(m.String(), u); err != nil {
			return nil, err
		}
	}
	if pred.Alpha != nil {
		u := make([]float64, len(test))
		for k, i := range test {
			u[k] = -pred.Alpha.At(i, pred.Class[i])
		}
		if err := curve(PredictedAlpha, u); err != nil {
			return nil, err
		}
	}
	if err := classificationMetrics(pred, split, res); err != nil {
		return nil, err
	}
	return res, nil
}

// detection evaluates OOD detection of the ood nodes against the id nodes:
// their accuracies, each measure's AUROC (OOD positive, uncertainty as
// score), its AUPR-Out, AUPR-In and FPR@95 (Result.Metrics) and mean
// uncertainties. Non-finite means are left out.
func detection(pred *cuq.Prediction, labels, id, ood []int) (*Result, error) {
	return detectionOf([]scored{{pred, id, ood}}, labels)
}

// scored is a prediction and the ID and OOD test nodes read off it.
type scored struct {
	pred    *cuq.Prediction
	id, ood []int
}

// detectionOf is detection over several predictions: each part's ID and
// OOD nodes are read off its own prediction (the isolated perturbations
// score every perturbed node on a graph of its own). The measures are
// those every part has; the ID nodes' uncertainties precede the OOD
// nodes', each in the parts' order.
func detectionOf(parts []scored, labels []int) (*Result, error) {
	var nID, nOOD, rightID, rightOOD int
	for _, p := range parts {
		for _, i := range p.id {
			if p.pred.Class[i] == labels[i] {
				rightID++
			}
		}
		for _, i := range p.ood {
			if p.pred.Class[i] == labels[i] {
				rightOOD++
			}
		}
		nID, nOOD = nID+len(p.id), nOOD+len(p.ood)
	}
	if nID == 0 || nOOD == 0 {
		return nil, fmt.Errorf("need ID and OOD test nodes, have %d ID and %d OOD", nID, nOOD)
	}
	idAcc, oodAcc := float64(rightID)/float64(nID), float64(rightOOD)/float64(nOOD)
	res := &Result{IDAccuracy: &idAcc, OODAccuracy: &oodAcc, NumID: nID, NumOOD: nOOD,
		AUROC: map[string]float64{}, IDMean: map[string]float64{}, OODMean: map[string]float64{}, Metrics: map[string]float64{}}
	for _, m := range parts[0].pred.Available() {
		ui, uo := make([]float64, 0, nID), make([]float64, 0, nOOD)
		for _, p := range parts {
			u, err := p.pred.Uncertainty(m)
			if err != nil {
				return nil, err
			}
			for _, i := range p.id {
				ui = append(ui, u[i])
			}
			for _, i := range p.ood {
				uo = append(uo, u[i])
			}
		}
		// DetectionOf's AUROC is eval.AUROC of the same scores.
		d, err := eval.DetectionOf(ui, uo)
		if err != nil {
			return nil, err
		}
		res.AUROC[m.String()] = d.AUROC
		res.Metrics[AUPROut.Key(m.String())] = d.AUPRPositive
		res.Metrics[AUPRIn.Key(m.String())] = d.AUPRNegative
		res.Metrics[FPR95.Key(m.String())] = d.FPR95
		if mi, mo := mean(ui), mean(uo); finite(mi) && finite(mo) {
			res.IDMean[m.String()], res.OODMean[m.String()] = mi, mo
		}
	}
	return res, nil
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
