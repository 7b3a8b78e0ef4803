package kernelext

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// variantView is what the propagation and pooling knobs share: the nodes
// evaluated, the node the graph view is centred on and its size.
type variantView struct {
	nodes        []int
	center, size int
}

// centerOf returns center, or when it is negative the node of nodes that
// p finds the most uncertain by EU among those whose neighbourhood reaches
// size nodes (the whole view), so that the view has a graph to show; the
// most uncertain node of all when no neighbourhood is that large.
func centerOf(p *cuq.Prediction, nodes []int, center, size int) (int, error) {
	if center >= 0 {
		return center, nil
	}
	u, err := p.UncertaintyOf(uq.EU, nodes)
	if err != nil {
		return 0, err
	}
	order := eval.RejectionOrder(u)
	for _, k := range order {
		reached, err := p.Graph.BreadthFirst(nodes[k], size)
		if err != nil {
			return 0, err
		}
		if len(reached) >= size {
			return nodes[k], nil
		}
	}
	return nodes[order[0]], nil
}

// picture draws the prediction p of a variant under setting: every
// measure's accuracy-rejection curve and the graph around the centre
// coloured by EU, with the accuracy and the mean EU on the nodes.
func (v variantView) picture(p *cuq.Prediction, setting string) (*Picture, error) {
	arc, err := chart.ARCOf(p, v.nodes).Title(fmt.Sprintf("%s: accuracy-rejection curves", p.Model)).Done()
	if err != nil {
		return nil, err
	}
	view, err := chart.NeighbourhoodOf(p, v.center).Size(v.size).Measures(uq.EU, uq.AU, uq.TU).Done()
	if err != nil {
		return nil, err
	}
	eu, err := p.UncertaintyOf(uq.EU, v.nodes)
	if err != nil {
		return nil, err
	}
	mean := 0.0
	for _, x := range eu {
		mean += x
	}
	mean /= float64(len(eu))
	acc := p.Accuracy(v.nodes)
	return &Picture{
		Setting: setting,
		Lines:   []string{fmt.Sprintf("%s: accuracy %.2f%%, mean EU %.4g on the %d nodes", p.Model, 100*acc, mean, len(v.nodes))},
		Charts:  []*chart.Chart{arc, view},
		Values:  map[string]float64{"accuracy": acc, "mean EU": mean},
	}, nil
}

// PropagationKnobsBuilder builds the live view of a trained model's APPNP
// propagation at prediction time. Start it with PropagationKnobs, set
// options, then call Done.
type PropagationKnobsBuilder struct {
	m         *cuq.Model
	nodes     []int
	steps     []int
	teleports []float64
	k         int
	t         float64
	center    int
	size      int
}

// PropagationKnobs starts the live view of trained model m (GPN, LOP-GPN,
// CUQ-PPR or APPNP: see cuq.Model.WithPropagation) predicting with other
// APPNP propagations, without training again: a slider over the number of
// steps K (0, 1, …, 20; 0 is the feature-only prediction) and one over
// the teleport probability t (0.05, 0.1, …, 0.5), K = 10 and t = 0.1 (the
// presets' own) first. For every setting it shows the accuracy-rejection
// curves of every measure on nodes, the graph around a node (the most
// uncertain of nodes by m's EU unless Center says otherwise) coloured by
// EU, and the accuracy and mean EU on nodes. Each setting's prediction is
// computed once and kept for the cell.
func PropagationKnobs(m *cuq.Model, nodes []int) *PropagationKnobsBuilder {
	steps := make([]int, 21)
	for k := range steps {
		steps[k] = k
	}
	teleports := make([]float64, 10)
	for k := range teleports {
		teleports[k] = float64(k+1) / 20
	}
	return &PropagationKnobsBuilder{m: m, nodes: nodes, steps: steps, teleports: teleports, k: 10, t: 0.1, center: -1, size: 200}
}

// Steps sets the settings of K, ascending and not negative.
func (b *PropagationKnobsBuilder) Steps(k ...int) *PropagationKnobsBuilder { b.steps = k; return b }

// Teleports sets the settings of t, ascending in [0, 1].
func (b *PropagationKnobsBuilder) Teleports(t ...float64) *PropagationKnobsBuilder {
	b.teleports = t
	return b
}

// At sets the K and t shown first, among the settings.
func (b *PropagationKnobsBuilder) At(k int, t float64) *PropagationKnobsBuilder {
	b.k, b.t = k, t
	return b
}

// Center sets the node the graph view is centred on; by default the node
// of nodes with the largest EU, at the first setting, among those whose
// neighbourhood fills the view.
func (b *PropagationKnobsBuilder) Center(node int) *PropagationKnobsBuilder {
	b.center = node
	return b
}

