package explore

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// Limits of the training explorer's settings.
const (
	minTrainNodes  = 60
	maxTrainNodes  = 2000
	maxTrainEpochs = 1000
	maxTrainFlows  = 10
)

// TrainingExplorer trains two models in the page, CUQ-PPR (behavioural
// pooling) and GPN (log-linear pooling), on a contextual stochastic block
// model whose Bayes-optimal posterior is known, and compares each model's
// uncertainty with the truth as package truth does: the graph is that of
// truth.Sweep().Nodes(n).Point(h, s, seed), N nodes in 3 classes, 16
// Gaussian features, average degree 5, independent edges, the split
// graph.Stratified(0.05, 0.15, 0.8) with seed 1. (The explorer draws it
// with package datasets rather than importing package truth, whose charts
// would double the size of the WebAssembly program.) Each model is the paper's preset
// (cuq.CUQPPR, cuq.GPN: MLP(64) encoder, latent 16, APPNP K = 10,
// t = 0.1, Adam at 0.01, 5 warm-up epochs, early stopping on the
// validation cross entropy) made small enough to train in a browser in
// seconds: 2 radial flows per class instead of 10 (WebAssembly has no
// fused multiply-add, and the flows' math.FMA runs in software there),
// patience 20 instead of 50 and at most 100 main epochs.
// While the models train the picture draws their validation cross entropy
// epoch by epoch; when both are done the table gives, over the test nodes,
// each model's accuracy and Spearman's ρ between its AU and the aleatoric
// truth 1 − p(yᵢ | X, A, y₋ᵢ) and between its EU and the epistemic truth
// ln p(yᵢ | X, A, y₋ᵢ) − ln p(yᵢ | X, A, y_O), as truth.Sweep computes
// them, and the picture plots each test node's rank by AU against its rank
// by the true AU. Create it with Training.
type TrainingExplorer struct {
	intro
	cfg trainingConfig
}

type trainingConfig struct {
	Homophily float64 `json:"homophily"`  // starting h
	Signal    float64 `json:"signal"`     // starting s
	Seed      uint64  `json:"seed"`       // starting graph seed
	Nodes     int     `json:"nodes"`      // N
	MaxEpochs int     `json:"max_epochs"` // cap of the main training epochs
	Flows     int     `json:"flows"`      // radial flows per class
	Patience  int     `json:"patience"`   // evaluations without improvement before stopping
}

// Ranges of the training explorer's sliders.
var (
	homophilyControl = Control{Key: "h", Label: "homophily h", Min: 0.2, Max: 1, Step: 0.05}
	signalControl    = Control{Key: "s", Label: "feature signal s", Min: 0, Max: 3, Step: 0.25}
	seedControl      = Control{Key: "seed", Label: "graph seed", Min: 1, Max: 20, Step: 1}
)

func (c trainingConfig) validate() error {
	for _, x := range []struct {
		c Control
		v float64
	}{{homophilyControl, c.Homophily}, {signalControl, c.Signal}, {seedControl, float64(c.Seed)}} {
		if err := x.c.check(x.v); err != nil {
			return fmt.Errorf("training: %w", err)
		}
	}
	if c.Nodes < minTrainNodes || c.Nodes > maxTrainNodes {
		return fmt.Errorf("training: %d nodes, want %d to %d", c.Nodes, minTrainNodes, maxTrainNodes)
	}
	if c.MaxEpochs < 1 || c.MaxEpochs > maxTrainEpochs {
		return fmt.Errorf("training: at most %d epochs, want 1 to %d", c.MaxEpochs, maxTrainEpochs)
	}
	if c.Flows < 1 || c.Flows > maxTrainFlows {
		return fmt.Errorf("training: %d radial flows, want 1 to %d", c.Flows, maxTrainFlows)
	}
	if c.Patience < 1 || c.Patience > c.MaxEpochs {
		return fmt.Errorf("training: patience %d, want 1 to the maximum epochs %d", c.Patience, c.MaxEpochs)
	}
	return nil
}

