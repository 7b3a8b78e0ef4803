package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// A Classifier is a node classifier that Fit trains and Predict evaluates:
// a *Model or a *Committee. Code that trains and evaluates models (the
// experiment grid) can treat both through it.
type Classifier interface {
	Name() string
	Fit(split graph.Split, opts ...FitOption) (*History, error)
	Predict(g *graph.Graph) (*Prediction, error)
	// Schedule returns the schedule Fit uses when given none.
	Schedule() Schedule
}

var (
	_ Classifier = (*Model)(nil)
	_ Classifier = (*Committee)(nil)
)

// EnsembleSize is the number of members of the ensemble presets: 5, as in
// the experiments of Lakshminarayanan et al. (2017), who found most of the
// gain of an ensemble with that many members. Each member trains as long
// as one model, so an ensemble of M costs M trainings.
const EnsembleSize = 5

// EnsembleGCN returns the deep ensemble of EnsembleSize GCN members
// (each with GCN's hyperparameters and its own early stopping).
func EnsembleGCN() *EnsembleBuilder {
	return Ensemble(GCN(), EnsembleSize).Name("Ensemble-GCN")
}

// EnsembleGCNBN returns the deep ensemble of EnsembleSize GCNBN members,
// the "DE" baseline of Bazhenov et al. (2023).
func EnsembleGCNBN() *EnsembleBuilder {
	return Ensemble(GCNBN(), EnsembleSize).Name("Ensemble-GCN-BN")
}

// EnsembleAPPNP returns the deep ensemble of EnsembleSize APPNP
// members (each with APPNP's hyperparameters and its own early
// stopping).
func EnsembleAPPNP() *EnsembleBuilder {
	return Ensemble(APPNP(), EnsembleSize).Name("Ensemble-APPNP")
}

// MCDropoutGCN returns GCN with MC dropout: T = 20 forward passes
// with dropout 0.5 on at prediction.
func MCDropoutGCN() *FirstOrderBuilder {
	return GCN().Name("MC-Dropout-GCN").MCDropout(20)
}

// DropEdgeGCN returns GCN with DropEdge: each undirected edge dropped
// with probability p = 0.3 in every training epoch (a moderate rate, not
// tuned per data set), and 20 forward passes over independently dropped
// graphs at prediction.
func DropEdgeGCN() *FirstOrderBuilder {
	return GCN().Name("DropEdge-GCN").DropEdge(0.3, 20)
}

// EnsembleBuilder assembles a deep ensemble (Lakshminarayanan et al. 2017):
// M members of one first-order builder, independently initialised and
// trained. Member m (1-based) is the member builder's model of init
// (k−1)·M + m, k the ensemble's Init, so init 1 has the members of inits
// 1..M, init 2 those of M+1..2M, and no two inits share a member.
type EnsembleBuilder struct {
	member *FirstOrderBuilder
	size   int
	name   string
	init   int
}

// Ensemble returns a builder of an ensemble of size members built by
// member, named "Ensemble-" and the member's name. The members are first-
// order models (APPNP, GCN): Done refuses members with MC dropout or
// DropEdge. The ensemble reads member's configuration when it is done, and
// trains with the member's schedule.
func Ensemble(member *FirstOrderBuilder, size int) *EnsembleBuilder {
	e := &EnsembleBuilder{member: member, size: size, init: 1, name: "Ensemble"}
	if member != nil {
		e.name += "-" + member.c.name
	}
	return e
}

// Name sets the ensemble's display name.
func (e *EnsembleBuilder) Name(name string) *EnsembleBuilder { e.name = name; return e }

// Init selects the ensemble's init k (1-based), whose members are the
// member builder's inits (k−1)·M+1 … k·M.
func (e *EnsembleBuilder) Init(k int) *EnsembleBuilder { e.init = k; return e }

// Seeding selects the ensemble's init s.Init (see Init) and sets the
// member builder's seed and dropout stream: every member draws its masks
// from that stream of its own init.
func (e *EnsembleBuilder) Seeding(s Seeding) *EnsembleBuilder {
	e.init = s.Init
	if e.member != nil {
		e.member.Seed(s.Seed).DropoutStream(s.Stream)
	}
	return e
}

// Member returns the member builder, to configure the members.
func (e *EnsembleBuilder) Member() *FirstOrderBuilder { return e.member }

// Done checks the configuration and builds the members on g. The committee
// copies what it needs, and Done leaves the builders unchanged: they may
// be done again, on g or on another graph, and changed afterwards without
// changing the committees built before.
func (e *EnsembleBuilder) Done(g *graph.Graph) (*Committee, error) {
	switch {
	case e.member == nil:
		return nil, fmt.Errorf("cuq: %s: no member builder", e.name)
	case e.size < 1:
		return nil, fmt.Errorf("cuq: %s: %d members, need at least 1", e.name, e.size)
	case e.init < 1:
		return nil, fmt.Errorf("cuq: %s: init %d, inits are numbered from 1", e.name, e.init)
	case e.member.c.sampling.kind != noSampling:
		return nil, fmt.Errorf("cuq: %s: members with %v: an ensemble averages deterministic predictions", e.name, e.member.c.sampling.kind)
	}
	c := &Committee{name: e.name, g: g, schedule: e.member.c.schedule}
	for m := 1; m <= e.size; m++ {
		member := e.member.c
		member.seeding.Init = (e.init-1)*e.size + m
		model, err := member.done(g)
		if err != nil {
			return nil, fmt.Errorf("cuq: %s: member %d: %w", e.name, m, err)
		}
		c.members = append(c.members, model)
	}
	return c, nil
}

