package kernelext

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// The exercises of notebooks/09_exercises.ipynb. Each has a few edge cases
// first, then random inputs drawn with a fixed seed up to exerciseCases
// cases in all, so that every run grades on the same inputs.

// exerciseCases is the number of cases of each exercise.
const exerciseCases = 200

// seed is the seed of the random cases (issue 37).
const seed = 37

// withRandom appends random cases drawn by draw to edge, up to
// exerciseCases in all.
func withRandom[In any](stream uint64, edge []Case[In], draw func(r *rand.Rand) In) []Case[In] {
	r := rand.New(rand.NewPCG(seed, stream))
	for len(edge) < exerciseCases {
		edge = append(edge, Case[In]{In: draw(r)})
	}
	return edge
}

// distribution is the input of the entropy exercise.
type distribution []float64

func (p distribution) String() string { return fmt.Sprintf("p = %v", []float64(p)) }

// entropyExercise is exercise (a); see GradeEntropy.
func entropyExercise() Exercise[distribution, float64] {
	uniform := func(k int) distribution {
		p := make(distribution, k)
		for i := range p {
			p[i] = 1 / float64(k)
		}
		return p
	}
	edge := []Case[distribution]{
		{"uniform over 3 classes", uniform(3)},
		{"one-hot distribution", distribution{0, 1, 0}},
		{"a single class", distribution{1}},
		{"classes of probability 0", distribution{0.5, 0, 0.25, 0, 0.25}},
		{"a probability of 1e-300", distribution{1, 1e-300}},
		{"uniform over 100 classes", uniform(100)},
	}
	return Exercise[distribution, float64]{
		Name:      "entropy",
		Reference: func(p distribution) float64 { return uq.CategoricalEntropy(p) },
		Cases: withRandom(1, edge, func(r *rand.Rand) distribution {
			p := make(distribution, 2+r.IntN(11))
			var s float64
			for i := range p {
				if i == 0 || r.Float64() > 0.2 {
					p[i] = r.ExpFloat64()
				}
				s += p[i]
			}
			for i := range p {
				p[i] /= s
			}
			return p
		}),
	}
}

// GradeEntropy grades exercise (a), the student's Shannon entropy
//
//	H(p) = −Σ_k p_k ln p_k   (0 · ln 0 = 0)
//
// in nats of a categorical distribution p, against uq.CategoricalEntropy
// on uniform, one-hot and single-class distributions, zero and tiny
// probabilities, and random ones; it shows the result in the cell.
func GradeEntropy(entropy func(p []float64) float64) Grading {
	var f func(distribution) float64
	if entropy != nil {
		f = func(p distribution) float64 { return entropy(p) }
	}
	return show1(entropyExercise().Grade(f))
}

// show1 shows g and returns it.
func show1(g Grading) Grading {
	g.Show()
	return g
}

// concentration is the input of the Dirichlet exercises.
type concentration []float64

func (a concentration) String() string { return fmt.Sprintf("α = %v", []float64(a)) }

// measureExercise is exercise (b) for the measure m; see GradeMeasure.
func measureExercise(m uq.Measure) (Exercise[concentration, float64], error) {
	switch m {
	case uq.TU, uq.AU, uq.EU, uq.EUPC, uq.LC:
	default:
		return Exercise[concentration, float64]{}, fmt.Errorf("no exercise for the measure %v: want TU, AU, EU, EU_PC or LC", m)
	}
	edge := []Case[concentration]{
		{"flat Dirichlet", concentration{1, 1, 1}},
		{"two classes, Beta(2, 5)", concentration{2, 5}},
		{"a single class", concentration{3}},
		{"peaked", concentration{100, 1, 1}},
		{"tiny α", concentration{1e-8, 1e-8, 1e-8}},
		{"huge α", concentration{1e8, 1e8, 1e8}},
		{"one huge α among tiny ones", concentration{1e8, 1e-8, 1e-8}},
		{"α = 0.5 over 10 classes", concentration{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}},
	}
	return Exercise[concentration, float64]{
		Name: m.String(),
		Reference: func(a concentration) float64 {
			ms, err := uq.Dirichlet(a, len(a))
			if err != nil { // not on the exercise's inputs
				return math.NaN()
			}
			return ms.Get(m)[0]
		},
		Cases: withRandom(2, edge, func(r *rand.Rand) concentration {
			a := make(concentration, 2+r.IntN(9))
			for i := range a {
				a[i] = math.Pow(10, -3+float64(7*r.Float64()))
			}
			return a
		}),
	}, nil
}