// trainingIntro is what the training explorer says of itself; About adds
// the sizes of its models.
var trainingIntro = intro{
	kind:  "training",
	title: "Training CUQ-PPR and GPN against the ground truth",
	about: "Both models train here, in your browser, on a contextual stochastic block model whose true uncertainty is known. " +
		"They are the paper's presets (64 hidden units, latent 16, APPNP with K = 10, 5 warm-up epochs, early stopping on the " +
		"validation cross entropy) made small enough to train in seconds: %d radial flows per class instead of 10, patience %d " +
		"instead of 50, at most %d epochs. The curves are the validation cross entropy, epoch by epoch; a ring marks the epoch " +
		"whose parameters are kept. Then each test node's rank by the model's AU is plotted against its rank by the true AU, " +
		"and the table gives their rank correlation ρ, and that of EU with the epistemic truth. Let go of a slider to train " +
		"again: lower the homophily or the signal and watch which model's AU keeps ranking the nodes like the truth; change " +
		"the seed to see how much of a difference is one graph's luck.",
}

// About says what to look for, with the models' sizes.
func (t *TrainingExplorer) About() string {
	return fmt.Sprintf(t.about, t.cfg.Flows, t.cfg.Patience, t.cfg.MaxEpochs)
}

// Training returns the training explorer: 500 nodes, h = 0.9, s = 1,
// seed 1; each model with 2 radial flows per class, patience 20 and at
// most 100 main epochs.
func Training() *TrainingExplorer {
	return &TrainingExplorer{intro: trainingIntro, cfg: trainingConfig{Homophily: 0.9, Signal: 1, Seed: 1, Nodes: 500,
		MaxEpochs: 100, Flows: 2, Patience: 20}}
}

func (t *TrainingExplorer) set(f func(*trainingConfig)) *TrainingExplorer {
	f(&t.cfg)
	t.err = t.cfg.validate()
	return t
}

// Homophily sets the starting homophily h, 0.2 to 1.
func (t *TrainingExplorer) Homophily(h float64) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.Homophily = h })
}

// Signal sets the starting feature signal s, 0 to 3.
func (t *TrainingExplorer) Signal(s float64) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.Signal = s })
}

// Seed sets the starting graph seed, 1 to 20.
func (t *TrainingExplorer) Seed(seed uint64) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.Seed = seed })
}

// Nodes sets the number of nodes N, 60 to 2000.
func (t *TrainingExplorer) Nodes(n int) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.Nodes = n })
}

// MaxEpochs caps the main training of each model at n epochs, 1 to 1000
// (warm-up not counted).
func (t *TrainingExplorer) MaxEpochs(n int) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.MaxEpochs = n })
}

// Flows sets the number of radial flows per class, 1 to 10 (the paper's
// 10 train several times slower in a browser).
func (t *TrainingExplorer) Flows(n int) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.Flows = n })
}

// Patience sets how many evaluations without improvement of the
// validation cross entropy end the training, 1 to MaxEpochs.
func (t *TrainingExplorer) Patience(n int) *TrainingExplorer {
	return t.set(func(c *trainingConfig) { c.Patience = n })
}

// Controls returns the homophily, the feature signal and the seed.
func (t *TrainingExplorer) Controls() []Control {
	h, s, seed := homophilyControl, signalControl, seedControl
	h.Value, s.Value, seed.Value = t.cfg.Homophily, t.cfg.Signal, float64(t.cfg.Seed)
	return []Control{h, s, seed}
}

// trainingModel is a model the explorer trains.
type trainingModel struct {
	name, key string // its name and its key in the cells
	preset    *cuq.PostNetBuilder
	schedule  cuq.Schedule
}

