package cuq

import (
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/energy"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// A ClassifierBuilder is anything that builds a Classifier on a graph: a
// *PostNetBuilder, *FirstOrderBuilder or *GKDEBuilder (one model), an
// *EnsembleBuilder (a deep ensemble) or an *EnergyBuilder (a post-hoc
// energy score on one of them). Classifier(g) is
// the builder's Done on g with its result as a Classifier, nil (not a
// Classifier holding a nil pointer) when Done fails; like Done it leaves
// the builder unchanged. Code that takes any model as a graph-free preset
// takes a ClassifierBuilder: the energy presets wrap one, kernelext.Train
// trains one, truth.Model holds one.
type ClassifierBuilder interface {
	Classifier(g *graph.Graph) (Classifier, error)
}

var (
	_ ClassifierBuilder = (*PostNetBuilder)(nil)
	_ ClassifierBuilder = (*FirstOrderBuilder)(nil)
	_ ClassifierBuilder = (*GKDEBuilder)(nil)
	_ ClassifierBuilder = (*EnsembleBuilder)(nil)
	_ ClassifierBuilder = (*EnergyBuilder)(nil)
)

// Classifier is Done as a ClassifierBuilder.
func (e *EnsembleBuilder) Classifier(g *graph.Graph) (Classifier, error) {
	if e == nil {
		return nil, fmt.Errorf("cuq: no ensemble builder")
	}
	return asClassifier(e.Done(g))
}

// Classifier is Done as a ClassifierBuilder.
func (b *EnergyBuilder) Classifier(g *graph.Graph) (Classifier, error) {
	if b == nil {
		return nil, fmt.Errorf("cuq: no energy builder")
	}
	return asClassifier(b.Done(g))
}

// asClassifier returns c as a Classifier, or a nil Classifier (not one
// holding a nil C) and err when the build failed.
func asClassifier[C Classifier](c C, err error) (Classifier, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

// EnergyBuilder configures a post-hoc score on a first-order model or a
// deep ensemble of them: Energy, GNNSafe or GEBM (package cuq/energy has
// the formulas), or any score of the logits given to PostHoc. The wrapped
// model trains as it would alone; the score needs no training of its own
// (GEBM fits class-wise Gaussians to the training nodes' embeddings once
// the model is trained) and is added to the model's prediction as a new
// measure, larger = more uncertain, usable in ARC and AUROC like TU.
type EnergyBuilder struct {
	base    ClassifierBuilder
	measure uq.Measure
	name    string
	prefix  string     // the score's part of the name: "Energy", "GNNSafe", …
	score   LogitScore // PostHoc's score; nil for the energy scores
	temp    float64
	alpha   float64
	steps   int
	gamma   float64
	// Which options were set, to refuse those the score does not have.
	nameSet, tempSet, propagationSet, gammaSet bool
}

// LogitScore is a post-hoc uncertainty score: given a graph g and the N×C
// logits z of a first-order model on g (for an ensemble or a sampling
// model, the mean logits; see Prediction.Logits), it returns one value per
// node of g, larger meaning more uncertain.
type LogitScore func(g *graph.Graph, logits *tensor.Dense) ([]float64, error)

// PostHoc returns a post-hoc score of base's logits: measure m, added to
// the prediction under m, computed by score. m must be a measure added
// with uq.RegisterPostHoc, so that a new baseline is one file holding its
// measure, its formula and a preset such as
//
//	var MaxLogit = uq.MustRegisterPostHoc("MAX_LOGIT")
//
//	func MaxLogitOf(base cuq.ClassifierBuilder) *cuq.EnergyBuilder {
//		return cuq.PostHoc(base, MaxLogit, "MaxLogit", maxLogit)
//	}
//
// and one entry in the experiment grid's catalogue. The model is named
// prefix, "-" and base's name. It has none of the options of the energy
// scores (Temperature, Alpha, Steps, Correction).
func PostHoc(base ClassifierBuilder, m uq.Measure, prefix string, score LogitScore) *EnergyBuilder {
	b := newEnergyBuilder(base, m, prefix)
	b.score = score
	return b
}

// Energy returns the energy score of Liu et al. (2020) on base's logits
// z, the free energy
//
//	ENERGY(i) = −T · log Σ_k exp(z_ik / T),  T = 1,
//
// the negative of their (confidence) energy score. For an ensemble, or a
// model with MC dropout or DropEdge, z is the mean of the members' or
// samples' logits (as GEBM's code averages them), not the mean energy.
// The model is named "Energy-" and base's name.
func Energy(base ClassifierBuilder) *EnergyBuilder {
	return newEnergyBuilder(base, uq.Energy, "Energy")
}

// GNNSafe returns GNNSafe (Wu et al., ICLR 2023) without its training
// regulariser: the free energy of Energy propagated over the graph,
//
//	E⁽ᵏ⁺¹⁾ = α E⁽ᵏ⁾ + (1−α) D⁻¹A E⁽ᵏ⁾,  GNNSAFE = E⁽ᴷ⁾,
//
// D⁻¹A the row-normalised adjacency without self loops (an isolated node's
// row is zero), with the GNNSafe code's defaults α = 0.5, K = 2, T = 1.
// The model is named "GNNSafe-" and base's name.
func GNNSafe(base ClassifierBuilder) *EnergyBuilder {
	b := newEnergyBuilder(base, uq.GNNSafe, "GNNSafe")
	b.alpha, b.steps = 0.5, 2
	return b
}

// GEBM returns GEBM (Fuchsgruber et al., NeurIPS 2024; energy.GEBM has
// the formulas): the sum of an independent, a local (class-wise diffused
// evidence) and a group (diffused energy) energy of base's logits on the
// graph without edges, corrected by class-conditional diagonal Gaussians
// on the embeddings (the input of base's output layer) fitted to the
// training nodes, with the GEBM code's defaults γ = 1, α = 0.5, K = 10,
// T = 1. For an ensemble the members' logits and embeddings are averaged,
// as GEBM's code does; models with MC dropout or DropEdge are refused. The
// model is named "GEBM-" and base's name.
func GEBM(base ClassifierBuilder) *EnergyBuilder {
	b := newEnergyBuilder(base, uq.GEBM, "GEBM")
	c := energy.DefaultGEBM()
	b.alpha, b.steps, b.gamma = c.Alpha, c.Steps, c.Gamma
	return b
}

func newEnergyBuilder(base ClassifierBuilder, m uq.Measure, prefix string) *EnergyBuilder {
	b := &EnergyBuilder{base: base, measure: m, name: prefix, prefix: prefix, temp: 1}
	switch c := base.(type) {
	case *FirstOrderBuilder:
		if c != nil {
			b.name += "-" + c.c.name
		}
	case *EnsembleBuilder:
		if c != nil {
			b.name += "-" + c.name
		}
	}
	return b
}

// Name sets the model's display name.
func (b *EnergyBuilder) Name(name string) *EnergyBuilder {
	b.name, b.nameSet = name, true
	return b
}

// Temperature sets the temperature T > 0 of the energies (default 1).
func (b *EnergyBuilder) Temperature(t float64) *EnergyBuilder {
	b.temp, b.tempSet = t, true
	return b
}

// Alpha sets the weight α ∈ [0, 1] that the propagation keeps of a node's
// own value (GNNSafe and GEBM only).
func (b *EnergyBuilder) Alpha(a float64) *EnergyBuilder {
	b.alpha, b.propagationSet = a, true
	return b
}

// Steps sets the number K ≥ 0 of propagation steps (GNNSafe and GEBM
// only; K = 0 leaves GNNSafe the plain energy).
func (b *EnergyBuilder) Steps(k int) *EnergyBuilder {
	b.steps, b.propagationSet = k, true
	return b
}

// Correction sets the weight γ ≥ 0 of GEBM's Gaussian correction of the
// logits (GEBM only; γ = 0 leaves the logits uncorrected).
func (b *EnergyBuilder) Correction(gamma float64) *EnergyBuilder {
	b.gamma, b.gammaSet = gamma, true
	return b
}

// Done checks the configuration and builds the wrapped model on g. It
// returns an error for a model without logits (GKDE, GPN, LOP-GPN, CUQ-*,
// an energy model), for options the score does not have, and for bad
// values. It leaves the builders unchanged, as every builder's Done does.
func (b *EnergyBuilder) Done(g *graph.Graph) (*EnergyModel, error) {
	if b.base == nil {
		return nil, fmt.Errorf("cuq: %s: no model builder", b.name)
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	base, err := b.base.Classifier(g)
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", b.name, err)
	}
	return b.Of(base)
}

// check returns an error for options the score does not have and for bad
// values.
func (b *EnergyBuilder) check() error {
	if b.score != nil {
		switch {
		case !slices.Contains(uq.PostHocMeasures, b.measure) || slices.Contains([]uq.Measure{uq.Energy, uq.GNNSafe, uq.GEBM}, b.measure):
			return fmt.Errorf("cuq: %s: measure %v is not a post-hoc score added with uq.RegisterPostHoc", b.name, b.measure)
		case b.tempSet || b.propagationSet || b.gammaSet:
			return fmt.Errorf("cuq: %s: Temperature, Alpha, Steps and Correction are the energy scores' options, not a PostHoc score's", b.name)
		}
		return nil
	}
	switch {
	case !(b.temp > 0) || math.IsInf(b.temp, 1):
		return fmt.Errorf("cuq: %s: temperature %v, need a finite T > 0", b.name, b.temp)
	case b.measure == uq.Energy && b.propagationSet:
		return fmt.Errorf("cuq: %s: the energy score has no propagation; Alpha and Steps are GNNSafe's and GEBM's", b.name)
	case b.measure != uq.GEBM && b.gammaSet:
		return fmt.Errorf("cuq: %s: Correction is GEBM's", b.name)
	case !(b.alpha >= 0 && b.alpha <= 1):
		return fmt.Errorf("cuq: %s: propagation weight α = %v not in [0, 1]", b.name, b.alpha)
	case b.steps < 0:
		return fmt.Errorf("cuq: %s: %d propagation steps, need K ≥ 0", b.name, b.steps)
	case !(b.gamma >= 0) || math.IsInf(b.gamma, 1):
		return fmt.Errorf("cuq: %s: correction weight γ = %v, need a finite γ ≥ 0", b.name, b.gamma)
	}
	return nil
}

// Of wraps a classifier already built (and possibly trained) instead of
// building the builder's: the post-hoc use on a trained model. Energy,
// GNNSafe and PostHoc scores predict at once; GEBM needs FitScores (or
// Fit) first. The builder's model builder is not used, but its options
// are checked as in Done. A builder made without a model builder (base
// nil) and without Name names the model after c: "Energy-GCN".
func (b *EnergyBuilder) Of(c Classifier) (*EnergyModel, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if err := checkLogits(b.name, c, b.measure == uq.GEBM); err != nil {
		return nil, err
	}
	name := b.name
	if b.base == nil && !b.nameSet {
		name = b.prefix + "-" + c.Name()
	}
	return &EnergyModel{name: name, base: c, measure: b.measure, score: b.score, temp: b.temp,
		alpha: b.alpha, steps: b.steps, gamma: b.gamma}, nil
}

// checkLogits returns an error unless c is a first-order model or an
// ensemble of them, deterministic when embeddings are needed (GEBM).
func checkLogits(name string, c Classifier, embeddings bool) error {
	var members []*Model
	switch c := c.(type) {
	case *Model:
		members = []*Model{c}
	case *Committee:
		members = c.members
	default:
		return fmt.Errorf("cuq: %s: %T has no logits: the energy scores need a first-order model (APPNP, GCN) or an ensemble of them", name, c)
	}
	for _, m := range members {
		f, ok := m.fam.(*firstOrder)
		if !ok {
			return fmt.Errorf("cuq: %s: %s has no logits: the energy scores need a first-order model (APPNP, GCN) or an ensemble of them", name, m.name)
		}
		if embeddings && f.sampling.kind != noSampling {
			return fmt.Errorf("cuq: %s: %s samples its predictions (%v); GEBM needs a deterministic model or an ensemble", name, m.name, f.sampling.kind)
		}
	}
	return nil
}

// EnergyModel is a classifier with a post-hoc score: the wrapped model's
// prediction with the score added as uq.Energy, uq.GNNSafe, uq.GEBM or a
// PostHoc score's measure (Prediction.Energies). Energy, GNNSafe, GEBM or
// PostHoc describes one, and its Done builds it on a graph.
type EnergyModel struct {
	name    string
	base    Classifier
	measure uq.Measure
	score   LogitScore
	temp    float64
	alpha   float64
	steps   int
	gamma   float64
	gebm    *energy.GEBM // fitted by FitScores
}

var _ Classifier = (*EnergyModel)(nil)

// Name returns the model's display name.
func (m *EnergyModel) Name() string { return m.name }

// Schedule returns the wrapped classifier's schedule, which Fit trains it
// with when given none.
func (m *EnergyModel) Schedule() Schedule { return m.base.Schedule() }

// Base returns the wrapped classifier.
func (m *EnergyModel) Base() Classifier { return m.base }

// Measure returns the measure of the model's score: uq.Energy, uq.GNNSafe,
// uq.GEBM or the PostHoc score's.
func (m *EnergyModel) Measure() uq.Measure { return m.measure }

// Fit trains the wrapped model on split (its Fit, with opts), then fits
// the score (FitScores).
func (m *EnergyModel) Fit(split graph.Split, opts ...FitOption) (*History, error) {
	h, err := m.base.Fit(split, opts...)
	if err != nil {
		return h, err
	}
	if err := newFitOptions(opts).ctx.Err(); err != nil {
		return h, err
	}
	return h, m.FitScores(split)
}

// FitScores fits the score to the trained wrapped model and the training
// nodes of split: GEBM's class-conditional Gaussians and the ranges of its
// correction, from the model on its training graph with the edges; nothing
// for Energy and GNNSafe.
func (m *EnergyModel) FitScores(split graph.Split) error {
	if m.measure != uq.GEBM {
		return nil
	}
	g := m.graph()
	if err := split.Validate(g.N); err != nil {
		return fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	logits, emb, err := representations(m.base, g)
	if err != nil {
		return fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	labels := make([]int, len(split.Train))
	for k, i := range split.Train {
		labels[k] = g.Labels[i]
	}
	cfg := energy.GEBMConfig{Gamma: m.gamma, Temperature: m.temp, Alpha: m.alpha, Steps: m.steps}
	fit, err := energy.FitGEBM(cfg, logits.Data, logits.Cols, emb.Data, emb.Cols, split.Train, labels)
	if err != nil {
		return fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	m.gebm = fit
	return nil
}

// graph returns the wrapped model's training graph.
func (m *EnergyModel) graph() *graph.Graph {
	switch c := m.base.(type) {
	case *Model:
		return c.g
	case *Committee:
		return c.g
	}
	return nil
}

// Predict returns the wrapped model's prediction on g (nil: the training
// graph) with the score added to Energies, named after the model.
func (m *EnergyModel) Predict(g *graph.Graph) (*Prediction, error) {
	if g == nil {
		g = m.graph()
	}
	p, err := m.base.Predict(g)
	if err != nil {
		return nil, err
	}
	if p.Logits == nil {
		return nil, fmt.Errorf("cuq: %s: the prediction of %s has no logits", m.name, p.Model)
	}
	var score []float64
	switch {
	case m.score != nil:
		score, err = m.score(g, p.Logits)
		if err == nil && len(score) != g.N {
			err = fmt.Errorf("the score returned %d values for %d nodes", len(score), g.N)
		}
	case m.measure == uq.Energy:
		score, err = energy.Free(p.Logits.Data, p.Logits.Cols, m.temp)
	case m.measure == uq.GNNSafe:
		score, err = energy.GNNSafe(g.Adj, p.Logits.Data, p.Logits.Cols, m.temp, m.alpha, m.steps)
	case m.measure == uq.GEBM:
		score, err = m.gebmScores(g)
	}
	if err != nil {
		return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
	}
	p.Model = m.name
	p.Energies = map[uq.Measure][]float64{m.measure: score}
	return p, nil
}

// gebmScores returns GEBM's total energy on g: the wrapped model's logits
// and embeddings on g without its edges, diffused over g's edges.
func (m *EnergyModel) gebmScores(g *graph.Graph) ([]float64, error) {
	s, err := m.GEBMComponents(g)
	if err != nil {
		return nil, err
	}
	return s.Total, nil
}

// GEBMComponents returns GEBM's three energies and their sum on g (nil:
// the training graph), for a GEBM model fitted by Fit or FitScores.
func (m *EnergyModel) GEBMComponents(g *graph.Graph) (energy.GEBMScores, error) {
	if m.measure != uq.GEBM {
		return energy.GEBMScores{}, fmt.Errorf("cuq: %s is not GEBM", m.name)
	}
	if m.gebm == nil {
		return energy.GEBMScores{}, fmt.Errorf("cuq: %s is not fitted: call Fit or FitScores first", m.name)
	}
	if g == nil {
		g = m.graph()
	}
	bare := *g
	bare.Adj = &tensor.CSR{Rows: g.N, Cols: g.N, Ptr: make([]int, g.N+1)}
	logits, emb, err := representations(m.base, &bare)
	if err != nil {
		return energy.GEBMScores{}, err
	}
	return m.gebm.Scores(g.Adj, logits.Data, emb.Data)
}

// representations returns the logits and the embeddings (the input of the
// output layer) of a deterministic first-order model on g in evaluation
// mode, or the means of an ensemble's members'.
func representations(c Classifier, g *graph.Graph) (logits, emb *tensor.Dense, err error) {
	var members []*Model
	switch c := c.(type) {
	case *Model:
		members = []*Model{c}
	case *Committee:
		members = c.members
	}
	for k, model := range members {
		if o := model.follow(); !o.trained {
			return nil, nil, fmt.Errorf("%s is not trained: call Fit first", o.name)
		}
		if err := model.checkGraph(g); err != nil {
			return nil, nil, err
		}
		f := model.fam.(*firstOrder)
		if err := f.head.check(g); err != nil {
			return nil, nil, err
		}
		op, err := f.head.operator(g.Adj)
		if err != nil {
			return nil, nil, err
		}
		t := f.evaluation()
		e := f.head.embed(t, g, op, f.rng).Data
		z := f.head.logits(t, g, op, f.rng).Data
		if k == 0 {
			logits, emb = tensor.New(z.Rows, z.Cols), tensor.New(e.Rows, e.Cols)
		}
		w := 1 / float64(len(members))
		addScaled(logits.Data, z.Data, w)
		addScaled(emb.Data, e.Data, w)
		t.Release()
	}
	return logits, emb, nil
}
