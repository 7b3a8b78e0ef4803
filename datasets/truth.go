package datasets

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// CSBMTruth holds the true parameters of an independent-edge contextual
// stochastic block model (CSBMConfig.BernoulliEdges, returned by
// DoneWithTruth) and computes from them the Bayes-optimal posteriors and
// the ground-truth uncertainties of Fuchsgruber et al., "Uncertainty for
// Active Learning on Graphs" (ICML 2024).
//
// The generator's joint distribution of labels y, features X and the
// symmetric adjacency A of N nodes is
//
//	p(y, X, A) = Πᵢ π_{yᵢ} · p(xᵢ | yᵢ) · Π_{i<j} B_{yᵢyⱼ}^{Aᵢⱼ} (1 − B_{yᵢyⱼ})^{1−Aᵢⱼ}
//
// with B_cc = PIn, B_cc' = POut (c ≠ c'), and p(x | c) = N(x; Means_c, I)
// for Gaussian features or, for bag-of-words features, the probability
// that Words draws from the word distribution WordProb_c hit exactly the
// words present in x (see FeatureLogLikelihood).
type CSBMTruth struct {
	// Prior is the class prior π.
	Prior []float64
	// PIn and POut are the probabilities of an edge within a class and
	// across classes.
	PIn, POut float64
	// Means is the C×F matrix of class means of Gaussian features
	// (xᵢ = Means_{yᵢ} + ε, ε ~ N(0, I)); nil for bag-of-words features.
	Means *tensor.Dense
	// Words and WordProb describe bag-of-words features (Means nil): each
	// node draws Words words, each independently from the distribution
	// WordProb_{yᵢ} (C×F), and xᵢw = 1 when word w was drawn.
	Words    int
	WordProb *tensor.Dense

	features featureModel
}

// MaxEnumeration bounds the number of labellings C^|U| of the unobserved
// nodes U that Total enumerates.
const MaxEnumeration = 1 << 20

// GroundTruth holds the ground-truth uncertainties of every node at its
// true label yᵢ (larger = more uncertain); see CSBMTruth.Uncertainty.
type GroundTruth struct {
	// Total is 1 − p(yᵢ | X, A, y_O).
	Total []float64
	// Aleatoric is 1 − p(yᵢ | X, A, y₋ᵢ).
	Aleatoric []float64
	// Epistemic is ln p(yᵢ | X, A, y₋ᵢ) − ln p(yᵢ | X, A, y_O).
	Epistemic []float64
	// Exact reports whether Total was enumerated exactly (Total) rather
	// than approximated by mean field (TotalMeanField).
	Exact bool
}

// Uncertainty returns the ground-truth uncertainties of every node of g
// given the labels of the observed nodes O (the training nodes), following
// Fuchsgruber et al. (2024), Sect. 4: the total confidence
// conf_total(i) = p(yᵢ | X, A, y_O) and the aleatoric confidence
// conf_alea(i) = p(yᵢ | X, A, y₋ᵢ) of the Bayes-optimal classifier that
// knows the generator, and the epistemic uncertainty from their ratio, as
// uncertainties:
//
//	TU_gt(i) = 1 − p(yᵢ | X, A, y_O)
//	AU_gt(i) = 1 − p(yᵢ | X, A, y₋ᵢ)
//	EU_gt(i) = ln p(yᵢ | X, A, y₋ᵢ) − ln p(yᵢ | X, A, y_O)
//
// all at the true label yᵢ. The paper (and its oracle acquisition code,
// acquisition/oracle.py) scores uncertainty as 1/conf_total, 1/conf_alea
// and conf_alea/conf_total; the forms here are monotone transforms of
// those, so every ranking (Spearman, AUROC) is the same, and they stay
// finite when a confidence underflows. EU_gt is large when knowing the
// other labels would raise the confidence in the true label: the part of
// the uncertainty that more labels remove. Observed nodes have TU_gt = 0.
//
// The total posterior is exact (Total) when the C^|U| labellings of the
// unobserved nodes number at most MaxEnumeration, else the mean-field
// approximation of TotalMeanField (GroundTruth.Exact tells which).
func (t *CSBMTruth) Uncertainty(g *graph.Graph, observed []int) (GroundTruth, error) {
	alea, err := t.logAleatoric(g)
	if err != nil {
		return GroundTruth{}, err
	}
	obs, err := t.observedMask(g, observed)
	if err != nil {
		return GroundTruth{}, err
	}
	var total *tensor.Dense
	exact := enumerable(g.NumClasses, g.N-countTrue(obs))
	if exact {
		total, err = t.logTotalExact(g, obs)
	} else {
		total, err = t.logTotalMeanField(g, obs)
	}
	if err != nil {
		return GroundTruth{}, err
	}
	u := GroundTruth{
		Total:     make([]float64, g.N),
		Aleatoric: make([]float64, g.N),
		Epistemic: make([]float64, g.N),
		Exact:     exact,
	}
	for i, y := range g.Labels {
		la, lt := alea.At(i, y), total.At(i, y)
		u.Total[i] = oneMinusExp(lt)
		u.Aleatoric[i] = oneMinusExp(la)
		u.Epistemic[i] = la - lt
	}
	return u, nil
}

