package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
)

// State is what training leaves in a model besides its configuration:
// the values of its parameters, in the order of Model.Parameters (flows,
// then the others), the running estimates of its BatchNorms (their means,
// then variances, layer by layer), and for a PostNet model the log class
// prior log p(c) of its training labels. Model.State takes it from a trained model and
// Model.SetState puts it into another model built by the same builder on
// a graph of the same shape, which then predicts as the trained one did,
// bit for bit, without training. Its fields are exported so that it can
// be stored (encoding/gob, encoding/json).
type State struct {
	Params   [][]float64
	Buffers  [][]float64 `json:",omitempty"` // nil for a model without BatchNorm
	LogPrior []float64   // nil for a first-order model
}

// State returns a copy of m's trained state. It is an error for a model
// that is not trained, for a variant (take its origin's) and for GKDE,
// whose fitted evidence Fit computes without training.
func (m *Model) State() (State, error) {
	if err := m.checkState(); err != nil {
		return State{}, err
	}
	if !m.trained {
		return State{}, fmt.Errorf("cuq: %s is not trained: call Fit first", m.name)
	}
	flows, others := m.fam.params()
	s := State{Params: snapshot(append(flows, others...))}
	if b := m.buffers(); len(b) > 0 {
		s.Buffers = snapshot(b)
	}
	if p, ok := m.fam.(*postNet); ok {
		s.LogPrior = append([]float64(nil), p.logPrior...)
	}
	return s, nil
}

// SetState makes m the trained model whose state s is: it checks that s
// fits m (the number and sizes of the parameters, the class prior's
// length) before it changes anything, then copies the values in. Models
// built on the graph after SetState (WithPropagation, WithPooling) share
// them.
func (m *Model) SetState(s State) error {
	if err := m.checkState(); err != nil {
		return err
	}
	flows, others := m.fam.params()
	params := append(flows, others...)
	if err := m.fits("parameter", s.Params, params); err != nil {
		return err
	}
	buffers := m.buffers()
	if err := m.fits("buffer", s.Buffers, buffers); err != nil {
		return err
	}
	post, isPostNet := m.fam.(*postNet)
	switch {
	case isPostNet && len(s.LogPrior) != m.classes:
		return fmt.Errorf("cuq: %s: the state's class prior has %d classes, the model %d", m.name, len(s.LogPrior), m.classes)
	case !isPostNet && s.LogPrior != nil:
		return fmt.Errorf("cuq: %s: a state with a class prior for a model without a PostNet head", m.name)
	}
	restore(params, s.Params)
	restore(buffers, s.Buffers)
	if isPostNet {
		post.logPrior = append([]float64(nil), s.LogPrior...)
	}
	m.trained, m.stepper = true, nil
	return nil
}

// fits returns an error unless the stored values have one slice for each
// of vals (the model's parameters or buffers, named kind), of its size.
func (m *Model) fits(kind string, stored [][]float64, vals []*ad.Value) error {
	if len(stored) != len(vals) {
		return fmt.Errorf("cuq: %s: a state of %d %ss for a model of %d", m.name, len(stored), kind, len(vals))
	}
	for k, v := range vals {
		if len(stored[k]) != len(v.Data.Data) {
			return fmt.Errorf("cuq: %s: the state's %s %d has %d values, %s has %d", m.name, kind, k, len(stored[k]), v.Name, len(v.Data.Data))
		}
	}
	return nil
}

// checkState refuses the models whose state State and SetState do not
// cover.
func (m *Model) checkState() error {
	switch {
	case m.base != nil:
		return fmt.Errorf("cuq: %s is a prediction-time variant of %s: take the state of %s", m.name, m.base.name, m.base.name)
	case !m.Trainable():
		return fmt.Errorf("cuq: %s has no parameters: Fit computes it without training", m.name)
	}
	return nil
}
