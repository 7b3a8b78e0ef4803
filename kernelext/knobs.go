package kernelext

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/conformal"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// position returns the index of x in values (within 1e-9), or an error
// naming what.
func position(values []float64, x float64, what string) (int, error) {
	for k, v := range values {
		if math.Abs(v-x) < 1e-9 {
			return k, nil
		}
	}
	return 0, fmt.Errorf("kernelext: %s %v is not one of the settings %v", what, x, values)
}

// labels formats values with format.
func labels(format string, values []float64) []string {
	out := make([]string, len(values))
	for k, v := range values {
		out[k] = fmt.Sprintf(format, v)
	}
	return out
}

// ConformalKnobBuilder builds the live view of split conformal prediction
// under a slider over the miscoverage level α. Start it with
// ConformalKnob, set options, then call Done.
type ConformalKnobBuilder struct {
	p      *cuq.Prediction
	nodes  []int
	alphas []float64
	at     float64
	opts   conformal.Options
}

// DefaultConformalAlphas are the settings of ConformalKnob's slider.
var DefaultConformalAlphas = []float64{0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5}

// ConformalKnob starts the live view of p's conformal prediction sets on
// nodes (usually the test nodes; see cuq.Prediction.Conformal): a slider
// over α (DefaultConformalAlphas, conformal.DefaultAlpha first) and, for
// every α, the set-size chart (chart.SetSizesOfCounts) and per score the
// empirical coverage against the target 1−α, the mean set size, the
// singleton and empty rates and q̂. Every α uses the same calibration
// split and uniform numbers (Seed), so the sets are nested: a smaller α
// never shrinks a set.
func ConformalKnob(p *cuq.Prediction, nodes []int) *ConformalKnobBuilder {
	return &ConformalKnobBuilder{p: p, nodes: nodes, alphas: DefaultConformalAlphas, at: conformal.DefaultAlpha}
}

// Alphas sets the slider's settings of α, in (0, 1), ascending.
func (b *ConformalKnobBuilder) Alphas(alphas ...float64) *ConformalKnobBuilder {
	b.alphas = alphas
	return b
}

// At sets the α shown first, one of the settings.
func (b *ConformalKnobBuilder) At(alpha float64) *ConformalKnobBuilder { b.at = alpha; return b }

// Scores sets the scores (default conformal.DefaultScores).
func (b *ConformalKnobBuilder) Scores(s ...conformal.Score) *ConformalKnobBuilder {
	b.opts.Scores = s
	return b
}

// Seed sets the seed of the calibration split and of the randomised
// scores (0 by default).
func (b *ConformalKnobBuilder) Seed(seed uint64) *ConformalKnobBuilder { b.opts.Seed = seed; return b }

// Done returns the live view, or an error for a nil prediction, no nodes,
// an α outside (0, 1) or not ascending, or a first α not among them.
func (b *ConformalKnobBuilder) Done() (*Live, error) {
	if b.p == nil || len(b.nodes) == 0 {
		return nil, errors.New("kernelext.ConformalKnob: no prediction or no nodes")
	}
	for k, a := range b.alphas {
		if !(a > 0 && a < 1) || (k > 0 && a <= b.alphas[k-1]) {
			return nil, fmt.Errorf("kernelext.ConformalKnob: the settings of α %v must be ascending in (0, 1)", b.alphas)
		}
	}
	at, err := position(b.alphas, b.at, "α")
	if err != nil {
		return nil, err
	}
	alphas, p, nodes, opts := slices.Clone(b.alphas), b.p, slices.Clone(b.nodes), b.opts
	draw := func(pos []int) (*Picture, error) {
		o := opts
		o.Alpha = alphas[pos[0]]
		return conformalPicture(p, nodes, o)
	}
	knob := Knob{Name: "α", Labels: labels("%.2f", alphas), At: at}
	return NewLive(p.Model+": conformal prediction sets", draw, knob), nil
}

