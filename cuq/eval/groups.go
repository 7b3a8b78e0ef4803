package eval

import (
	"fmt"
	"math"
	"math/bits"
)

// DefaultHomophilyBins is the number of equal-width bins of local
// homophily when none is chosen: 5, of width 0.2.
const DefaultHomophilyBins = 5

// Group is a bin of nodes by a per-node covariate, such as the degree or
// the local homophily: the nodes whose value lies in the bin's range.
type Group struct {
	// Lo and Hi bound the bin's values: the interval (Lo, Hi] of an
	// equal-width homophily bin (the first one also holds Lo), the degrees
	// Lo, …, Hi of a degree bin.
	Lo, Hi float64
	// Nodes are the bin's nodes, in the order given.
	Nodes []int
}

// LocalHomophily returns the local homophily of every node of a graph,
//
//	h_i = |{j ∈ N(i) : y_j = y_i}| / |N(i)|,
//
// the fraction of node i's neighbours that share its true label, with
// N(i) the labelled neighbours j ≠ i of i: the stored entries of row i of
// the adjacency in CSR form (ptr and ind, as tensor.CSR's Ptr and Ind,
// whatever their weights), self loops and neighbours whose label is not
// in [0, classes) left out. h_i is NaN for a node that is unlabelled or
// has no labelled neighbour. The true label rather than the predicted one
// makes h_i a property of the graph, the same for every model. It returns
// an error if ptr is not len(labels)+1 non-decreasing offsets into ind or
// an index is outside [0, n).
func LocalHomophily(ptr, ind []int, labels []int, classes int) ([]float64, error) {
	n := len(labels)
	if len(ptr) != n+1 || ptr[0] != 0 || ptr[n] != len(ind) {
		return nil, fmt.Errorf("eval: LocalHomophily: row pointer of %d entries ending at %d for %d nodes and %d indices", len(ptr), ptr[len(ptr)-1], n, len(ind))
	}
	labelled := func(y int) bool { return y >= 0 && y < classes }
	h := make([]float64, n)
	for i := range n {
		if ptr[i+1] < ptr[i] {
			return nil, fmt.Errorf("eval: LocalHomophily: row pointer decreases at row %d", i)
		}
		var same, all int
		for _, j := range ind[ptr[i]:ptr[i+1]] {
			if j < 0 || j >= n {
				return nil, fmt.Errorf("eval: LocalHomophily: neighbour %d of node %d outside [0, %d)", j, i, n)
			}
			if j == i || !labelled(labels[j]) {
				continue
			}
			all++
			if labels[j] == labels[i] {
				same++
			}
		}
		h[i] = math.NaN()
		if labelled(labels[i]) && all > 0 {
			h[i] = float64(same) / float64(all)
		}
	}
	return h, nil
}

// Degrees returns the degree of every node of a graph in CSR form (ptr and
// ind, as tensor.CSR's Ptr and Ind): the number of stored entries j ≠ i of
// row i, whatever their weights, self loops left out. It returns an error
// if ptr is empty or not non-decreasing offsets into ind, or an index is
// outside [0, n), n = len(ptr) − 1.
func Degrees(ptr, ind []int) ([]int, error) {
	if len(ptr) == 0 || ptr[0] != 0 || ptr[len(ptr)-1] != len(ind) {
		return nil, fmt.Errorf("eval: Degrees: row pointer of %d entries for %d indices", len(ptr), len(ind))
	}
	n := len(ptr) - 1
	d := make([]int, n)
	for i := range n {
		if ptr[i+1] < ptr[i] {
			return nil, fmt.Errorf("eval: Degrees: row pointer decreases at row %d", i)
		}
		for _, j := range ind[ptr[i]:ptr[i+1]] {
			if j < 0 || j >= n {
				return nil, fmt.Errorf("eval: Degrees: neighbour %d of node %d outside [0, %d)", j, i, n)
			}
			if j != i {
				d[i]++
			}
		}
	}
	return d, nil
}

// DegreeGroups bins nodes by degree on a doubling scale: the degrees 0,
// 1, 2, 3–4, 5–8, 9–16, …, bin b ≥ 2 holding 2^(b−2) < d ≤ 2^(b−1), up to
// the bin of the largest degree among the nodes; empty bins are kept.
// degree holds every node's degree (see Degrees), nodes the
// nodes to bin, nil for all. It returns an error for a negative degree,
// no nodes, or a node out of range.
func DegreeGroups(degree []int, nodes []int) ([]Group, error) {
	nodes, err := checkGroupNodes("DegreeGroups", len(degree), nodes)
	if err != nil {
		return nil, err
	}
	bin := func(d int) int { // 1 + ⌈log₂ d⌉ for d ≥ 1
		if d == 0 {
			return 0
		}
		return 1 + bits.Len(uint(d-1))
	}
	var groups []Group
	for _, i := range nodes {
		d := degree[i]
		if d < 0 {
			return nil, fmt.Errorf("eval: DegreeGroups: node %d has degree %d", i, d)
		}
		b := bin(d)
		for len(groups) <= b {
			k := len(groups)
			lo, hi := k, k
			if k >= 2 {
				lo, hi = 1<<(k-2)+1, 1<<(k-1)
			}
			groups = append(groups, Group{Lo: float64(lo), Hi: float64(hi)})
		}
		groups[b].Nodes = append(groups[b].Nodes, i)
	}
	return groups, nil
}