// Aleatoric returns the N×C matrix of the Bayes-optimal posterior of every
// node's label given all other labels, under the true parameters:
//
//	p(yᵢ = c | X, A, y₋ᵢ) ∝ π_c · p(xᵢ | c) · Π_{j≠i} B_{c yⱼ}^{Aᵢⱼ} (1 − B_{c yⱼ})^{1−Aᵢⱼ}
//
// Only the factors of p(y, X, A) that involve yᵢ remain, so it is exact and
// costs O(deg(i) + C²) per node: with nᵢ(c') neighbours and mᵢ(c') other
// nodes of class c', the edge factor is
// Σ_{c'} nᵢ(c') ln B_{cc'} + (mᵢ(c') − nᵢ(c')) ln(1 − B_{cc'}).
// Every node of g needs a label.
func (t *CSBMTruth) Aleatoric(g *graph.Graph) (*tensor.Dense, error) {
	lp, err := t.logAleatoric(g)
	if err != nil {
		return nil, err
	}
	return expDense(lp), nil
}

// Total returns the N×C matrix of the Bayes-optimal posterior of every
// node's label given the labels of the observed nodes O only, exactly, by
// summing the joint over every labelling of the unobserved nodes U:
//
//	p(yᵢ = c | X, A, y_O) = Σ_{y_U: yᵢ = c} p(y_U, y_O, X, A) / Σ_{y_U} p(y_U, y_O, X, A)
//
// Rows of observed nodes are one-hot at their labels. It returns an error
// when C^|U| exceeds MaxEnumeration; use TotalMeanField then.
func (t *CSBMTruth) Total(g *graph.Graph, observed []int) (*tensor.Dense, error) {
	obs, err := t.observedMask(g, observed)
	if err != nil {
		return nil, err
	}
	lp, err := t.logTotalExact(g, obs)
	if err != nil {
		return nil, err
	}
	return expDense(lp), nil
}

// TotalMeanField approximates p(yᵢ | X, A, y_O) by the mean-field
// (coordinate-ascent variational) posterior Πᵢ qᵢ(yᵢ), as the variational
// approximation of Fuchsgruber et al.'s code
// (model/bayes_optimal.py, marginal_class_labels_variational_inference):
// observed nodes are fixed one-hot, and each unobserved node in turn is
// set to
//
//	qᵢ(c) ∝ π_c · p(xᵢ | c) · exp Σ_{j≠i} Σ_{c'} qⱼ(c') ln p(Aᵢⱼ | c, c')
//
// starting from the feature posterior qᵢ(c) ∝ π_c p(xᵢ | c), until no
// probability moves by more than 1e-9 (at most 1000 sweeps; the updates
// are sequential, so the evidence lower bound never decreases). Edge
// probabilities are clipped to [1e−12, 1 − 1e−12]. With a single
// unobserved node it equals Aleatoric; in general it is an approximation,
// typically over-confident.
func (t *CSBMTruth) TotalMeanField(g *graph.Graph, observed []int) (*tensor.Dense, error) {
	obs, err := t.observedMask(g, observed)
	if err != nil {
		return nil, err
	}
	lp, err := t.logTotalMeanField(g, obs)
	if err != nil {
		return nil, err
	}
	return expDense(lp), nil
}

