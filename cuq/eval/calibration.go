package eval

import (
	"fmt"
	"math"
	"slices"
)

// DefaultBins is the number of confidence bins of the calibration errors
// when none is chosen: 10, the default of the GPN code's ECE and MCE.
const DefaultBins = 10

// ProbabilityFloor is the smallest probability whose logarithm NLL takes,
// the smallest normal float64 2⁻¹⁰²². It changes only probabilities 0 and
// subnormal ones, and caps a node's −ln p at 1022·ln 2 ≈ 708.40.
const ProbabilityFloor = 0x1p-1022

// probabilitySumTolerance is how far a row of class probabilities may sum
// from 1, and a probability exceed 1.
const probabilitySumTolerance = 1e-6

// Bin is one confidence bin of a reliability diagram.
type Bin struct {
	// Lo and Hi bound the bin's confidences: the interval (Lo, Hi] for an
	// equal-width bin (the first one also holds 0), the smallest and the
	// largest confidence in an equal-mass bin (NaN when it is empty).
	Lo, Hi float64
	// Count is the number of nodes in the bin.
	Count int
	// Confidence is the mean confidence of the bin's nodes, Accuracy the
	// fraction of them predicted correctly; both are NaN for an empty bin.
	Confidence, Accuracy float64
}

// Confidences returns, for each of the given nodes in order, the confidence
// of the prediction, max_c p_ic, and whether the predicted class (the first
// class of maximal probability, as numpy's argmax) equals the label. prob
// holds the class probabilities row-major, node i in
// prob[i·classes:(i+1)·classes]. A nil nodes means every node. It returns an
// error if classes < 1, prob does not hold len(labels) rows, nodes is empty
// but not nil, a node is out of range, its label is not in [0, classes), or
// its probabilities are not in [0, 1] (NaN included) or do not sum to 1,
// both within 10⁻⁶, the rounding of mixture weights; a confidence above 1
// by such rounding is returned as 1.
func Confidences(prob []float64, classes int, labels, nodes []int) (conf []float64, correct []bool, err error) {
	nodes, err = checkProbabilities("Confidences", prob, classes, labels, nodes)
	if err != nil {
		return nil, nil, err
	}
	conf, correct = confidences(prob, classes, labels, nodes)
	return conf, correct, nil
}

// confidences is Confidences on checked input.
func confidences(prob []float64, classes int, labels, nodes []int) (conf []float64, correct []bool) {
	conf = make([]float64, len(nodes))
	correct = make([]bool, len(nodes))
	for k, i := range nodes {
		row := prob[i*classes : (i+1)*classes]
		best := 0
		for c, p := range row {
			if p > row[best] {
				best = c
			}
		}
		conf[k], correct[k] = min(row[best], 1), best == labels[i]
	}
	return conf, correct
}

// EqualWidthBins sorts nodes with the given confidences and correctness
// flags into bins of equal width over [0, 1], the reliability diagram: bin b
// holds the confidences in (e_b, e_{b+1}], with e_b = b/bins rounded to
// float64 (so that 0.3 lies in (0.2, 0.3] for 10 bins), and the first bin
// also holds 0. These are the bins of the GPN code, whose edges are
// rounded to float32 instead and which leaves 0 out (a confidence max_c p_c
// is at least 1/K anyway). Empty bins are returned with Count 0. It
// returns an error if bins < 1, the lengths differ, there are no nodes, or
// a confidence is not in [0, 1] (NaN included).
func EqualWidthBins(conf []float64, correct []bool, bins int) ([]Bin, error) {
	if err := checkConfidences("EqualWidthBins", conf, correct, bins); err != nil {
		return nil, err
	}
	out := make([]Bin, bins)
	sumConf, sumRight := make([]float64, bins), make([]float64, bins)
	for i, c := range conf {
		b := equalWidthBin(c, bins)
		out[b].Count++
		sumConf[b] += c
		if correct[i] {
			sumRight[b]++
		}
	}
	for b := range out {
		out[b].Lo, out[b].Hi = float64(b)/float64(bins), float64(b+1)/float64(bins)
		out[b].Confidence, out[b].Accuracy = meanOf(sumConf[b], out[b].Count), meanOf(sumRight[b], out[b].Count)
	}
	return out, nil
}

// equalWidthBin returns the equal-width bin b of c ∈ [0, 1], the one with
// b/bins < c ≤ (b+1)/bins (0 for c = 0), the edges rounded to float64.
func equalWidthBin(c float64, bins int) int {
	edge := func(b int) float64 { return float64(b) / float64(bins) }
	b := min(max(int(math.Ceil(c*float64(bins)))-1, 0), bins-1)
	// c·bins is rounded: move to the bin whose edges hold c.
	for b > 0 && c <= edge(b) {
		b--
	}
	for b < bins-1 && c > edge(b+1) {
		b++
	}
	return b
}

