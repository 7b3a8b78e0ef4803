package datasets_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// graphHash is a digest of a graph's adjacency, labels and features.
func graphHash(g *graph.Graph) string {
	h := sha256.New()
	put := func(v uint64) { _ = binary.Write(h, binary.LittleEndian, v) }
	for _, v := range g.Adj.Ptr {
		put(uint64(v))
	}
	for _, v := range g.Adj.Ind {
		put(uint64(v))
	}
	for _, v := range g.Labels {
		put(uint64(v))
	}
	for _, v := range toDense(g.Features).Data {
		put(math.Float64bits(v))
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// The default pair-sampling process must keep producing the graphs it
// produced before BernoulliEdges existed (digests recorded before the
// change): notebooks and tests depend on them.
func TestCSBMDefaultUnchanged(t *testing.T) {
	a, _ := datasets.CSBM(300, 3).Seed(7).Done()
	b, _ := datasets.CSBM(600, 3).Homophily(0.9).FeatureSignal(1.5).Features(16).AvgDegree(4).Seed(1).Done()
	c, _ := datasets.CSBM(200, 4).Features(40).BagOfWords(10).FeatureSignal(0.5).Seed(3).Done()
	d, _ := datasets.Synthetic()
	got := []string{graphHash(a), graphHash(b), graphHash(c), graphHash(d)}
	want := []string{"50e31e061b6f7a32", "c9c10f115f25e5e1", "58d1f653a00024ff", "5ad32366abb0d6a3"}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("graph %d: digest %s, want %s", k, got[k], want[k])
		}
	}
}

func TestCSBMBernoulliEdges(t *testing.T) {
	const n, h, d = 3000, 0.8, 6.0
	g, truth, err := datasets.CSBM(n, 4).BernoulliEdges().ClassPrior(1, 1, 1, 2).
		Homophily(h).AvgDegree(d).Features(8).FeatureSignal(2).Seed(5).DoneWithTruth()
	if err != nil {
		t.Fatal(err)
	}
	checkSymmetric(t, g)
	// Prior (0.2, 0.2, 0.2, 0.4): s = 3·0.04 + 0.16 = 0.28.
	s := 0.28
	if want := h * d / (float64(n-1) * s); math.Abs(truth.PIn-want) > 1e-15 {
		t.Errorf("p_in %v, want %v", truth.PIn, want)
	}
	if want := (1 - h) * d / (float64(n-1) * (1 - s)); math.Abs(truth.POut-want) > 1e-15 {
		t.Errorf("p_out %v, want %v", truth.POut, want)
	}
	// About N·d = 18000 stored entries (sd ≈ √9000·2 ≈ 190).
	if e := float64(g.NumEdges()); math.Abs(e-n*d) > 800 {
		t.Errorf("%v stored edges, want about %v", e, n*d)
	}
	if got := edgeHomophily(g); math.Abs(got-h) > 0.02 {
		t.Errorf("edge homophily %.3f, want %.2f", got, h)
	}
	for c, cnt := range g.ClassCounts(nil) {
		p := truth.Prior[c]
		if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(cnt)-n*p) > 4*sd {
			t.Errorf("class %d: %d nodes, want %v ± %.0f", c, cnt, n*p, 4*sd)
		}
	}
	// Features are the true means plus standard normal noise.
	x := toDense(g.Features)
	var sum, sq float64
	for i, y := range g.Labels {
		for j, v := range x.Row(i) {
			r := v - truth.Means.At(y, j)
			sum += r
			sq += r * r
		}
	}
	m := float64(len(x.Data))
	if mean, v := sum/m, sq/m-(sum/m)*(sum/m); math.Abs(mean) > 0.02 || math.Abs(v-1) > 0.03 {
		t.Errorf("residuals have mean %.4f and variance %.4f, want 0 and 1", mean, v)
	}
	// Labels are i.i.d., not contiguous blocks: consecutive nodes differ
	// with probability 1 − s = 0.72, about 2159 ± 25 times.
	changes := 0
	for i := 1; i < n; i++ {
		if g.Labels[i] != g.Labels[i-1] {
			changes++
		}
	}
	if changes < 2050 || changes > 2270 {
		t.Errorf("%d label changes between consecutive nodes, want about 2159", changes)
	}
	again, _ := datasets.CSBM(n, 4).BernoulliEdges().ClassPrior(1, 1, 1, 2).
		Homophily(h).AvgDegree(d).Features(8).FeatureSignal(2).Seed(5).Done()
	if graphHash(again) != graphHash(g) {
		t.Error("Done and DoneWithTruth with the same seed gave different graphs")
	}
}

