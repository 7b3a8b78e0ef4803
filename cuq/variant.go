package cuq

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/nn"
)

// WithPropagation returns a variant of m whose APPNP propagation at
// prediction has K = k steps and teleport probability t,
//
//	Π x = Σ_{j<k} t(1−t)ʲ Âʲ x + (1−t)ᵏ Âᵏ x,
//
// Â the normalised adjacency of the model's propagation (graph.PPR). It
// applies to every model whose propagation is APPNP: GPN (α = 1 + Π β_ft
// over D^−½(A+I)D^−½), LOP-GPN (the mixture Σⱼ Πᵢⱼ Dir(α_ft(j)) over
// D^−1(A+I), dense, or pruned as m is pruned), CUQ-PPR (the convolution
// Π·h of the hidden features before the PostNet head) and APPNP (the
// logits Π·(enc(X)·W + b)). k = 0 (or t = 1) gives Π = I: the
// feature-only prediction. The variant shares m's parameters, and m is
// left unchanged; the propagation is derived at its first prediction on
// a graph (for LOP-GPN's dense Π, N² entries, that is the bulk of the
// time). Its name is m's followed by ", K = k, t = t" unless k and t are
// m's own.
//
// A variant is a prediction-time view of its origin, the model it was
// made from (of a variant: that variant's origin): it uses the origin's
// parameters and class prior as they are at each Predict or Forward, so a
// variant made before Fit predicts with the trained parameters after it,
// and Predict refuses it, with the origin's error, while the origin is
// untrained. Fit and Step refuse a variant: train its origin. A variant
// and its origin share the encoder's cache of the features: do not
// predict with both at once from several goroutines.
//
// It returns an error for k < 0, t outside [0, 1], and models without
// exactly one APPNP propagation: CUQ-GCN, CUQ-GAT, GCN, GKDE and the
// committees that sample predictions (MC dropout, DropEdge).
func (m *Model) WithPropagation(k int, teleport float64) (*Model, error) {
	if k < 0 || !(teleport >= 0 && teleport <= 1) {
		return nil, fmt.Errorf("cuq: %s: WithPropagation(%d, %v): need K ≥ 0 and teleport t ∈ [0, 1]", m.name, k, teleport)
	}
	prop := nn.APPNPConfig{K: k, Teleport: teleport}
	switch f := m.fam.(type) {
	case *postNet:
		switch {
		case f.convProp != nil && f.pooling != Behavioral:
			return nil, fmt.Errorf("cuq: WithPropagation: %s propagates twice, by its APPNP convolution and by its %v pooling; which one to change is ambiguous", m.name, f.pooling)
		case f.convProp != nil:
			conv, err := prop.New(f.enc.width(), nil)
			if err != nil {
				return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
			}
			return m.variant(f.with(conv, &prop, f.pooling, f.prop)), nil
		case f.pooling != Behavioral:
			return m.variant(f.with(f.conv, f.convProp, f.pooling, prop)), nil
		}
		return nil, fmt.Errorf("cuq: WithPropagation: %s has no APPNP propagation (%s); %s", m.name, f.convKind(), propagationModels)
	case *firstOrder:
		h, ok := f.head.(*appnpHead)
		switch {
		case !ok:
			return nil, fmt.Errorf("cuq: WithPropagation: %s has no APPNP propagation (GCN layers); %s", m.name, propagationModels)
		case f.sampling.kind != noSampling:
			return nil, fmt.Errorf("cuq: WithPropagation: %s is a committee (%v); %s", m.name, f.sampling.kind, propagationModels)
		}
		v := &firstOrder{head: &appnpHead{enc: h.enc, out: h.out, prop: prop},
			rng: f.rng, edges: f.edges, sampling: f.sampling, train: f.train}
		return m.variant(v), nil
	}
	return nil, fmt.Errorf("cuq: WithPropagation: %s has no APPNP propagation; %s", m.name, propagationModels)
}

const propagationModels = "WithPropagation applies to the models whose propagation is APPNP (APPNP, GPN, LOP-GPN, CUQ-PPR)"