// trainingModels returns the two models the explorer trains, in order:
// the paper's CUQ-PPR and GPN with the given number of radial flows per
// class, and their schedule with the given patience and cap of the main
// training epochs.
func trainingModels(flows, patience, maxEpochs int) []trainingModel {
	s := cuq.PostNetSchedule()
	s.Patience, s.MaxEpochs = patience, maxEpochs
	return []trainingModel{
		{"CUQ-PPR", "cuqppr", cuq.CUQPPR().Flows(flows), s},
		{"GPN", "gpn", cuq.GPN().Flows(flows), s},
	}
}

// The graph of the training explorer, as truth.Sweep draws it.
const (
	trainClasses   = 3
	trainFeatures  = 16
	trainAvgDegree = 5
	trainSplitSeed = 1
)

// trainingPoint is the graph of one setting, its split, the ground truth
// given the split's training labels, and the test accuracy of the arg max
// of the total posterior p(yᵢ | X, A, y_train), the Bayes-optimal
// classifier.
type trainingPoint struct {
	graph         *graph.Graph
	split         graph.Split
	truth         datasets.GroundTruth
	bayesAccuracy float64
}

// newTrainingPoint draws the graph of the setting (h, s, seed) with n
// nodes.
func newTrainingPoint(n int, h, s float64, seed uint64) (*trainingPoint, error) {
	g, gt, err := datasets.CSBM(n, trainClasses).BernoulliEdges().Homophily(h).AvgDegree(trainAvgDegree).
		Features(trainFeatures).FeatureSignal(s).Seed(seed).DoneWithTruth()
	if err != nil {
		return nil, err
	}
	p := &trainingPoint{graph: g}
	if p.split, err = g.Split(graph.Stratified(0.05, 0.15, 0.8).Seed(trainSplitSeed)); err != nil {
		return nil, err
	}
	if p.truth, err = gt.Uncertainty(g, p.split.Train); err != nil {
		return nil, err
	}
	post, err := gt.TotalMeanField(g, p.split.Train)
	if err != nil {
		return nil, err
	}
	hits := 0
	for _, i := range p.split.Test {
		row := post.Row(i)
		if slices.Index(row, slices.Max(row)) == g.Labels[i] {
			hits++
		}
	}
	p.bayesAccuracy = float64(hits) / float64(max(len(p.split.Test), 1))
	return p, nil
}

// Trainer is an explorer whose view trains models, which takes seconds:
// Train computes the view View returns and calls progress after every
// epoch, so that a page can redraw while it trains. Its context cancels
// the training.
type Trainer interface {
	Explorer
	Train(ctx context.Context, values []float64, progress func(Progress)) (*View, error)
}

// Progress reports one epoch of a Trainer's training.
type Progress struct {
	Model string         // the model in training
	Epoch cuq.EpochStats // the epoch just trained
	run   *trainingRun
}

// View returns the view so far: the picture of the curves, and a table
// saying which model trains.
func (p Progress) View() *View { return p.run.view() }

// trainedModel is one model's training and, once done, its results.
type trainedModel struct {
	name, key  string
	epochs     []cuq.EpochStats // main-phase epochs
	done       bool
	hist       *cuq.History
	acc        float64
	rhoAU      float64
	rhoEU      float64
	au, trueAU []float64 // over the test nodes
}

// trainingRun is one training of both models at one setting.
type trainingRun struct {
	h, s     float64
	seed     uint64
	nodes    int
	max      int
	flows    int
	patience int
	point    *trainingPoint
	models   []*trainedModel
	now      int // index of the model in training
}

// View trains both models at the controls' values (homophily, signal,
// seed) and shows the result. It is Train without progress.
func (t *TrainingExplorer) View(values []float64) (*View, error) {
	return t.Train(context.Background(), values, nil)
}

