package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// DirichletPrior is the prior pseudo-count of every class in the Dirichlet
// models (PostNet's α = 1 + β, GKDE's α = 1 + evidence): their evidence is
// β = α − DirichletPrior.
const DirichletPrior = 1

// credalSource holds what a prediction's credal sets are built from beside
// Alpha: a committee's samples, or LOP-GPN's mixture Σⱼ Πᵢⱼ Dir(αⱼ).
type credalSource struct {
	samples    [][]float64 // S sampled N×C predictions
	mixture    *tensor.CSR // Π
	components []float64   // the αⱼ of the mixture, row-major
}

// CredalSets returns every node's credal set (package uq, docs/guide/credal.md):
//
//   - a committee (ensemble, MC dropout, DropEdge): the convex hull of its
//     S sampled predictions, a uq.Hull;
//   - a Dirichlet model (GKDE, GPN, CUQ-*): the Imprecise Dirichlet Model
//     of the evidence β = α − 1 with prior strength s, a uq.IDM with
//     lower_k = β_k/(β₀+s), upper_k = (β_k+s)/(β₀+s);
//   - LOP-GPN: the linear pool Σⱼ Πᵢⱼ Kⱼ of its components' IDMs, again an
//     IDM.
//
// strength is s; 0 (or less) means s = C, the number of classes. Committees
// ignore it. It returns an error for a first-order model (APPNP, GCN, a
// temperature-scaled prediction), whose single distribution per node has no
// credal set beyond itself, and for invalid parameters (an α < 1).
func (p *Prediction) CredalSets(strength float64) ([]uq.CredalSet, error) {
	var (
		sets []uq.CredalSet
		err  error
	)
	switch src := p.credal; {
	case src.samples != nil:
		sets, err = uq.SampleHulls(src.samples, p.Classes)
	case src.mixture != nil:
		pi := src.mixture
		sets, err = uq.MixtureIDMs(pi.Ptr, pi.Ind, pi.Val, src.components, p.Classes, DirichletPrior, strength)
	case p.Alpha != nil:
		sets, err = uq.DirichletIDMs(p.Alpha.Data, p.Classes, DirichletPrior, strength)
	default:
		return nil, fmt.Errorf("cuq: %s has no credal sets: a first-order prediction is one distribution per node, not a committee or a Dirichlet", p.Model)
	}
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: credal sets: %w", p.Model, err)
	}
	return sets, nil
}

// AddCredal computes the credal measures of CredalSets(strength) — H_UPPER,
// H_LOWER, EU_CREDAL, GH and CREDAL_SIZE (uq.Credal) — and adds them to the
// prediction's Measures, so that Uncertainty, ARC and AUROC accept them.
// It changes p: do not call it while other goroutines read p. It returns
// the errors of CredalSets and of uq.Credal (GH of a committee with more
// than uq.MaxGHClasses classes).
func (p *Prediction) AddCredal(strength float64) error {
	sets, err := p.CredalSets(strength)
	if err != nil {
		return err
	}
	ms, err := uq.Credal(sets)
	if err != nil {
		return fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	p.HUpper, p.HLower, p.EUCredal, p.GH, p.CredalSize = ms.HUpper, ms.HLower, ms.EUCredal, ms.GH, ms.CredalSize
	return nil
}

// CredalPredictionSets returns the credal prediction sets of the given
// labelled nodes: the classes of each node's credal set (CredalSets with
// strength) not dominated under interval dominance (uq.NonDominated), with
// their coverage of the labels and their sizes, in the form of the
// conformal results (see Conformal). Unlike a conformal set it promises no
// coverage level: it is as wide as the model's imprecision.
func (p *Prediction) CredalPredictionSets(strength float64, nodes []int) (uq.PredictionSets, error) {
	if p.Graph == nil {
		return uq.PredictionSets{}, fmt.Errorf("cuq: %s: credal prediction sets need a labelled graph", p.Model)
	}
	sets, err := p.CredalSets(strength)
	if err != nil {
		return uq.PredictionSets{}, err
	}
	r, err := uq.CredalPredictionSets(sets, p.Graph.Labels, nodes)
	if err != nil {
		return uq.PredictionSets{}, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return r, nil
}