// WithPooling returns a variant of m that pools the same members, each
// node's PostNet opinion from its own features, in the way p says, with
// m's APPNP propagation Π (K, t):
//
//	LogLinear  (GPN)      α = 1 + Π β_ft
//	Linear     (LOP-GPN)  Σⱼ Πᵢⱼ Dir(α_ft(j)), α_ft = 1 + β_ft
//	Behavioral (CUQ-PPR)  the head on z = Π(h W) + b, h the encoder's output
//
// with β_ft the evidence of the head on the projection enc(X)·W + b of the
// node's own features (LogLinear and Linear pool after the head,
// Behavioral propagates before it). Π is over D^−½(A+I)D^−½, and over
// D^−1(A+I) for Linear pooling, dense unless m is a pruned LOP-GPN. It
// applies to GPN, LOP-GPN and CUQ-PPR: their parameters (encoder, latent
// projection of the encoder's width, radial flows) have the same shapes,
// since CUQ-PPR's convolution has none and keeps the encoder's width. The
// variant's prediction has the measures of the preset of its pooling
// (Linear: the mixture's, with the credal sets of the mixture); its name
// is m's followed by the pooling ("GPN, linear pooling") unless p is m's
// own. It shares m's parameters as WithPropagation's variants do, and m
// is left unchanged.
//
// It returns an error for an unknown pooling and for the other models:
// CUQ-GCN and CUQ-GAT (their convolutions have parameters), PostNets
// without an APPNP propagation or with two, and the models without a
// PostNet head.
func (m *Model) WithPooling(p Pooling) (*Model, error) {
	if p != Behavioral && p != LogLinear && p != Linear {
		return nil, fmt.Errorf("cuq: %s: WithPooling: unknown pooling %v", m.name, p)
	}
	f, ok := m.fam.(*postNet)
	if !ok {
		return nil, fmt.Errorf("cuq: WithPooling: %s has no PostNet head; %s", m.name, poolingModels)
	}
	var prop nn.APPNPConfig
	switch {
	case f.convProp != nil && f.pooling == Behavioral:
		prop = *f.convProp
	case f.convProp == nil && f.pooling != Behavioral:
		if _, ok := f.conv.(direct); !ok {
			return nil, fmt.Errorf("cuq: WithPooling: %s has %s before its head; %s", m.name, f.convKind(), poolingModels)
		}
		prop = f.prop
	case f.convProp != nil:
		return nil, fmt.Errorf("cuq: WithPooling: %s propagates twice, by its APPNP convolution and by its %v pooling; %s", m.name, f.pooling, poolingModels)
	default:
		return nil, fmt.Errorf("cuq: WithPooling: %s has no APPNP propagation (%s); %s", m.name, f.convKind(), poolingModels)
	}
	if p == Behavioral {
		conv, err := prop.New(f.enc.width(), nil)
		if err != nil {
			return nil, fmt.Errorf("cuq: %s: %w", m.name, err)
		}
		return m.variant(f.with(conv, &prop, p, f.prop)), nil
	}
	return m.variant(f.with(direct{f.enc.width()}, nil, p, prop)), nil
}

const poolingModels = "WithPooling applies to GPN, LOP-GPN and CUQ-PPR, whose parameters fit every pooling"

// with returns a PostNet that shares p's parameters and class prior, with
// the convolution conv (convProp its propagation, nil if it is none) and
// the pooling and pooling propagation given; its caches are its own.
func (p *postNet) with(conv nn.Conv, convProp *nn.APPNPConfig, pooling Pooling, prop nn.APPNPConfig) *postNet {
	return &postNet{enc: p.enc, conv: conv, convProp: convProp, latent: p.latent, flows: p.flows,
		pooling: pooling, prop: prop, pruneAt: p.pruneAt, reg: p.reg, logPrior: p.logPrior, rng: p.rng}
}

// convKind names p's convolution for error messages.
func (p *postNet) convKind() string {
	switch p.conv.(type) {
	case direct:
		return "no convolution"
	case *nn.GCNStack:
		return "GCN layers"
	case *nn.GATStack:
		return "GAT layers"
	}
	if p.convProp != nil {
		return "an APPNP convolution"
	}
	return fmt.Sprintf("the convolution %T", p.conv)
}

// appnpConv returns the propagation of an APPNP convolution's
// configuration, nil for other convolutions.
func appnpConv(c nn.ConvConfig) *nn.APPNPConfig {
	switch c := c.(type) {
	case nn.APPNPConfig:
		return &c
	case *nn.APPNPConfig:
		if c != nil {
			v := *c
			return &v
		}
	}
	return nil
}

// variant returns the model of family fam that shares m's graph, training
// schedule and origin, named after how it differs from the origin.
func (m *Model) variant(fam family) *Model {
	o := m.origin()
	return &Model{name: variantName(o, fam), g: m.g, classes: m.classes, train: m.train, fam: fam, base: o}
}

// origin returns the model whose parameters m uses: the model a variant
// was made from, m itself for other models.
func (m *Model) origin() *Model {
	if m.base != nil {
		return m.base
	}
	return m
}

// follow brings a variant up to date with its origin (the class prior
// that the origin's Fit sets) and returns the origin, whose training the
// variant's predictions rely on; for other models it returns m.
func (m *Model) follow() *Model {
	o := m.origin()
	if p, ok := m.fam.(*postNet); ok && o != m {
		p.logPrior = o.fam.(*postNet).logPrior
	}
	return o
}

// variantName returns o's name followed by what fam changes: the pooling,
// then the propagation (", K = k, t = t").
func variantName(o *Model, fam family) string {
	name := o.name
	pool, prop, ok := knobs(fam)
	pool0, prop0, _ := knobs(o.fam)
	if !ok {
		return name
	}
	if pool != pool0 {
		name += fmt.Sprintf(", %v pooling", pool)
	}
	if prop != prop0 {
		name += fmt.Sprintf(", K = %d, t = %g", prop.K, prop.Teleport)
	}
	return name
}

// knobs returns the pooling (Behavioral for a first-order model) and the
// APPNP propagation of fam, ok false when it has no single one.
func knobs(fam family) (Pooling, nn.APPNPConfig, bool) {
	switch f := fam.(type) {
	case *postNet:
		switch {
		case f.convProp != nil && f.pooling == Behavioral:
			return f.pooling, *f.convProp, true
		case f.convProp == nil && f.pooling != Behavioral:
			return f.pooling, f.prop, true
		}
	case *firstOrder:
		if h, ok := f.head.(*appnpHead); ok {
			return Behavioral, h.prop, true
		}
	}
	return 0, nn.APPNPConfig{}, false
}
