package experiment

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Growth is the paper's argument about how graphs are sampled, as an
// experiment: under bounded-degree sampling (lattices: a node keeps at most
// four neighbours however large the graph) a conflict among a node's
// neighbours stays as it is and is aleatoric; under unbounded-degree
// sampling (Barabási–Albert graphs, whose hubs' degree grows like √N) the
// neighbourhood keeps growing, so a conflict among the current neighbours
// is reducible, that is epistemic.
//
// For every graph size, family and seed, Growth generates a lattice and a
// Barabási–Albert graph with the same number of nodes (4 classes, 16-d
// Gaussian features), trains each model on 10% of the nodes (10% for
// validation), and compares the test nodes whose labelled neighbours carry
// at least two labels (conflicting neighbourhoods) with the others: mean
// AU and EU of both groups, and the ratio EU(conflict) / EU(other), which
// says how much more epistemic doubt a model puts on conflicts. Start it
// with NewGrowth, set options, then call Run.
type Growth struct {
	sides     []int
	seeds     int
	models    []Model
	maxEpochs int
	progress  func(done, total int, msg string)
}

// NewGrowth returns the experiment with lattice sides 15, 30 and 60 (225,
// 900 and 3600 nodes), 3 seeds, and the models GPN and CUQ-GCN.
func NewGrowth() *Growth {
	return &Growth{sides: []int{15, 30, 60}, seeds: 3, models: []Model{GPN, CUQGCN}}
}

// Sides sets the lattice sides s; each size has s² nodes.
func (g *Growth) Sides(s ...int) *Growth { g.sides = s; return g }

// Seeds sets the number of seeds (graphs and initialisations) per size.
func (g *Growth) Seeds(n int) *Growth { g.seeds = n; return g }

// Models sets the models compared.
func (g *Growth) Models(ms ...Model) *Growth { g.models = ms; return g }

// MaxEpochs caps training (0: the paper's schedule, early stopping).
func (g *Growth) MaxEpochs(n int) *Growth { g.maxEpochs = n; return g }

// Progress makes Run report each finished training run.
func (g *Growth) Progress(fn func(done, total int, msg string)) *Growth { g.progress = fn; return g }

// GrowthRun is one trained model on one graph of the experiment.
type GrowthRun struct {
	Family                 string // "lattice" or "Barabási–Albert"
	Nodes, MaxDegree       int
	Model                  string
	Seed                   uint64
	Accuracy               float64 // on the test nodes
	Conflicts              int     // test nodes with conflicting neighbourhoods
	ConflictDegree         float64 // their mean degree
	AUConflict, AUOther    float64
	EUConflict, EUOther    float64
	ConflictRatio, AURatio float64 // EU and AU of conflicts over the others'
}

// GrowthResult holds every run of a Growth experiment.
type GrowthResult struct {
	Runs []GrowthRun
	// Sizes are the graph sizes (nodes) in increasing order.
	Sizes []int
}

// Families lists the graph families of the experiment, in order.
var Families = []string{"lattice", "Barabási–Albert"}

// Run trains every model on every graph and returns the runs. It returns
// an error for a bad setting or a failed training.
func (g *Growth) Run() (*GrowthResult, error) {
	if len(g.sides) == 0 || g.seeds < 1 || len(g.models) == 0 {
		return nil, fmt.Errorf("experiment: Growth: %d sizes, %d seeds, %d models", len(g.sides), g.seeds, len(g.models))
	}
	for _, s := range g.sides {
		if s < 4 {
			return nil, fmt.Errorf("experiment: Growth: lattice side %d < 4", s)
		}
	}
	res := &GrowthResult{}
	total, done := len(g.sides)*g.seeds*len(Families)*len(g.models), 0
	for _, s := range g.sides {
		res.Sizes = append(res.Sizes, s*s)
		for seed := uint64(1); seed <= uint64(g.seeds); seed++ {
			lattice, err := datasets.Lattice(s, s).Classes(4).Seed(seed).Done()
			if err != nil {
				return nil, err
			}
			ba, err := datasets.BarabasiAlbert(s*s, 2).Classes(4).Seed(seed).Done()
			if err != nil {
				return nil, err
			}
			for f, gr := range []*graph.Graph{lattice, ba} {
				for _, m := range g.models {
					r, err := g.runOne(Families[f], gr, m, seed)
					if err != nil {
						return nil, fmt.Errorf("experiment: Growth: %s on a %s of %d nodes: %w", m, Families[f], gr.N, err)
					}
					res.Runs = append(res.Runs, r)
					done++
					if g.progress != nil {
						g.progress(done, total, fmt.Sprintf("%s on a %s of %d nodes, seed %d", m, Families[f], gr.N, seed))
					}
				}
			}
		}
	}
	return res, nil
}