// FeatureLogLikelihood returns the N×C matrix ln p(xᵢ | c).
//
// Gaussian: ln N(xᵢ; Means_c, I) = −½‖xᵢ − Means_c‖² − (F/2) ln 2π.
//
// Bag of words: with a_c the probability of a word of class c's topic and
// b that of any other word (WordProb), kᵢ_c the number of distinct words of
// xᵢ in the topic and mᵢ_c the others, the probability that W draws hit
// exactly these words sums over the number n of draws that land in the
// topic:
//
//	p(xᵢ | c) = Σ_n (W choose n) · aⁿ · b^{W−n} · Surj(n, k) · Surj(W−n, m)
//
// where Surj(n, k) = k!·S(n, k) counts the maps of n draws onto k words
// that hit every one (S the Stirling numbers of the second kind). Words
// present in x are those with a non-zero value.
func (t *CSBMTruth) FeatureLogLikelihood(x tensor.Matrix) (*tensor.Dense, error) {
	c := len(t.Prior)
	rows, cols := x.Dims()
	if cols != t.features.dim {
		return nil, fmt.Errorf("datasets: CSBM truth: %d feature columns, want %d", cols, t.features.dim)
	}
	out := tensor.New(rows, c)
	if t.Means != nil {
		var xd *tensor.Dense
		switch f := x.(type) {
		case *tensor.Dense:
			xd = f
		case *tensor.CSR:
			xd = f.ToDense()
		default:
			return nil, fmt.Errorf("datasets: CSBM truth: features stored as %T, want *tensor.Dense or *tensor.CSR", x)
		}
		norm := float64(0.5 * float64(cols) * math.Log(2*math.Pi))
		for i := range rows {
			for k := range c {
				d2 := 0.0
				for j, v := range xd.Row(i) {
					d := v - t.Means.At(k, j)
					d2 += float64(d * d)
				}
				out.Set(i, k, float64(-0.5*d2)-norm)
			}
		}
		return out, nil
	}
	var xs *tensor.CSR
	switch f := x.(type) {
	case *tensor.CSR:
		xs = f
	case *tensor.Dense:
		xs = tensor.DenseToCSR(f)
	default:
		return nil, fmt.Errorf("datasets: CSBM truth: features stored as %T, want *tensor.Dense or *tensor.CSR", x)
	}
	w := t.Words
	logSurj := logSurjections(w)
	b := (1 - t.features.signal) / float64(t.features.dim)
	for k := range c {
		lo, block := t.features.topic(k, c)
		a := b + t.features.signal/float64(block)
		for i := range rows {
			in, all := 0, 0
			for p := xs.Ptr[i]; p < xs.Ptr[i+1]; p++ {
				if xs.Val[p] == 0 {
					continue
				}
				all++
				if j := xs.Ind[p]; j >= lo && j < lo+block {
					in++
				}
			}
			out.Set(i, k, logWordSet(in, all-in, a, b, w, logSurj))
		}
	}
	return out, nil
}

// logSurjections returns L[n][k] = ln Surj(n, k) for 0 ≤ k ≤ n ≤ w, from
// Surj(n, k) = k·(Surj(n−1, k) + Surj(n−1, k−1)), Surj(0, 0) = 1.
func logSurjections(w int) [][]float64 {
	l := make([][]float64, w+1)
	for n := range l {
		l[n] = make([]float64, w+1)
		for k := range l[n] {
			l[n][k] = math.Inf(-1)
		}
	}
	l[0][0] = 0
	for n := 1; n <= w; n++ {
		for k := 1; k <= n; k++ {
			l[n][k] = math.Log(float64(k)) + logAddExp(l[n-1][k], l[n-1][k-1])
		}
	}
	return l
}

