package kernelext

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// TrainModel returns the model b describes on g trained on split, trained
// once per kernel session: the first call trains it (with a progress bar
// unless Quiet) and keeps its trained state (cuq.Model.State; see Cache),
// later calls with the same builder, schedule, graph and split, from any
// cell, rebuild it and put the state back (cuq.Model.SetState). Schedule,
// MaxEpochs and QuickEpochs set its schedule as Train's. Use it where a
// cell needs the model itself, such as its variants
// (cuq.Model.WithPropagation, WithPooling); Train keeps only a model's
// predictions. GKDE, which has no parameters, has no state to keep.
func TrainModel(b cuq.ModelBuilder, g *graph.Graph, split graph.Split, opts ...TrainOption) (*cuq.Model, error) {
	if b == nil || g == nil {
		return nil, fmt.Errorf("kernelext.TrainModel: nil builder or graph")
	}
	var o trainOptions
	for _, opt := range opts {
		opt(&o)
	}
	var fresh *cuq.Model
	saved, err := Cache(KeyOf("model", b, g, split, o.schedule), func() (cuq.State, error) {
		m, err := b.Done(g)
		if err != nil {
			return cuq.State{}, err
		}
		if _, err := fitTimed(built{m, g, m.NumParams()}, split, o.quiet, o.fitOptions()); err != nil {
			return cuq.State{}, err
		}
		fresh = m
		return m.State()
	})
	if err != nil {
		return nil, err
	}
	if fresh != nil {
		return fresh, nil
	}
	m, err := b.Done(g)
	if err != nil {
		return nil, err
	}
	if err := m.SetState(saved); err != nil {
		return nil, fmt.Errorf("kernelext.TrainModel: %w; call kernelext.Forget(\"model\")", err)
	}
	if !o.quiet {
		noteCached(m.Name() + " (parameters)")
	}
	return m, nil
}