// jointLog is ln p(y, X, A) of the independent-edge CSBM, computed from the
// dense adjacency pair by pair and the features' log-likelihoods.
func jointLog(y []int, adj *tensor.Dense, featLog *tensor.Dense, truth *datasets.CSBMTruth) float64 {
	lp := 0.0
	for i, c := range y {
		lp += math.Log(truth.Prior[c]) + featLog.At(i, c)
		for j := i + 1; j < len(y); j++ {
			b := truth.POut
			if y[j] == c {
				b = truth.PIn
			}
			if adj.At(i, j) != 0 {
				lp += math.Log(b)
			} else {
				lp += math.Log(1 - b)
			}
		}
	}
	return lp
}

// gaussLog is ln N(x; μ, I) computed directly.
func gaussLog(x, mu []float64) float64 {
	s := 0.0
	for j := range x {
		s += (x[j] - mu[j]) * (x[j] - mu[j])
	}
	return -0.5*s - 0.5*float64(len(x))*math.Log(2*math.Pi)
}

// bruteForce returns p(y_i = c | X, A, y_{-i}) and p(y_i = c | X, A, y_O)
// by enumerating every labelling of the N nodes and summing the joint.
func bruteForce(g *graph.Graph, featLog *tensor.Dense, truth *datasets.CSBMTruth, observed []bool) (alea, total *tensor.Dense) {
	n, c := g.N, g.NumClasses
	adj := g.Adj.ToDense()
	alea, total = tensor.New(n, c), tensor.New(n, c)
	count := 1
	for range n {
		count *= c
	}
	y := make([]int, n)
	for s := range count {
		for i, v := 0, s; i < n; i, v = i+1, v/c {
			y[i] = v % c
		}
		p := math.Exp(jointLog(y, adj, featLog, truth))
		differ, at := 0, -1
		consistent := true
		for i := range y {
			if y[i] != g.Labels[i] {
				differ++
				at = i
				if observed[i] {
					consistent = false
				}
			}
		}
		if consistent {
			for i := range y {
				total.Data[i*c+y[i]] += p
			}
		}
		switch differ {
		case 0:
			for i := range y {
				alea.Data[i*c+y[i]] += p
			}
		case 1:
			alea.Data[at*c+y[at]] += p
		}
	}
	for _, m := range []*tensor.Dense{alea, total} {
		for i := range n {
			row, z := m.Row(i), 0.0
			for _, v := range row {
				z += v
			}
			for k := range row {
				row[k] /= z
			}
		}
	}
	return alea, total
}