// GradeMeasure grades exercise (b), the student's function for the
// measure m of a Dirichlet Dir(α) with α0 = Σ_k α_k (see package uq),
//
//	TU = H(α/α0)
//	AU = Σ_k (α_k/α0) (ψ(α0+1) − ψ(α_k+1))
//	EU = TU − AU,
//
// against uq.Dirichlet on the flat Dirichlet, a Beta, a single class, tiny
// (1e-8) and huge (1e8) concentrations, one huge among tiny ones, and
// random α with entries between 1e-3 and 1e4; it shows the result in the
// cell. m may also be EU_PC (−α0) or LC (1 − max_k α_k/α0); another
// measure is reported as an error.
func GradeMeasure(m uq.Measure, measure func(alpha []float64) float64) Grading {
	e, err := measureExercise(m)
	if err != nil {
		return show1(Grading{Exercise: m.String(), Err: err})
	}
	var f func(concentration) float64
	if measure != nil {
		f = func(a concentration) float64 { return measure(a) }
	}
	return show1(e.Grade(f))
}

// scores is the input of the AUROC exercise.
type scores struct{ id, ood []float64 }

func (s scores) String() string { return fmt.Sprintf("id = %v\nood = %v", s.id, s.ood) }

// aurocExercise is exercise (c); see GradeAUROC.
func aurocExercise() Exercise[scores, float64] {
	edge := []Case[scores]{
		{"all scores tied", scores{[]float64{1, 1, 1}, []float64{1, 1}}},
		{"every OOD score above the ID scores", scores{[]float64{0.1, 0.2}, []float64{0.5, 0.9}}},
		{"every OOD score below the ID scores", scores{[]float64{0.5, 0.9}, []float64{0.1, 0.2}}},
		{"one node each", scores{[]float64{0.3}, []float64{0.7}}},
		{"ties across the groups", scores{[]float64{0.1, 0.5, 0.5, 0.9}, []float64{0.5, 0.9, 1}}},
		{"one OOD node among many ID nodes", scores{[]float64{3, 1, 4, 1, 5, 9, 2, 6}, []float64{4}}},
	}
	return Exercise[scores, float64]{
		Name: "AUROC",
		Reference: func(s scores) float64 {
			v, _ := eval.AUROC(s.id, s.ood) // both groups are non-empty
			return v
		},
		Cases: withRandom(3, edge, func(r *rand.Rand) scores {
			ties := r.IntN(2) == 0
			draw := func(n int, shift float64) []float64 {
				x := make([]float64, n)
				for i := range x {
					if ties {
						x[i] = float64(r.IntN(5))
					} else {
						x[i] = r.NormFloat64()
					}
				}
				// Shifted in a pass of its own, so that the compiler cannot
				// fuse the normal draw's product with the addition.
				for i := range x {
					if !ties {
						x[i] += shift
					}
				}
				return x
			}
			return scores{draw(1+r.IntN(30), 0), draw(1+r.IntN(30), r.Float64())}
		}),
	}
}

// GradeAUROC grades exercise (c), the student's area under the ROC curve
// of a score that should be higher on the OOD nodes than on the ID ones,
//
//	AUROC = P(s_ood > s_id) + ½ P(s_ood = s_id)
//
// over all pairs of an ID and an OOD node, against eval.AUROC on scores
// all tied, perfectly separated either way, one node each, ties across
// the two groups, and random scores, half of them from five values (many
// ties); it shows the result in the cell.
func GradeAUROC(auroc func(id, ood []float64) float64) Grading {
	var f func(scores) float64
	if auroc != nil {
		f = func(s scores) float64 { return auroc(s.id, s.ood) }
	}
	return show1(aurocExercise().Grade(f))
}

// propagation is the input of the APPNP exercise.
type propagation struct {
	a, h, h0 [][]float64
	t        float64
}

func (p propagation) String() string {
	return fmt.Sprintf("A  = %s\nH  = %s\nH₀ = %s\nt  = %v", show(p.a), show(p.h), show(p.h0), p.t)
}