// runOne trains m on gr and summarises its uncertainty at conflicts.
func (g *Growth) runOne(family string, gr *graph.Graph, m Model, seed uint64) (GrowthRun, error) {
	split, err := gr.Split(graph.Stratified(0.1, 0.1, 0.8).Seed(seed))
	if err != nil {
		return GrowthRun{}, err
	}
	b, err := m.Preset(gr.Name, cuq.Seeding{Seed: seed, Init: 1})
	if err != nil {
		return GrowthRun{}, err
	}
	model, err := b.Classifier(gr)
	if err != nil {
		return GrowthRun{}, err
	}
	if _, err := model.Fit(split, cuq.MaxEpochs(g.maxEpochs)); err != nil {
		return GrowthRun{}, err
	}
	p, err := model.Predict(nil)
	if err != nil {
		return GrowthRun{}, err
	}
	conflict, err := gr.Conflicting(split.Test)
	if err != nil {
		return GrowthRun{}, err
	}
	r := GrowthRun{Family: family, Nodes: gr.N, Model: m.String(), Seed: seed, Accuracy: p.Accuracy(split.Test)}
	deg := gr.Degrees()
	for _, d := range deg {
		r.MaxDegree = max(r.MaxDegree, d)
	}
	var nOther int
	for k, i := range split.Test {
		if conflict[k] {
			r.Conflicts++
			r.ConflictDegree += float64(deg[i])
			r.AUConflict += p.AU[i]
			r.EUConflict += p.EU[i]
		} else {
			nOther++
			r.AUOther += p.AU[i]
			r.EUOther += p.EU[i]
		}
	}
	if r.Conflicts == 0 || nOther == 0 {
		return GrowthRun{}, fmt.Errorf("%d test nodes with conflicting neighbourhoods and %d without: need both", r.Conflicts, nOther)
	}
	c, o := float64(r.Conflicts), float64(nOther)
	r.ConflictDegree /= c
	r.AUConflict, r.EUConflict, r.AUOther, r.EUOther = r.AUConflict/c, r.EUConflict/c, r.AUOther/o, r.EUOther/o
	r.ConflictRatio, r.AURatio = r.EUConflict/r.EUOther, r.AUConflict/r.AUOther
	return r, nil
}

// Ratio returns, for one family and model, the mean EU(conflict) /
// EU(other) over the seeds at each size, and its standard error.
func (r *GrowthResult) Ratio(family, model string) (mean, se []float64) {
	for _, n := range r.Sizes {
		var v []float64
		for _, run := range r.Runs {
			if run.Family == family && run.Model == model && run.Nodes == n {
				v = append(v, run.ConflictRatio)
			}
		}
		m, s := meanSE(v)
		mean, se = append(mean, m), append(se, s)
	}
	return mean, se
}

// meanSE returns the mean of v and its standard error sqrt(var/n) with the
// unbiased variance (0 for a single value, NaN for none).
func meanSE(v []float64) (float64, float64) {
	s := eval.Aggregate(v, 0)
	if math.IsNaN(s.SE) && len(v) == 1 {
		s.SE = 0
	}
	return s.Mean, s.SE
}

// models returns the models of the runs in order of appearance.
func (r *GrowthResult) models() []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		if !seen[run.Model] {
			seen[run.Model] = true
			out = append(out, run.Model)
		}
	}
	return out
}