// Train draws the graph at the controls' values, trains CUQ-PPR, then
// GPN, calling progress (when not nil) after every epoch, and returns the
// view of the results. It fails on values outside the controls' ranges, a
// seed that is not a whole number, or a training error, and returns the
// context's error when ctx is cancelled.
func (t *TrainingExplorer) Train(ctx context.Context, values []float64, progress func(Progress)) (*View, error) {
	fail := func(err error) (*View, error) { return nil, fmt.Errorf("explore: training: %w", err) }
	if t.err != nil {
		return fail(t.err)
	}
	if err := checkValues(t.Controls(), values); err != nil {
		return fail(err)
	}
	if values[2] != math.Trunc(values[2]) {
		return fail(fmt.Errorf("seed = %v, want a whole number", values[2]))
	}
	r := &trainingRun{h: values[0], s: values[1], seed: uint64(values[2]), nodes: t.cfg.Nodes, max: t.cfg.MaxEpochs,
		flows: t.cfg.Flows, patience: t.cfg.Patience}
	var err error
	if r.point, err = newTrainingPoint(r.nodes, r.h, r.s, r.seed); err != nil {
		return fail(err)
	}
	specs := trainingModels(r.flows, r.patience, r.max)
	for _, m := range specs {
		r.models = append(r.models, &trainedModel{name: m.name, key: m.key})
	}
	for k, m := range specs {
		r.now = k
		if err := r.train(ctx, m, r.models[k], progress); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return fail(fmt.Errorf("%s: %w", m.name, err))
		}
	}
	r.now = len(specs)
	return r.view(), nil
}

// train fits one model and measures it against the truth on the test
// nodes.
func (r *trainingRun) train(ctx context.Context, spec trainingModel, tm *trainedModel, progress func(Progress)) error {
	p := r.point
	m, err := spec.preset.Done(p.graph)
	if err != nil {
		return err
	}
	onEpoch := func(e cuq.EpochStats) {
		if e.Phase == cuq.TrainPhase {
			tm.epochs = append(tm.epochs, e)
		}
		if progress != nil {
			progress(Progress{Model: tm.name, Epoch: e, run: r})
		}
	}
	if tm.hist, err = m.Fit(p.split, spec.schedule, cuq.WithContext(ctx), cuq.OnEpoch(onEpoch)); err != nil {
		return err
	}
	pred, err := m.Predict(p.graph)
	if err != nil {
		return err
	}
	tm.acc = pred.Accuracy(p.split.Test)
	if tm.au, err = pred.UncertaintyOf(uq.AU, p.split.Test); err != nil {
		return err
	}
	eu, err := pred.UncertaintyOf(uq.EU, p.split.Test)
	if err != nil {
		return err
	}
	tm.trueAU = pickNodes(p.truth.Aleatoric, p.split.Test)
	// A constant score has no rank correlation: NaN, shown as a dash.
	if tm.rhoAU, err = eval.Spearman(tm.au, tm.trueAU); err != nil {
		tm.rhoAU = math.NaN()
	}
	if tm.rhoEU, err = eval.Spearman(eu, pickNodes(p.truth.Epistemic, p.split.Test)); err != nil {
		tm.rhoEU = math.NaN()
	}
	tm.done = true
	return nil
}

func pickNodes(v []float64, nodes []int) []float64 {
	out := make([]float64, len(nodes))
	for k, i := range nodes {
		out[k] = v[i]
	}
	return out
}