// HomophilyGroups bins nodes by local homophily (see LocalHomophily) into
// bins of equal width over [0, 1], the bins of EqualWidthBins: bin b holds
// h ∈ (b/bins, (b+1)/bins], the first one also 0. Nodes of NaN homophily
// (unlabelled or without labelled neighbours) are left out. homophily
// holds every node's value, nodes the nodes to bin, nil for all. It
// returns an error for bins < 1, no nodes, a node out of range or a value
// outside [0, 1] that is not NaN.
func HomophilyGroups(homophily []float64, nodes []int, bins int) ([]Group, error) {
	if bins < 1 {
		return nil, fmt.Errorf("eval: HomophilyGroups: %d bins", bins)
	}
	nodes, err := checkGroupNodes("HomophilyGroups", len(homophily), nodes)
	if err != nil {
		return nil, err
	}
	groups := make([]Group, bins)
	for b := range groups {
		groups[b].Lo, groups[b].Hi = float64(b)/float64(bins), float64(b+1)/float64(bins)
	}
	for _, i := range nodes {
		h := homophily[i]
		if math.IsNaN(h) {
			continue
		}
		if !(h >= 0 && h <= 1) {
			return nil, fmt.Errorf("eval: HomophilyGroups: node %d has homophily %v, not in [0, 1]", i, h)
		}
		b := equalWidthBin(h, bins)
		groups[b].Nodes = append(groups[b].Nodes, i)
	}
	return groups, nil
}

// checkGroupNodes returns nodes, every one of n when nil, or an error for
// none or one out of range.
func checkGroupNodes(op string, n int, nodes []int) ([]int, error) {
	if nodes == nil {
		nodes = make([]int, n)
		for i := range nodes {
			nodes[i] = i
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("eval: %s: no nodes", op)
	}
	for _, i := range nodes {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("eval: %s: node %d out of range [0, %d)", op, i, n)
		}
	}
	return nodes, nil
}

// GroupCalibration is the calibration of the prediction on one Group.
type GroupCalibration struct {
	// Lo and Hi are the group's range, Count its number of nodes.
	Lo, Hi float64
	Count  int
	// Accuracy is the fraction of the group's nodes predicted correctly,
	// Confidence their mean confidence max_c p_ic; Confidence − Accuracy
	// is positive where the model is overconfident. ECE is the expected
	// calibration error of the group's nodes alone over equal-width
	// confidence bins. All three are NaN for an empty group.
	Accuracy, Confidence, ECE float64
}

// CalibrationByGroup returns the calibration of the class probabilities on
// each group of nodes (see DegreeGroups and HomophilyGroups): the accuracy,
// the mean confidence and the ECE over bins equal-width confidence bins
// (0 for DefaultBins) of the group's nodes, so that one sees where on the
// graph a model is over- or underconfident. The layout of prob and the
// errors are those of Confidences, per group; and an error for a negative
// bins.
func CalibrationByGroup(prob []float64, classes int, labels []int, groups []Group, bins int) ([]GroupCalibration, error) {
	if bins == 0 {
		bins = DefaultBins
	}
	if bins < 0 {
		return nil, fmt.Errorf("eval: CalibrationByGroup: %d bins", bins)
	}
	out := make([]GroupCalibration, len(groups))
	for k, g := range groups {
		out[k] = GroupCalibration{Lo: g.Lo, Hi: g.Hi, Count: len(g.Nodes), Accuracy: math.NaN(), Confidence: math.NaN(), ECE: math.NaN()}
		if len(g.Nodes) == 0 {
			continue
		}
		nodes, err := checkProbabilities("CalibrationByGroup", prob, classes, labels, g.Nodes)
		if err != nil {
			return nil, err
		}
		conf, correct := confidences(prob, classes, labels, nodes)
		var sumConf, right float64
		for j, c := range conf {
			sumConf += c
			if correct[j] {
				right++
			}
		}
		out[k].Accuracy, out[k].Confidence = right/float64(len(nodes)), sumConf/float64(len(nodes))
		b, err := EqualWidthBins(conf, correct, bins)
		if err != nil {
			return nil, err
		}
		out[k].ECE = ECE(b)
	}
	return out, nil
}

// ClasswiseECE returns the classwise expected calibration error of the
// class probabilities at the given nodes (Kull et al. 2019): the mean over
// the K classes of the ECE of the one-vs-rest probability p_ik,
//
//	classwise-ECE = (1/K) Σ_k Σ_b (n_bk/n) |acc_bk − conf_bk|,
//
// where bin b of class k holds the nodes whose p_ik lies in the b-th of
// bins equal-width bins over [0, 1] (those of EqualWidthBins), conf_bk is
// their mean p_ik and acc_bk the fraction of them labelled k. Unlike the
// ECE, which looks at the top class only, it measures the calibration of
// every class's probability. bins = 0 means DefaultBins. The layout of
// prob and the errors are those of Confidences, and an error for a
// negative bins.
func ClasswiseECE(prob []float64, classes int, labels, nodes []int, bins int) (float64, error) {
	if bins == 0 {
		bins = DefaultBins
	}
	if bins < 0 {
		return math.NaN(), fmt.Errorf("eval: ClasswiseECE: %d bins", bins)
	}
	nodes, err := checkProbabilities("ClasswiseECE", prob, classes, labels, nodes)
	if err != nil {
		return math.NaN(), err
	}
	return classwiseECE(prob, classes, labels, nodes, bins), nil
}

// classwiseECE is ClasswiseECE on checked input.
func classwiseECE(prob []float64, classes int, labels, nodes []int, bins int) float64 {
	p, isClass := make([]float64, len(nodes)), make([]bool, len(nodes))
	var sum float64
	for c := range classes {
		for j, i := range nodes {
			p[j], isClass[j] = min(prob[i*classes+c], 1), labels[i] == c
		}
		b, _ := EqualWidthBins(p, isClass, bins) // checked input cannot fail
		sum += ECE(b)
	}
	return sum / float64(classes)
}