// conformalPicture runs p.Conformal on nodes with opts and draws it.
func conformalPicture(p *cuq.Prediction, nodes []int, opts conformal.Options) (*Picture, error) {
	res, err := p.Conformal(nodes, opts)
	if err != nil {
		return nil, err
	}
	pic := &Picture{Setting: fmt.Sprintf("α = %.2f", opts.Alpha), Values: map[string]float64{"alpha": opts.Alpha}}
	dists := make([]chart.SetSizeCounts, len(res))
	for k, r := range res {
		dists[k] = chart.SetSizeCounts{Label: r.Score, Counts: r.SizeCounts(), Coverage: r.Coverage, MeanSize: r.MeanSize}
		pic.Lines = append(pic.Lines, fmt.Sprintf("%s: coverage %.1f%% (target %.0f%%), mean set size %.2f, singletons %.1f%%, empty %.1f%%, q̂ = %.4g (%d calibration, %d evaluation nodes)",
			r.Score, 100*r.Coverage, 100*(1-r.Alpha), r.MeanSize, 100*r.SingletonRate, 100*r.EmptyRate, r.Quantile, len(r.Calibration), len(r.Nodes)))
		pic.Values["coverage "+r.Score] = r.Coverage
		pic.Values["size "+r.Score] = r.MeanSize
	}
	c, err := chart.SetSizesOfCounts(opts.Alpha, dists...).Title(fmt.Sprintf("%s: conformal set sizes at α = %.2f", p.Model, opts.Alpha)).Done()
	if err != nil {
		return nil, err
	}
	pic.Charts = []*chart.Chart{c}
	return pic, nil
}

// RejectionKnobBuilder builds the live view of rejecting the most
// uncertain nodes under a slider over the rejection fraction. Start it
// with RejectionKnob, set options, then call Done.
type RejectionKnobBuilder struct {
	p         *cuq.Prediction
	nodes     []int
	measure   uq.Measure
	fractions []float64
	at        float64
	center    int
	size      int
}

// DefaultRejectionFractions are the settings of RejectionKnob's slider:
// 0, 0.05, …, 0.9.
var DefaultRejectionFractions = func() []float64 {
	f := make([]float64, 19)
	for k := range f {
		f[k] = float64(k) / 20
	}
	return f
}()

// RejectionKnob starts the live view of rejecting, among nodes (usually
// the test nodes), the fraction r most uncertain by a measure (EU unless
// Measure says otherwise): a slider over r (DefaultRejectionFractions,
// 0.2 first) and, for every r, the measure's accuracy-rejection curve,
// the graph around a node (the most uncertain of nodes unless Center says
// otherwise) coloured by the measure with the rejected nodes as
// triangles, and the numbers: the k = round(r·n) rejected nodes, the
// accuracy on the n − k kept and on all n. Ties are broken as eval.ARC
// breaks them (the order of nodes), so the accuracy at r = i/100 is the
// curve's point i wherever the curve rejects round(r·n) nodes there.
func RejectionKnob(p *cuq.Prediction, nodes []int) *RejectionKnobBuilder {
	return &RejectionKnobBuilder{p: p, nodes: nodes, measure: uq.EU, fractions: DefaultRejectionFractions, at: 0.2, center: -1, size: 200}
}

// Measure sets the measure that ranks the nodes.
func (b *RejectionKnobBuilder) Measure(m uq.Measure) *RejectionKnobBuilder { b.measure = m; return b }

// Fractions sets the slider's settings of r, in [0, 1), ascending.
func (b *RejectionKnobBuilder) Fractions(f ...float64) *RejectionKnobBuilder {
	b.fractions = f
	return b
}

// At sets the r shown first, one of the settings.
func (b *RejectionKnobBuilder) At(r float64) *RejectionKnobBuilder { b.at = r; return b }

// Center sets the node the graph view is centred on.
func (b *RejectionKnobBuilder) Center(node int) *RejectionKnobBuilder { b.center = node; return b }

// Size sets the number of nodes of the graph view (200).
func (b *RejectionKnobBuilder) Size(n int) *RejectionKnobBuilder { b.size = n; return b }

