package cuq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/nn"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// calibrationFixture returns a small CSBM graph, a split of it and a
// prediction on it whose logits are N(0, 2²) plus 2 at the label, and
// whose classes are their argmax.
func calibrationFixture(t *testing.T) (*Prediction, graph.Split) {
	t.Helper()
	g, err := datasets.CSBM(60, 3).Homophily(0.8).AvgDegree(4).Seed(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.Split(graph.Stratified(0.2, 0.3, 0.5).Seed(1))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 5))
	p := &Prediction{Model: "fixture", Graph: g, Classes: 3, Prob: tensor.New(g.N, 3)}
	z := make([]float64, 3)
	for i := 0; i < g.N; i++ {
		for c := range z {
			z[c] = 2 * r.NormFloat64()
		}
		z[g.Labels[i]] += 2
		scaledSoftmax(p.Prob.Row(i), z, 1)
	}
	p.setClasses()
	return p, split
}

// randomize fills the parameters with draws from U(−1, 1) (for gradient
// checks away from the zero biases of the initialisation).
func randomize(r *rand.Rand, params ...*ad.Value) {
	for _, p := range params {
		for i := range p.Data.Data {
			p.Data.Data[i] = 2*r.Float64() - 1
		}
	}
}

func TestCalibrationLogitsAreCentredLogProbabilities(t *testing.T) {
	p, _ := calibrationFixture(t)
	z := calibrationLogits(p)
	q := make([]float64, p.Classes)
	for i := 0; i < z.Rows; i++ {
		row := z.Row(i)
		var sum float64
		for _, v := range row {
			sum += v
		}
		if math.Abs(sum) > 1e-12 {
			t.Fatalf("node %d: logits sum to %v, want 0", i, sum)
		}
		scaledSoftmax(q, row, 1)
		for c, v := range q {
			if math.Abs(v-p.Prob.At(i, c)) > 1e-14 {
				t.Fatalf("node %d: softmax(z) = %v, p̄ = %v", i, q, p.Prob.Row(i))
			}
		}
	}
}

func TestCaGCNLossGradient(t *testing.T) {
	p, split := calibrationFixture(t)
	z := calibrationLogits(p)
	r := rand.New(rand.NewPCG(6, 7))
	net := &cagcnNet{
		l1:  &nn.GCN{Lin: nn.NewGlorotLinear("l1", 3, 5, true, r)},
		l2:  &nn.GCN{Lin: nn.NewGlorotLinear("l2", 5, 1, true, r)},
		adj: graph.SymNorm(p.Graph.Adj), z: ad.Const(z), dropout: 0.3,
	}
	params := append(net.l1.Params(), net.l2.Params()...)
	randomize(r, params...)
	y := labelsOf(p.Graph, split.Val)
	top1, top2, sign, right := topTwo(z, split.Val, y)
	if right == 0 || right == len(split.Val) {
		t.Fatalf("%d of %d validation nodes right: the margin term's two cases are not both checked", right, len(split.Val))
	}
	for _, margin := range []float64{0, 0.5} {
		worst, err := ad.GradCheck(params, 1e-6, func(tp *ad.Tape) *ad.Value {
			rng := rand.New(rand.NewPCG(8, 9)) // the same dropout at every evaluation
			return net.loss(tp, rng, split.Val, y, top1, top2, sign, right, margin)
		})
		if err != nil || worst > 1e-6 {
			t.Errorf("margin %v: largest relative gradient error %g (%v)", margin, worst, err)
		}
	}
}

