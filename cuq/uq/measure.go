// Package uq computes the uncertainty measures of second-order predictions:
// per node a Dirichlet distribution Dir(α) over class distributions θ (GPN,
// CUQ-GNN, GKDE), a mixture of Dirichlets Σ_j w_j Dir(α_j) (LOP-GPN), or a
// plain categorical distribution (APPNP).
//
// Every value returned here is an UNCERTAINTY: larger means more uncertain.
// The reference implementation stores CONFIDENCES instead (larger means more
// certain); Measure.ReferenceKey documents the mapping of each measure to the
// reference's sample_confidence_<key> and how the two are related. All rankings
// (accuracy-rejection curves, AUROC) are the same under either convention.
//
// With α0 = Σ_k α_k and the mean θ̄ = α/α0 the measures are
//
//	TU    = H(θ̄) = −Σ_k θ̄_k ln θ̄_k                      total uncertainty
//	AU    = E[H(Θ)] = Σ_k θ̄_k (ψ(α0+1) − ψ(α_k+1))        aleatoric uncertainty
//	EU    = TU − AU = I(Y; Θ)                           epistemic uncertainty
//	EU_PC = −α0                                         pseudo-count uncertainty
//	EU_SO = h(Dir(α)), the differential entropy         second-order uncertainty
//	LC    = 1 − max_k θ̄_k                               least confidence
//
// where ψ is the digamma function (package special, accurate to about
// 1e-15 relative).
//
// Beyond the paper, a committee's samples and a Dirichlet each define a
// credal set, a convex set of class distributions (Hull, IDM), with the
// credal measures H_UPPER, H_LOWER, EU_CREDAL, GH and CREDAL_SIZE and
// interval-dominance prediction sets; see CredalSet and docs/guide/credal.md.
package uq

