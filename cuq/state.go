package cuq

import "fmt"

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
	var s State
	for _, p := range append(flows, others...) {
		s.Params = append(s.Params, append([]float64(nil), p.Data.Data...))
	}
	for _, b := range m.buffers() {
		s.Buffers = append(s.Buffers, append([]float64(nil), b.Data.Data...))
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
	if len(s.Params) != len(params) {
		return fmt.Errorf("cuq: %s: a state of %d parameters for a model of %d", m.name, len(s.Params), len(params))
	}
	for k, p := range params {
		if len(s.Params[k]) != len(p.Data.Data) {
			return fmt.Errorf("cuq: %s: the state's parameter %d has %d values, %s has %d", m.name, k, len(s.Params[k]), p.Name, len(p.Data.Data))
		}
	}
	buffers := m.buffers()
	if len(s.Buffers) != len(buffers) {
		return fmt.Errorf("cuq: %s: a state of %d buffers for a model of %d", m.name, len(s.Buffers), len(buffers))
	}
	for k, b := range buffers {
		if len(s.Buffers[k]) != len(b.Data.Data) {
			return fmt.Errorf("cuq: %s: the state's buffer %d has %d values, %s has %d", m.name, k, len(s.Buffers[k]), b.Name, len(b.Data.Data))
		}
	}
	post, isPostNet := m.fam.(*postNet)
	switch {
	case isPostNet && len(s.LogPrior) != m.classes:
		return fmt.Errorf("cuq: %s: the state's class prior has %d classes, the model %d", m.name, len(s.LogPrior), m.classes)
	case !isPostNet && s.LogPrior != nil:
		return fmt.Errorf("cuq: %s: a state with a class prior for a model without a PostNet head", m.name)
	}
	for k, p := range params {
		copy(p.Data.Data, s.Params[k])
	}
	for k, b := range buffers {
		copy(b.Data.Data, s.Buffers[k])
	}
	if isPostNet {
		post.logPrior = append([]float64(nil), s.LogPrior...)
	}
	m.trained, m.stepper = true, nil
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