// TestCaGCNLossValue checks the loss against a direct computation of the
// NLL and the margin term of the calibrated probabilities.
func TestCaGCNLossValue(t *testing.T) {
	p, split := calibrationFixture(t)
	z := calibrationLogits(p)
	r := rand.New(rand.NewPCG(6, 7))
	net := &cagcnNet{
		l1:  &nn.GCN{Lin: nn.NewGlorotLinear("l1", 3, 5, true, r)},
		l2:  &nn.GCN{Lin: nn.NewGlorotLinear("l2", 5, 1, true, r)},
		adj: graph.SymNorm(p.Graph.Adj), z: ad.Const(z),
	}
	randomize(r, append(net.l1.Params(), net.l2.Params()...)...)
	y := labelsOf(p.Graph, split.Val)
	top1, top2, sign, right := topTwo(z, split.Val, y)
	tape := ad.NewEvalTape()
	scale := net.scale(tape, nil)
	got := net.loss(tape, nil, split.Val, y, top1, top2, sign, right, 0.5).Scalar()
	var nll, margin float64
	q := make([]float64, 3)
	for k, i := range split.Val {
		s := scale.Data.Data[i]
		if s < math.Log(1.1) {
			t.Fatalf("node %d: scale %v below ln 1.1", i, s)
		}
		scaledSoftmax(q, z.Row(i), s)
		nll -= math.Log(q[y[k]])
		sorted := slices.Clone(q)
		slices.Sort(sorted)
		gap := sorted[2] - sorted[1]
		if argmax(q) == y[k] {
			margin += 1 - gap
		} else {
			margin += gap
		}
	}
	n := float64(len(split.Val))
	if want := nll/n + 0.5*margin/n; math.Abs(got-want) > 1e-12 {
		t.Errorf("loss %v, direct computation %v", got, want)
	}
}

func TestGATSLossGradient(t *testing.T) {
	p, split := calibrationFixture(t)
	z := calibrationLogits(p)
	r := rand.New(rand.NewPCG(10, 11))
	net := newGATSNet(z, p.Graph.Adj, split.Train, 3, 1, r)
	randomize(r, net.w)
	net.confCoef.Data.Data[0] = 0.7
	net.trainA.Data.Data[0] = 0.8
	net.dist1A.Data.Data[0] = 1.3
	net.bias.Data.Data[0] = 0.4
	y := labelsOf(p.Graph, split.Val)
	worst, err := ad.GradCheck(net.params(), 1e-6, func(tp *ad.Tape) *ad.Value {
		return net.loss(tp, ad.Const(z), split.Val, y)
	})
	if err != nil || worst > 1e-6 {
		t.Errorf("largest relative gradient error %g (%v)", worst, err)
	}
}

// TestGATSTemperaturesByHand computes T_i of one node from the formula,
// with plain loops over its neighbours.
func TestGATSTemperaturesByHand(t *testing.T) {
	p, split := calibrationFixture(t)
	z := calibrationLogits(p)
	r := rand.New(rand.NewPCG(12, 13))
	const heads = 2
	net := newGATSNet(z, p.Graph.Adj, split.Train, heads, 0.3, r)
	net.confCoef.Data.Data[0] = -0.4
	net.trainA.Data.Data[0] = 0.7
	net.dist1A.Data.Data[0] = 1.6
	temps := net.temperatures(ad.NewEvalTape()).Data.Data
	factor := func(i int) float64 {
		switch {
		case slices.Contains(split.Train, i):
			return 0.7
		case slices.ContainsFunc(split.Train, func(j int) bool { return adjacent(p.Graph.Adj, i, j) }):
			return 1.6
		}
		return 1
	}
	conf := func(i int) float64 { return slices.Max(p.Prob.Row(i)) }
	dot := func(i, j int) float64 {
		s := 0.0
		for c := 0; c < 3; c++ {
			s += z.At(i, c) * z.At(j, c)
		}
		return s
	}
	sortedNormalised := func(i int) []float64 {
		row := z.Row(i)
		lo, hi := slices.Min(row), slices.Max(row)
		out := make([]float64, len(row))
		for c, v := range row {
			out[c] = (v - lo) / (hi - lo)
		}
		slices.Sort(out)
		return out
	}
	checked := map[int]bool{}
	for i := 0; i < p.Graph.N; i++ {
		kind := 2
		if f := factor(i); f == 0.7 {
			kind = 0
		} else if f == 1.6 {
			kind = 1
		}
		if checked[kind] {
			continue
		}
		checked[kind] = true
		nbrs := []int{i}
		for j := 0; j < p.Graph.N; j++ {
			if j != i && adjacent(p.Graph.Adj, i, j) {
				nbrs = append(nbrs, j)
			}
		}
		ai := factor(i)
		e := make([]float64, len(nbrs))
		var delta float64
		for k, j := range nbrs {
			e[k] = dot(i, j) / (ai * factor(j))
			if e[k] < 0 {
				e[k] *= 0.2
			}
			delta += conf(i) - conf(j)
		}
		delta /= float64(len(nbrs))
		m := slices.Max(e)
		var norm float64
		for k := range e {
			e[k] = math.Exp(e[k] - m)
			norm += e[k]
		}
		var want float64
		for h := 0; h < heads; h++ {
			var sim float64
			for k, j := range nbrs {
				var tau float64
				for c, v := range sortedNormalised(j) {
					tau += v * net.w.Data.At(c, h)
				}
				sim += e[k] / norm * factor(j) * tau
			}
			want += ad.Softplus(sim-0.4*delta) / heads
		}
		want += 0.3
		if math.Abs(temps[i]-want) > 1e-12 {
			t.Errorf("node %d (distance %d): T = %v, by hand %v", i, kind, temps[i], want)
		}
	}
	if len(checked) != 3 {
		t.Errorf("checked nodes of distances %v, want 0, 1 and 2", checked)
	}
}

