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
	numModels
)

// AllModels lists every model in the paper's order.
var AllModels = []Model{APPNP, GKDE, GPN, LOPGPN, CUQPPR, CUQGCN, CUQGAT}

// modelNames are the models' names in the paper (and in its tables);
// modelKeys are their command-line and file names, after the reference's
// (eval.clj) model names.
var (
	modelNames = [numModels]string{"APPNP", "GKDE", "GPN", "LOP-GPN", "CUQ-PPR", "CUQ-GCN", "CUQ-GAT"}
	modelKeys  = [numModels]string{"appnp", "gkde", "gpn", "gpn_lop", "cuq_ppr", "cuq_gcn", "cuq_gat"}
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

// ModelNames returns the command-line names of all models.
func ModelNames() []string { return modelKeys[:] }

// ParseModel returns the model named s: a command-line name (appnp, gkde,
// gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat), a display name (LOP-GPN,
// CUQ-GCN, ...) or a reference name (gdk, cuq_appnp). Case, '-' and '_' are
// ignored.
func ParseModel(s string) (Model, error) {
	key := datasets.NameKey(s)
	for m := range numModels {
		if key == datasets.NameKey(modelKeys[m]) || key == datasets.NameKey(modelNames[m]) {
			return m, nil
		}
	}
	switch key {
	case "gdk":
		return GKDE, nil
	case "cuqappnp":
		return CUQPPR, nil
	case "lopgpn":
		return LOPGPN, nil
	}
	return 0, fmt.Errorf("experiment: unknown model %q (valid: %s)", s, strings.Join(ModelNames(), ", "))
}

// ParseModels parses a comma-separated list of model names; see ParseModel.
func ParseModels(list string) ([]Model, error) {
	return parseList(list, ParseModel, "model", ModelNames())
}

// presets are the cuq presets of the models.
var presets = [numModels]func(*graph.Graph) *cuq.Builder{
	cuq.APPNPModel, cuq.GKDE, cuq.GPN, cuq.LOPGPN, cuq.CUQPPR, cuq.CUQGCN, cuq.CUQGAT,
}

// Builder returns the paper's preset of m on g (see the cuq presets).
func (m Model) Builder(g *graph.Graph) (*cuq.Builder, error) {
	if m < 0 || m >= numModels {
		return nil, fmt.Errorf("experiment: unknown model %v", m)
	}
	return presets[m](g), nil
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