// view returns the view of the run so far: while a model trains, a
// table of each model's state; at the end, the table of the results.
func (r *trainingRun) view() *View {
	var rows []Row
	if r.now < len(r.models) {
		for k, m := range r.models {
			state := "waiting"
			switch {
			case m.done:
				state = fmt.Sprintf("trained: %d epochs", m.hist.TrainEpochs())
			case k == r.now && len(m.epochs) == 0:
				state = "training: warm-up"
			case k == r.now:
				state = fmt.Sprintf("training: epoch %d", len(m.epochs))
			}
			rows = append(rows, Row{Label: m.name, Cells: []Cell{text(m.key+".state", state)}})
		}
		return &View{Picture: r.picture(), Tables: []Table{{
			Caption: fmt.Sprintf("Training on %d nodes", r.nodes),
			Columns: []string{"", "state"},
			Rows:    rows,
		}}}
	}
	for _, m := range r.models {
		rows = append(rows, Row{Label: m.name, Cells: []Cell{
			num(m.key+".epochs", "%.0f", float64(m.hist.TrainEpochs())),
			num(m.key+".best", "%.0f", float64(m.hist.BestEpoch)),
			num(m.key+".acc", "%.3f", m.acc),
			numOrDash(m.key+".rhoAU", "%.3f", m.rhoAU),
			numOrDash(m.key+".rhoEU", "%.3f", m.rhoEU),
		}})
	}
	rows = append(rows, Row{Label: "Bayes-optimal (knows the generator)", Cells: []Cell{
		text("bayes.epochs", "—"), text("bayes.best", "—"),
		num("bayes.acc", "%.3f", r.point.bayesAccuracy),
		text("bayes.rhoAU", "—"), text("bayes.rhoEU", "—"),
	}})
	return &View{Picture: r.picture(), Tables: []Table{{
		Caption: fmt.Sprintf("%d test nodes of %d; ρ is Spearman's rank correlation", len(r.point.split.Test), r.nodes),
		Columns: []string{"", "main epochs", "kept epoch", "test accuracy", "ρ(AU, true AU)", "ρ(EU, true EU)"},
		Rows:    rows,
	}}}
}

// Layout of the training picture: the curves across the top, one scatter
// panel per model below.
const (
	curveW, curveH = 560, 150
	scatterW       = 260
	scatterH       = 150
	trainMarginL   = 48
)

// curveTitle says what the curves are.
const curveTitle = "validation cross entropy by epoch"

// shapes mark the models in the pictures, in the order of trainingModels.
var shapes = [...]struct {
	c    color.RGBA
	mark func(*image.RGBA, float64, float64)
}{{latticeC, square}, {baC, dot}}

func (r *trainingRun) picture() *image.RGBA {
	w := trainMarginL + curveW + 20
	top := 2*lineHeight + 6
	sy := top + curveH + 2*lineHeight + 16
	h := sy + scatterH + 2*lineHeight + 8
	img := newPicture(w, h)
	head := fmt.Sprintf("N = %d, h = %.2f, s = %.2f, seed %d; %d flows, patience %d, at most %d epochs", r.nodes, r.h, r.s, r.seed, r.flows, r.patience, r.max)
	label(img, 4, 0, head, ink)
	label(img, trainMarginL+curveW-labelWidth(curveTitle), lineHeight+3, curveTitle, ink)
	x := trainMarginL
	for k, m := range r.models {
		shapes[k].mark(img, float64(x+4), float64(lineHeight+9))
		label(img, x+12, lineHeight+3, m.name, shapes[k].c)
		x += 12 + labelWidth(m.name) + 24
	}
	r.curves(img, image.Rect(trainMarginL, top+4, trainMarginL+curveW, top+4+curveH))
	for k, m := range r.models {
		x0 := trainMarginL + k*(scatterW+60)
		r.scatter(img, image.Rect(x0, sy, x0+scatterW, sy+scatterH), k, m)
	}
	return img
}

