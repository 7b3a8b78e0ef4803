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

	// The post-hoc energy scores of first-order models' logits z (package
	// cuq/energy), beyond the paper; cuq.Prediction provides them for the
	// energy presets (cuq.Energy, cuq.GNNSafe, cuq.GEBM).
	Energy  // free energy −T log Σ_k exp(z_k/T) (Liu et al. 2020)
	GNNSafe // free energy propagated over the graph (GNNSafe, Wu et al. 2023)
	GEBM    // multi-scale graph energy (GEBM, Fuchsgruber et al. 2024)
)

// AllMeasures lists every measure in the order of the paper.
var AllMeasures = []Measure{TU, AU, EU, EUPC, EUSO, LC}

// EnergyMeasures lists the post-hoc energy scores, which only the
// predictions of the energy presets have.
var EnergyMeasures = []Measure{Energy, GNNSafe, GEBM}

var measureNames = [...]string{"TU", "AU", "EU", "EU_PC", "EU_SO", "LC", "ENERGY", "GNNSAFE", "GEBM"}

// referenceKeys are the reference's sample_confidence_<key> names.
var referenceKeys = [...]string{"total_entropy", "aleatoric_entropy", "epistemic_entropy_diff", "epistemic", "epistemic_entropy", "total"}

// String returns the paper's name of m: "TU", "AU", "EU", "EU_PC", "EU_SO" or
// "LC", or the energy score's "ENERGY", "GNNSAFE" or "GEBM".
func (m Measure) String() string { return enum.String(m, measureNames[:]) }

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
//
// The reference's "aleatoric" key is the same max-prob as "total". The
// energy scores are not the reference's: their key is "".
func (m Measure) ReferenceKey() string {
	k, _ := enum.Lookup(m, referenceKeys[:])
	return k
}

// ParseMeasure returns the measure named s. It accepts the paper's names
// ("TU", "AU", "EU", "EU_PC", "EU_SO", "LC"; case-insensitive, with or
// without the underscore), the energy scores' ("ENERGY", "GNNSAFE",
// "GEBM") and the reference's confidence keys ("total",
// "aleatoric", "total_entropy", "aleatoric_entropy", "epistemic_entropy_diff",
// "epistemic", "epistemic_entropy").
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
	return 0, fmt.Errorf("uq: unknown uncertainty measure %q (want one of TU, AU, EU, EU_PC, EU_SO, LC, ENERGY, GNNSAFE, GEBM or a reference key)", s)
}