// logWordSet is ln p(the w draws hit exactly k given topic words and m
// other words), topic words drawn with probability a each, others b.
func logWordSet(k, m int, a, b float64, w int, logSurj [][]float64) float64 {
	if k+m > w {
		return math.Inf(-1)
	}
	acc := math.Inf(-1)
	for n := k; n <= w-m; n++ {
		lc := logChoose(w, n) + xlogy(float64(n), a) + xlogy(float64(w-n), b)
		acc = logAddExp(acc, lc+logSurj[n][k]+logSurj[w-n][m])
	}
	return acc
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// xlogy is x·ln y with 0·ln 0 = 0.
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// check validates g against t: its class count, a label for every node and
// features the model can score. It returns ln p(xᵢ | c) + ln π_c.
func (t *CSBMTruth) check(g *graph.Graph) (*tensor.Dense, error) {
	if t == nil || g == nil {
		return nil, fmt.Errorf("datasets: CSBM truth: nil truth or graph")
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("datasets: CSBM truth: %w", err)
	}
	if g.NumClasses != len(t.Prior) {
		return nil, fmt.Errorf("datasets: CSBM truth: graph %q has %d classes, the model %d", g.Name, g.NumClasses, len(t.Prior))
	}
	for i, y := range g.Labels {
		if y < 0 {
			return nil, fmt.Errorf("datasets: CSBM truth: node %d of %q has no label; the ground truth needs every label", i, g.Name)
		}
	}
	f, err := t.FeatureLogLikelihood(g.Features)
	if err != nil {
		return nil, err
	}
	for i := range g.N {
		for k, p := range t.Prior {
			f.Data[i*f.Cols+k] += math.Log(p)
		}
	}
	return f, nil
}

// edgeLogs returns ln B and ln(1 − B) as functions of whether the two
// classes are equal, with B clipped to [eps, 1 − eps] (eps = 0: exact).
func (t *CSBMTruth) edgeLogs(eps float64) (edge, none [2]float64) {
	clip := func(p float64) float64 { return min(max(p, eps), 1-eps) }
	pOut, pIn := clip(t.POut), clip(t.PIn)
	return [2]float64{math.Log(pOut), math.Log(pIn)}, [2]float64{math.Log1p(-pOut), math.Log1p(-pIn)}
}

// edgeTerm is Σ_{c'} nb(c') ln B_{cc'} + (tot(c') − nb(c')) ln(1 − B_{cc'}).
func edgeTerm(c int, nb, tot []float64, edge, none [2]float64) float64 {
	s := 0.0
	for k := range nb {
		same := 0
		if k == c {
			same = 1
		}
		non := tot[k] - nb[k]
		if math.Abs(non) < 1e-9 {
			non = 0
		}
		if nb[k] != 0 {
			s += float64(nb[k] * edge[same])
		}
		if non != 0 {
			s += float64(non * none[same])
		}
	}
	return s
}

func (t *CSBMTruth) logAleatoric(g *graph.Graph) (*tensor.Dense, error) {
	base, err := t.check(g)
	if err != nil {
		return nil, err
	}
	c := g.NumClasses
	edge, none := t.edgeLogs(0)
	count := make([]float64, c)
	for _, y := range g.Labels {
		count[y]++
	}
	nb, tot := make([]float64, c), make([]float64, c)
	for i, y := range g.Labels {
		clear(nb)
		for p := g.Adj.Ptr[i]; p < g.Adj.Ptr[i+1]; p++ {
			if j := g.Adj.Ind[p]; j != i {
				nb[g.Labels[j]]++
			}
		}
		copy(tot, count)
		tot[y]--
		row := base.Row(i)
		for k := range c {
			row[k] += edgeTerm(k, nb, tot, edge, none)
		}
		if err := normaliseLog(row); err != nil {
			return nil, fmt.Errorf("datasets: CSBM truth: node %d of %q: %w", i, g.Name, err)
		}
	}
	return base, nil
}

func (t *CSBMTruth) observedMask(g *graph.Graph, observed []int) ([]bool, error) {
	if g == nil {
		return nil, fmt.Errorf("datasets: CSBM truth: nil graph")
	}
	obs := make([]bool, g.N)
	for _, i := range observed {
		if i < 0 || i >= g.N {
			return nil, fmt.Errorf("datasets: CSBM truth: observed node %d outside the %d nodes of %q", i, g.N, g.Name)
		}
		obs[i] = true
	}
	return obs, nil
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// enumerable reports whether c^u ≤ MaxEnumeration.
func enumerable(c, u int) bool {
	n := 1
	for range u {
		n *= c
		if n > MaxEnumeration {
			return false
		}
	}
	return true
}

func (t *CSBMTruth) logTotalExact(g *graph.Graph, obs []bool) (*tensor.Dense, error) {
	base, err := t.check(g)
	if err != nil {
		return nil, err
	}
	c := g.NumClasses
	unobs, pos := unobservedIndex(obs)
	u := len(unobs)
	if !enumerable(c, u) {
		return nil, fmt.Errorf("datasets: CSBM truth: %d unobserved nodes in %d classes are too many labellings to enumerate (more than %d); use TotalMeanField", u, c, MaxEnumeration)
	}
	edge, none := t.edgeLogs(0)
	single, adjU := exactFactors(g, base, obs, unobs, pos, edge, none)
	logp, best := labellingLogs(single, adjU, edge, none)
	if math.IsInf(best, -1) {
		return nil, fmt.Errorf("datasets: CSBM truth: every labelling of %q has probability 0 under the model", g.Name)
	}
	return exactPosterior(g, obs, pos, logp, best, u), nil
}

// unobservedIndex lists the unobserved nodes and gives the position of
// every node in that list, −1 for an observed node.
func unobservedIndex(obs []bool) (unobs, pos []int) {
	pos = make([]int, len(obs))
	for i, o := range obs {
		pos[i] = -1
		if !o {
			pos[i] = len(unobs)
			unobs = append(unobs, i)
		}
	}
	return unobs, pos
}

// exactFactors returns single, the u×C factors of unobserved node a with
// class k and the observed nodes (single[a][k]), and adjU, whether
// unobserved nodes a and b are adjacent (adjU[a·u+b]).
func exactFactors(g *graph.Graph, base *tensor.Dense, obs []bool, unobs, pos []int, edge, none [2]float64) (*tensor.Dense, []bool) {
	c, u := g.NumClasses, len(unobs)
	single := tensor.New(u, c)
	adjU := make([]bool, u*u)
	nb, tot := make([]float64, c), make([]float64, c)
	for i, o := range obs {
		if o {
			tot[g.Labels[i]]++
		}
	}
	for a, i := range unobs {
		clear(nb)
		for p := g.Adj.Ptr[i]; p < g.Adj.Ptr[i+1]; p++ {
			j := g.Adj.Ind[p]
			if j == i {
				continue
			}
			if obs[j] {
				nb[g.Labels[j]]++
			} else {
				adjU[a*u+pos[j]] = true
			}
		}
		for k := range c {
			single.Set(a, k, base.At(i, k)+edgeTerm(k, nb, tot, edge, none))
		}
	}
	return single, adjU
}

// labellingLogs returns the log joint of every labelling s of the
// unobserved nodes (node a has class ⌊s/Cᵃ⌋ mod C) and the largest.
func labellingLogs(single *tensor.Dense, adjU []bool, edge, none [2]float64) (logp []float64, best float64) {
	u, c := single.Rows, single.Cols
	n := 1
	for range u {
		n *= c
	}
	logp = make([]float64, n)
	y := make([]int, u)
	best = math.Inf(-1)
	for s := range n {
		for a, v := 0, s; a < u; a, v = a+1, v/c {
			y[a] = v % c
		}
		lp := 0.0
		for a := range u {
			lp += single.At(a, y[a])
			for b := a + 1; b < u; b++ {
				same := 0
				if y[a] == y[b] {
					same = 1
				}
				if adjU[a*u+b] {
					lp += edge[same]
				} else {
					lp += none[same]
				}
			}
		}
		logp[s] = lp
		best = max(best, lp)
	}
	return logp, best
}

// exactPosterior sums the labellings' probabilities into the log
// posterior of every node: its label's one-hot for an observed node, the
// normalised marginal for an unobserved one.
func exactPosterior(g *graph.Graph, obs []bool, pos []int, logp []float64, best float64, u int) *tensor.Dense {
	c := g.NumClasses
	acc := tensor.New(u, c)
	for s, lp := range logp {
		w := math.Exp(lp - best)
		for a, v := 0, s; a < u; a, v = a+1, v/c {
			acc.Data[a*c+v%c] += w
		}
	}
	out := tensor.New(g.N, c)
	out.Fill(math.Inf(-1))
	for i, o := range obs {
		if o {
			out.Set(i, g.Labels[i], 0)
			continue
		}
		row := acc.Row(pos[i])
		z := 0.0
		for _, v := range row {
			z += v
		}
		for k, v := range row {
			out.Set(i, k, math.Log(v/z))
		}
	}
	return out
}

// meanFieldTol and meanFieldSweeps bound TotalMeanField's iterations.
const (
	meanFieldTol    = 1e-9
	meanFieldSweeps = 1000
)

func (t *CSBMTruth) logTotalMeanField(g *graph.Graph, obs []bool) (*tensor.Dense, error) {
	base, err := t.check(g)
	if err != nil {
		return nil, err
	}
	edge, none := t.edgeLogs(1e-12)
	mf, err := newMeanField(g, base, obs)
	if err != nil {
		return nil, err
	}
	for range meanFieldSweeps {
		moved, err := mf.sweep(edge, none)
		if err != nil {
			return nil, err
		}
		if moved <= meanFieldTol {
			return mf.logq, nil
		}
	}
	return nil, fmt.Errorf("datasets: CSBM truth: mean field on %q did not converge in %d sweeps", g.Name, meanFieldSweeps)
}

// meanField is the state of TotalMeanField's iteration: the log
// probabilities logq and probabilities q of every node's class and their
// column sums sum = Σ_j q_j.
type meanField struct {
	g             *graph.Graph
	base          *tensor.Dense
	obs           []bool
	logq, q       *tensor.Dense
	sum           []float64
	nb, tot, next []float64 // scratch
}

// newMeanField starts the iteration from one-hot rows for the observed
// nodes and the feature posterior for the others.
func newMeanField(g *graph.Graph, base *tensor.Dense, obs []bool) (*meanField, error) {
	c := g.NumClasses
	mf := &meanField{g: g, base: base, obs: obs, logq: tensor.New(g.N, c), q: tensor.New(g.N, c),
		sum: make([]float64, c), nb: make([]float64, c), tot: make([]float64, c), next: make([]float64, c)}
	for i, o := range obs {
		row := mf.logq.Row(i)
		if o {
			for k := range row {
				row[k] = math.Inf(-1)
			}
			row[g.Labels[i]] = 0
		} else {
			copy(row, base.Row(i))
			if err := normaliseLog(row); err != nil {
				return nil, fmt.Errorf("datasets: CSBM truth: node %d of %q: %w", i, g.Name, err)
			}
		}
		for k, v := range row {
			mf.q.Set(i, k, math.Exp(v))
			mf.sum[k] += math.Exp(v)
		}
	}
	return mf, nil
}

// sweep updates every unobserved node in turn and returns the largest
// change of a probability.
func (mf *meanField) sweep(edge, none [2]float64) (float64, error) {
	g, q, c := mf.g, mf.q, mf.g.NumClasses
	nb, tot, next := mf.nb, mf.tot, mf.next
	moved := 0.0
	for i, o := range mf.obs {
		if o {
			continue
		}
		clear(nb)
		for p := g.Adj.Ptr[i]; p < g.Adj.Ptr[i+1]; p++ {
			if j := g.Adj.Ind[p]; j != i {
				for k, v := range q.Row(j) {
					nb[k] += v
				}
			}
		}
		qi := q.Row(i)
		for k := range c {
			tot[k] = mf.sum[k] - qi[k]
		}
		for k := range c {
			next[k] = mf.base.At(i, k) + edgeTerm(k, nb, tot, edge, none)
		}
		if err := normaliseLog(next); err != nil {
			return 0, fmt.Errorf("datasets: CSBM truth: node %d of %q: %w", i, g.Name, err)
		}
		copy(mf.logq.Row(i), next)
		for k, v := range next {
			p := math.Exp(v)
			moved = max(moved, math.Abs(p-qi[k]))
			mf.sum[k] += p - qi[k]
			qi[k] = p
		}
	}
	return moved, nil
}

// normaliseLog turns the unnormalised log-probabilities row into
// normalised ones.
func normaliseLog(row []float64) error {
	m := math.Inf(-1)
	for _, v := range row {
		m = max(m, v)
	}
	if math.IsInf(m, -1) || math.IsNaN(m) {
		return fmt.Errorf("probability 0 under every class")
	}
	z := 0.0
	for _, v := range row {
		z += math.Exp(v - m)
	}
	lz := m + math.Log(z)
	for k := range row {
		row[k] -= lz
	}
	return nil
}

// oneMinusExp is 1 − eˡ, accurate for l near 0 and +0 (not −0) at l = 0.
func oneMinusExp(l float64) float64 { return 0 - math.Expm1(l) }

func expDense(lp *tensor.Dense) *tensor.Dense {
	out := tensor.New(lp.Rows, lp.Cols)
	for k, v := range lp.Data {
		out.Data[k] = math.Exp(v)
	}
	return out
}