// Done returns the live view, or an error for a nil prediction, no nodes,
// a measure the prediction lacks, fractions outside [0, 1) or not
// ascending, or a first r not among them.
func (b *RejectionKnobBuilder) Done() (*Live, error) {
	if b.p == nil || len(b.nodes) == 0 {
		return nil, errors.New("kernelext.RejectionKnob: no prediction or no nodes")
	}
	for k, f := range b.fractions {
		if !(f >= 0 && f < 1) || (k > 0 && f <= b.fractions[k-1]) {
			return nil, fmt.Errorf("kernelext.RejectionKnob: the fractions %v must be ascending in [0, 1)", b.fractions)
		}
	}
	at, err := position(b.fractions, b.at, "fraction")
	if err != nil {
		return nil, err
	}
	u, err := b.p.UncertaintyOf(b.measure, b.nodes)
	if err != nil {
		return nil, fmt.Errorf("kernelext.RejectionKnob: %w", err)
	}
	order := eval.RejectionOrder(u)
	center := b.center
	if center < 0 {
		center = b.nodes[order[0]]
	}
	arc, err := b.p.ARC(b.measure, b.nodes)
	if err != nil {
		return nil, fmt.Errorf("kernelext.RejectionKnob: %w", err)
	}
	r := &rejection{p: b.p, nodes: slices.Clone(b.nodes), measure: b.measure, order: order,
		correct: b.p.Correct(b.nodes), center: center, size: b.size, arc: arc}
	fractions := slices.Clone(b.fractions)
	draw := func(pos []int) (*Picture, error) { return r.picture(fractions[pos[0]]) }
	knob := Knob{Name: "r", Labels: labels("%.2f", fractions), At: at}
	return NewLive(fmt.Sprintf("%s: rejecting the nodes most uncertain by %s", b.p.Model, b.measure), draw, knob), nil
}

// rejection is what RejectionKnob's pictures share.
type rejection struct {
	p            *cuq.Prediction
	nodes        []int
	measure      uq.Measure
	order        []int // positions in nodes, most uncertain first
	correct      []bool
	center, size int
	arc          eval.Curve
}

// Rejected returns the round(r·n) nodes most uncertain by the knob's
// ranking and the accuracy on the others (NaN when none is left).
func (r *rejection) rejected(f float64) (rejected []int, keptAcc float64) {
	n := len(r.nodes)
	k := int(math.Round(f * float64(n)))
	rejected = make([]int, k)
	for j, pos := range r.order[:k] {
		rejected[j] = r.nodes[pos]
	}
	right := 0
	for _, pos := range r.order[k:] {
		if r.correct[pos] {
			right++
		}
	}
	if k == n {
		return rejected, math.NaN()
	}
	return rejected, float64(right) / float64(n-k)
}

// picture draws the rejection of fraction f.
func (r *rejection) picture(f float64) (*Picture, error) {
	rejected, acc := r.rejected(f)
	all := r.p.Accuracy(r.nodes)
	view, err := chart.NeighbourhoodOf(r.p, r.center).Size(r.size).Measures(r.measure).
		Mark(rejected, "rejected").
		Title(fmt.Sprintf("%s: %d nodes around node %d, r = %.2f", r.p.Model, r.size, r.center, f)).Done()
	if err != nil {
		return nil, err
	}
	// The ARC without its single-node point, and the accuracy kept at f
	// as a level line: the two cross at the knob's point of the curve.
	m := len(r.arc.P) - 1
	level := make([]float64, m)
	for i := range level {
		level[i] = acc
	}
	color, dash := chart.MeasureStyle(r.measure)
	curves := []chart.Curve{{Name: r.measure.String(), Mean: r.arc.Acc[:m], Color: color, Dash: dash}}
	if !math.IsNaN(acc) {
		curves = append(curves, chart.Curve{Name: fmt.Sprintf("accuracy kept at r = %.2f", f), Mean: level, Color: "#555555", Dash: chart.Dotted})
	}
	arc, err := chart.ARC(fmt.Sprintf("%s: accuracy-rejection curve of %s", r.p.Model, r.measure), r.arc.P[:m], curves...)
	if err != nil {
		return nil, err
	}
	n := len(r.nodes)
	return &Picture{
		Setting: fmt.Sprintf("r = %.2f", f),
		Lines: []string{
			fmt.Sprintf("rejected: %d of %d nodes (round(r·n)), the most uncertain by %s", len(rejected), n, r.measure),
			fmt.Sprintf("accuracy on the %d kept: %.2f%% (on all %d: %.2f%%)", n-len(rejected), 100*acc, n, 100*all),
		},
		Charts: []*chart.Chart{arc, view},
		Values: map[string]float64{"fraction": f, "rejected": float64(len(rejected)), "nodes": float64(n),
			"kept accuracy": acc, "accuracy": all},
	}, nil
}

// ShowLive shows a live view made by a knob's Done (see Live.Show), or
// the error of Done.
func ShowLive(v *Live, err error) error {
	if err != nil {
		return Show(nil, err)
	}
	return v.Show()
}
