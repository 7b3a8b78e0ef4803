package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
)

// Conformal runs split conformal prediction on the prediction's class
// probabilities p̄: the given labelled nodes (usually the test nodes) are
// split at random into calibration and evaluation nodes, and each score of
// opts (by default APS, RAPS and DAPS over the graph's adjacency) gives
// the evaluation nodes prediction sets that hold their label with
// probability at least 1−α (see package conformal). It returns one result
// per score, all on the same split: empirical coverage, mean set size,
// singleton and empty-set rates, and each node's set. Conformal
// prediction needs only p̄, so it applies to every model alike. It returns
// an error for a prediction without probabilities or a graph, and the
// errors of conformal.Evaluate (an unlabelled node among nodes, say).
func (p *Prediction) Conformal(nodes []int, opts conformal.Options) ([]conformal.Result, error) {
	if p.Prob == nil || p.Graph == nil || p.Prob.Cols != p.Classes {
		return nil, fmt.Errorf("cuq: %s: conformal prediction needs the class probabilities of %d classes and a labelled graph", p.Model, p.Classes)
	}
	res, err := conformal.Evaluate(p.Prob.Data, p.Classes, p.Graph.Labels, p.Graph.Adj, nodes, opts)
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return res, nil
}