// EqualMassBins sorts nodes with the given confidences and correctness
// flags into bins of (nearly) equal count, the adaptive binning: with the
// nodes ordered by confidence, bin b holds the positions
// ⌊b·n/bins⌋, …, ⌊(b+1)·n/bins⌋ − 1, so that counts differ by at most one
// and bins are empty only when n < bins. Nodes of equal confidence are
// placed in a uniformly random order and Accuracy is its expectation: a
// tied group of g nodes with r right ones that puts j of its positions in
// a bin adds j·r/g right predictions to it. So the bins do not depend on
// the input order. The errors are those of EqualWidthBins.
func EqualMassBins(conf []float64, correct []bool, bins int) ([]Bin, error) {
	if err := checkConfidences("EqualMassBins", conf, correct, bins); err != nil {
		return nil, err
	}
	n := len(conf)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case conf[a] < conf[b]:
			return -1
		case conf[a] > conf[b]:
			return 1
		}
		return 0
	})
	// rate[j] is the share of right predictions in the tied group of sorted
	// position j, the expected correctness of whoever lands there.
	rate := make([]float64, n)
	for lo := 0; lo < n; {
		hi, right := lo, 0.0
		for ; hi < n && conf[order[hi]] == conf[order[lo]]; hi++ {
			if correct[order[hi]] {
				right++
			}
		}
		for j := lo; j < hi; j++ {
			rate[j] = right / float64(hi-lo)
		}
		lo = hi
	}
	out := make([]Bin, bins)
	for b := range out {
		start, end := b*n/bins, (b+1)*n/bins
		bin := Bin{Lo: math.NaN(), Hi: math.NaN(), Count: end - start}
		var sumConf, sumRight float64
		for j := start; j < end; j++ {
			sumConf += conf[order[j]]
			sumRight += rate[j]
		}
		if end > start {
			bin.Lo, bin.Hi = conf[order[start]], conf[order[end-1]]
		}
		bin.Confidence, bin.Accuracy = meanOf(sumConf, bin.Count), meanOf(sumRight, bin.Count)
		out[b] = bin
	}
	return out, nil
}

