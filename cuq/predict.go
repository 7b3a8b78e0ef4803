package cuq

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Prediction holds a model's per-node output on a graph: the predicted
// class, the mean class probabilities p̄, the second-order parameters and
// every uncertainty measure (larger = more uncertain; see package uq).
//
// For Dirichlet models (GKDE, GPN, CUQ-*) Alpha holds α. For LOP-GPN, whose
// prediction is the mixture Σⱼ Πᵢⱼ Dir(αⱼ), Alpha holds Π·α (the reference
// notes it is not a distribution's parameter; EU_PC is −Σ_c of it). APPNP
// and GCN are first-order: Alpha is nil and only TU and LC are present.
// Committees (ensembles, MC dropout, DropEdge) have Alpha nil and TU, AU,
// EU and LC from their samples. The credal measures are added on request
// (AddCredal).
type Prediction struct {
	Model   string
	Graph   *graph.Graph
	Classes int
	Class   []int
	Prob    *tensor.Dense
	Alpha   *tensor.Dense
	uq.Measures
	// EUFeat is the feature-only epistemic uncertainty uq.EUFeat of the
	// PostNet models (GPN, LOP-GPN, CUQ-*): −Σ_c α_ft,c with α_ft = 1 + β
	// the pseudo-counts of each node's own PostNet head before evidence
	// pooling, the GPN code's "features" confidence negated. Beside EU_PC
	// (−α₀ after pooling) it tells structure-based from feature-based
	// epistemic uncertainty. Nil for the other models.
	EUFeat []float64
	// Logits holds the N×C class logits z of a first-order model (APPNP,
	// GCN; p = softmax(z)) in evaluation mode. For a model that samples
	// (MC dropout, DropEdge) and for an ensemble it is the mean of the
	// samples' or members' logits, (1/S) Σ_s z⁽ˢ⁾, as GEBM's code averages
	// them. Nil for the Dirichlet models (GKDE, GPN, LOP-GPN, CUQ-*),
	// which have no logits, and after temperature scaling.
	Logits *tensor.Dense
	// Energies holds the post-hoc score of the post-hoc presets (Energy,
	// GNNSafe, GEBM, PostHoc), keyed by its measure (uq.Energy, uq.GNNSafe,
	// uq.GEBM or one of uq.RegisterPostHoc); nil for the other models.
	Energies map[uq.Measure][]float64

	// credal is what CredalSets builds the credal sets from, beside Alpha.
	credal credalSource
	// nodes, when non-nil, are the only nodes the family must predict
	// (PredictNodes).
	nodes []int
}

// Get returns the values of measure u, nil if the prediction lacks it: the
// measures of uq.Measures (the paper's and, once AddCredal computed them,
// the credal ones), uq.EUFeat and the energy scores in Energies.
func (p *Prediction) Get(u uq.Measure) []float64 {
	if v, ok := p.Energies[u]; ok {
		return v
	}
	if u == uq.EUFeat {
		return p.EUFeat
	}
	return p.Measures.Get(u)
}

// Available lists the measures the prediction has: those of uq.Measures
// (the paper's in the order of uq.AllMeasures, then the credal ones if
// computed), then the energy scores present, in the order of
// uq.PostHocMeasures. EU_FEAT is not listed, so that the paper's tables,
// which iterate this list, stay the paper's; Get returns it.
func (p *Prediction) Available() []uq.Measure {
	out := p.Measures.Available()
	for _, m := range uq.PostHocMeasures {
		if p.Energies[m] != nil {
			out = append(out, m)
		}
	}
	return out
}

// Uncertainty returns the values of measure u, or an error naming the
// measures the model has when it lacks u (APPNP has no epistemic measure;
// the credal measures need AddCredal first).
func (p *Prediction) Uncertainty(u uq.Measure) ([]float64, error) {
	v := p.Get(u)
	if v == nil {
		if slices.Contains(uq.CredalMeasures, u) {
			return nil, fmt.Errorf("cuq: %s has no %s; it provides %v (the credal measures need AddCredal)", p.Model, u, p.Available())
		}
		return nil, fmt.Errorf("cuq: %s has no %s; it provides %v", p.Model, u, p.Available())
	}
	return v, nil
}

// Correct reports, for each of the given nodes, whether the predicted class
// equals the graph's label.
func (p *Prediction) Correct(nodes []int) []bool {
	out := make([]bool, len(nodes))
	for k, i := range nodes {
		out[k] = p.Class[i] == p.Graph.Labels[i]
	}
	return out
}

// Accuracy is the fraction of the given nodes predicted correctly.
func (p *Prediction) Accuracy(nodes []int) float64 {
	if len(nodes) == 0 {
		return 0
	}
	n := 0
	for _, ok := range p.Correct(nodes) {
		if ok {
			n++
		}
	}
	return float64(n) / float64(len(nodes))
}

// Predict evaluates the trained model (dropout off) on g, or on the graph
// it was built on when g is nil. As Model says, g must have the number of
// nodes and the feature width of that graph, and its features (feature
// noise) and edges (structure shifts) may differ; its labels are the
// prediction's Graph.Labels, which only its evaluations read.
func (m *Model) Predict(g *graph.Graph) (*Prediction, error) {
	return m.predict(g, nil)
}

