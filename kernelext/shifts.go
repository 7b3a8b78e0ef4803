package kernelext

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/chart"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// EvaluateShifts trains the model that preset describes on g with split,
// and once more, the same preset done on the shift's graph, on the training
// graph and split of every shift that has its own (leave-out classes, the
// structural shifts), then predicts on every graph of every shift. It returns the runs for the comparison
// displays of package chart (chart.ARCOfRuns, chart.AUROCTableOfRuns, …),
// labelled with the model's name: first the prediction on g with the test
// nodes of split as Nodes and no OOD nodes, then one run per shift, in the
// order given, with the shift's ID test nodes as Nodes and its OOD test
// nodes as OOD.
//
// A shift is a *graph.Shifted (graph.LookupSetting(name).Apply) or a
// *graph.Perturbed (graph.PerturbFeatures, graph.PerturbStructure), whose
// perturbed test nodes are OOD and whose graph the model trained on g
// predicts on. Where a shift scores its nodes on several graphs (the
// isolated perturbations: one graph per perturbed node), each node's
// class, probabilities and measures are those of the prediction on its
// own graph, and a node scored as ID on one graph and as OOD on another
// (the isolated perturbations score every test node as ID on the clean
// graph) is an OOD node only.
//
// Among the shifts, TrainOptions (Schedule, MaxEpochs, QuickEpochs) set
// the schedule of every training, as for Train, and Quiet hides the
// trainings' progress bars.
//
// The predictions are cached for the kernel session as Train's runs are,
// under a key of the preset's configuration, the schedule, g, the split
// and the shifts; Forget("shifts") drops them.
func EvaluateShifts(preset cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, shifts ...any) ([]chart.Run, error) {
	const op = "kernelext.EvaluateShifts"
	if preset == nil || g == nil {
		return nil, fmt.Errorf("%s: nil model preset or graph", op)
	}
	plan, err := planShifts(op, g, split, shifts)
	if err != nil {
		return nil, err
	}
	preds, err := Cache(plan.key(preset), func() ([]*cuq.Prediction, error) {
		return evaluateShifts(preset, g, split, plan.evals, plan.o.fitOptions(), plan.o.quiet)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return plan.runs(op, preds)
}

// shiftPlan is what EvaluateShifts makes of its arguments: the graph and
// split, the shifts to evaluate and the training options among them.
type shiftPlan struct {
	g      *graph.Graph
	split  graph.Split
	shifts []any // the shifts as given, options removed
	evals  []shiftEval
	o      trainOptions
}

// planShifts separates the TrainOptions from the shifts and checks each
// shift; errors are prefixed with op.
func planShifts(op string, g *graph.Graph, split graph.Split, shifts []any) (shiftPlan, error) {
	plan := shiftPlan{g: g, split: split}
	plan.shifts = slices.DeleteFunc(slices.Clone(shifts), func(s any) bool {
		opt, ok := s.(TrainOption)
		if ok && opt != nil {
			opt(&plan.o)
		}
		return ok
	})
	plan.evals = make([]shiftEval, len(plan.shifts))
	for k, s := range plan.shifts {
		switch s := s.(type) {
		case *graph.Shifted:
			if s == nil || s.Train == nil || len(s.Views) == 0 {
				return plan, fmt.Errorf("%s: shift %d: a nil or empty *graph.Shifted", op, k)
			}
			e := shiftEval{train: s.Train, split: s.Split, id: s.IDTest, ood: s.OODTest}
			for _, v := range s.Views {
				e.views = append(e.views, shiftView{v.Graph, v.ID, v.OOD})
			}
			plan.evals[k] = e
		case *graph.Perturbed:
			if s == nil || s.Graph == nil {
				return plan, fmt.Errorf("%s: shift %d: a nil *graph.Perturbed", op, k)
			}
			p := s.Graph
			plan.evals[k] = shiftEval{train: g, split: split, id: s.IDTest, ood: s.OODTest,
				views: []shiftView{{func() *graph.Graph { return p }, s.IDTest, s.OODTest}}}
		default:
			return plan, fmt.Errorf("%s: shift %d is a %T, want a *graph.Shifted or a *graph.Perturbed", op, k, s)
		}
	}
	return plan, nil
}

// key is the cache key of the predictions of preset's model under the
// plan.
func (plan shiftPlan) key(preset cuq.ClassifierBuilder) Key {
	return KeyOf("shifts", preset, plan.g, plan.split, plan.shifts, plan.o.schedule)
}

// runs returns the runs of the predictions evaluateShifts made for the
// plan, with their graphs put back; errors are prefixed with op.
func (plan shiftPlan) runs(op string, preds []*cuq.Prediction) ([]chart.Run, error) {
	if len(preds) != len(plan.evals)+1 {
		return nil, fmt.Errorf("%s: the cached result is incomplete; call kernelext.Forget(\"shifts\")", op)
	}
	// Graphs are not stored with the predictions: they are the caller's.
	preds[0].Graph = plan.g
	runs := []chart.Run{{Label: preds[0].Model, Pred: preds[0], Nodes: plan.split.Test}}
	for k, e := range plan.evals {
		preds[k+1].Graph = e.views[0].graph()
		id := slices.DeleteFunc(slices.Clone(e.id), func(i int) bool { _, found := slices.BinarySearch(e.ood, i); return found })
		runs = append(runs, chart.Run{Label: preds[k+1].Model, Pred: preds[k+1], Nodes: id, OOD: e.ood})
	}
	return runs, nil
}

// shiftEval is a shift as EvaluateShifts runs it: the graph and split to
// train on, the graphs to predict on, and the ID and OOD test nodes.
type shiftEval struct {
	train   *graph.Graph
	split   graph.Split
	views   []shiftView
	id, ood []int
}

// shiftView is a graph to predict on and the nodes scored on it.
type shiftView struct {
	graph   func() *graph.Graph
	id, ood []int
}

// evaluateShifts does EvaluateShifts' work on a cache miss: the prediction
// on g, then one per shift, without their graphs.
func evaluateShifts(preset cuq.ClassifierBuilder, g *graph.Graph, split graph.Split, evals []shiftEval, opts []cuq.FitOption, quiet bool) ([]*cuq.Prediction, error) {
	clean, err := fitShift(preset, g, split, opts, quiet)
	if err != nil {
		return nil, err
	}
	models := []shiftFit{clean}
	out := []*cuq.Prediction{clean.own}
	for _, e := range evals {
		k := slices.IndexFunc(models, func(f shiftFit) bool { return f.model.graph == e.train && reflect.DeepEqual(f.split, e.split) })
		f := clean
		if k >= 0 {
			f = models[k]
		} else if f, err = fitShift(preset, e.train, e.split, opts, quiet); err != nil {
			return nil, err
		} else {
			models = append(models, f)
		}
		pred, err := f.predictViews(e.views)
		if err != nil {
			return nil, err
		}
		out = append(out, pred)
	}
	for _, p := range out {
		p.Graph = nil
	}
	return out, nil
}

// shiftFit is a model trained for EvaluateShifts on a split of its graph,
// with its prediction on that graph.
type shiftFit struct {
	model built
	split graph.Split
	own   *cuq.Prediction // the prediction on the training graph
}

// fitShift trains preset's model on h and split s with opts, showing its
// progress unless quiet.
func fitShift(preset cuq.ClassifierBuilder, h *graph.Graph, s graph.Split, opts []cuq.FitOption, quiet bool) (shiftFit, error) {
	m, err := build(preset, h)
	if err != nil {
		return shiftFit{}, err
	}
	if _, err := fitTimed(m, s, quiet, opts); err != nil {
		return shiftFit{}, err
	}
	f := shiftFit{model: m, split: s}
	if f.own, err = m.Predict(nil); err != nil {
		return shiftFit{}, err
	}
	return f, nil
}

// predictViews returns the prediction of a shift: on its first view's
// graph, with the nodes of every further view predicted on that view's
// graph.
func (f shiftFit) predictViews(views []shiftView) (*cuq.Prediction, error) {
	var pred *cuq.Prediction
	for n, v := range views {
		p, h := f.own, v.graph()
		if h != f.model.graph {
			var err error
			if p, err = f.model.Predict(h); err != nil {
				return nil, err
			}
		}
		if n == 0 {
			pred = p
			if len(views) > 1 {
				pred = clonePrediction(p)
			}
			continue
		}
		copyNodes(pred, p, v.id)
		copyNodes(pred, p, v.ood)
	}
	return pred, nil
}

// clonePrediction returns a copy of p whose classes, probabilities,
// parameters and measures are its own.
func clonePrediction(p *cuq.Prediction) *cuq.Prediction {
	q := *p
	q.Class = slices.Clone(p.Class)
	q.EUFeat = slices.Clone(p.EUFeat)
	if p.Prob != nil {
		prob := *p.Prob
		prob.Data = slices.Clone(p.Prob.Data)
		q.Prob = &prob
	}
	if p.Alpha != nil {
		alpha := *p.Alpha
		alpha.Data = slices.Clone(p.Alpha.Data)
		q.Alpha = &alpha
	}
	ms := reflect.ValueOf(&q.Measures).Elem()
	for i := range ms.NumField() {
		if f := ms.Field(i); !f.IsNil() {
			f.Set(reflect.AppendSlice(reflect.MakeSlice(f.Type(), 0, f.Len()), f))
		}
	}
	return &q
}

// copyNodes sets dst's class, probabilities, parameters and measures of
// nodes to src's.
func copyNodes(dst, src *cuq.Prediction, nodes []int) {
	dm, sm := reflect.ValueOf(&dst.Measures).Elem(), reflect.ValueOf(&src.Measures).Elem()
	for _, i := range nodes {
		dst.Class[i] = src.Class[i]
		if dst.EUFeat != nil {
			dst.EUFeat[i] = src.EUFeat[i]
		}
		if dst.Prob != nil {
			c := dst.Prob.Cols
			copy(dst.Prob.Data[i*c:(i+1)*c], src.Prob.Data[i*c:(i+1)*c])
		}
		if dst.Alpha != nil {
			c := dst.Alpha.Cols
			copy(dst.Alpha.Data[i*c:(i+1)*c], src.Alpha.Data[i*c:(i+1)*c])
		}
		for f := range dm.NumField() {
			if d := dm.Field(f); !d.IsNil() {
				d.Index(i).Set(sm.Field(f).Index(i))
			}
		}
	}
}