// ECE returns the expected calibration error of binned nodes, the gap
// between accuracy and confidence averaged over the bins by their counts,
//
//	ECE = Σ_b (n_b/n) · |acc_b − conf_b|,   n = Σ_b n_b.
//
// Empty bins weigh nothing. It is NaN if every bin is empty.
func ECE(bins []Bin) float64 {
	var n, s float64
	for _, b := range bins {
		if b.Count > 0 {
			n += float64(b.Count)
			s += float64(float64(b.Count) * math.Abs(b.Accuracy-b.Confidence))
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / n
}

// MCE returns the maximum calibration error of binned nodes, the largest
// gap max_b |acc_b − conf_b| over the non-empty bins, however few nodes
// they hold. It is NaN if every bin is empty.
func MCE(bins []Bin) float64 {
	m, found := 0.0, false
	for _, b := range bins {
		if b.Count > 0 {
			m, found = max(m, math.Abs(b.Accuracy-b.Confidence)), true
		}
	}
	if !found {
		return math.NaN()
	}
	return m
}

// Brier returns the (multi-class) Brier score of the class probabilities
// at the given nodes, the mean squared distance to the one-hot label,
//
//	Brier = (1/n) Σ_i Σ_c (p_ic − [c = y_i])²,
//
// from 0 (certain and right) to 2 (certain and wrong); predicting the
// uniform distribution over K classes scores 1 − 1/K. The GPN code reports
// instead the mean Euclidean distance (1/n) Σ_i ‖p_i − e_{y_i}‖₂, without
// the square: from 0 to √2, and by Jensen's inequality at most the square
// root of this score. The arguments and errors are those of Confidences.
func Brier(prob []float64, classes int, labels, nodes []int) (float64, error) {
	return checkedScore("Brier", brier, prob, classes, labels, nodes)
}

// brier is Brier on checked input.
func brier(prob []float64, classes int, labels, nodes []int) float64 {
	var s float64
	for _, i := range nodes {
		for c, p := range prob[i*classes : (i+1)*classes] {
			if c == labels[i] {
				p--
			}
			s += float64(p * p)
		}
	}
	return s / float64(len(nodes))
}

// NLL returns the negative log-likelihood of the labels under the class
// probabilities at the given nodes, guarded against log 0,
//
//	NLL = −(1/n) Σ_i ln max(p_{i,y_i}, ProbabilityFloor),
//
// so that a label given probability 0 adds 1022·ln 2 ≈ 708.40 to the sum
// rather than +Inf. The arguments and errors are those of Confidences.
func NLL(prob []float64, classes int, labels, nodes []int) (float64, error) {
	return checkedScore("NLL", nll, prob, classes, labels, nodes)
}

// nll is NLL on checked input.
func nll(prob []float64, classes int, labels, nodes []int) float64 {
	var s float64
	for _, i := range nodes {
		s -= math.Log(max(prob[i*classes+labels[i]], ProbabilityFloor))
	}
	return s / float64(len(nodes))
}

// checkedScore returns score of the input that checkProbabilities accepts,
// or NaN and its error, which names op.
func checkedScore(op string, score func(prob []float64, classes int, labels, nodes []int) float64,
	prob []float64, classes int, labels, nodes []int) (float64, error) {
	nodes, err := checkProbabilities(op, prob, classes, labels, nodes)
	if err != nil {
		return math.NaN(), err
	}
	return score(prob, classes, labels, nodes), nil
}

// CalibrationOptions chooses how CalibrationOf bins the confidences. The
// zero value means DefaultBins bins.
type CalibrationOptions struct {
	// Bins is the number of bins of the equal-width and of the equal-mass
	// binning; 0 means DefaultBins.
	Bins int
	// Degree and Homophily, when not nil, hold every node's degree and
	// local homophily (see LocalHomophily), len(labels) values each;
	// CalibrationOf then also reports the calibration of the nodes grouped
	// by them: ByDegree over DegreeGroups and ByHomophily over
	// HomophilyGroups. cuq.Prediction.Calibration fills both in from its
	// graph.
	Degree    []int
	Homophily []float64
	// HomophilyBins is the number of homophily bins; 0 means
	// DefaultHomophilyBins.
	HomophilyBins int
}

// Calibration summarises how well a prediction's confidences match its
// accuracy on a set of nodes; see CalibrationOf.
type Calibration struct {
	// Nodes is the number of nodes evaluated.
	Nodes int
	// Accuracy is the fraction of nodes whose predicted class is the label,
	// Confidence their mean confidence max_c p_ic.
	Accuracy, Confidence float64
	// ECE and MCE are the expected and the maximum calibration error over
	// equal-width bins (the GPN code's ECE and MCE).
	ECE, MCE float64
	// AdaptiveECE is the expected calibration error over equal-mass bins.
	AdaptiveECE float64
	// Brier is the squared Brier score, NLL the guarded negative
	// log-likelihood.
	Brier, NLL float64
	// Bins are the equal-width bins: the data of a reliability diagram.
	Bins []Bin
	// ClasswiseECE is the mean over classes of the ECE of each class's
	// probability over equal-width bins (see ClasswiseECE).
	ClasswiseECE float64
	// ByDegree and ByHomophily are the calibration of the nodes grouped by
	// degree and by local homophily (see CalibrationByGroup), nil unless
	// the options give the degrees and the homophilies.
	ByDegree, ByHomophily []GroupCalibration
}

// CalibrationOf returns every calibration metric of the class probabilities
// at the given nodes (see Confidences for the layout): the accuracy, the
// mean confidence, ECE and MCE over EqualWidthBins, the adaptive ECE over
// EqualMassBins, Brier, NLL and the classwise ECE, and with opts.Degree
// and opts.Homophily the calibration by degree and by local homophily. A
// perfectly calibrated prediction has accuracy equal to confidence in
// every bin, so ECE = MCE = 0 up to sampling noise, which is large in
// bins of few nodes. It returns the errors of Confidences, and an error
// if opts.Bins or opts.HomophilyBins is negative, or opts.Degree or
// opts.Homophily is not nil but not one value per label, and those of
// DegreeGroups and HomophilyGroups.
func CalibrationOf(prob []float64, classes int, labels, nodes []int, opts CalibrationOptions) (Calibration, error) {
	bins := opts.Bins
	if bins == 0 {
		bins = DefaultBins
	}
	if bins < 0 {
		return Calibration{}, fmt.Errorf("eval: CalibrationOf: %d bins", bins)
	}
	nodes, err := checkProbabilities("CalibrationOf", prob, classes, labels, nodes)
	if err != nil {
		return Calibration{}, err
	}
	conf, correct := confidences(prob, classes, labels, nodes)
	c := Calibration{Nodes: len(conf)}
	var right float64
	for k := range conf {
		c.Confidence += conf[k]
		if correct[k] {
			right++
		}
	}
	c.Accuracy, c.Confidence = right/float64(len(conf)), c.Confidence/float64(len(conf))
	if c.Bins, err = EqualWidthBins(conf, correct, bins); err != nil {
		return Calibration{}, err
	}
	c.ECE, c.MCE = ECE(c.Bins), MCE(c.Bins)
	mass, err := EqualMassBins(conf, correct, bins)
	if err != nil {
		return Calibration{}, err
	}
	c.AdaptiveECE = ECE(mass)
	c.Brier, c.NLL = brier(prob, classes, labels, nodes), nll(prob, classes, labels, nodes)
	c.ClasswiseECE = classwiseECE(prob, classes, labels, nodes, bins)
	if c.ByDegree, c.ByHomophily, err = groupCalibration(prob, classes, labels, nodes, bins, opts); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

// groupCalibration returns the calibration by degree and by homophily that
// opts asks for.
func groupCalibration(prob []float64, classes int, labels, nodes []int, bins int, opts CalibrationOptions) (byDegree, byHomophily []GroupCalibration, err error) {
	hbins := opts.HomophilyBins
	if hbins == 0 {
		hbins = DefaultHomophilyBins
	}
	if hbins < 0 {
		return nil, nil, fmt.Errorf("eval: CalibrationOf: %d homophily bins", hbins)
	}
	if opts.Degree != nil {
		if len(opts.Degree) != len(labels) {
			return nil, nil, fmt.Errorf("eval: CalibrationOf: %d degrees for %d nodes", len(opts.Degree), len(labels))
		}
		groups, err := DegreeGroups(opts.Degree, nodes)
		if err != nil {
			return nil, nil, err
		}
		if byDegree, err = CalibrationByGroup(prob, classes, labels, groups, bins); err != nil {
			return nil, nil, err
		}
	}
	if opts.Homophily != nil {
		if len(opts.Homophily) != len(labels) {
			return nil, nil, fmt.Errorf("eval: CalibrationOf: %d homophilies for %d nodes", len(opts.Homophily), len(labels))
		}
		groups, err := HomophilyGroups(opts.Homophily, nodes, hbins)
		if err != nil {
			return nil, nil, err
		}
		if byHomophily, err = CalibrationByGroup(prob, classes, labels, groups, bins); err != nil {
			return nil, nil, err
		}
	}
	return byDegree, byHomophily, nil
}

// checkProbabilities validates class probabilities and labels at nodes (all
// when nil) and returns the nodes.
func checkProbabilities(op string, prob []float64, classes int, labels, nodes []int) ([]int, error) {
	if classes < 1 {
		return nil, fmt.Errorf("eval: %s: %d classes", op, classes)
	}
	if len(prob) != classes*len(labels) {
		return nil, fmt.Errorf("eval: %s: %d probabilities for %d labels of %d classes", op, len(prob), len(labels), classes)
	}
	if nodes == nil {
		if len(labels) == 0 {
			return nil, fmt.Errorf("eval: %s: no nodes", op)
		}
		nodes = make([]int, len(labels))
		for i := range nodes {
			nodes[i] = i
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("eval: %s: empty node set", op)
	}
	for _, i := range nodes {
		if i < 0 || i >= len(labels) {
			return nil, fmt.Errorf("eval: %s: node %d out of range [0, %d)", op, i, len(labels))
		}
		if y := labels[i]; y < 0 || y >= classes {
			return nil, fmt.Errorf("eval: %s: node %d has label %d, not in [0, %d)", op, i, y, classes)
		}
		var sum float64
		for c, p := range prob[i*classes : (i+1)*classes] {
			if !(p >= 0 && p <= 1+probabilitySumTolerance) {
				return nil, fmt.Errorf("eval: %s: node %d has probability %v for class %d, not in [0, 1]", op, i, p, c)
			}
			sum += p
		}
		if math.Abs(sum-1) > probabilitySumTolerance {
			return nil, fmt.Errorf("eval: %s: probabilities of node %d sum to %v, not 1", op, i, sum)
		}
	}
	return nodes, nil
}

// checkConfidences validates the input of the binnings.
func checkConfidences(op string, conf []float64, correct []bool, bins int) error {
	if bins < 1 {
		return fmt.Errorf("eval: %s: %d bins", op, bins)
	}
	if len(conf) != len(correct) {
		return fmt.Errorf("eval: %s: %d confidences but %d correctness flags", op, len(conf), len(correct))
	}
	if len(conf) == 0 {
		return fmt.Errorf("eval: %s: no nodes", op)
	}
	for i, c := range conf {
		if !(c >= 0 && c <= 1) {
			return fmt.Errorf("eval: %s: confidence %d is %v, not in [0, 1]", op, i, c)
		}
	}
	return nil
}

// meanOf returns sum/n, NaN for n = 0.
func meanOf(sum float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
