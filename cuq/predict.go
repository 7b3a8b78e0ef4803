package cuq

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
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
// is first-order: Alpha is nil and only TU and LC are present.
type Prediction struct {
	Model   string
	Graph   *graph.Graph
	Classes int
	Class   []int
	Prob    *tensor.Dense
	Alpha   *tensor.Dense
	uq.Measures
}

// Uncertainty returns the values of measure u, or an error naming the
// measures the model has when it lacks u (APPNP has no epistemic measure).
func (p *Prediction) Uncertainty(u uq.Measure) ([]float64, error) {
	v := p.Get(u)
	if v == nil {
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

// Predict evaluates the trained model (dropout off) on g, which must have
// the nodes and feature width of the training graph; its features may
// differ (feature-noise OOD) and so may its adjacency.
func (m *Model) Predict(g *graph.Graph) (*Prediction, error) {
	if !m.trained {
		return nil, fmt.Errorf("cuq: %s is not trained: call Fit first", m.name)
	}
	if g == nil {
		g = m.cfg.g
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	p := &Prediction{Model: m.name, Graph: g, Classes: m.classes}
	var err error
	switch {
	case m.cfg.gkde:
		if g.Adj != m.cfg.g.Adj {
			return nil, fmt.Errorf("cuq: GKDE's evidence belongs to the graph it was fitted on")
		}
		p.Alpha = m.gkdeAlpha.Clone()
		p.Prob = dirichletMeans(p.Alpha)
		p.Measures, err = uq.Dirichlet(p.Alpha.Data, m.classes)
	default:
		s, perr := m.prepare(g)
		if perr != nil {
			return nil, perr
		}
		out := m.forward(ad.NewEvalTape(), g, s, nil).Data
		switch {
		case m.cfg.firstOrder:
			p.Prob = tensor.New(out.Rows, out.Cols)
			for i, v := range out.Data {
				p.Prob.Data[i] = math.Exp(v)
			}
			p.Measures, err = uq.Categorical(p.Prob.Data, m.classes)
		case s.mixture != nil:
			pi := s.mixture
			p.Prob, err = mixtureMean(pi, out, m.classes)
			if err == nil {
				p.Alpha = tensor.New(out.Rows, out.Cols)
				pi.MulTo(p.Alpha, out)
				p.Measures, err = uq.Mixture(pi.Ptr, pi.Ind, pi.Val, out.Data, m.classes)
			}
		default:
			p.Alpha = out
			p.Prob = dirichletMeans(out)
			p.Measures, err = uq.Dirichlet(out.Data, m.classes)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	p.Class = make([]int, g.N)
	for i := range p.Class {
		p.Class[i] = argmax(p.Prob.Row(i))
	}
	return p, nil
}

func mixtureMean(pi *tensor.CSR, alpha *tensor.Dense, k int) (*tensor.Dense, error) {
	mean, err := uq.MixtureMean(pi.Ptr, pi.Ind, pi.Val, alpha.Data, k)
	if err != nil {
		return nil, err
	}
	return tensor.FromSlice(pi.Rows, k, mean)
}

// ARC returns the accuracy-rejection curve of measure u on the given nodes
// (usually the test nodes): the accuracy after rejecting the fraction p of
// the most uncertain nodes, p = 0, 0.01, …, 1 (package eval).
func (p *Prediction) ARC(u uq.Measure, nodes []int) (eval.Curve, error) {
	v, err := p.Uncertainty(u)
	if err != nil {
		return eval.Curve{}, err
	}
	return eval.ARC(gather(v, nodes), p.Correct(nodes))
}

// AUROC returns how well measure u separates the OOD nodes (positive) from
// the ID nodes: the area under the ROC curve, ties counted one half.
func (p *Prediction) AUROC(u uq.Measure, id, ood []int) (float64, error) {
	v, err := p.Uncertainty(u)
	if err != nil {
		return 0, err
	}
	return eval.AUROC(gather(v, id), gather(v, ood))
}

func gather(values []float64, nodes []int) []float64 {
	out := make([]float64, len(nodes))
	for k, i := range nodes {
		out[k] = values[i]
	}
	return out
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