// curves draws every model's validation cross entropy against the epoch.
func (r *trainingRun) curves(img *image.RGBA, rc image.Rectangle) {
	xmax := 50
	ymax := 0.0
	for _, m := range r.models {
		for _, e := range m.epochs {
			xmax = max(xmax, e.StopAt, e.Epoch)
			if !math.IsInf(e.ValCE, 0) && !math.IsNaN(e.ValCE) {
				ymax = math.Max(ymax, e.ValCE)
			}
		}
	}
	xmax = min((xmax+49)/50*50, r.max)
	ymax = math.Min(3.2, math.Max(0.4, math.Ceil(ymax/0.4)*0.4))
	axes(img, rc, float64(xmax), ymax, "epoch")
	px := func(e int) float64 { return float64(rc.Min.X) + float64(e)/float64(xmax)*float64(rc.Dx()-1) }
	py := func(v float64) float64 {
		return float64(rc.Max.Y-1) - math.Max(0, math.Min(1, v/ymax))*float64(rc.Dy()-1)
	}
	for k, m := range r.models {
		var prev *cuq.EpochStats
		for i := range m.epochs {
			e := &m.epochs[i]
			if math.IsNaN(e.ValCE) || math.IsInf(e.ValCE, 0) {
				continue
			}
			if prev != nil {
				line(img, px(prev.Epoch), py(prev.ValCE), px(e.Epoch), py(e.ValCE), shapes[k].c, 1)
			}
			prev = e
		}
		if m.done && m.hist.BestEpoch > 0 {
			ring(img, px(m.hist.BestEpoch), py(m.hist.BestValCE), 4, shapes[k].c)
		}
	}
}

// axes draws the frame, grid and tick labels of a panel with x from 0 to
// xmax and y from 0 to ymax.
func axes(img *image.RGBA, rc image.Rectangle, xmax, ymax float64, xname string) {
	fillRect(img, rc, white)
	for k := 0; k <= 4; k++ {
		x := float64(rc.Min.X) + float64(k)/4*float64(rc.Dx()-1)
		line(img, x, float64(rc.Min.Y), x, float64(rc.Max.Y-1), faint, 1)
		l := strconv.FormatFloat(xmax*float64(k)/4, 'g', 3, 64)
		label(img, int(x)-labelWidth(l)/2, rc.Max.Y+2, l, grey)
		y := float64(rc.Max.Y-1) - float64(k)/4*float64(rc.Dy()-1)
		line(img, float64(rc.Min.X), y, float64(rc.Max.X-1), y, faint, 1)
		l = shortNumber(ymax * float64(k) / 4)
		label(img, rc.Min.X-labelWidth(l)-4, int(y)-6, l, grey)
	}
	line(img, float64(rc.Min.X), float64(rc.Max.Y-1), float64(rc.Max.X-1), float64(rc.Max.Y-1), grey, 1)
	line(img, float64(rc.Min.X), float64(rc.Min.Y), float64(rc.Min.X), float64(rc.Max.Y-1), grey, 1)
	label(img, rc.Max.X-labelWidth(xname), rc.Max.Y+lineHeight+1, xname, grey)
}

// scatter plots, for the k-th model, each test node's rank by AU
// against its rank by the true AU (as fractions of the test nodes), the
// ranks whose correlation is Spearman's ρ; or says the model has not
// trained yet.
func (r *trainingRun) scatter(img *image.RGBA, rc image.Rectangle, k int, m *trainedModel) {
	axes(img, rc, 1, 1, "rank of true AU")
	label(img, rc.Min.X, rc.Min.Y-lineHeight-2, m.name+": rank of AU", ink)
	if !m.done {
		s := "after training"
		label(img, rc.Min.X+(rc.Dx()-labelWidth(s))/2, rc.Min.Y+rc.Dy()/2-6, s, grey)
		return
	}
	rx, ry := ranks(m.trueAU), ranks(m.au)
	for i := range rx {
		x := float64(rc.Min.X) + rx[i]*float64(rc.Dx()-1)
		y := float64(rc.Max.Y-1) - ry[i]*float64(rc.Dy()-1)
		shapes[k].mark(img, x, y)
	}
}

// ranks returns the rank of each element of v among them, ties given
// their mean rank (eval.Ranks), scaled to [0, 1].
func ranks(v []float64) []float64 {
	out := eval.Ranks(v)
	scale := float64(max(len(v)-1, 1))
	for i, r := range out {
		out[i] = (r - 1) / scale
	}
	return out
}