func TestTruthBruteForce(t *testing.T) {
	observed := []int{0, 3}
	for _, tc := range []struct {
		name string
		cfg  *datasets.CSBMConfig
	}{
		{"gaussian", datasets.CSBM(7, 3).ClassPrior(1, 2, 3).Homophily(0.7).AvgDegree(2).Features(2).FeatureSignal(1)},
		{"gaussian-dense", datasets.CSBM(8, 2).Homophily(0.9).AvgDegree(3).Features(3).FeatureSignal(0.5)},
		{"bag-of-words", datasets.CSBM(7, 3).Homophily(0.6).AvgDegree(2.5).Features(7).BagOfWords(4).FeatureSignal(0.5)},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			g, truth, err := tc.cfg.BernoulliEdges().Seed(seed).DoneWithTruth()
			if err != nil {
				t.Fatal(err)
			}
			featLog := tensor.New(g.N, g.NumClasses)
			if truth.Means != nil {
				x := toDense(g.Features)
				for i := range g.N {
					for c := range g.NumClasses {
						featLog.Set(i, c, gaussLog(x.Row(i), truth.Means.Row(c)))
					}
				}
			} else {
				featLog = bruteWordLog(t, truth, toDense(g.Features))
			}
			obs := make([]bool, g.N)
			for _, i := range observed {
				obs[i] = true
			}
			wantAlea, wantTotal := bruteForce(g, featLog, truth, obs)
			alea, err := truth.Aleatoric(g)
			if err != nil {
				t.Fatal(err)
			}
			total, err := truth.Total(g, observed)
			if err != nil {
				t.Fatal(err)
			}
			u, err := truth.Uncertainty(g, observed)
			if err != nil || !u.Exact {
				t.Fatalf("Uncertainty: exact %v, err %v", u.Exact, err)
			}
			for i, y := range g.Labels {
				for c := range g.NumClasses {
					if d := math.Abs(alea.At(i, c) - wantAlea.At(i, c)); d > 1e-10 {
						t.Errorf("%s seed %d: aleatoric(%d,%d) = %v, brute force %v", tc.name, seed, i, c, alea.At(i, c), wantAlea.At(i, c))
					}
					if d := math.Abs(total.At(i, c) - wantTotal.At(i, c)); d > 1e-10 {
						t.Errorf("%s seed %d: total(%d,%d) = %v, brute force %v", tc.name, seed, i, c, total.At(i, c), wantTotal.At(i, c))
					}
				}
				if d := math.Abs(u.Aleatoric[i] - (1 - wantAlea.At(i, y))); d > 1e-10 {
					t.Errorf("AU_gt(%d) = %v, want %v", i, u.Aleatoric[i], 1-wantAlea.At(i, y))
				}
				if d := math.Abs(u.Total[i] - (1 - wantTotal.At(i, y))); d > 1e-10 {
					t.Errorf("TU_gt(%d) = %v, want %v", i, u.Total[i], 1-wantTotal.At(i, y))
				}
				if want := math.Log(wantAlea.At(i, y) / wantTotal.At(i, y)); math.Abs(u.Epistemic[i]-want) > 1e-9 {
					t.Errorf("EU_gt(%d) = %v, want %v", i, u.Epistemic[i], want)
				}
			}
		}
	}
}

// bruteWordLog returns ln p(x_i | c) of bag-of-words features by summing
// the probability of every sequence of Words draws whose set of distinct
// words is the set of non-zeros of x_i.
func bruteWordLog(t *testing.T, truth *datasets.CSBMTruth, x *tensor.Dense) *tensor.Dense {
	t.Helper()
	dim, w := x.Cols, truth.Words
	count := 1
	for range w {
		count *= dim
	}
	out := tensor.New(x.Rows, len(truth.Prior))
	seq := make([]int, w)
	for c := range truth.Prior {
		// prob[mask] = P(the distinct words drawn form mask).
		prob := map[uint64]float64{}
		for s := range count {
			p, mask := 1.0, uint64(0)
			for k, v := 0, s; k < w; k, v = k+1, v/dim {
				seq[k] = v % dim
				p *= truth.WordProb.At(c, seq[k])
				mask |= 1 << seq[k]
			}
			prob[mask] += p
		}
		total := 0.0
		for _, p := range prob {
			total += p
		}
		if math.Abs(total-1) > 1e-12 {
			t.Fatalf("class %d: word-set probabilities sum to %v", c, total)
		}
		for i := range x.Rows {
			mask := uint64(0)
			for j, v := range x.Row(i) {
				if v != 0 {
					mask |= 1 << j
				}
			}
			out.Set(i, c, math.Log(prob[mask]))
		}
	}
	return out
}