// Done returns the live view, or an error for a nil model, no nodes,
// settings not ascending or out of range, a first setting not among them,
// or a model without an APPNP propagation (cuq.Model.WithPropagation).
func (b *PropagationKnobsBuilder) Done() (*Live, error) {
	atK, atT, err := b.check()
	if err != nil {
		return nil, err
	}
	m, steps, teleports := b.m, slices.Clone(b.steps), slices.Clone(b.teleports)
	kept := map[[2]int]*cuq.Prediction{}
	predict := func(i, j int) (*cuq.Prediction, error) {
		if p, ok := kept[[2]int{i, j}]; ok {
			return p, nil
		}
		variant, err := m.WithPropagation(steps[i], teleports[j])
		if err != nil {
			return nil, err
		}
		p, err := variant.Predict(nil)
		if err != nil {
			return nil, err
		}
		kept[[2]int{i, j}] = p
		return p, nil
	}
	first, err := predict(atK, atT)
	if err != nil {
		return nil, err
	}
	center, err := centerOf(first, b.nodes, b.center, b.size)
	if err != nil {
		return nil, err
	}
	v := variantView{nodes: slices.Clone(b.nodes), center: center, size: b.size}
	draw := func(at []int) (*Picture, error) {
		p, err := predict(at[0], at[1])
		if err != nil {
			return nil, err
		}
		k, t := steps[at[0]], teleports[at[1]]
		pic, err := v.picture(p, fmt.Sprintf("K = %d, t = %.2f", k, t))
		if err != nil {
			return nil, err
		}
		pic.Values["K"], pic.Values["t"] = float64(k), t
		return pic, nil
	}
	stepLabels := make([]string, len(steps))
	for k, s := range steps {
		stepLabels[k] = fmt.Sprint(s)
	}
	return NewLive(m.Name()+": APPNP propagation at prediction time", draw,
		Knob{Name: "K", Labels: stepLabels, At: atK},
		Knob{Name: "t", Labels: labels("%.2f", teleports), At: atT}), nil
}

// check returns the positions of the first K and t among the settings, or
// an error for the mistakes Done refuses.
func (b *PropagationKnobsBuilder) check() (atK, atT int, err error) {
	if b.m == nil || len(b.nodes) == 0 {
		return 0, 0, errors.New("kernelext.PropagationKnobs: no model or no nodes")
	}
	for k, s := range b.steps {
		if s < 0 || (k > 0 && s <= b.steps[k-1]) {
			return 0, 0, fmt.Errorf("kernelext.PropagationKnobs: the steps %v must be ascending from 0", b.steps)
		}
	}
	for k, t := range b.teleports {
		if !(t >= 0 && t <= 1) || (k > 0 && t <= b.teleports[k-1]) {
			return 0, 0, fmt.Errorf("kernelext.PropagationKnobs: the teleport probabilities %v must be ascending in [0, 1]", b.teleports)
		}
	}
	if atK = slices.Index(b.steps, b.k); atK < 0 {
		return 0, 0, fmt.Errorf("kernelext.PropagationKnobs: K = %d is not one of the settings %v", b.k, b.steps)
	}
	atT, err = position(b.teleports, b.t, "t")
	return atK, atT, err
}

// poolingLabels name the poolings in PoolingKnob's list.
var poolingLabels = map[cuq.Pooling]string{
	cuq.LogLinear:  "log-linear (GPN)",
	cuq.Linear:     "linear (LOP-GPN)",
	cuq.Behavioral: "behavioural (CUQ)",
}

// PoolingKnobBuilder builds the live view of a trained PostNet model's
// committee of neighbours pooled in each of the three ways. Start it with
// PoolingKnob, set options, then call Done.
type PoolingKnobBuilder struct {
	m      *cuq.Model
	nodes  []int
	at     cuq.Pooling
	center int
	size   int
}

// PoolingKnob starts the live view of trained model m (GPN, LOP-GPN or
// CUQ-PPR: see cuq.Model.WithPooling) with its neighbours' opinions
// pooled log-linearly, linearly or behaviourally on the same trained
// parameters: a drop-down list of the poolings, m's own (At, log-linear
// by default) first, and for each the accuracy-rejection curves of every
// measure on nodes, the graph around a node coloured by EU (see
// PropagationKnobs) and the accuracy and mean EU on nodes. The three
// predictions are computed by Done, so a change only draws.
func PoolingKnob(m *cuq.Model, nodes []int) *PoolingKnobBuilder {
	return &PoolingKnobBuilder{m: m, nodes: nodes, at: cuq.LogLinear, center: -1, size: 200}
}

// At sets the pooling shown first: m's own.
func (b *PoolingKnobBuilder) At(p cuq.Pooling) *PoolingKnobBuilder { b.at = p; return b }

// Center sets the node the graph view is centred on; by default the node
// of nodes with the largest EU among those whose neighbourhood fills the
// view.
func (b *PoolingKnobBuilder) Center(node int) *PoolingKnobBuilder { b.center = node; return b }

// Done returns the live view, or an error for a nil model, no nodes, an
// unknown first pooling, or the errors of cuq.Model.WithPooling and
// Predict.
func (b *PoolingKnobBuilder) Done() (*Live, error) {
	if b.m == nil || len(b.nodes) == 0 {
		return nil, errors.New("kernelext.PoolingKnob: no model or no nodes")
	}
	poolings := []cuq.Pooling{cuq.LogLinear, cuq.Linear, cuq.Behavioral}
	at := slices.Index(poolings, b.at)
	if at < 0 {
		return nil, fmt.Errorf("kernelext.PoolingKnob: unknown pooling %v", b.at)
	}
	preds := make([]*cuq.Prediction, len(poolings))
	names := make([]string, len(poolings))
	for k, p := range poolings {
		variant, err := b.m.WithPooling(p)
		if err != nil {
			return nil, err
		}
		if preds[k], err = variant.Predict(nil); err != nil {
			return nil, err
		}
		names[k] = poolingLabels[p]
	}
	center, err := centerOf(preds[at], b.nodes, b.center, b.size)
	if err != nil {
		return nil, err
	}
	v := variantView{nodes: slices.Clone(b.nodes), center: center, size: b.size}
	draw := func(pos []int) (*Picture, error) {
		return v.picture(preds[pos[0]], "pooling: "+names[pos[0]])
	}
	return NewLive(b.m.Name()+": the committee of neighbours pooled three ways", draw,
		Knob{Name: "pooling", Labels: names, Select: true, At: at}), nil
}
