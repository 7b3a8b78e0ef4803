package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// Calibration returns how well the prediction's class probabilities p̄ are
// calibrated on the given nodes (nil: every node) against the graph's
// labels: ECE and MCE over equal-width confidence bins, the adaptive ECE,
// the Brier score, the NLL, the classwise ECE, the reliability-diagram
// bins, and the calibration by degree and by local homophily, the
// fraction of a node's neighbours sharing its label (see
// eval.CalibrationOf; opts.Bins defaults to 10; opts.Degree and
// opts.Homophily, when nil, are the graph's, eval.Degrees and
// eval.LocalHomophily of its adjacency and labels, if it has an
// adjacency). Calibration concerns
// the predicted distribution only, so it applies to every model alike. It
// returns an error for a prediction without probabilities or labels, and
// the errors of eval.CalibrationOf (an unlabelled node among nodes, say).
func (p *Prediction) Calibration(nodes []int, opts eval.CalibrationOptions) (eval.Calibration, error) {
	if p.Prob == nil || p.Graph == nil {
		return eval.Calibration{}, fmt.Errorf("cuq: %s: calibration needs class probabilities and a labelled graph", p.Model)
	}
	if p.Prob.Cols != p.Classes || p.Prob.Rows != len(p.Graph.Labels) {
		return eval.Calibration{}, fmt.Errorf("cuq: %s: %dx%d probabilities for %d labelled nodes of %d classes",
			p.Model, p.Prob.Rows, p.Prob.Cols, len(p.Graph.Labels), p.Classes)
	}
	var err error
	if adj := p.Graph.Adj; adj != nil && opts.Degree == nil {
		if opts.Degree, err = eval.Degrees(adj.Ptr, adj.Ind); err != nil {
			return eval.Calibration{}, fmt.Errorf("cuq: %s: %w", p.Model, err)
		}
	}
	if adj := p.Graph.Adj; adj != nil && opts.Homophily == nil {
		if opts.Homophily, err = eval.LocalHomophily(adj.Ptr, adj.Ind, p.Graph.Labels, p.Classes); err != nil {
			return eval.Calibration{}, fmt.Errorf("cuq: %s: %w", p.Model, err)
		}
	}
	c, err := eval.CalibrationOf(p.Prob.Data, p.Classes, p.Graph.Labels, nodes, opts)
	if err != nil {
		return eval.Calibration{}, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return c, nil
}

// MisclassificationDetection returns how well measure u flags the wrong
// predictions among the given nodes (usually the test nodes): AUROC, AUPR
// with the wrong predictions as positives (AUPRPositive) and with the right
// ones (AUPRNegative, by −u), and the FPR at 95% TPR (see eval.DetectionOf).
// It returns an error if the prediction lacks u, a node has no prediction
// or is unlabelled, or the nodes are all right or all wrong, which leaves
// nothing to detect.
func (p *Prediction) MisclassificationDetection(u uq.Measure, nodes []int) (eval.Detection, error) {
	if err := p.checkLabelled(nodes); err != nil {
		return eval.Detection{}, err
	}
	right, wrong, err := p.SplitByCorrectness(nodes)
	if err != nil {
		return eval.Detection{}, err
	}
	if len(right) == 0 || len(wrong) == 0 {
		return eval.Detection{}, fmt.Errorf("cuq: %s: misclassification detection needs right and wrong predictions, got %d right and %d wrong",
			p.Model, len(right), len(wrong))
	}
	return p.detection(u, right, wrong)
}

// OODDetection returns how well measure u separates the OOD nodes
// (positive) from the ID nodes: the AUROC of the paper (the same value as
// AUROC), AUPR with OOD as positive (AUPR-Out) and with ID as positive
// (AUPR-In, by −u), and the FPR at 95% TPR (see eval.DetectionOf). It
// returns an error if the prediction lacks u, a node is out of range, or
// either set is empty.
func (p *Prediction) OODDetection(u uq.Measure, id, ood []int) (eval.Detection, error) {
	return p.detection(u, id, ood)
}

// RiskCoverage returns the risk-coverage curve of measure u on the given
// nodes: the error rate among the k least uncertain of them, k = 1, …, n,
// whose mean is the AURC (see eval.RiskCoverageOf). It returns an error if
// the prediction lacks u, a node has no prediction or is unlabelled, or
// nodes is empty.
func (p *Prediction) RiskCoverage(u uq.Measure, nodes []int) (eval.RiskCoverage, error) {
	if err := p.checkLabelled(nodes); err != nil {
		return eval.RiskCoverage{}, err
	}
	v, err := p.UncertaintyOf(u, nodes)
	if err != nil {
		return eval.RiskCoverage{}, err
	}
	rc, err := eval.RiskCoverageOf(v, p.Correct(nodes))
	if err != nil {
		return eval.RiskCoverage{}, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return rc, nil
}

// detection returns how well measure u separates the positive nodes from
// the negative ones (see eval.DetectionOf).
func (p *Prediction) detection(u uq.Measure, negative, positive []int) (eval.Detection, error) {
	vNeg, err := p.UncertaintyOf(u, negative)
	if err != nil {
		return eval.Detection{}, err
	}
	vPos, err := p.UncertaintyOf(u, positive)
	if err != nil {
		return eval.Detection{}, err
	}
	d, err := eval.DetectionOf(vNeg, vPos)
	if err != nil {
		return eval.Detection{}, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return d, nil
}

// checkLabelled reports a node without a prediction or a label in
// [0, Classes), which has no right or wrong.
func (p *Prediction) checkLabelled(nodes []int) error {
	if p.Graph == nil {
		return fmt.Errorf("cuq: %s: the prediction has no graph and so no labels", p.Model)
	}
	for _, i := range nodes {
		if i < 0 || i >= len(p.Class) || i >= len(p.Graph.Labels) {
			return fmt.Errorf("cuq: %s: node %d has no prediction or label", p.Model, i)
		}
		if y := p.Graph.Labels[i]; y < 0 || y >= p.Classes {
			return fmt.Errorf("cuq: %s: node %d has label %d, not one of the %d classes predicted", p.Model, i, y, p.Classes)
		}
	}
	return nil
}
