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
	// preset returns the model's graph-free builder with the overrides o
	// of the reference that concern this model alone (GKDE's cutoff,
	// LOP-GPN's pruning), drawing its parameters and dropout masks as s
	// says.
	preset func(o datasets.Overrides, s cuq.Seeding) cuq.ClassifierBuilder
	// parameterFree marks a model without parameters (GKDE): one init, no
	// epochs.
	parameterFree bool
	// maxInits caps the inits the model runs on a dataset.
	maxInits func(o datasets.Overrides) int
}

// seededBuilder is a builder of models with parameters, whose seeding
// can be chosen.
type seededBuilder[B any] interface {
	cuq.ClassifierBuilder
	Seeding(s cuq.Seeding) B
}

// seeded returns the record's preset of a model with parameters and no
// dataset overrides.
func seeded[B seededBuilder[B]](preset func() B) func(datasets.Overrides, cuq.Seeding) cuq.ClassifierBuilder {
	return func(_ datasets.Overrides, s cuq.Seeding) cuq.ClassifierBuilder { return preset().Seeding(s) }
}

// onGCN returns the record's preset of a post-hoc score on a GCN.
func onGCN(score func(cuq.ClassifierBuilder) *cuq.EnergyBuilder) func(datasets.Overrides, cuq.Seeding) cuq.ClassifierBuilder {
	return func(_ datasets.Overrides, s cuq.Seeding) cuq.ClassifierBuilder { return score(cuq.GCN().Seeding(s)) }
}

// models is the catalogue of models, the paper's first, each in the
// position of its constant. Adding a model is one record here (and its
// preset in package cuq).
var models = []modelRecord{
	APPNP: {name: "APPNP", key: "appnp", paper: true, preset: seeded(cuq.APPNP)},
	GKDE: {name: "GKDE", key: "gkde", aliases: []string{"gdk"}, paper: true, parameterFree: true,
		preset: func(o datasets.Overrides, _ cuq.Seeding) cuq.ClassifierBuilder {
			b := cuq.GKDE()
			if o.GKDECutoff > 0 {
				b.Cutoff(o.GKDECutoff)
			}
			return b
		}},
	GPN: {name: "GPN", key: "gpn", paper: true, preset: seeded(cuq.GPN)},
	LOPGPN: {name: "LOP-GPN", key: "gpn_lop", paper: true,
		preset: func(o datasets.Overrides, s cuq.Seeding) cuq.ClassifierBuilder {
			b := cuq.LOPGPN().Seeding(s)
			if o.LOPGPNPrune > 0 {
				b.Prune(o.LOPGPNPrune)
			}
			return b
		},
		maxInits: func(o datasets.Overrides) int { return o.LOPGPNInits }},
	CUQPPR:        {name: "CUQ-PPR", key: "cuq_ppr", aliases: []string{"cuqappnp"}, paper: true, preset: seeded(cuq.CUQPPR)},
	CUQGCN:        {name: "CUQ-GCN", key: "cuq_gcn", paper: true, preset: seeded(cuq.CUQGCN)},
	CUQGAT:        {name: "CUQ-GAT", key: "cuq_gat", paper: true, preset: seeded(cuq.CUQGAT)},
	GCN:           {name: "GCN", key: "gcn", preset: seeded(cuq.GCN)},
	EnsembleGCN:   {name: "Ensemble-GCN", key: "ens_gcn", preset: seeded(cuq.EnsembleGCN)},
	EnsembleAPPNP: {name: "Ensemble-APPNP", key: "ens_appnp", preset: seeded(cuq.EnsembleAPPNP)},
	MCDropoutGCN:  {name: "MC-Dropout-GCN", key: "mcd_gcn", preset: seeded(cuq.MCDropoutGCN)},
	DropEdgeGCN:   {name: "DropEdge-GCN", key: "dropedge_gcn", preset: seeded(cuq.DropEdgeGCN)},
	// The post-hoc energy baselines on a GCN (package cuq/energy).
	{name: "Energy-GCN", key: "energy", preset: onGCN(cuq.Energy)},
	{name: "GNNSafe-GCN", key: "gnnsafe", preset: onGCN(cuq.GNNSafe)},
	{name: "GEBM-GCN", key: "gebm", preset: onGCN(cuq.GEBM)},
	// The structural-shift benchmark's GCN and its ensemble (Bazhenov et
	// al. 2023: "SE" and "DE").
	{name: "GCN-BN", key: "gcn_bn", preset: seeded(cuq.GCNBN)},
	{name: "Ensemble-GCN-BN", key: "ens_gcn_bn", preset: seeded(cuq.EnsembleGCNBN)},
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

// Preset returns m's graph-free preset (see the cuq presets) as the grid
// builds it for the dataset named dataset: with the dataset's overrides of
// the reference that concern m (none for a name that is not a registry
// dataset's own; GKDE's cutoff 2 on OGBN Arxiv, LOP-GPN's pruning at 0.01
// on AmazonPhotos, AmazonComputers, PubMed and OGBNArxiv), and its
// parameters and dropout masks drawn as s says (the grid's runs: seed 42,
// init and stream as the job says; an ensemble's init k has the members of
// its member builder's inits (k−1)·M+1 … k·M). A model without parameters
// ignores s. The schedule the grid trains it with is Schedule's.
func (m Model) Preset(dataset string, s cuq.Seeding) (cuq.ClassifierBuilder, error) {
	if m < 0 || m >= numModels {
		return nil, fmt.Errorf("experiment: unknown model %v", m)
	}
	var o datasets.Overrides
	if spec, ok := record(dataset); ok {
		o = spec.Overrides
	}
	return models[m].preset(o, s), nil
}

// Schedule returns the schedule the grid trains c with on the dataset
// named dataset (or on a graph derived from it): c's own, with the
// dataset's overrides of the reference's schedule (OGBN Arxiv: evaluation
// every 10 epochs, patience 5) and, when maxEpochs is positive, that cap
// on the training epochs.
func Schedule(dataset string, c cuq.Classifier, maxEpochs int) cuq.Schedule {
	s := c.Schedule()
	if spec, ok := record(dataset); ok {
		if o := spec.Overrides; o.EvalEvery > 0 {
			s.EvalEvery = o.EvalEvery
		}
		if o := spec.Overrides; o.Patience > 0 {
			s.Patience = o.Patience
		}
	}
	if maxEpochs > 0 {
		s.MaxEpochs = maxEpochs
	}
	return s
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

// Classifier builds m's preset on g as the grid runs it on d (g is d's
// graph or one derived from it, such as its leave-out-classes graph; the
// overrides are d's, whatever g's name), with initialisation init and the
// reference's dropout stream (see Preset). Train it with Schedule(d.Name,
// c, maxEpochs).
func (m Model) Classifier(d *Dataset, g *graph.Graph, init int) (cuq.Classifier, error) {
	return m.classifier(d, g, init, 0)
}

// classifier is Classifier with the dropout masks of the given stream
// (cuq.Seeding; 0 is the reference's).
func (m Model) classifier(d *Dataset, g *graph.Graph, init int, dropoutStream uint64) (cuq.Classifier, error) {
	s := cuq.DefaultSeeding()
	s.Init, s.Stream = init, dropoutStream
	b, err := m.Preset(d.Name, s)
	if err != nil {
		return nil, err
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
