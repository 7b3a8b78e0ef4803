package kernelext

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// Parameters are the values of a trained model's parameters, flows first,
// in the order of cuq.Model.Parameters: what TrainModel keeps.
type Parameters struct {
	Values [][]float64
}

// ParametersOf copies m's parameter values.
func ParametersOf(m *cuq.Model) Parameters {
	flows, others := m.Parameters()
	var p Parameters
	for _, v := range append(flows, others...) {
		p.Values = append(p.Values, append([]float64(nil), v.Data.Data...))
	}
	return p
}

// Restore makes m, built by the builder that trained the parameters on the
// same graph, the trained model: one training step on split sets what a
// fit sets besides the parameters (the class prior of a PostNet head from
// the training labels), and the parameters are then overwritten with the
// saved values. It returns an error for parameters of another shape.
func (p Parameters) Restore(m *cuq.Model, split graph.Split) error {
	flows, others := m.Parameters()
	params := append(flows, others...)
	if len(params) != len(p.Values) {
		return fmt.Errorf("kernelext: %d saved parameters for %s's %d", len(p.Values), m.Name(), len(params))
	}
	for k, v := range params {
		if len(v.Data.Data) != len(p.Values[k]) {
			return fmt.Errorf("kernelext: saved parameter %d has %d values, %s's %s has %d", k, len(p.Values[k]), m.Name(), v.Name, len(v.Data.Data))
		}
	}
	if len(params) == 0 { // nothing to restore: fitting only computes
		_, err := m.Fit(split)
		return err
	}
	if _, err := m.Step(split); err != nil {
		return err
	}
	for k, v := range params {
		copy(v.Data.Data, p.Values[k])
	}
	return nil
}

// TrainModel returns the model b describes on g trained on split, trained
// once per kernel session: the first call trains it (with a progress bar
// unless Quiet) and keeps its parameters (see Cache), later calls with the
// same builder, graph and split, from any cell, rebuild it and restore
// them (Parameters.Restore). Use it where a cell needs the model itself,
// such as its variants (cuq.Model.WithPropagation, WithPooling); Train
// keeps only a model's predictions.
func TrainModel(b *cuq.Builder, g *graph.Graph, split graph.Split, opts ...TrainOption) (*cuq.Model, error) {
	if b == nil || g == nil {
		return nil, fmt.Errorf("kernelext.TrainModel: nil builder or graph")
	}
	var o trainOptions
	for _, opt := range opts {
		opt(&o)
	}
	var fresh *cuq.Model
	saved, err := Cache(KeyOf("model", b, g, split), func() (Parameters, error) {
		m, err := b.Done(g)
		if err != nil {
			return Parameters{}, err
		}
		if _, err := fitTimed(built{m, g, m.NumParams()}, split, o.quiet); err != nil {
			return Parameters{}, err
		}
		fresh = m
		return ParametersOf(m), nil
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
	if err := saved.Restore(m, split); err != nil {
		return nil, fmt.Errorf("kernelext.TrainModel: %w; call kernelext.Forget(\"model\")", err)
	}
	if !o.quiet {
		noteCached(m.Name() + " (parameters)")
	}
	return m, nil
}