// appnpStepExercise is exercise (d); see GradeAPPNPStep.
func appnpStepExercise() Exercise[propagation, [][]float64] {
	// graph builds the adjacency of n nodes and the given edges.
	graphOf := func(n int, edges ...[2]int) [][]float64 {
		a := matrix(n, n)
		for _, e := range edges {
			a[e[0]][e[1]], a[e[1]][e[0]] = 1, 1
		}
		return a
	}
	path := graphOf(3, [2]int{0, 1}, [2]int{1, 2})
	h3 := [][]float64{{1, 0}, {0, 1}, {2, -1}}
	h03 := [][]float64{{0.5, 0.5}, {1, 0}, {0, 0}}
	edge := []Case[propagation]{
		{"a single node", propagation{graphOf(1), [][]float64{{2, -1}}, [][]float64{{1, 1}}, 0.1}},
		{"an isolated node (node 2)", propagation{graphOf(3, [2]int{0, 1}), h3, h03, 0.1}},
		{"a path, t = 0: no teleport", propagation{path, h3, h03, 0}},
		{"a path, t = 1: back to H₀", propagation{path, h3, h03, 1}},
		{"a star around node 0", propagation{graphOf(5, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}, [2]int{0, 4}),
			[][]float64{{1}, {2}, {3}, {4}, {5}}, [][]float64{{1}, {0}, {0}, {0}, {0}}, 0.2}},
		{"a complete graph", propagation{graphOf(4, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 3}),
			[][]float64{{1, 2}, {3, 4}, {5, 6}, {7, 8}}, [][]float64{{0, 0}, {0, 0}, {0, 0}, {1, 1}}, 0.1}},
	}
	return Exercise[propagation, [][]float64]{
		Name:      "APPNP step",
		Reference: appnpStep,
		Cases: withRandom(4, edge, func(r *rand.Rand) propagation {
			n, f := 1+r.IntN(8), 1+r.IntN(3)
			a := matrix(n, n)
			for i := range n {
				for j := range i {
					if r.Float64() < 0.4 {
						a[i][j], a[j][i] = 1, 1
					}
				}
			}
			normal := func() [][]float64 {
				x := matrix(n, f)
				for _, row := range x {
					for j := range row {
						row[j] = r.NormFloat64()
					}
				}
				return x
			}
			return propagation{a, normal(), normal(), r.Float64()}
		}),
	}
}

// matrix returns a zero matrix as rows.
func matrix(rows, cols int) [][]float64 {
	m := make([][]float64, rows)
	for i := range m {
		m[i] = make([]float64, cols)
	}
	return m
}

// appnpStep is the reference of appnpStepExercise: the library's SymNorm
// of A as a sparse matrix, times H.
func appnpStep(p propagation) [][]float64 {
	n, f := len(p.a), len(p.h[0])
	a, h := tensor.New(n, n), tensor.New(n, f)
	for i := range n {
		copy(a.Row(i), p.a[i])
		copy(h.Row(i), p.h[i])
	}
	ah := graph.SymNorm(tensor.DenseToCSR(a)).Mul(h)
	out := matrix(n, f)
	for i, row := range out {
		for j := range row {
			row[j] = float64((1-p.t)*ah.Row(i)[j]) + float64(p.t*p.h0[i][j])
		}
	}
	return out
}

// GradeAPPNPStep grades exercise (d), the student's step of APPNP's
// propagation
//
//	H' = (1−t) Â H + t H₀,  Â = D^(−½) (A + I) D^(−½),  D_ii = Σ_j (A + I)_ij,
//
// on a small graph given by its dense adjacency A (symmetric, 0 or 1, no
// self loops; H and H₀ have a row per node), against graph.SymNorm on a
// single node, an isolated node, a path with t = 0 and with t = 1, a star,
// a complete graph and random graphs of up to 8 nodes with 1 to 3
// features; it shows the result in the cell.
func GradeAPPNPStep(step func(a, h, h0 [][]float64, t float64) [][]float64) Grading {
	var f func(propagation) [][]float64
	if step != nil {
		f = func(p propagation) [][]float64 { return step(p.a, p.h, p.h0, p.t) }
	}
	return show1(appnpStepExercise().Grade(f))
}

// committee is the input of the behavioural pooling exercise.
type committee struct {
	head   *pool.GaussianHead
	w1, w2 float64
	z1, z2 []float64
}

func (c committee) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "w₁ = %v, z₁ = %v\nw₂ = %v, z₂ = %v\nhead: budget %v, class means", c.w1, c.z1, c.w2, c.z2, c.head.Budget())
	for k := range c.head.Classes() {
		fmt.Fprintf(&b, " %v", c.head.Mean(k))
	}
	return b.String()
}