// Every subset of a small vocabulary scored by FeatureLogLikelihood against
// the sum over all draw sequences; the probabilities of all subsets sum to 1.
func TestFeatureLogLikelihoodBagOfWords(t *testing.T) {
	for _, s := range []float64{0, 0.6, 1} {
		_, truth, err := datasets.CSBM(6, 2).AvgDegree(2).Features(5).BagOfWords(3).FeatureSignal(s).BernoulliEdges().DoneWithTruth()
		if err != nil {
			t.Fatal(err)
		}
		x := tensor.New(31, 5) // every non-empty subset of 5 words
		for m := 1; m < 32; m++ {
			for j := range 5 {
				if m&(1<<j) != 0 {
					x.Set(m-1, j, 1)
				}
			}
		}
		got, err := truth.FeatureLogLikelihood(tensor.DenseToCSR(x))
		if err != nil {
			t.Fatal(err)
		}
		want := bruteWordLog(t, truth, x)
		for c := range 2 {
			sum := 0.0
			for i := range 31 {
				g, w := got.At(i, c), want.At(i, c)
				if !(g == w || math.Abs(g-w) < 1e-12*max(1, math.Abs(w))) {
					t.Errorf("s=%v class %d subset %d: ln p = %v, brute force %v", s, c, i+1, g, w)
				}
				sum += math.Exp(g)
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("s=%v class %d: probabilities sum to %v", s, c, sum)
			}
		}
	}
}

// With one unobserved node the mean-field posterior is exact: it equals
// the aleatoric posterior of that node.
func TestTotalMeanFieldOneUnobserved(t *testing.T) {
	g, truth, err := datasets.CSBM(200, 3).BernoulliEdges().AvgDegree(6).Features(4).FeatureSignal(0.7).Seed(4).DoneWithTruth()
	if err != nil {
		t.Fatal(err)
	}
	alea, _ := truth.Aleatoric(g)
	for _, free := range []int{0, 57, 199} {
		var observed []int
		for i := range g.N {
			if i != free {
				observed = append(observed, i)
			}
		}
		mf, err := truth.TotalMeanField(g, observed)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := truth.Total(g, observed)
		if err != nil {
			t.Fatal(err)
		}
		for c := range 3 {
			if d := math.Abs(mf.At(free, c) - alea.At(free, c)); d > 1e-12 {
				t.Errorf("node %d class %d: mean field %v, aleatoric %v", free, c, mf.At(free, c), alea.At(free, c))
			}
			if d := math.Abs(ex.At(free, c) - alea.At(free, c)); d > 1e-12 {
				t.Errorf("node %d class %d: exact total %v, aleatoric %v", free, c, ex.At(free, c), alea.At(free, c))
			}
		}
	}
}

// With homophily 1/C the edges carry no class information (p_in = p_out),
// the joint factorises over the nodes, and mean field is exact.
func TestTotalMeanFieldUninformativeEdges(t *testing.T) {
	g, truth, err := datasets.CSBM(16, 2).BernoulliEdges().Homophily(0.5).AvgDegree(4).Features(3).Seed(6).DoneWithTruth()
	if err != nil {
		t.Fatal(err)
	}
	observed := []int{0, 5, 9}
	ex, err := truth.Total(g, observed)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := truth.TotalMeanField(g, observed)
	if err != nil {
		t.Fatal(err)
	}
	for k := range ex.Data {
		if d := math.Abs(ex.Data[k] - mf.Data[k]); d > 1e-12 {
			t.Fatalf("entry %d: mean field %v, exact %v", k, mf.Data[k], ex.Data[k])
		}
	}
}