// Committee is a deep ensemble: first-order members trained independently
// whose S = M categorical predictions p⁽ᵐ⁾ it averages,
//
//	p̄ = (1/M) Σ_m p⁽ᵐ⁾,  TU = H(p̄),  AU = (1/M) Σ_m H(p⁽ᵐ⁾),  EU = TU − AU,
//
// the entropy decomposition of uq.Samples. Ensemble(member, M).Done(g)
// builds one.
type Committee struct {
	name     string
	g        *graph.Graph
	members  []*Model
	schedule Schedule
}

// Name returns the committee's display name.
func (c *Committee) Name() string { return c.name }

// Graph returns the graph the committee was built on.
func (c *Committee) Graph() *graph.Graph { return c.g }

// Schedule returns the schedule Fit trains every member with when it is
// given none: the member builder's.
func (c *Committee) Schedule() Schedule { return c.schedule }

// Members returns the members, in order; they are the committee's own.
func (c *Committee) Members() []*Model { return c.members }

// Fit trains the members one after the other on split, each with its own
// early stopping (Model.Fit). The history holds every member's epochs in
// order, each with its Member number, and each member's own History in
// Members; BestEpoch is the latest of the members' best epochs, BestValCE
// the validation cross entropy of the committee's mean prediction p̄, and
// Reason is EarlyStopping when every member stopped early. OnEpoch sees
// every epoch with its Member; cancelling WithContext's context stops the
// member in training (its best parameters so far restored) and returns
// the context's error, the members after it untouched: Predict then
// refuses a committee whose members were never trained.
func (c *Committee) Fit(split graph.Split, opts ...FitOption) (*History, error) {
	o := newFitOptions(opts)
	hist := &History{Reason: EarlyStopping, Shared: true}
	early := 0
	for k, model := range c.members {
		member := k + 1
		mopts := append(o.forward(), WithContext(o.ctx))
		if o.onEpoch != nil {
			mopts = append(mopts, OnEpoch(func(e EpochStats) {
				e.Member = member
				o.onEpoch(e)
			}))
		}
		h, err := model.Fit(split, mopts...)
		if h != nil {
			hist.Members = append(hist.Members, h)
			for _, e := range h.Epochs {
				e.Member = member
				hist.Epochs = append(hist.Epochs, e)
			}
			hist.BestEpoch = max(hist.BestEpoch, h.BestEpoch)
			hist.Shared = hist.Shared && h.Shared
		}
		if err != nil {
			hist.Reason = Interrupted
			return hist, fmt.Errorf("cuq: %s: member %d: %w", c.name, member, err)
		}
		if h.Reason == EarlyStopping {
			early++
		} else {
			hist.Reason = h.Reason
		}
	}
	pred, err := c.Predict(nil)
	if err != nil {
		return hist, err
	}
	val := tensor.New(len(split.Val), c.g.NumClasses)
	y := make([]int, len(split.Val))
	for k, i := range split.Val {
		copy(val.Row(k), pred.Prob.Row(i))
		y[k] = c.g.Labels[i]
	}
	hist.BestValCE, _ = crossEntropy(val, y)
	hist.Stopped = fmt.Sprintf("%d members trained: %d stopped early, %d did not; validation cross entropy of the mean %.4g",
		len(c.members), early, len(c.members)-early, hist.BestValCE)
	return hist, nil
}

// Predict evaluates every member on g (nil: the training graph; see
// Model.Predict) and returns the mean prediction p̄ with the entropy
// decomposition of the members' predictions: TU, AU, EU and LC, no Alpha,
// and the members' mean logits in Logits. With one member EU = 0.
func (c *Committee) Predict(g *graph.Graph) (*Prediction, error) {
	if g == nil {
		g = c.g
	}
	probs := make([][]float64, len(c.members))
	logits := tensor.New(g.N, c.g.NumClasses)
	for k, model := range c.members {
		if !model.trained {
			return nil, fmt.Errorf("cuq: %s is not trained: call Fit first", c.name)
		}
		p, err := model.Predict(g)
		if err != nil {
			return nil, fmt.Errorf("cuq: %s: member %d: %w", c.name, k+1, err)
		}
		probs[k] = p.Prob.Data
		addScaled(logits.Data, p.Logits.Data, 1/float64(len(c.members)))
	}
	p := &Prediction{Model: c.name, Graph: g, Classes: c.g.NumClasses, Logits: logits}
	if err := sampledPrediction(p, probs); err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", c.name, err)
	}
	p.setClasses()
	return p, nil
}
