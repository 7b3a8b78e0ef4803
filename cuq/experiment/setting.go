package experiment

import (
	"fmt"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
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
	numSettings
)

// AllSettings lists every setting in the reference's order.
var AllSettings = []Setting{Classification, LeaveOutClasses, GaussianNoise, BernoulliNoise}

// settingNames are the settings' names in cuqgnn's vocabulary (flags,
// records, progress lines, tables); referenceKeys are the reference
// implementation's, which only its file formats use.
var (
	settingNames  = [numSettings]string{"classification", "loc", "gaussian", "bernoulli"}
	referenceKeys = [numSettings]string{"classification", "ood_loc", "ood_features_normal", "ood_features_ber"}
)

// String returns the name of s: classification, loc, gaussian or
// bernoulli, the name a user types (cuq grid -settings) and reads.
func (s Setting) String() string { return enum.String(s, settingNames[:]) }

// ReferenceKey returns the reference implementation's name of s:
// classification, ood_loc, ood_features_normal or ood_features_ber.
func (s Setting) ReferenceKey() string {
	k, _ := enum.Lookup(s, referenceKeys[:])
	return k
}

// Title returns the setting's name in prose and table captions:
// "classification", "leave-out classes", "Gaussian noise" or "Bernoulli
// noise".
func (s Setting) Title() string {
	switch s {
	case LeaveOutClasses:
		return "leave-out classes"
	case GaussianNoise:
		return "Gaussian noise"
	case BernoulliNoise:
		return "Bernoulli noise"
	}
	return s.String()
}

// noise returns the perturbation of a feature-noise setting.
func (s Setting) noise() (graph.Noise, bool) {
	switch s {
	case GaussianNoise:
		return graph.Gaussian, true
	case BernoulliNoise:
		return graph.Bernoulli, true
	}
	return 0, false
}

// SettingNames returns the names of the settings (see Setting.String).
func SettingNames() []string { return settingNames[:] }

// ParseSetting returns the setting named s: classification (clf), loc
// (ood_loc), gaussian (normal, ood_features_normal) or bernoulli (ber,
// ood_features_ber). Case, '-' and '_' are ignored.
func ParseSetting(s string) (Setting, error) {
	switch datasets.NameKey(s) {
	case "classification", "clf":
		return Classification, nil
	case "loc", "oodloc", "leaveoutclasses":
		return LeaveOutClasses, nil
	case "gaussian", "normal", "oodfeaturesnormal", "oodnormal":
		return GaussianNoise, nil
	case "bernoulli", "ber", "oodfeaturesber", "oodber":
		return BernoulliNoise, nil
	}
	return 0, fmt.Errorf("experiment: unknown setting %q (valid: %s)", s, strings.Join(SettingNames(), ", "))
}

// ParseSettings parses a comma-separated list of settings; see
// ParseSetting.
func ParseSettings(list string) ([]Setting, error) {
	return parseList(list, ParseSetting, "setting", SettingNames())
}