// PredictNodes is Predict for the given nodes only: their rows of Class,
// Prob, Alpha, the measures, EUFeat, Logits and Energies are bit for bit
// those Predict gives, and every other node's are NaN (Class −1). It
// costs what Predict costs, except for a linear-pooling model (LOP-GPN):
// the mixture Σⱼ Πᵢⱼ Dir(αⱼ) and its measures, O(N²·C) over the dense Π,
// are formed for the given nodes alone, O(|nodes|·N·C). The OOD settings
// that perturb one node at a time (graph.Isolated) score only that node
// on each of their graphs.
func (m *Model) PredictNodes(g *graph.Graph, nodes []int) (*Prediction, error) {
	if g == nil {
		g = m.g
	}
	for _, i := range nodes {
		if i < 0 || i >= g.N {
			return nil, fmt.Errorf("cuq: %s: node %d outside the graph's %d nodes", m.name, i, g.N)
		}
	}
	return m.predict(g, append(make([]int, 0, len(nodes)), nodes...))
}

// predict is Predict, for the given nodes only when nodes is non-nil
// (PredictNodes).
func (m *Model) predict(g *graph.Graph, nodes []int) (*Prediction, error) {
	if o := m.follow(); !o.trained {
		return nil, fmt.Errorf("cuq: %s is not trained: call Fit first", o.name)
	}
	if g == nil {
		g = m.g
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	if err := m.checkGraph(g); err != nil {
		return nil, err
	}
	p := &Prediction{Model: m.name, Graph: g, Classes: m.classes, nodes: nodes}
	if err := m.fam.predict(p); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	p.setClasses()
	if nodes != nil {
		p.keepOnly(nodes)
	}
	return p, nil
}

// keepOnly sets every per-node value of the nodes not in keep to NaN and
// their class to −1.
func (p *Prediction) keepOnly(keep []int) {
	kept := make([]bool, len(p.Class))
	for _, i := range keep {
		kept[i] = true
	}
	vectors := [][]float64{p.EUFeat}
	for _, u := range p.Measures.Available() {
		vectors = append(vectors, p.Measures.Get(u))
	}
	for _, v := range p.Energies {
		vectors = append(vectors, v)
	}
	nan := math.NaN()
	for i, k := range kept {
		if k {
			continue
		}
		p.Class[i] = -1
		for _, v := range vectors {
			if v != nil {
				v[i] = nan
			}
		}
		for _, d := range []*tensor.Dense{p.Prob, p.Alpha, p.Logits} {
			if d == nil {
				continue
			}
			row := d.Row(i)
			for c := range row {
				row[c] = nan
			}
		}
	}
}

// setClasses sets the predicted class of every node to the first most
// probable class.
func (p *Prediction) setClasses() {
	p.Class = make([]int, p.Prob.Rows)
	for i := range p.Class {
		p.Class[i] = argmax(p.Prob.Row(i))
	}
}

// UncertaintyOf returns the values of measure u at the given nodes, in
// their order; see Uncertainty.
func (p *Prediction) UncertaintyOf(u uq.Measure, nodes []int) ([]float64, error) {
	v, err := p.Uncertainty(u)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(nodes))
	for k, i := range nodes {
		if i < 0 || i >= len(v) {
			return nil, fmt.Errorf("cuq: node %d outside the %d nodes of %s's prediction", i, len(v), p.Model)
		}
		out[k] = v[i]
	}
	return out, nil
}

// ARC returns the accuracy-rejection curve of measure u on the given nodes
// (usually the test nodes): the accuracy after rejecting the fraction p of
// the most uncertain nodes, p = 0, 0.01, …, 1 (package eval).
func (p *Prediction) ARC(u uq.Measure, nodes []int) (eval.Curve, error) {
	v, err := p.UncertaintyOf(u, nodes)
	if err != nil {
		return eval.Curve{}, err
	}
	return eval.ARC(v, p.Correct(nodes))
}

// AUROC returns how well measure u separates the OOD nodes (positive) from
// the ID nodes: the area under the ROC curve, ties counted one half.
func (p *Prediction) AUROC(u uq.Measure, id, ood []int) (float64, error) {
	vID, err := p.UncertaintyOf(u, id)
	if err != nil {
		return 0, err
	}
	vOOD, err := p.UncertaintyOf(u, ood)
	if err != nil {
		return 0, err
	}
	return eval.AUROC(vID, vOOD)
}

// SplitByCorrectness returns the given nodes split into those predicted
// correctly and those predicted wrongly, each in the order given; the
// second is the positive class of misclassification detection. It returns
// an error for a node outside the graph.
func (p *Prediction) SplitByCorrectness(nodes []int) (right, wrong []int, err error) {
	for _, i := range nodes {
		if i < 0 || i >= len(p.Class) || p.Graph == nil || i >= len(p.Graph.Labels) {
			return nil, nil, fmt.Errorf("cuq: %s: node %d has no prediction or label", p.Model, i)
		}
		if p.Class[i] == p.Graph.Labels[i] {
			right = append(right, i)
		} else {
			wrong = append(wrong, i)
		}
	}
	return right, wrong, nil
}
