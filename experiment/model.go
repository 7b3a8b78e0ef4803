package experiment

import (
	"fmt"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Model names one of the paper's models.
type Model int

// The models of the paper, in the order of its tables.
const (
	APPNP Model = iota
	GKDE
	GPN
	LOPGPN
	CUQPPR
	CUQGCN
	CUQGAT
	// GCN is the first-order GCN classifier (cuq.GCNModel), the member of
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
	numModels
)

// AllModels lists the paper's models in the paper's order.
var AllModels = []Model{APPNP, GKDE, GPN, LOPGPN, CUQPPR, CUQGCN, CUQGAT}

// ExtendedModels lists the models beyond the paper: the GCN classifier
// and the classical committees, whose TU, AU and EU are the entropy
// decomposition of their sampled categorical predictions.
var ExtendedModels = []Model{GCN, EnsembleGCN, EnsembleAPPNP, MCDropoutGCN, DropEdgeGCN}

// modelNames are the models' names in the paper (and in its tables);
// modelKeys are their command-line and file names, after the reference's
// (eval.clj) model names for the paper's models.
var (
	modelNames = [numModels]string{"APPNP", "GKDE", "GPN", "LOP-GPN", "CUQ-PPR", "CUQ-GCN", "CUQ-GAT",
		"GCN", "Ensemble-GCN", "Ensemble-APPNP", "MC-Dropout-GCN", "DropEdge-GCN"}
	modelKeys = [numModels]string{"appnp", "gkde", "gpn", "gpn_lop", "cuq_ppr", "cuq_gcn", "cuq_gat",
		"gcn", "ens_gcn", "ens_appnp", "mcd_gcn", "dropedge_gcn"}
)

// String returns the paper's display name: APPNP, GKDE, GPN, LOP-GPN,
// CUQ-PPR, CUQ-GCN or CUQ-GAT.
func (m Model) String() string { return enum.String(m, modelNames[:]) }

// Key returns the command-line and file name of m: appnp, gkde, gpn,
// gpn_lop, cuq_ppr, cuq_gcn or cuq_gat.
func (m Model) Key() string {
	if k, ok := enum.Lookup(m, modelKeys[:]); ok {
		return k
	}
	return fmt.Sprintf("model%d", int(m))
}

// Keys returns the command-line names (Key) of models.
func Keys(models []Model) []string { return namesOf(models, Model.Key) }

// ModelNames returns the command-line names of all models, the paper's
// first.
func ModelNames() []string { return modelKeys[:] }

// ParseModel returns the model named s: a command-line name (appnp, gkde,
// gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat), a display name (LOP-GPN,
// CUQ-GCN, ...) or a reference name (gdk, cuq_appnp). Case, '-' and '_' are
// ignored.
func ParseModel(s string) (Model, error) {
	return parseName(s, "model", ModelNames(), modelAliases, modelKeys[:], modelNames[:])
}

// modelAliases are the reference's names of models, by NameKey.
var modelAliases = map[string]Model{"gdk": GKDE, "cuqappnp": CUQPPR}

// ParseModels parses a comma-separated list of model names; see ParseModel.
func ParseModels(list string) ([]Model, error) {
	return parseList(list, ParseModel, "model", ModelNames())
}

// presets are the cuq presets of the models that are one cuq.Model;
// ensembles those of the deep ensembles.
var (
	presets = [numModels]func(*graph.Graph) *cuq.Builder{
		cuq.APPNPModel, cuq.GKDE, cuq.GPN, cuq.LOPGPN, cuq.CUQPPR, cuq.CUQGCN, cuq.CUQGAT,
		cuq.GCNModel, nil, nil, cuq.MCDropoutGCN, cuq.DropEdgeGCN,
	}
	ensembles = map[Model]func(*graph.Graph) *cuq.EnsembleBuilder{
		EnsembleGCN: cuq.EnsembleGCN, EnsembleAPPNP: cuq.EnsembleAPPNP,
	}
)

// Builder returns the preset of m on g (see the cuq presets). A deep
// ensemble is several models and has no Builder: see Classifier.
func (m Model) Builder(g *graph.Graph) (*cuq.Builder, error) {
	if m < 0 || m >= numModels {
		return nil, fmt.Errorf("experiment: unknown model %v", m)
	}
	if presets[m] == nil {
		return nil, fmt.Errorf("experiment: %v is an ensemble of models, built by Model.Classifier", m)
	}
	return presets[m](g), nil
}

// Classifier builds m's preset on g as the grid runs it on dataset d:
// with d's overrides of the reference's schedule, initialisation init
// (an ensemble's init k has the members of its member builder's inits
// (k−1)·M+1 … k·M) and, when maxEpochs is positive, that cap on the
// training epochs. GKDE has no initialisation and no epochs.
func (m Model) Classifier(d *Dataset, g *graph.Graph, init, maxEpochs int) (cuq.Classifier, error) {
	if ensemble, ok := ensembles[m]; ok {
		e := ensemble(g).Init(init)
		d.configure(m, e.Member())
		if maxEpochs > 0 {
			e.MaxEpochs(maxEpochs)
		}
		return classifier(e.Build())
	}
	b, err := m.Builder(g)
	if err != nil {
		return nil, err
	}
	d.configure(m, b)
	if m != GKDE {
		b.Init(init)
		if maxEpochs > 0 {
			b.MaxEpochs(maxEpochs)
		}
	}
	return classifier(b.Build())
}

// classifier returns c, or nil (not a nil C) and err when the build failed.
func classifier[C cuq.Classifier](c C, err error) (cuq.Classifier, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
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