// adjacent reports whether adj stores the entry (i, j).
func adjacent(adj *tensor.CSR, i, j int) bool {
	return slices.Contains(adj.Ind[adj.Ptr[i]:adj.Ptr[i+1]], j)
}

func TestDistanceToTraining(t *testing.T) {
	// the path 0 – 1 – 2 – 3 – 4 with node 4 also joined to 5; train {1}
	ri := []int{0, 1, 1, 2, 2, 3, 3, 4, 4, 5}
	ci := []int{1, 0, 2, 1, 3, 2, 4, 3, 5, 4}
	adj, err := tensor.FromCOO(6, 6, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	pattern := graph.AddRemainingSelfLoops(adj, 1)
	got := distanceToTraining(pattern, []int{1})
	if want := []int{1, 0, 1, 2, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("distances %v, want %v", got, want)
	}
}

// TestConstantTemperatureIsTemperatureScaling fixes both networks' output
// to the temperature T that TemperatureScaled fits and checks that the
// calibrated probabilities are those of temperature scaling.
func TestConstantTemperatureIsTemperatureScaling(t *testing.T) {
	p, split := calibrationFixture(t)
	// overconfident: p̄ ∝ p̄³, so that T is well above 1
	for i := 0; i < p.Prob.Rows; i++ {
		scaledSoftmax(p.Prob.Row(i), calibrationLogits(p).Row(i), 3)
	}
	ts, temp, err := p.TemperatureScaled(split.Val)
	if err != nil {
		t.Fatal(err)
	}
	if !(temp > 1.5 && temp < 10) {
		t.Fatalf("temperature scaling fitted T = %v, want one in (1.5, 10)", temp)
	}
	z := calibrationLogits(p)
	r := rand.New(rand.NewPCG(1, 1))

	cagcn := &cagcnNet{
		l1:  &nn.GCN{Lin: nn.NewGlorotLinear("l1", 3, 4, true, r)},
		l2:  &nn.GCN{Lin: nn.NewGlorotLinear("l2", 4, 1, true, r)},
		adj: graph.SymNorm(p.Graph.Adj), z: ad.Const(z),
	}
	cagcn.l2.Lin.W.Data.Zero()
	cagcn.l2.Lin.B.Data.Data[0] = math.Log(math.Exp(1/temp) - 1.1) // ln(e^s + 1.1) = 1/T
	cagcnBeta := slices.Clone(cagcn.scale(ad.NewEvalTape(), nil).Data.Data)

	gats := newGATSNet(z, p.Graph.Adj, split.Train, 4, temp-math.Ln2, r) // softplus(0) = ln 2
	gats.w.Data.Zero()
	gats.trainA.Data.Data[0], gats.dist1A.Data.Data[0] = 0.5, 2 // no effect when W = 0 and γ = 0
	gatsBeta := gats.temperatures(ad.NewEvalTape()).Data.Data
	for i := range gatsBeta {
		gatsBeta[i] = 1 / gatsBeta[i]
	}
	for name, beta := range map[string][]float64{"CaGCN": cagcnBeta, "GATS": gatsBeta} {
		got, err := p.calibratedPrediction(z, beta, "+"+name)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range got.Prob.Data {
			if math.Abs(v-ts.Prob.Data[k]) > 1e-13 {
				t.Fatalf("%s: probability %d is %v, temperature scaling gives %v", name, k, v, ts.Prob.Data[k])
			}
		}
		if !slices.Equal(got.Class, ts.Class) || maxDiff(got.TU, ts.TU) > 1e-12 {
			t.Errorf("%s: classes or TU differ from temperature scaling", name)
		}
	}
}

// maxDiff returns the largest |a_i − b_i|.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