// behaviouralPoolExercise is exercise (e); see GradeBehaviouralPool.
func behaviouralPoolExercise() Exercise[committee, []float64] {
	head := pool.ToyHead()
	c0, c1 := head.Mean(0), head.Mean(1)
	edge := []Case[committee]{
		{"a node alone (w = 1, 0)", committee{head, 1, 0, c0, c1}},
		{"two nodes that agree", committee{head, 0.5, 0.5, c1, c1}},
		{"two nodes in conflict", committee{head, 0.5, 0.5, c0, c1}},
		{"two nodes far from every class", committee{head, 0.5, 0.5, []float64{8, 8}, []float64{9, 7}}},
		{"zero weights", committee{head, 0, 0, c0, c1}},
		{"unequal weights", committee{head, 0.9, 0.1, c0, c1}},
	}
	return Exercise[committee, []float64]{
		Name: "behavioural pooling",
		Reference: func(c committee) []float64 {
			z := make([]float64, len(c.z1))
			for k := range z {
				z[k] = float64(c.w1*c.z1[k]) + float64(c.w2*c.z2[k])
			}
			a, err := c.head.Alpha(z)
			if err != nil { // not on the exercise's inputs
				return nil
			}
			return a
		},
		Cases: withRandom(5, edge, func(r *rand.Rand) committee {
			z := func() []float64 { return []float64{float64(10*r.Float64()) - 5, float64(10*r.Float64()) - 5} }
			return committee{head, r.Float64(), r.Float64(), z(), z()}
		}),
	}
}

// GradeBehaviouralPool grades exercise (e), the student's behavioural
// pooling of the opinions of two nodes, as package pool computes it for
// CUQ-GNN. The nodes have representations z₁ and z₂ and committee weights
// w₁ and w₂ (their entries in a row of the operator Π, see
// pool.Pooled.Weights); a PostNet head turns a representation z into
// Dir(α(z)). The committee first forms one representation, then asks the
// head:
//
//	α = α(w₁ z₁ + w₂ z₂),
//
// unlike GPN's log-linear pooling 1 + w₁ β(z₁) + w₂ β(z₂), which adds the
// two opinions' evidence. It grades against pool.GaussianHead.Alpha with
// pool.ToyHead on a node alone (w = 1, 0), two agreeing nodes, two in
// conflict, two far from every class, zero weights, unequal weights, and
// random representations in [−5, 5]² and weights in [0, 1); it shows the
// result in the cell.
func GradeBehaviouralPool(pooled func(head *pool.GaussianHead, w1 float64, z1 []float64, w2 float64, z2 []float64) []float64) Grading {
	var f func(committee) []float64
	if pooled != nil {
		f = func(c committee) []float64 { return pooled(c.head, c.w1, c.z1, c.w2, c.z2) }
	}
	return show1(behaviouralPoolExercise().Grade(f))
}

// evidenceScales are the concentrations α₀ of MeasuresChart.
var evidenceScales = []float64{0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000}

// MeasuresChart draws the student's Dirichlet measures beside the
// library's (dashed, in the same colour) for Dir(α₀ · (0.6, 0.3, 0.1)) as
// the evidence α₀ grows from 0.1 to 1000: TU stays the entropy of the
// mean, EU falls towards 0 and AU rises towards TU. yours maps TU, AU or
// EU to the student's function for it (see GradeMeasure). A curve that
// matches the library's to 1e-12 is named "… (= … yours)" in the legend.
// It returns an error for another measure, or when a function of the
// student's panics or gives a value that is not finite.
func MeasuresChart(yours map[uq.Measure]func(alpha []float64) float64) (*chart.Chart, error) {
	if len(yours) == 0 {
		return nil, fmt.Errorf("kernelext.MeasuresChart: no measures")
	}
	x := make([]string, len(evidenceScales))
	for i, a0 := range evidenceScales {
		x[i] = fmt.Sprint(a0)
	}
	var curves []chart.Curve
	for _, m := range []uq.Measure{uq.TU, uq.AU, uq.EU} {
		f, ok := yours[m]
		if !ok {
			continue
		}
		e, _ := measureExercise(m) // exists for TU, AU and EU
		color, _ := chart.MeasureStyle(m)
		mine := chart.Curve{Name: m.String() + ", yours", Color: color}
		library := chart.Curve{Name: m.String() + ", library", Color: color, Dash: chart.Dashed}
		for _, a0 := range evidenceScales {
			alpha := concentration{0.6 * a0, 0.3 * a0, 0.1 * a0}
			v, p, panicked := call(f, []float64(alpha))
			switch {
			case panicked:
				return nil, fmt.Errorf("kernelext.MeasuresChart: your %v panicked at %v: %v", m, alpha, p)
			case math.IsNaN(v) || math.IsInf(v, 0):
				return nil, fmt.Errorf("kernelext.MeasuresChart: your %v is %v at %v", m, v, alpha)
			}
			mine.Mean = append(mine.Mean, v)
			library.Mean = append(library.Mean, e.Reference(alpha))
		}
		curves = append(curves, mine, library)
	}
	if len(curves) < 2*len(yours) {
		return nil, fmt.Errorf("kernelext.MeasuresChart: a measure is not TU, AU or EU")
	}
	return chart.Lines("Your measures of Dir(α₀ · (0.6, 0.3, 0.1))", "α₀", "nats", x, curves...)
}