import (
	"fmt"
	"strings"

	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Measure names one uncertainty measure.
type Measure int

// The measures, in the order of the paper.
const (
	TU   Measure = iota // total uncertainty H(θ̄)
	AU                  // aleatoric uncertainty E[H(Θ)]
	EU                  // epistemic uncertainty TU − AU (mutual information)
	EUPC                // pseudo-count epistemic uncertainty −α0
	EUSO                // second-order epistemic uncertainty h(Dir(α))
	LC                  // least confidence 1 − max θ̄
	// EUFeat is the feature-only epistemic uncertainty of the PostNet
	// models, −Σ_c α_ft,c with α_ft the pseudo-counts of a node's own
	// PostNet head before evidence pooling (GPN code:
	// sample_confidence_features). It is not in AllMeasures, the paper's
	// list; cuq.Prediction provides it for PostNet models.
	EUFeat

	// The credal measures of a credal set K of class distributions (see
	// CredalSet and docs/guide/credal.md), beyond the paper.
	HUpper     // upper entropy H*(K) = max_{p∈K} H(p), the credal total uncertainty
	HLower     // lower entropy H_*(K) = min_{p∈K} H(p), the credal aleatoric uncertainty
	EUCredal   // credal epistemic uncertainty H*(K) − H_*(K)
	GH         // generalized Hartley measure Σ_A m(A) log₂|A|
	CredalSize // size of the credal set Σ_k (upper_k − lower_k)

	// The post-hoc energy scores of first-order models' logits z (package
	// cuq/energy), beyond the paper; cuq.Prediction provides them for the
	// energy presets (cuq.Energy, cuq.GNNSafe, cuq.GEBM).
	Energy  // free energy −T log Σ_k exp(z_k/T) (Liu et al. 2020)
	GNNSafe // free energy propagated over the graph (GNNSafe, Wu et al. 2023)
	GEBM    // multi-scale graph energy (GEBM, Fuchsgruber et al. 2024)
)

// AllMeasures lists the paper's measures in the order of the paper. The
// paper's tables and the experiment grid iterate over it; the credal
// measures are in CredalMeasures.
var AllMeasures = []Measure{TU, AU, EU, EUPC, EUSO, LC}

// CredalMeasures lists the measures of credal sets, which predictions have
// only once their credal sets are computed (cuq.Prediction.AddCredal).
var CredalMeasures = []Measure{HUpper, HLower, EUCredal, GH, CredalSize}

// PostHocMeasures lists the post-hoc scores of first-order models, which
// only the predictions of the post-hoc presets have: the energy scores,
// then those added with RegisterPostHoc, in the order added.
var PostHocMeasures = []Measure{Energy, GNNSafe, GEBM}

// measureNames names every measure, those added by RegisterPostHoc last.
var measureNames = []string{"TU", "AU", "EU", "EU_PC", "EU_SO", "LC", "EU_FEAT", "H_UPPER", "H_LOWER", "EU_CREDAL", "GH", "CREDAL_SIZE", "ENERGY", "GNNSAFE", "GEBM"}

// RegisterPostHoc adds a post-hoc score named name to the measures and to
// PostHocMeasures and returns it, so that a new score (see cuq.PostHoc) is
// one file: its measure, a package-level
//
//	var MaxLogit = uq.MustRegisterPostHoc("MAX_LOGIT")
//
// and its formula. The name is what String returns, what records and
// tables use and what ParseMeasure accepts: upper-case letters, digits and
// underscores, starting with a letter, and no other measure's name or
// reference key (compared as ParseMeasure compares). RegisterPostHoc is
// meant for package initialisation: it must not run concurrently with
// anything else of this package.
func RegisterPostHoc(name string) (Measure, error) {
	if !validMeasureName(name) {
		return 0, fmt.Errorf("uq.RegisterPostHoc: name %q: want upper-case letters, digits and underscores, starting with a letter", name)
	}
	if m, err := ParseMeasure(name); err == nil {
		return 0, fmt.Errorf("uq.RegisterPostHoc: name %q is taken by %v", name, m)
	}
	measureNames = append(measureNames, name)
	m := Measure(len(measureNames) - 1)
	PostHocMeasures = append(PostHocMeasures, m)
	return m, nil
}

// MustRegisterPostHoc is RegisterPostHoc for package-level variables: it
// panics where RegisterPostHoc returns an error, a mistake in the program
// found when it starts.
func MustRegisterPostHoc(name string) Measure {
	m, err := RegisterPostHoc(name)
	if err != nil {
		panic(err)
	}
	return m
}

// validMeasureName reports whether name is upper-case letters, digits and
// underscores, starting with a letter.
func validMeasureName(name string) bool {
	for k, r := range name {
		letter := r >= 'A' && r <= 'Z'
		if !letter && (k == 0 || !(r >= '0' && r <= '9' || r == '_')) {
			return false
		}
	}
	return name != ""
}

// referenceKeys are the reference's sample_confidence_<key> names.
var referenceKeys = [...]string{"total_entropy", "aleatoric_entropy", "epistemic_entropy_diff", "epistemic", "epistemic_entropy", "total", "features"}

// String returns the name of m: the paper's "TU", "AU", "EU", "EU_PC",
// "EU_SO" or "LC", the feature-only "EU_FEAT", the credal "H_UPPER",
// "H_LOWER", "EU_CREDAL", "GH" or "CREDAL_SIZE", or the energy scores'
// "ENERGY", "GNNSAFE" or "GEBM".
func (m Measure) String() string { return enum.String(m, measureNames) }

// ReferenceKey returns the key under which the reference implementation
// stores the confidence that corresponds to m (sample_confidence_<key>), and
// how that confidence c relates to the uncertainty u computed here:
//
//	TU    total_entropy            c = −u
//	AU    aleatoric_entropy        c = −u
//	EU    epistemic_entropy_diff   c = −u
//	EU_PC epistemic                c = α0 = −u
//	EU_SO epistemic_entropy        c = −u
//	LC    total (max-prob)         c = max θ̄ = 1 − u
//	EU_FEAT features               c = Σ_c α_ft,c = −u
//
// The reference's "aleatoric" key is the same max-prob as "total". The
// credal measures and the energy scores have no key: ReferenceKey returns
// "".
func (m Measure) ReferenceKey() string {
	k, _ := enum.Lookup(m, referenceKeys[:])
	return k
}

// ParseMeasure returns the measure named s. It accepts the names of String
// ("TU", "AU", "EU", "EU_PC", "EU_SO", "LC", "EU_FEAT", "H_UPPER",
// "H_LOWER", "EU_CREDAL", "GH", "CREDAL_SIZE", "ENERGY", "GNNSAFE", "GEBM"
// and those added by RegisterPostHoc; case-insensitive, with or without the
// underscores) and the reference's
// confidence keys ("total", "aleatoric", "total_entropy",
// "aleatoric_entropy", "epistemic_entropy_diff", "epistemic",
// "epistemic_entropy", and the GPN code's "features").
func ParseMeasure(s string) (Measure, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for m, name := range measureNames {
		lower := strings.ToLower(name)
		if key == lower || key == strings.ReplaceAll(lower, "_", "") {
			return Measure(m), nil
		}
	}
	for m, ref := range referenceKeys {
		if key == ref {
			return Measure(m), nil
		}
	}
	if key == "aleatoric" {
		return LC, nil
	}
	return 0, fmt.Errorf("uq: unknown uncertainty measure %q (want one of %s or a reference key)", s, strings.Join(measureNames, ", "))
}
