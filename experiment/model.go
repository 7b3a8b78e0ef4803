package experiment

import (
	"fmt"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Model is one model of the grid: an index into the catalogue of models
// (models), whose record says what the model is called and how it is
// built.
type Model int

// The models of the paper, in the order of its tables, then those beyond
// it. A model added to the catalogue needs no constant: it is found by
// its name (ParseModel).
const (
	APPNP Model = iota
	GKDE
	GPN
	LOPGPN
	CUQPPR
	CUQGCN
	CUQGAT
	// GCN is the first-order GCN classifier (cuq.GCN), the member of
	// the committees below. Not in the paper.
	GCN
	// EnsembleGCN and EnsembleAPPNP are deep ensembles of cuq.EnsembleSize
	// GCN and APPNP classifiers (cuq.EnsembleGCN, cuq.EnsembleAPPNP); MCDropoutGCN
	// is a GCN with MC dropout (cuq.MCDropoutGCN), DropEdgeGCN one with
	// DropEdge sampling (cuq.DropEdgeGCN). Not in the paper.
	EnsembleGCN
	EnsembleAPPNP
	MCDropoutGCN
	DropEdgeGCN
)

// modelRecord is one model of the catalogue.
type modelRecord struct {
	name    string   // in the paper and its tables: "LOP-GPN"
	key     string   // on the command line and in file names: "gpn_lop" (the reference's eval.clj names)
	aliases []string // other accepted names, by datasets.NameKey (the reference's)
	paper   bool     // one of the paper's seven models
	// preset returns the model's graph-free preset; ensemble, for a deep
	// ensemble of models, the ensemble's instead (preset is then nil).
	preset   func() *cuq.Builder
	ensemble func() *cuq.EnsembleBuilder
	// score, for a post-hoc score on a trained model (the energy
	// baselines), wraps the configured preset.
	score func(cuq.ClassifierBuilder) *cuq.EnergyBuilder
	// parameterFree marks a model without parameters (GKDE): one init, no
	// epochs.
	parameterFree bool
	// overrides applies the dataset's overrides of the reference that
	// concern this model alone (beyond EvalEvery and Patience, which apply
	// to every model), and caps the inits it runs.
	overrides func(b *cuq.Builder, o datasets.Overrides)
	maxInits  func(o datasets.Overrides) int
}

// models is the catalogue of models, the paper's first, each in the
// position of its constant. Adding a model is one record here (and its
// preset in package cuq).
var models = []modelRecord{
	APPNP: {name: "APPNP", key: "appnp", paper: true, preset: cuq.APPNP},
	GKDE: {name: "GKDE", key: "gkde", aliases: []string{"gdk"}, paper: true, preset: cuq.GKDE, parameterFree: true,
		overrides: func(b *cuq.Builder, o datasets.Overrides) {
			if o.GKDECutoff > 0 {
				b.Cutoff(o.GKDECutoff)
			}
		}},
	GPN: {name: "GPN", key: "gpn", paper: true, preset: cuq.GPN},
	LOPGPN: {name: "LOP-GPN", key: "gpn_lop", paper: true, preset: cuq.LOPGPN,
		overrides: func(b *cuq.Builder, o datasets.Overrides) {
			if o.LOPGPNPrune > 0 {
				b.Prune(o.LOPGPNPrune)
			}
		},
		maxInits: func(o datasets.Overrides) int { return o.LOPGPNInits }},
	CUQPPR:        {name: "CUQ-PPR", key: "cuq_ppr", aliases: []string{"cuqappnp"}, paper: true, preset: cuq.CUQPPR},
	CUQGCN:        {name: "CUQ-GCN", key: "cuq_gcn", paper: true, preset: cuq.CUQGCN},
	CUQGAT:        {name: "CUQ-GAT", key: "cuq_gat", paper: true, preset: cuq.CUQGAT},
	GCN:           {name: "GCN", key: "gcn", preset: cuq.GCN},
	EnsembleGCN:   {name: "Ensemble-GCN", key: "ens_gcn", ensemble: cuq.EnsembleGCN},
	EnsembleAPPNP: {name: "Ensemble-APPNP", key: "ens_appnp", ensemble: cuq.EnsembleAPPNP},
	MCDropoutGCN:  {name: "MC-Dropout-GCN", key: "mcd_gcn", preset: cuq.MCDropoutGCN},
	DropEdgeGCN:   {name: "DropEdge-GCN", key: "dropedge_gcn", preset: cuq.DropEdgeGCN},
	// The post-hoc energy baselines on a GCN (package cuq/energy).
	{name: "Energy-GCN", key: "energy", preset: cuq.GCN, score: cuq.Energy},
	{name: "GNNSafe-GCN", key: "gnnsafe", preset: cuq.GCN, score: cuq.GNNSafe},
	{name: "GEBM-GCN", key: "gebm", preset: cuq.GCN, score: cuq.GEBM},
}

// numModels is the number of models in the catalogue.
var numModels = Model(len(models))

// AllModels lists the paper's models in the paper's order.
var AllModels = modelsWhere(func(r modelRecord) bool { return r.paper })

// ExtendedModels lists the models beyond the paper: the GCN classifier,
// the classical committees, whose TU, AU and EU are the entropy
// decomposition of their sampled categorical predictions, and the
// post-hoc energy baselines on a GCN.
var ExtendedModels = modelsWhere(func(r modelRecord) bool { return !r.paper })

// modelsWhere returns the models whose records satisfy keep, in the
// catalogue's order.
func modelsWhere(keep func(modelRecord) bool) []Model {
	var out []Model
	for m, r := range models {
		if keep(r) {
			out = append(out, Model(m))
		}
	}
	return out
}

// record returns m's record, or one holding only a name for a value
// outside the catalogue.
func (m Model) record() modelRecord {
	if m < 0 || m >= numModels {
		return modelRecord{name: fmt.Sprintf("Model(%d)", int(m)), key: fmt.Sprintf("model%d", int(m))}
	}
	return models[m]
}

// String returns the paper's display name: APPNP, GKDE, GPN, LOP-GPN,
// CUQ-PPR, CUQ-GCN, CUQ-GAT, GCN, Ensemble-GCN, ….
func (m Model) String() string { return m.record().name }

// Key returns the command-line and file name of m: appnp, gkde, gpn,
// gpn_lop, cuq_ppr, cuq_gcn, cuq_gat, gcn, ens_gcn, ….
func (m Model) Key() string { return m.record().key }

// Keys returns the command-line names (Key) of models.
func Keys(models []Model) []string { return namesOf(models, Model.Key) }

// ModelNames returns the command-line names of all models, the paper's
// first.
func ModelNames() []string { return Keys(modelsWhere(func(modelRecord) bool { return true })) }

// ParseModel returns the model named s: a command-line name (appnp, gkde,
// gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat, …), a display name (LOP-GPN,
// CUQ-GCN, ...) or a reference name (gdk, cuq_appnp). Case, '-' and '_' are
// ignored.
func ParseModel(s string) (Model, error) {
	keys := ModelNames()
	names := namesOf(modelsWhere(func(modelRecord) bool { return true }), Model.String)
	aliases := map[string]Model{}
	for m, r := range models {
		for _, a := range r.aliases {
			aliases[a] = Model(m)
		}
	}
	return parseName(s, "model", keys, aliases, keys, names)
}

// ParseModels parses a comma-separated list of model names; see ParseModel.
func ParseModels(list string) ([]Model, error) {
	return parseList(list, ParseModel, "model", ModelNames())
}

// Builder returns the preset of m (see the cuq presets), without a graph:
// its Done builds the model on one. A deep ensemble is several models and
// has no Builder: see Classifier.
func (m Model) Builder() (*cuq.Builder, error) {
	if m < 0 || m >= numModels {
		return nil, fmt.Errorf("experiment: unknown model %v", m)
	}
	r := models[m]
	if r.preset == nil {
		return nil, fmt.Errorf("experiment: %v is an ensemble of models, built by Model.Classifier", m)
	}
	return r.preset(), nil
}

// Configure applies the overrides of the reference implementation that
// the dataset named dataset has (datasets.Overrides; none for a name that
// is not a registry dataset's own) to b, a builder of m: on OGBN Arxiv evaluation
// every 10 epochs, patience 5 and GKDE cutoff 2; LOP-GPN pruning at 0.01
// on AmazonPhotos, AmazonComputers, PubMed and OGBNArxiv.
func (m Model) Configure(dataset string, b *cuq.Builder) {
	spec, ok := record(dataset)
	if !ok {
		return
	}
	o := spec.Overrides
	if o.EvalEvery > 0 {
		b.EvalEvery(o.EvalEvery)
	}
	if o.Patience > 0 {
		b.Patience(o.Patience)
	}
	if f := m.record().overrides; f != nil {
		f(b, o)
	}
}

// numInits is how many of the requested initialisations m runs on the
// dataset: a model without parameters (GKDE) runs init 1 only; a model
// whose record caps its inits by the dataset's overrides (LOP-GPN: 2 on
// OGBN Arxiv) at most that many.
func numInits(dataset string, m Model, requested int) int {
	r := m.record()
	if r.parameterFree {
		return 1
	}
	if spec, ok := record(dataset); ok && r.maxInits != nil {
		if k := r.maxInits(spec.Overrides); k > 0 {
			return min(requested, k)
		}
	}
	return requested
}

// Classifier builds m's preset on g as the grid runs it on dataset d (g is
// d's graph or one derived from it, such as its leave-out-classes graph;
// the overrides are d's, whatever g's name):
// with d's overrides of the reference's schedule, initialisation init
// (an ensemble's init k has the members of its member builder's inits
// (k−1)·M+1 … k·M) and, when maxEpochs is positive, that cap on the
// training epochs. A model without parameters has no initialisation and
// no epochs.
func (m Model) Classifier(d *Dataset, g *graph.Graph, init, maxEpochs int) (cuq.Classifier, error) {
	return m.classifier(d, g, init, maxEpochs, 0)
}

// classifier is Classifier with the dropout masks of the given stream
// (cuq.Builder.DropoutStream; 0 is the reference's).
func (m Model) classifier(d *Dataset, g *graph.Graph, init, maxEpochs int, dropoutStream uint64) (cuq.Classifier, error) {
	if m < 0 || m >= numModels {
		return nil, fmt.Errorf("experiment: unknown model %v", m)
	}
	if ensemble := models[m].ensemble; ensemble != nil {
		e := ensemble().Init(init)
		m.Configure(d.Name, e.Member())
		e.Member().DropoutStream(dropoutStream)
		if maxEpochs > 0 {
			e.MaxEpochs(maxEpochs)
		}
		return e.Classifier(g)
	}
	b, err := m.Builder()
	if err != nil {
		return nil, err
	}
	m.Configure(d.Name, b)
	if !models[m].parameterFree {
		b.Init(init).DropoutStream(dropoutStream)
		if maxEpochs > 0 {
			b.MaxEpochs(maxEpochs)
		}
	}
	if score := models[m].score; score != nil {
		return score(b).Classifier(g)
	}
	return b.Classifier(g)
}

// namesOf returns the names of values given by name.
func namesOf[T any](values []T, name func(T) string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = name(v)
	}
	return out
}

// parseName returns the value named s: the first value v whose name in
// one of the tables, tables[k][v], or whose alias is s up to NameKey (case,
// '-' and '_' ignored); otherwise an error naming what is parsed and the
// valid names.
func parseName[T ~int](s, what string, valid []string, aliases map[string]T, tables ...[]string) (T, error) {
	key := datasets.NameKey(s)
	for v := range tables[0] {
		for _, names := range tables {
			if key == datasets.NameKey(names[v]) {
				return T(v), nil
			}
		}
	}
	if v, ok := aliases[key]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("experiment: unknown %s %q (valid: %s)", what, s, strings.Join(valid, ", "))
}

// parseList parses the items of a comma-separated list with parse,
// dropping empty items; an empty list is an error naming what the items
// are and the valid names.
func parseList[T any](list string, parse func(string) (T, error), what string, valid []string) ([]T, error) {
	var out []T
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		v, err := parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("experiment: empty %s list (valid: %s)", what, strings.Join(valid, ", "))
	}
	return out, nil
}
