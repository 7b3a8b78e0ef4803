package graph

import (
	"fmt"
	"slices"
	"strings"
)

// Shifted is one distribution-shift setting built on a graph: what an
// experiment fits the model on and what it predicts on.
//
// The experiment fits the model on Train with Split, then for every view v
// predicts on v.Graph() and scores v.ID as in-distribution and v.OOD as
// out-of-distribution nodes. Every graph has the nodes of the original graph
// in its numbering, so cuq.Model.Predict accepts each of them.
type Shifted struct {
	// Setting is the name of the setting (see Settings).
	Setting string
	// Train is the training graph: the original graph, or a graph with the
	// OOD nodes unlabelled (leave-out classes, label −1) or cut off
	// (inductive settings: every edge at an OOD node removed).
	Train *Graph
	// Split is the split of Train: ID training, validation and test nodes;
	// every other node, the OOD nodes included, is Unused.
	Split Split
	// Labels are the labels to score predictions with, one per node
	// (leave-out classes: the left-out classes numbered after the ID ones).
	Labels []int
	// IDTest and OODTest are the ID and OOD test nodes over all views,
	// sorted; OODVal holds OOD validation nodes where the setting defines
	// them (structural splits), nil otherwise.
	IDTest, OODTest, OODVal []int
	// Views are the graphs to predict on, each with the nodes scored on it.
	Views []View
}

// View is one graph to predict on and the nodes whose scores are read off
// that prediction.
type View struct {
	// ID and OOD are the test nodes scored on this graph, sorted.
	ID, OOD []int
	graph   *Graph
	build   func() *Graph
}

// Graph returns the view's graph. The views of isolated perturbations
// build theirs on each call (one perturbed row each, so that a hundred of
// them need not be held at once); the others return a shared graph.
func (v View) Graph() *Graph {
	if v.graph != nil {
		return v.graph
	}
	return v.build()
}

// ShiftOptions are the inputs a Setting takes besides the graph and split.
type ShiftOptions struct {
	// Seed seeds every random choice of the setting.
	Seed uint64
	// LeftOut is the number of classes the leave-out-classes settings
	// leave out; 0 means ⌊0.45·C⌋ (at least 1), the GPN code's default
	// fraction. The GPN code's per-dataset counts are in
	// datasets.Spec.LeftOutClasses.
	LeftOut int
}

// Setting is a named distribution-shift setting. Apply builds it on a
// graph g with the dataset's split s; the structural settings draw their
// own split and ignore s.
type Setting struct {
	// Name is the setting's stable lower_snake name.
	Name string
	// Title is its name in prose and table captions ("Bernoulli noise, p =
	// 0.05, isolated"); every registered setting has one of its own.
	Title string
	// Doc is a one-line description.
	Doc string
	// Poisoning marks a setting that changes what a model trains on (the
	// training graph or split: leave-out classes, the structural shifts),
	// which needs a model of its own; the others (evasion) change only
	// what a model trained on the dataset's graph and split predicts on.
	Poisoning bool
	// Apply builds the setting.
	Apply func(g *Graph, s Split, o ShiftOptions) (*Shifted, error)
}

// settings is the registry, in the order Settings lists it.
var settings = slices.Concat(namedFeatureShifts(), locSettings(), structuralSettings())

// Settings returns the registered settings: the feature perturbations of
// the GPN code (in-graph and isolated), leave-out classes (last and random
// classes), and the structural shifts (popularity, locality, density,
// homophily; transductive and inductive).
func Settings() []Setting { return slices.Clone(settings) }

// LookupSetting returns the setting named name.
func LookupSetting(name string) (Setting, error) {
	for _, s := range settings {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(settings))
	for k, s := range settings {
		names[k] = s.Name
	}
	return Setting{}, fmt.Errorf("graph: unknown setting %q (want one of %s)", name, strings.Join(names, ", "))
}

// sharedView is a view on a graph held by the Shifted.
func sharedView(g *Graph, id, ood []int) View { return View{ID: id, OOD: ood, graph: g} }

// namedFeatureShift is a named feature perturbation at the GPN code's budget
// 0.1: its name and title, the noise, its severity and whether the nodes
// are perturbed one at a time.
type namedFeatureShift struct {
	name     string
	title    string
	noise    Noise
	severity float64
	isolated bool
}

// gpnBudget is the GPN code's fraction of perturbed nodes.
const gpnBudget = 0.1

// namedFeatureShifts returns the registry records of the feature
// perturbations: every perturbation type of the GPN code, in-graph and
// isolated.
func namedFeatureShifts() []Setting {
	base := []namedFeatureShift{
		{"gaussian", "Gaussian noise", Gaussian, 1, false},
		{"bernoulli", "Bernoulli noise", Bernoulli, 0.5, false},
		{"bernoulli_0_05", "Bernoulli noise, p = 0.05", Bernoulli, 0.05, false},
		{"bernoulli_0_95", "Bernoulli noise, p = 0.95", Bernoulli, 0.95, false},
		{"bernoulli_most_common", "most common words", BernoulliMostCommon, 1, false},
		{"bernoulli_least_common", "least common words", BernoulliLeastCommon, 1, false},
		{"uniform", "uniform noise", Uniform, 1, false},
		{"dense", "dense noise", Dense, 1, false},
		{"not_normalized", "words not normalised", NotNormalized, 1, false},
		{"scaled", "scaled features", Scaled, ScaledSeverity, false},
		{"reference", "unchanged (control)", Reference, 1, false},
	}
	var out []Setting
	for _, isolated := range []bool{false, true} {
		for _, fs := range base {
			fs.isolated = isolated
			if isolated {
				fs.name += "_isolated"
				fs.title += ", isolated"
			}
			out = append(out, fs.setting())
		}
	}
	return out
}

func (fs namedFeatureShift) setting() Setting {
	doc := fmt.Sprintf("%v noise (severity %v) on 10%% of the nodes of every group, evasion", fs.noise, fs.severity)
	if fs.isolated {
		doc = fmt.Sprintf("%v noise (severity %v) on %d test nodes, one at a time, evasion", fs.noise, fs.severity, IsolatedNodes)
	}
	return Setting{Name: fs.name, Title: fs.title, Doc: doc, Apply: func(g *Graph, s Split, o ShiftOptions) (*Shifted, error) {
		f := FeatureShift{Noise: fs.noise, Budget: gpnBudget, Severity: fs.severity, Seed: o.Seed}
		if fs.isolated {
			p, err := PerturbFeaturesIsolated(g, s, f, IsolatedNodes)
			if err != nil {
				return nil, err
			}
			return p.Shifted(fs.name), nil
		}
		p, err := PerturbFeaturesWith(g, s, f)
		if err != nil {
			return nil, err
		}
		return &Shifted{Setting: fs.name, Train: g, Split: s, Labels: g.Labels,
			IDTest: p.IDTest, OODTest: p.OODTest, Views: []View{sharedView(p.Graph, p.IDTest, p.OODTest)}}, nil
	}}
}
