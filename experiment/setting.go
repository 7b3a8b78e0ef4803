package experiment

import (
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Setting is one experimental setting of the paper's grid.
type Setting int

// The settings, in the order of the reference.
const (
	// Classification trains on the full graph and evaluates accuracy and
	// accuracy-rejection curves on the test nodes.
	Classification Setting = iota
	// LeaveOutClasses trains on the graph without the labels of the last
	// classes and detects the test nodes of those classes as OOD.
	LeaveOutClasses
	// GaussianNoise evaluates the classification model on a graph where the
	// features of 10% of the nodes are replaced by N(0, 1) noise, which are
	// OOD.
	GaussianNoise
	// BernoulliNoise is GaussianNoise with Bernoulli(0.5) rows normalised to
	// sum 1.
	BernoulliNoise
	// RandomEdges evaluates the classification model on a graph with
	// graph.RandomEdges structure noise (StructureFraction of the edges
	// added at random); the OOD test nodes are those incident to an added
	// edge. Not in the paper.
	RandomEdges
	// DICE is RandomEdges with the DICE attack (graph.DICE): edges within
	// classes removed, edges between classes added. Not in the paper.
	DICE
	// GaussianSweep repeats GaussianNoise at every severity of
	// graph.GaussianSeverities. Not in the paper.
	GaussianSweep
	// BernoulliSweep repeats BernoulliNoise at every severity of
	// graph.BernoulliSeverities. Not in the paper.
	BernoulliSweep
	numSettings
)

// AllSettings lists the paper's settings in the reference's order.
var AllSettings = []Setting{Classification, LeaveOutClasses, GaussianNoise, BernoulliNoise}

// ExtendedSettings lists the settings beyond the paper: structure noise
// and the feature-noise severity sweeps. Like the noise settings they
// evaluate the classification model without retraining.
var ExtendedSettings = []Setting{RandomEdges, DICE, GaussianSweep, BernoulliSweep}

// knownSettings lists every setting, the paper's first.
var knownSettings = append(slices.Clone(AllSettings), ExtendedSettings...)

// settingNames are the settings' names in cuqgnn's vocabulary (flags,
// records, progress lines, tables); referenceKeys are the reference
// implementation's, which only its file formats use.
var (
	settingNames  = [numSettings]string{"classification", "loc", "gaussian", "bernoulli", "random_edges", "dice", "gaussian_sweep", "bernoulli_sweep"}
	settingTitles = [numSettings]string{"classification", "leave-out classes", "Gaussian noise", "Bernoulli noise",
		"random edges", "DICE", "Gaussian noise severity", "Bernoulli noise severity"}
	referenceKeys = [numSettings]string{"classification", "ood_loc", "ood_features_normal", "ood_features_ber"}
)

// String returns the name of s: classification, loc, gaussian or
// bernoulli, the name a user types (cuq grid -settings) and reads.
func (s Setting) String() string { return enum.String(s, settingNames[:]) }

// ReferenceKey returns the reference implementation's name of s:
// classification, ood_loc, ood_features_normal or ood_features_ber; ""
// for a setting the reference does not have.
func (s Setting) ReferenceKey() string {
	k, _ := enum.Lookup(s, referenceKeys[:])
	return k
}

// Title returns the setting's name in prose and table captions:
// "classification", "leave-out classes", "Gaussian noise", "Bernoulli
// noise", "random edges", "DICE", "Gaussian noise severity" or "Bernoulli
// noise severity".
func (s Setting) Title() string {
	if t, ok := enum.Lookup(s, settingTitles[:]); ok {
		return t
	}
	return s.String()
}

// noise returns the feature noise of a feature-noise setting or sweep.
func (s Setting) noise() (graph.Noise, bool) {
	switch s {
	case GaussianNoise, GaussianSweep:
		return graph.Gaussian, true
	case BernoulliNoise, BernoulliSweep:
		return graph.Bernoulli, true
	}
	return 0, false
}

// sweep reports whether s is a severity sweep, whose result holds one
// result per severity.
func (s Setting) sweep() bool { return s == GaussianSweep || s == BernoulliSweep }

// Names returns the names (String) of settings.
func Names(settings []Setting) []string { return namesOf(settings, Setting.String) }

// SettingNames returns the names of the settings (see Setting.String), the
// paper's first.
func SettingNames() []string { return settingNames[:] }

// ParseSetting returns the setting named s: a name of SettingNames, or one
// of the aliases clf, ood_loc, leave_out_classes, normal,
// ood_features_normal, ber, ood_features_ber, edges. Case, '-' and
// '_' are ignored.
func ParseSetting(s string) (Setting, error) {
	return parseName(s, "setting", SettingNames(), settingAliases, settingNames[:])
}

// settingAliases are the other names of settings, by NameKey.
var settingAliases = map[string]Setting{
	"clf":               Classification,
	"oodloc":            LeaveOutClasses,
	"leaveoutclasses":   LeaveOutClasses,
	"normal":            GaussianNoise,
	"oodfeaturesnormal": GaussianNoise,
	"oodnormal":         GaussianNoise,
	"ber":               BernoulliNoise,
	"oodfeaturesber":    BernoulliNoise,
	"oodber":            BernoulliNoise,
	"edges":             RandomEdges,
}

// ParseSettings parses a comma-separated list of settings; see
// ParseSetting.
func ParseSettings(list string) ([]Setting, error) {
	return parseList(list, ParseSetting, "setting", SettingNames())
}
