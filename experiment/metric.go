package experiment

import (
	"fmt"
	"strings"

	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Metric names a metric beyond the paper's accuracies and AUROCs. Every
// job records them (Result.Metrics); the extended table
// (Results.WriteExtendedTables) and the report's calibration and conformal
// sections aggregate them. A metric of an uncertainty measure, of a
// conformal score or of a group of nodes is recorded once per measure,
// score or group, under Key.
type Metric int

// The metrics of Result.Metrics. The calibration metrics, AURC, the
// misclassification-detection metrics and the conformal ones are recorded
// in the classification setting on the test nodes; AUPROut, AUPRIn and
// FPR95 in every OOD setting on its ID and OOD test nodes.
const (
	// ECE is the expected calibration error over eval.DefaultBins
	// equal-width confidence bins (eval.ECE).
	ECE Metric = iota
	// AdaptiveECE is the ECE over equal-mass bins.
	AdaptiveECE
	// MCE is the maximum calibration error over the equal-width bins.
	MCE
	// Brier is the squared Brier score, NLL the negative log-likelihood of
	// the labels (eval.CalibrationOf).
	Brier
	NLL
	// Temperature is the temperature T that temperature scaling fits on
	// the validation nodes (cuq.Prediction.TemperatureScaled); ECEScaled
	// and NLLScaled are the ECE and NLL of the scaled prediction on the
	// test nodes.
	Temperature
	ECEScaled
	NLLScaled
	// AURC is the area under the risk-coverage curve of a measure
	// (eval.RiskCoverage.AURC).
	AURC
	// MisclassAUROC and MisclassAUPR measure how well a measure detects
	// the wrong predictions among the test nodes: AUROC, and AUPR with the
	// wrong predictions as positives (eval.DetectionOf). A run whose test
	// predictions are all right or all wrong has none.
	MisclassAUROC
	MisclassAUPR
	// AUPROut and AUPRIn are the average precisions of OOD detection by a
	// measure with OOD and with ID as the positives, FPR95 its
	// false-positive rate at 95% true-positive rate (eval.DetectionOf).
	AUPROut
	AUPRIn
	FPR95
	// Coverage, SetSize and Singletons describe the split-conformal
	// prediction sets of a score at level ConformalAlpha: the fraction of
	// evaluated test nodes whose set holds the label, the mean set size
	// and the fraction of sets with one class.
	Coverage
	SetSize
	Singletons
	// ECECaGCN, NLLCaGCN, ECEGATS and NLLGATS are the test ECE and NLL
	// after the graph-aware calibrators CaGCN and GATS (cuq.CaGCN,
	// cuq.GATS), fitted on the run's split; the GraphCalibration setting
	// records them.
	ECECaGCN
	NLLCaGCN
	ECEGATS
	NLLGATS
	// ClasswiseECE is the mean over classes of the ECE of each class's
	// probability (eval.CalibrationOf); the GraphCalibration setting
	// records it.
	ClasswiseECE
	// CovGap, SSCV and WorstSlab are conditional-coverage diagnostics of
	// a conformal score's sets (conformal.Diagnose): the mean gap between
	// the classes' coverage and 1 − α, the size-stratified coverage
	// violation, and the worst-slab coverage; the GraphConformal setting
	// records them.
	CovGap
	SSCV
	WorstSlab
	// ECEByDegree, ECEScaledByDegree, ECECaGCNByDegree and
	// ECEGATSByDegree are the ECE of the test nodes of one degree group
	// (eval.DegreeGroups) alone, before calibration and after temperature
	// scaling, CaGCN and GATS; NodesByDegree is the number of test nodes
	// in the group. Their key's qualifier names the group by its degrees
	// d_i (eval.Degrees), on a doubling scale whose edges do not depend on
	// the data: "deg=0", "deg=1", "deg=2", "deg=3-4", "deg=5-8", "deg=9-16",
	// …, up to the group of the graph's largest degree. NodesByDegree is
	// recorded for every such group, 0 included; the ECEs only for a
	// group with test nodes. The GraphCalibration setting records them.
	ECEByDegree
	ECEScaledByDegree
	ECECaGCNByDegree
	ECEGATSByDegree
	NodesByDegree
	// ECEByHomophily, ECEScaledByHomophily, ECECaGCNByHomophily,
	// ECEGATSByHomophily and NodesByHomophily are the same per group of
	// local homophily h_i (eval.LocalHomophily, eval.HomophilyGroups) in
	// eval.DefaultHomophilyBins equal-width bins over [0, 1]: "h=0.0-0.2"
	// holds 0 ≤ h_i ≤ 0.2, "h=0.2-0.4" 0.2 < h_i ≤ 0.4, …, "h=0.8-1.0".
	// Test nodes without labelled neighbours have no h_i and no group.
	ECEByHomophily
	ECEScaledByHomophily
	ECECaGCNByHomophily
	ECEGATSByHomophily
	NodesByHomophily
	numMetrics
)

var metricNames = [numMetrics]string{"ECE", "aECE", "MCE", "Brier", "NLL", "T", "ECE_TS", "NLL_TS", "AURC",
	"MISC_AUROC", "MISC_AUPR", "AUPR_OUT", "AUPR_IN", "FPR95", "COVERAGE", "SET_SIZE", "SINGLETONS",
	"ECE_CAGCN", "NLL_CAGCN", "ECE_GATS", "NLL_GATS", "CW_ECE", "COVGAP", "SSCV", "WSC",
	"ECE_BY_DEGREE", "ECE_TS_BY_DEGREE", "ECE_CAGCN_BY_DEGREE", "ECE_GATS_BY_DEGREE", "NODES_BY_DEGREE",
	"ECE_BY_HOMOPHILY", "ECE_TS_BY_HOMOPHILY", "ECE_CAGCN_BY_HOMOPHILY", "ECE_GATS_BY_HOMOPHILY", "NODES_BY_HOMOPHILY"}

// metricTitles are the metrics' column titles in the Markdown tables and
// the report.
var metricTitles = [numMetrics]string{"ECE", "adaptive ECE", "MCE", "Brier", "NLL", "T", "ECE (TS)", "NLL (TS)", "AURC",
	"misclassification AUROC", "misclassification AUPR", "AUPR-Out", "AUPR-In", "FPR@95", "coverage", "set size",
	"singletons", "ECE (CaGCN)", "NLL (CaGCN)", "ECE (GATS)", "NLL (GATS)", "classwise ECE", "CovGap", "SSCV",
	"worst-slab coverage", "ECE by degree", "ECE (TS) by degree", "ECE (CaGCN) by degree", "ECE (GATS) by degree",
	"test nodes by degree", "ECE by homophily", "ECE (TS) by homophily", "ECE (CaGCN) by homophily",
	"ECE (GATS) by homophily", "test nodes by homophily"}

// String returns the metric's name in records and tables: ECE, aECE, MCE,
// Brier, NLL, T, ECE_TS, NLL_TS, AURC, MISC_AUROC, MISC_AUPR, AUPR_OUT,
// AUPR_IN, FPR95, COVERAGE, SET_SIZE, SINGLETONS, ECE_CAGCN, NLL_CAGCN,
// ECE_GATS, NLL_GATS, CW_ECE, COVGAP, SSCV, WSC, ECE_BY_DEGREE,
// ECE_TS_BY_DEGREE, ECE_CAGCN_BY_DEGREE, ECE_GATS_BY_DEGREE,
// NODES_BY_DEGREE, ECE_BY_HOMOPHILY, ECE_TS_BY_HOMOPHILY,
// ECE_CAGCN_BY_HOMOPHILY, ECE_GATS_BY_HOMOPHILY or NODES_BY_HOMOPHILY.
func (m Metric) String() string { return enum.String(m, metricNames[:]) }

// Title returns the metric's name in prose and table headers.
func (m Metric) Title() string {
	if t, ok := enum.Lookup(m, metricTitles[:]); ok {
		return t
	}
	return m.String()
}

// Key returns the key of m in Result.Metrics: its name, followed by "/"
// and of, the measure, conformal score or group of nodes, when of is not
// empty ("MISC_AUROC/EU", "COVERAGE/DAPS", "ECE_BY_DEGREE/deg=3-4").
func (m Metric) Key(of string) string {
	if of == "" {
		return m.String()
	}
	return m.String() + "/" + of
}

// parseMetricKey splits a key of Result.Metrics into its metric and
// qualifier.
func parseMetricKey(key string) (Metric, string, error) {
	name, of, _ := strings.Cut(key, "/")
	for m := range numMetrics {
		if metricNames[m] == name {
			return m, of, nil
		}
	}
	return 0, "", fmt.Errorf("unknown metric %q", key)
}
