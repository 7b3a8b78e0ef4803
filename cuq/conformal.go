package cuq

import (
	"fmt"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Conformal runs split conformal prediction on the prediction's class
// probabilities p̄: the given labelled nodes (usually the test nodes) are
// split at random into calibration and evaluation nodes, and each score of
// opts (by default APS, RAPS and DAPS over the graph's adjacency) gives
// the evaluation nodes prediction sets that hold their label with
// probability at least 1−α (see package conformal). It returns one result
// per score, all on the same split: empirical coverage, mean set size,
// singleton and empty-set rates, and each node's set. Conformal
// prediction needs only p̄, so it applies to every model alike.
//
// The graph fills in what the scores and diagnostics of opts leave out: a
// conformal.SNAPS score without a Similarity graph gets the
// KNNSimilarity of the graph's features with DefaultSimilarNodes
// neighbours (computed on each call, seconds on CoraML: build it once with
// conformal.KNNSimilarity and set it to run many splits), and
// opts.Diagnostics without Features takes the worst slabs in the graph's
// features; the diagnostics by degree and homophily use the adjacency.
// It returns an error for a prediction without probabilities or a graph,
// and the errors of conformal.KNNSimilarity and conformal.Evaluate (an
// unlabelled node among nodes, say).
func (p *Prediction) Conformal(nodes []int, opts conformal.Options) ([]conformal.Result, error) {
	if p.Prob == nil || p.Graph == nil || p.Prob.Cols != p.Classes {
		return nil, fmt.Errorf("cuq: %s: conformal prediction needs the class probabilities of %d classes and a labelled graph", p.Model, p.Classes)
	}
	opts.Scores = slices.Clone(opts.Scores)
	var similarity *tensor.CSR
	for k, s := range opts.Scores {
		snaps, ok := s.(conformal.SNAPS)
		if !ok || snaps.Similarity != nil {
			continue
		}
		if similarity == nil {
			var err error
			if similarity, err = conformal.KNNSimilarity(p.Graph.Features, conformal.DefaultSimilarNodes); err != nil {
				return nil, fmt.Errorf("cuq: %s: %w", p.Model, err)
			}
		}
		snaps.Similarity = similarity
		opts.Scores[k] = snaps
	}
	if d := opts.Diagnostics; d != nil && d.Features == nil {
		withFeatures := *d
		withFeatures.Features = p.Graph.Features
		opts.Diagnostics = &withFeatures
	}
	res, err := conformal.Evaluate(p.Prob.Data, p.Classes, p.Graph.Labels, p.Graph.Adj, nodes, opts)
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", p.Model, err)
	}
	return res, nil
}
