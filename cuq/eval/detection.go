package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Detection summarises how well a score separates positives from negatives
// when larger scores flag positives: OOD nodes (positive) against ID nodes,
// or wrong predictions (positive) against right ones, scored by an
// uncertainty. See DetectionOf.
type Detection struct {
	// AUROC is the area under the ROC curve (see AUROC): 0.5 is chance,
	// 1 a perfect separation.
	AUROC float64
	// AUPRPositive is the average precision of detecting the positives
	// (see AUPR), called AUPR-Out in OOD detection and AUPR-Error in
	// misclassification detection. Chance is the positives' share.
	AUPRPositive float64
	// AUPRNegative is the average precision of detecting the negatives by
	// the negated score (AUPR-In, AUPR-Success). Chance is the negatives'
	// share.
	AUPRNegative float64
	// FPR95 is the false-positive rate at 95% true-positive rate (see
	// FPRAtTPR): 0 is best, and 0.95 is chance.
	FPR95 float64
}

// DetectionTPR is the true-positive rate at which Detection.FPR95 reads the
// false-positive rate.
const DetectionTPR = 0.95

// DetectionOf returns every detection metric of the scores of negatives and
// positives (ID and OOD nodes, or right and wrong predictions), larger
// scores flagging positives:
//
//	AUROC        = AUROC(negative, positive)
//	AUPRPositive = AUPR(negative, positive)
//	AUPRNegative = AUPR(−positive, −negative)
//	FPR95        = FPRAtTPR(negative, positive, 0.95)
//
// All four share one rule for NaN and ties. NaN scores count as 0 and ±Inf
// as ±math.MaxFloat64 (numpy's nan_to_num, as in AUROC). Equal scores form
// one threshold: a tied group is flagged as a whole or not at all, so every
// metric is a function of the operating points at the distinct scores. The
// ROC curve joins these points by straight lines, which is where AUROC's
// "ties count ½" comes from and where FPRAtTPR interpolates; the
// precision-recall curve is a step function between them (see AUPR). It
// returns an error if either set is empty: with one class only, none of the
// metrics is defined.
func DetectionOf(negative, positive []float64) (Detection, error) {
	if err := checkDetection("DetectionOf", negative, positive); err != nil {
		return Detection{}, err
	}
	var d Detection
	d.AUROC, _ = AUROC(negative, positive) // both sets are non-empty
	d.AUPRPositive, _ = AUPR(negative, positive)
	d.AUPRNegative, _ = AUPR(negated(positive), negated(negative))
	d.FPR95, _ = FPRAtTPR(negative, positive, DetectionTPR)
	return d, nil
}

// AUPR returns the area under the precision-recall curve of detecting the
// positives by their score, as the average precision
//
//	AP = Σ_t (R_t − R_t⁻) · P_t,
//
// summed over the distinct scores t from the highest down, where flagging
// every node with score ≥ t has recall R_t = TP_t/|positive| and precision
// P_t = TP_t/(TP_t + FP_t), and R_t⁻ is the recall at the next higher
// score (0 for the highest). This is sklearn's average_precision_score.
//
// A tied group is one threshold, as in AUROC: its positives all enter at
// the precision of the whole group. The curve is not joined by straight
// lines, which in precision-recall space would overstate the area (the GPN
// code integrates its precision-recall curve that way, trapezoidally, so
// its values are somewhat larger). A score that does not separate at all
// (all equal) gives the positives' share |positive|/(|negative|+|positive|).
// NaN and ±Inf are mapped as in AUROC. It returns an error if either set is
// empty.
func AUPR(negative, positive []float64) (float64, error) {
	if err := checkDetection("AUPR", negative, positive); err != nil {
		return math.NaN(), err
	}
	var tp, fp, ap float64
	for _, g := range groupsDescending(negative, positive) {
		tp, fp = tp+g.pos, fp+g.neg
		if g.pos > 0 {
			ap += g.pos * tp / (tp + fp)
		}
	}
	return ap / float64(len(positive)), nil
}

// FPRAtTPR returns the false-positive rate at which flagging the nodes
// with the largest scores first reaches the true-positive rate level
// (0 < level ≤ 1): the smallest FPR with TPR ≥ level on the ROC curve whose
// area AUROC returns. That curve runs through the operating points
// (FP_t/|negative|, TP_t/|positive|) of the distinct scores t, a tied group
// of a positives and b negatives being one straight segment. So, with
// τ = level·|positive| and TP₀, FP₀ the counts above the group in which
// TP reaches τ,
//
//	FPR = (FP₀ + b·(τ − TP₀)/a) / |negative|.
//
// Without ties this is the fraction of negatives scored above the
// ⌈τ⌉-th highest positive, the usual "FPR at 95% TPR". Within a tied
// group it is the expected FPR of flagging a random part of the group
// whose expected TPR is exactly level. NaN and ±Inf are mapped as in
// AUROC. It returns an error if either set is empty or level is not in
// (0, 1].
func FPRAtTPR(negative, positive []float64, level float64) (float64, error) {
	if err := checkDetection("FPRAtTPR", negative, positive); err != nil {
		return math.NaN(), err
	}
	if !(level > 0 && level <= 1) {
		return math.NaN(), fmt.Errorf("eval: FPRAtTPR: true-positive rate %v not in (0, 1]", level)
	}
	target := float64(level * float64(len(positive)))
	var tp, fp float64
	for _, g := range groupsDescending(negative, positive) {
		if g.pos > 0 && tp+g.pos >= target {
			return (fp + g.neg*(target-tp)/g.pos) / float64(len(negative)), nil
		}
		tp, fp = tp+g.pos, fp+g.neg
	}
	// Unreachable: the last group with a positive brings TP to |positive| ≥ τ.
	return 1, nil
}

// checkDetection reports an empty set of negatives or positives.
func checkDetection(op string, negative, positive []float64) error {
	if len(negative) == 0 || len(positive) == 0 {
		return fmt.Errorf("eval: %s: need negatives and positives, got %d negatives and %d positives", op, len(negative), len(positive))
	}
	return nil
}

// scoreGroup counts the negatives and positives that share one score.
type scoreGroup struct {
	neg, pos float64
}

// groupsDescending returns the groups of equal score (after nanToNum) of the
// negatives and positives, highest score first.
func groupsDescending(negative, positive []float64) []scoreGroup {
	type item struct {
		s   float64
		pos bool
	}
	items := make([]item, 0, len(negative)+len(positive))
	for _, s := range negative {
		items = append(items, item{nanToNum(s), false})
	}
	for _, s := range positive {
		items = append(items, item{nanToNum(s), true})
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(b.s, a.s) })
	var groups []scoreGroup
	for lo := 0; lo < len(items); {
		var g scoreGroup
		hi := lo
		for ; hi < len(items) && items[hi].s == items[lo].s; hi++ {
			if items[hi].pos {
				g.pos++
			} else {
				g.neg++
			}
		}
		groups = append(groups, g)
		lo = hi
	}
	return groups
}

// negated returns −x elementwise; NaN stays NaN, which nanToNum maps to 0
// either way.
func negated(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = -v
	}
	return out
}