// The Bayes-optimal posterior is calibrated under its own generator: among
// nodes whose largest aleatoric probability is about q, the label equals the
// arg max for a fraction q of them. Pooled over three graphs of 3000 nodes,
// each bin with at least 200 nodes must agree within 4 standard errors,
// and the node-weighted mean gap (the ECE) must stay below 0.02.
func TestAleatoricCalibration(t *testing.T) {
	const bins = 10
	var conf, hits, count [bins]float64
	for seed := uint64(1); seed <= 3; seed++ {
		g, truth, err := datasets.CSBM(3000, 3).BernoulliEdges().Homophily(0.6).AvgDegree(4).
			Features(8).FeatureSignal(1).Seed(seed).DoneWithTruth()
		if err != nil {
			t.Fatal(err)
		}
		p, err := truth.Aleatoric(g)
		if err != nil {
			t.Fatal(err)
		}
		for i, y := range g.Labels {
			row := p.Row(i)
			arg := 0
			for c, v := range row {
				if v > row[arg] {
					arg = c
				}
			}
			b := min(int(row[arg]*bins), bins-1)
			conf[b] += row[arg]
			count[b]++
			if arg == y {
				hits[b]++
			}
		}
	}
	ece, total, tested := 0.0, 0.0, 0
	for b := range bins {
		if count[b] >= 200 {
			tested++
		}
		if count[b] == 0 {
			continue
		}
		q, acc := conf[b]/count[b], hits[b]/count[b]
		ece += count[b] * math.Abs(acc-q)
		total += count[b]
		if se := math.Sqrt(q * (1 - q) / count[b]); count[b] >= 200 && math.Abs(acc-q) > 4*se {
			t.Errorf("bin %d: %v nodes, mean confidence %.3f, accuracy %.3f (4 SE = %.3f)", b, count[b], q, acc, 4*se)
		}
	}
	if tested < 4 {
		t.Errorf("only %d bins with 200 nodes: the graphs do not spread the confidences", tested)
	}
	if ece /= total; ece > 0.02 {
		t.Errorf("ECE %.4f, want < 0.02", ece)
	}
}

func TestTruthErrors(t *testing.T) {
	g, truth, err := datasets.CSBM(40, 2).BernoulliEdges().Seed(2).DoneWithTruth()
	if err != nil {
		t.Fatal(err)
	}
	unlabelled := *g
	unlabelled.Labels = append([]int{-1}, g.Labels[1:]...)
	other, _ := datasets.CSBM(40, 3).Done()
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"default process", func() error { _, _, err := datasets.CSBM(40, 2).DoneWithTruth(); return err }, "ground truth needs BernoulliEdges"},
		{"prior without bernoulli", func() error { _, err := datasets.CSBM(40, 2).ClassPrior(1, 2).Done(); return err }, "a class prior needs BernoulliEdges"},
		{"prior length", func() error { _, err := datasets.CSBM(40, 2).BernoulliEdges().ClassPrior(1).Done(); return err }, "class prior of 1 weights for 2 classes"},
		{"prior sign", func() error { _, err := datasets.CSBM(40, 2).BernoulliEdges().ClassPrior(1, 0).Done(); return err }, "class prior weight 0 of class 1"},
		{"p_in > 1", func() error {
			_, err := datasets.CSBM(10, 5).BernoulliEdges().Homophily(1).AvgDegree(4).Done()
			return err
		}, "both must be ≤ 1"},
		{"observed range", func() error { _, err := truth.Total(g, []int{40}); return err }, "observed node 40 outside the 40 nodes"},
		{"unlabelled", func() error { _, err := truth.Aleatoric(&unlabelled); return err }, "node 0 of \"CSBM\" has no label"},
		{"classes", func() error { _, err := truth.Aleatoric(other); return err }, "has 3 classes, the model 2"},
		{"too many", func() error { _, err := truth.Total(g, nil); return err }, "use TotalMeanField"},
	} {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
