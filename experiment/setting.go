package experiment

import (
	"slices"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// Setting is one experimental setting of the grid: an index into the
// catalogue of settings (settings), whose record says what the setting
// is called and how it is run.
type Setting int

// The settings, in the order of the reference, then those beyond the
// paper. A setting added to the catalogue needs no constant: it is found
// by its name (ParseSetting).
const (
	// Classification trains on the full graph and evaluates accuracy and
	// accuracy-rejection curves on the test nodes.
	Classification Setting = iota
	// LeaveOutClasses trains on the graph without the labels of the last
	// classes and detects the test nodes of those classes as OOD.
	LeaveOutClasses
	// GaussianNoise evaluates the classification model on a graph where the
	// features of 10% of the nodes are replaced by N(0, 1) noise, which are
	// OOD.
	GaussianNoise
	// BernoulliNoise is GaussianNoise with Bernoulli(0.5) rows normalised to
	// sum 1.
	BernoulliNoise
	// RandomEdges evaluates the classification model on a graph with
	// graph.RandomEdges structure noise (StructureFraction of the edges
	// added at random); the OOD test nodes are those incident to an added
	// edge. Not in the paper.
	RandomEdges
	// DICE is RandomEdges with the DICE attack (graph.DICE): edges within
	// classes removed, edges between classes added. Not in the paper.
	DICE
	// GaussianSweep repeats GaussianNoise at every severity of
	// graph.GaussianSeverities. Not in the paper.
	GaussianSweep
	// BernoulliSweep repeats BernoulliNoise at every severity of
	// graph.BernoulliSeverities. Not in the paper.
	BernoulliSweep
	// GraphCalibration evaluates the classification model's calibration
	// on the test nodes before and after temperature scaling, CaGCN and
	// GATS (cuq.CaGCN, cuq.GATS), each fitted on the run's split. Not in
	// the paper.
	GraphCalibration
	// GraphConformal evaluates the classification model's conformal
	// prediction sets of APS, RAPS, DAPS and the graph-aware SNAPS and
	// NAPS at level ConformalAlpha (calibrated on half of the test nodes):
	// coverage, set size, singletons and the conditional-coverage
	// diagnostics CovGap, SSCV and worst-slab coverage. Not in the paper.
	GraphConformal
)

// settingRecord is one setting of the catalogue.
//
// A setting either evaluates the model trained for Classification on the
// clean graph (evaluate; the noise and structure shifts, which the
// reference evaluates without retraining), or trains a model of its own
// (train, then evaluate; leave-out classes). A job trains one model and
// evaluates every setting that shares it.
type settingRecord struct {
	name      string   // what a user types and reads: cuq grid -settings, records, tables
	title     string   // in prose and table captions
	reference string   // the reference implementation's name, "" if it has none
	aliases   []string // other accepted names (the reference's file and column names)
	paper     bool     // one of the paper's four settings
	// train, for a setting with a model of its own, returns what that model
	// trains on for split number k (1-based) of d; nil for a setting that
	// evaluates the classification model.
	train func(d *Dataset, split graph.Split, k int) (*training, error)
	// evaluate evaluates the trained model in the setting.
	evaluate func(e *evaluation) (*Result, error)
	// sweep marks a severity sweep, whose result holds one result per
	// severity (Result.Sweep).
	sweep bool
	// metricsOnly marks a setting that records metrics of the
	// classification model's test nodes (Result.Metrics) and detects
	// nothing: graph-aware calibration.
	metricsOnly bool
}

// training is what a setting with a model of its own trains on: a graph,
// its split and the labels the evaluation compares with, and the ID and
// OOD test nodes.
type training struct {
	graph   *graph.Graph
	split   graph.Split
	labels  []int
	id, ood []int
	// shifted is the setting as package graph built it, for the settings
	// of its catalogue (graph.Settings).
	shifted *graph.Shifted
}

// evaluation is what a setting evaluates: the trained model's prediction
// on the graph it was trained on, a way to predict on a shifted graph, the
// dataset and split, and for a setting with a model of its own what it
// trained on.
type evaluation struct {
	pred  *cuq.Prediction
	shift shiftEvaluator
	d     *Dataset
	split graph.Split
	own   *training
}

// settings is the catalogue of settings, the paper's first, each in the
// position of its constant. Adding a setting is one record here (and its
// shift in package graph).
var settings = withGraphSettings([]settingRecord{
	Classification: {
		name: "classification", title: "classification", reference: "classification", aliases: []string{"clf"}, paper: true,
		evaluate: func(e *evaluation) (*Result, error) { return classification(e.pred, e.split) },
	},
	LeaveOutClasses: {
		name: "loc", title: "leave-out classes", reference: "ood_loc", aliases: []string{"oodloc", "leaveoutclasses"}, paper: true,
		train: func(d *Dataset, split graph.Split, _ int) (*training, error) {
			loc, err := graph.LeaveOutClasses(d.Graph, split, d.LeftOut)
			if err != nil {
				return nil, err
			}
			return &training{graph: loc.Graph, split: loc.Split, labels: loc.Labels, id: loc.IDTest, ood: loc.OODTest}, nil
		},
		evaluate: func(e *evaluation) (*Result, error) {
			res, err := detection(e.pred, e.own.labels, e.own.id, e.own.ood)
			if err == nil {
				res.Accuracy = *res.IDAccuracy
			}
			return res, err
		},
	},
	GaussianNoise: {
		name: "gaussian", title: "Gaussian noise", reference: "ood_features_normal",
		aliases: []string{"normal", "oodfeaturesnormal", "oodnormal"}, paper: true,
		evaluate: featureNoise(graph.Gaussian),
	},
	BernoulliNoise: {
		name: "bernoulli", title: "Bernoulli noise", reference: "ood_features_ber",
		aliases: []string{"ber", "oodfeaturesber", "oodber"}, paper: true,
		evaluate: featureNoise(graph.Bernoulli),
	},
	RandomEdges: {
		name: "random_edges", title: "random edges", aliases: []string{"edges"},
		evaluate: structureNoise(graph.RandomEdges),
	},
	DICE: {
		name: "dice", title: "DICE",
		evaluate: structureNoise(graph.DICE),
	},
	GaussianSweep: {
		name: "gaussian_sweep", title: "Gaussian noise severity", sweep: true,
		evaluate: func(e *evaluation) (*Result, error) { return e.shift.sweep(e.d.Graph, e.split, graph.Gaussian) },
	},
	BernoulliSweep: {
		name: "bernoulli_sweep", title: "Bernoulli noise severity", sweep: true,
		evaluate: func(e *evaluation) (*Result, error) { return e.shift.sweep(e.d.Graph, e.split, graph.Bernoulli) },
	},
	GraphCalibration: {
		name: "graph_calibration", title: "calibration that uses the graph", metricsOnly: true,
		evaluate: func(e *evaluation) (*Result, error) { return graphCalibration(e.pred, e.split) },
	},
	GraphConformal: {
		name: "graph_conformal", title: "conformal sets that use the graph", metricsOnly: true,
		evaluate: func(e *evaluation) (*Result, error) { return graphConformal(e.pred, e.split) },
	},
})

// withGraphSettings appends to the records base those of package graph's
// catalogue (graph.Settings) that base does not name: the GPN code's
// other feature perturbations, in the graph and isolated (evaluating the
// classification model, as the GPN code evaluates them), leave-out
// classes chosen at random, and the structural shifts of Bazhenov et al.
// (2023), which train models of their own on their own splits (the
// poisoning settings, graph.Setting.Poisoning).
func withGraphSettings(base []settingRecord) []settingRecord {
	for _, gs := range graph.Settings() {
		if slices.ContainsFunc(base, func(r settingRecord) bool { return r.name == gs.Name }) {
			continue // gaussian, bernoulli and loc are the paper's records
		}
		base = append(base, graphSetting(gs, gs.Poisoning))
	}
	return base
}

// graphSetting returns the record of gs, a setting of package graph's
// catalogue, whose title it takes. A setting with a model of its
// own (own) is built on split number k with seed k, so that each split of
// the grid draws its own structural split or classes; the others evaluate
// the classification model on the shift drawn with NoiseSeed, as the
// paper's noise settings. Every node is scored on the graph of its view;
// the accuracy is that of the scored ID and OOD test nodes, or of the ID
// test nodes alone for a setting with a model of its own, whose OOD nodes
// have no label it was trained to predict.
func graphSetting(gs graph.Setting, own bool) settingRecord {
	r := settingRecord{name: gs.Name, title: gs.Title}
	apply := func(d *Dataset, split graph.Split, seed uint64) (*graph.Shifted, error) {
		return gs.Apply(d.Graph, split, graph.ShiftOptions{Seed: seed, LeftOut: d.LeftOut})
	}
	if own {
		r.train = func(d *Dataset, split graph.Split, k int) (*training, error) {
			sh, err := apply(d, split, uint64(k))
			if err != nil {
				return nil, err
			}
			return &training{graph: sh.Train, split: sh.Split, labels: sh.Labels, id: sh.IDTest, ood: sh.OODTest, shifted: sh}, nil
		}
		r.evaluate = func(e *evaluation) (*Result, error) {
			res, err := scoreViews(e, e.own.shifted)
			if err == nil {
				res.Accuracy = *res.IDAccuracy
			}
			return res, err
		}
		return r
	}
	r.evaluate = func(e *evaluation) (*Result, error) {
		sh, err := apply(e.d, e.split, NoiseSeed)
		if err != nil {
			return nil, err
		}
		res, err := scoreViews(e, sh)
		if err == nil {
			res.Accuracy = (float64(*res.IDAccuracy*float64(res.NumID)) + float64(*res.OODAccuracy*float64(res.NumOOD))) / float64(res.NumID+res.NumOOD)
		}
		return res, err
	}
	return r
}

// scoreViews predicts on every view of sh (the evaluation's own
// prediction where a view is the graph it was made on, else a prediction
// for the view's ID and OOD nodes) and scores its ID and OOD nodes.
func scoreViews(e *evaluation, sh *graph.Shifted) (*Result, error) {
	parts := make([]scored, 0, len(sh.Views))
	for _, v := range sh.Views {
		pred := e.pred
		if g := v.Graph(); g != pred.Graph {
			var err error
			if pred, err = e.shift.predictOn(g, slices.Concat(v.ID, v.OOD)); err != nil {
				return nil, err
			}
		}
		parts = append(parts, scored{pred, v.ID, v.OOD})
	}
	return detectionOf(parts, sh.Labels)
}

// featureNoise evaluates the classification model on the graph whose
// features of NoiseBudget of the nodes are replaced by noise (seed
// NoiseSeed), as the reference; the models of a split share that graph
// (perturbedFeatures).
func featureNoise(noise graph.Noise) func(e *evaluation) (*Result, error) {
	return func(e *evaluation) (*Result, error) {
		return e.shift.evaluate(perturbedFeatures(e.d.Graph, e.split, noise, NoiseBudget, NoiseSeed))
	}
}

// structureNoise evaluates the classification model on the graph whose
// edges kind perturbs (StructureFraction of them, seed NoiseSeed).
func structureNoise(kind graph.Structure) func(e *evaluation) (*Result, error) {
	return func(e *evaluation) (*Result, error) {
		return e.shift.evaluate(graph.PerturbStructure(e.d.Graph, e.split, kind, StructureFraction, NoiseSeed))
	}
}

// AllSettings lists the paper's settings in the reference's order.
var AllSettings = settingsWhere(func(r settingRecord) bool { return r.paper })

// ExtendedSettings lists the settings beyond the paper, in the
// catalogue's order: structure noise and the feature-noise severity
// sweeps. Like the noise settings they evaluate the classification model
// without retraining.
var ExtendedSettings = settingsWhere(func(r settingRecord) bool { return !r.paper })

// knownSettings lists every setting, the paper's first.
var knownSettings = settingsWhere(func(settingRecord) bool { return true })

// settingsWhere returns the settings whose records satisfy keep, in the
// catalogue's order.
func settingsWhere(keep func(settingRecord) bool) []Setting {
	var out []Setting
	for s, r := range settings {
		if keep(r) {
			out = append(out, Setting(s))
		}
	}
	return out
}

// record returns s's record, or a record holding only a name for a value
// outside the catalogue.
func (s Setting) record() settingRecord {
	if !s.known() {
		return settingRecord{name: "Setting(" + strconv.Itoa(int(s)) + ")"}
	}
	return settings[s]
}

// known reports whether s is in the catalogue.
func (s Setting) known() bool { return s >= 0 && int(s) < len(settings) }

// String returns the name of s: classification, loc, gaussian, bernoulli,
// random_edges, …, the name a user types (cuq grid -settings) and reads.
func (s Setting) String() string { return s.record().name }

// ReferenceKey returns the reference implementation's name of s:
// classification, ood_loc, ood_features_normal or ood_features_ber; ""
// for a setting the reference does not have.
func (s Setting) ReferenceKey() string { return s.record().reference }

// Title returns the setting's name in prose and table captions:
// "classification", "leave-out classes", "Gaussian noise", "Bernoulli
// noise", "random edges", "DICE", "Gaussian noise severity", ….
func (s Setting) Title() string { return s.record().title }

// ownModel reports whether s trains a model of its own rather than
// evaluating the classification model.
func (s Setting) ownModel() bool { return s.record().train != nil }

// sweep reports whether s is a severity sweep, whose result holds one
// result per severity.
func (s Setting) sweep() bool { return s.record().sweep }

// Names returns the names (String) of settings.
func Names(settings []Setting) []string { return namesOf(settings, Setting.String) }

// SettingNames returns the names of the settings (see Setting.String), the
// paper's first.
func SettingNames() []string { return Names(knownSettings) }

// ParseSetting returns the setting named s: a name of SettingNames, or one
// of the aliases clf, ood_loc, leave_out_classes, normal,
// ood_features_normal, ber, ood_features_ber, edges. Case, '-' and
// '_' are ignored.
func ParseSetting(s string) (Setting, error) {
	names := SettingNames()
	aliases := map[string]Setting{}
	for k, r := range settings {
		for _, a := range r.aliases {
			aliases[a] = Setting(k)
		}
	}
	return parseName(s, "setting", names, aliases, names)
}

// ParseSettings parses a comma-separated list of settings; see
// ParseSetting.
func ParseSettings(list string) ([]Setting, error) {
	return parseList(list, ParseSetting, "setting", SettingNames())
}