// Chart draws EU(conflict) / EU(other) against the graph size for every
// family and model: mean over the seeds ± SE, one colour per model, one
// line pattern per family.
func (r *GrowthResult) Chart() (*chart.Chart, error) {
	x := make([]string, len(r.Sizes))
	for i, n := range r.Sizes {
		x[i] = strconv.Itoa(n)
	}
	var curves []chart.Curve
	for k, model := range r.models() {
		for f, family := range Families {
			mean, se := r.Ratio(family, model)
			curves = append(curves, chart.Curve{Name: model + ", " + family, Mean: mean, SE: se,
				Color: chart.Palette[k%len(chart.Palette)], Dash: chart.DashCycle(f)})
		}
	}
	return chart.Lines("Epistemic doubt at conflicting neighbourhoods as graphs grow", "nodes",
		"EU(conflict) / EU(other)", x, curves...)
}

// Table lists the runs' means over seeds per family, size and model.
func (r *GrowthResult) Table() (*chart.Table, error) {
	header := []string{"graph", "nodes", "max degree", "model", "test acc %", "conflict nodes", "their degree",
		"AU conflict", "AU other", "EU conflict", "EU other", "EU ratio"}
	var rows [][]string
	for _, family := range Families {
		for _, n := range r.Sizes {
			for _, model := range r.models() {
				var runs []GrowthRun
				for _, run := range r.Runs {
					if run.Family == family && run.Nodes == n && run.Model == model {
						runs = append(runs, run)
					}
				}
				if len(runs) == 0 {
					continue
				}
				avg := func(f func(GrowthRun) float64) float64 {
					s := 0.0
					for _, run := range runs {
						s += f(run)
					}
					return s / float64(len(runs))
				}
				rows = append(rows, []string{family, strconv.Itoa(n),
					fmt.Sprintf("%.0f", avg(func(x GrowthRun) float64 { return float64(x.MaxDegree) })), model,
					fmt.Sprintf("%.1f", 100*avg(func(x GrowthRun) float64 { return x.Accuracy })),
					fmt.Sprintf("%.0f", avg(func(x GrowthRun) float64 { return float64(x.Conflicts) })),
					fmt.Sprintf("%.1f", avg(func(x GrowthRun) float64 { return x.ConflictDegree })),
					fmt.Sprintf("%.3f", avg(func(x GrowthRun) float64 { return x.AUConflict })),
					fmt.Sprintf("%.3f", avg(func(x GrowthRun) float64 { return x.AUOther })),
					fmt.Sprintf("%.3g", avg(func(x GrowthRun) float64 { return x.EUConflict })),
					fmt.Sprintf("%.3g", avg(func(x GrowthRun) float64 { return x.EUOther })),
					fmt.Sprintf("%.2f", avg(func(x GrowthRun) float64 { return x.ConflictRatio }))})
			}
		}
	}
	return chart.NewTable(fmt.Sprintf("Test nodes with and without conflicting neighbourhoods (means over %d seeds)", len(r.Runs)/max(1, len(r.Sizes)*len(Families)*len(r.models()))), header, rows)
}

// Trend says, for one family and model, how EU(conflict) / EU(other)
// moves from the smallest to the largest graph: "rises", "falls" or "stays
// level", where level means the change is within two standard errors of
// the difference (or there is one seed and the change is under 5%).
func (r *GrowthResult) Trend(family, model string) (verb string, first, last, firstSE, lastSE float64) {
	mean, se := r.Ratio(family, model)
	first, last = mean[0], mean[len(mean)-1]
	firstSE, lastSE = se[0], se[len(se)-1]
	noise := 2 * math.Hypot(firstSE, lastSE)
	if noise == 0 {
		noise = 0.05 * math.Abs(first)
	}
	switch {
	case last-first > noise:
		verb = "rises"
	case first-last > noise:
		verb = "falls"
	default:
		verb = "stays level"
	}
	return verb, first, last, firstSE, lastSE
}
