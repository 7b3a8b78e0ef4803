// Package replica exports one training run of a cuqgnn model for the
// independent PyTorch replica of the reference implementation
// (scripts/replica in the repository) and reads back what the replica
// writes, so that tests can compare the two trainings epoch by epoch.
//
// An exported run is a directory holding run.json (the model's kind, sizes,
// hyperparameters, split, labels and the list of arrays) and one raw
// little-endian file per array: float64 values (.f64) or int64 indices
// (.i64), row-major. The adjacency and sparse features are exported as
// CSR triples (row pointers, column indices, values); the replica derives
// the normalisations, propagations and class prior itself.
package replica

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
)

// Models lists the model kinds the replica implements, by the grid's keys.
var Models = []string{"appnp", "gpn", "gpn_lop", "cuq_ppr", "cuq_gcn", "cuq_gat"}

// ModelKey returns the replica's key of a model name, which may be a key
// or a display name the grid accepts, and an error for a model the
// replica does not implement.
func ModelKey(name string) (string, error) {
	m, err := experiment.ParseModel(name)
	if err != nil {
		return "", err
	}
	if !slices.Contains(Models, m.Key()) {
		return "", fmt.Errorf("the replica has no %s (valid: %s)", m, strings.Join(Models, ", "))
	}
	return m.Key(), nil
}

// Preset returns the paper's graph-free preset of model (one of Models),
// from the grid's catalogue with the overrides the grid applies to the
// dataset named dataset (experiment.Model.Preset; LOP-GPN's pruning, see
// Prune) and the seeding s, with every dropout probability set to dropout:
// 0 is the form the replica trains in lock step, 0.5 the paper's (the
// replica's --dropout). The dataset is named apart from the graph the
// preset is done on, so a graph derived from the dataset's (its
// leave-out-classes graph) keeps the dataset's overrides. Train its model
// with experiment.Schedule's schedule, as the grid does, and export that.
func Preset(dataset, model string, dropout float64, s cuq.Seeding) (cuq.ModelBuilder, error) {
	if !(dropout >= 0 && dropout < 1) {
		return nil, fmt.Errorf("replica: dropout %v not in [0, 1)", dropout)
	}
	if !slices.Contains(Models, model) {
		return nil, fmt.Errorf("replica: unknown model %q (want one of %v)", model, Models)
	}
	m, err := experiment.ParseModel(model)
	if err != nil {
		return nil, err
	}
	p, err := m.Preset(dataset, s)
	if err != nil {
		return nil, err
	}
	switch b := p.(type) {
	case *cuq.FirstOrderBuilder:
		return b.Encoder(cuq.MLP(64).Dropout(dropout)), nil
	case *cuq.PostNetBuilder:
		b.Encoder(cuq.MLP(64).Dropout(dropout))
		switch m {
		case experiment.CUQGCN:
			b.Conv(cuq.GCNConv(64).Dropout(dropout))
		case experiment.CUQGAT:
			b.Conv(cuq.GATConv(64).Dropout(dropout))
		}
		return b, nil
	}
	return nil, fmt.Errorf("replica: %s's preset is a %T, not a single model", model, p)
}

// Prune returns the threshold at which the reference prunes model's
// mixture weights on the dataset named dataset (and on every graph derived
// from it): LOP-GPN's on the benchmark datasets whose datasets.Overrides
// say so (Amazon Photos and Computers, PubMed, OGBN Arxiv: 0.01); 0 (exact,
// dense) for every other model and dataset.
func Prune(dataset, model string) float64 {
	if model != "gpn_lop" {
		return 0
	}
	spec, err := datasets.Info(dataset)
	if err != nil || spec.Name != dataset {
		return 0
	}
	return spec.Overrides.LOPGPNPrune
}

// Run describes an exported run; it is the content of run.json.
type Run struct {
	Model    string `json:"model"` // one of Models
	Nodes    int    `json:"nodes"`
	Classes  int    `json:"classes"`
	Features int    `json:"features"`

	// Propagation of APPNP, GPN's evidence, LOP-GPN's mixture weights and
	// CUQ-PPR's hidden features: K steps with teleport probability.
	K        int     `json:"k"`
	Teleport float64 `json:"teleport"`
	// Prune is LOP-GPN's pruning threshold (see Prune): after each
	// propagation step of the mixture weights Π, entries below it are
	// dropped and each row's lost mass is added to its diagonal; 0 keeps Π
	// exact and dense.
	Prune float64 `json:"prune,omitempty"`

	Train Hyper `json:"train"`

	TrainNodes []int `json:"train_nodes"`
	ValNodes   []int `json:"val_nodes"`
	TestNodes  []int `json:"test_nodes"`
	Labels     []int `json:"labels"` // −1: unlabelled

	Adjacency Sparse `json:"adjacency"`
	// The node features as the encoder reads them: FeatureCSR when they
	// are sparse, FeatureDense (row-major N×F) otherwise.
	FeatureCSR   *Sparse `json:"feature_csr,omitempty"`
	FeatureDense *Array  `json:"feature_dense,omitempty"`

	// Params lists every parameter's initial value, non-flow parameters
	// first in the order encoder, convolution, latent projection (or
	// output layer), then the flows' x₀, a′, b′. A weight W of a linear
	// map is In×Out and applied as x·W + b.
	Params []Param `json:"params"`
}

// Hyper is the training schedule.
type Hyper struct {
	LR              float64 `json:"lr"`
	WeightDecay     float64 `json:"weight_decay"`      // coupled L2 decay of the non-flow group
	FlowWeightDecay float64 `json:"flow_weight_decay"` // decay of the flow group
	EntropyReg      float64 `json:"entropy_reg"`
	WarmupEpochs    int     `json:"warmup_epochs"` // flow-only epochs with their own Adam
	MaxEpochs       int     `json:"max_epochs"`
	Patience        int     `json:"patience"`
	EvalEvery       int     `json:"eval_every"`
	// Latent dimension and flow layers per class of a PostNet head.
	Latent     int `json:"latent,omitempty"`
	FlowLayers int `json:"flow_layers,omitempty"`
}

// Array names a raw file of Len values of the given dtype ("f8" or "i8").
type Array struct {
	File  string `json:"file,omitempty"`
	Dtype string `json:"dtype,omitempty"`
	Shape []int  `json:"shape,omitempty"`
}

// Sparse is a Rows×Cols CSR matrix stored in three arrays.
type Sparse struct {
	Rows int   `json:"rows"`
	Cols int   `json:"cols"`
	Ptr  Array `json:"ptr"`
	Ind  Array `json:"ind"`
	Val  Array `json:"val"`
}

// Param is one parameter: its name in cuqgnn, its optimizer group ("flows"
// or "others"), shape and file.
type Param struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Array
}

// Export writes what the replica needs to repeat one training run of m on
// split with schedule s: m's graph, split, labels, initial parameters and
// hyperparameters. Call it before training, and train m with s. model is m's kind, one of Models, and dataset
// the dataset m's graph is (or is derived from); k and teleport are the
// propagation's (the presets use 10 and 0.1). The replica implements
// dropout only where the reference has it and prunes LOP-GPN's mixture
// weights as Prune(dataset, model) says (Run.Prune): build m with Preset.
func Export(dir string, m *cuq.Model, s cuq.Schedule, dataset, model string, k int, teleport float64, split graph.Split) (*Run, error) {
	if !slices.Contains(Models, model) {
		return nil, fmt.Errorf("replica: unknown model %q (want one of %v)", model, Models)
	}
	g := m.Graph()
	if err := split.Validate(g.N); err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := writer{dir: dir}
	tc := s
	_, f := g.Features.Dims()
	r := &Run{Model: model, Nodes: g.N, Classes: g.NumClasses, Features: f, K: k, Teleport: teleport, Prune: Prune(dataset, model),
		Train: Hyper{LR: tc.LR, WeightDecay: tc.WeightDecay, FlowWeightDecay: tc.FlowWeightDecay,
			EntropyReg: tc.EntropyReg, WarmupEpochs: tc.WarmupEpochs, MaxEpochs: tc.MaxEpochs,
			Patience: tc.Patience, EvalEvery: tc.EvalEvery},
		TrainNodes: split.Train, ValNodes: split.Val, TestNodes: split.Test, Labels: g.Labels}
	r.Adjacency = w.csr("adj", g.Adj)
	switch x := g.Features.(type) {
	case *tensor.CSR:
		s := w.csr("features", x)
		r.FeatureCSR = &s
	case *tensor.Dense:
		a := w.floats("features.f64", x.Data, x.Rows, x.Cols)
		r.FeatureDense = &a
	default:
		return nil, fmt.Errorf("replica: features of type %T", g.Features)
	}
	flows, others := m.Parameters()
	if !m.IsPostNet() {
		r.Train.WarmupEpochs = 0
	} else if len(flows) == 3 {
		r.Train.Latent = flows[0].Data.Cols
		r.Train.FlowLayers = flows[1].Data.Rows
	}
	for gi, group := range [][]*ad.Value{others, flows} {
		name := []string{"others", "flows"}[gi]
		for _, p := range group {
			a := w.floats(p.Name+".f64", p.Data.Data, p.Data.Rows, p.Data.Cols)
			r.Params = append(r.Params, Param{Name: p.Name, Group: name, Array: a})
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return nil, err
	}
	return r, os.WriteFile(filepath.Join(dir, "run.json"), b, 0o644)
}

// writer writes raw arrays into dir, keeping the first error.
type writer struct {
	dir string
	err error
}

func (w *writer) csr(name string, s *tensor.CSR) Sparse {
	ptr := make([]int64, len(s.Ptr))
	for i, v := range s.Ptr {
		ptr[i] = int64(v)
	}
	ind := make([]int64, len(s.Ind))
	for i, v := range s.Ind {
		ind[i] = int64(v)
	}
	return Sparse{Rows: s.Rows, Cols: s.Cols,
		Ptr: w.write(name+".ptr.i64", "i8", ptr, len(ptr)),
		Ind: w.write(name+".ind.i64", "i8", ind, len(ind)),
		Val: w.floats(name+".val.f64", s.Val, len(s.Val))}
}

func (w *writer) floats(file string, v []float64, shape ...int) Array {
	return w.write(file, "f8", v, shape...)
}

func (w *writer) write(file, dtype string, data any, shape ...int) Array {
	if w.err == nil {
		w.err = writeRaw(filepath.Join(w.dir, file), data)
	}
	return Array{File: file, Dtype: dtype, Shape: shape}
}

func writeRaw(path string, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := binary.Write(f, binary.LittleEndian, data); err != nil {
		f.Close()
		return fmt.Errorf("replica: writing %s: %w", path, err)
	}
	return f.Close()
}

// Result is what the replica writes after training: result.json, the
// final outputs in output.f64, the predicted classes in class.i64 and the
// uncertainty measures in measures.f64.
type Result struct {
	Dtype  string  `json:"dtype"` // float64 or float32
	Epochs []Epoch `json:"epochs"`
	// BestEpoch is the main-phase epoch whose parameters were restored.
	BestEpoch int     `json:"best_epoch"`
	BestValCE float64 `json:"best_val_ce"`
	// Output is Model.Forward's counterpart after the restore, N×C:
	// log-probabilities (APPNP), α (GPN, CUQ-*) or α_ft (LOP-GPN).
	Output Array     `json:"output"`
	Values []float64 `json:"-"`
	// Class is every node's predicted class (argmax of the mean class
	// probabilities), stored in ClassFile.
	ClassFile Array    `json:"class"`
	Class     []int    `json:"-"`
	Measures  Measures `json:"measures"`
}

// Measures are the per-node uncertainty measures after training, each
// computed by the side that trained from its own output: Values[m][i] is
// measure Names[m] (package uq's names: TU, AU, EU, EU_PC, EU_SO; APPNP has
// TU only) of node i, stored M×N in the file.
type Measures struct {
	Names []string `json:"names"`
	Array
	Values [][]float64 `json:"-"`
}

// measures are the measures Train records, in the replica's order.
var measures = []uq.Measure{uq.TU, uq.AU, uq.EU, uq.EUPC, uq.EUSO}

// Epoch is one epoch of the replica's training.
type Epoch struct {
	Phase string  `json:"phase"` // "warmup" or "train"
	Epoch int     `json:"epoch"`
	Loss  float64 `json:"loss"`
	ValCE float64 `json:"val_ce"` // NaN in warm-up (written as null)
	// GradNorms holds each parameter's gradient Frobenius norm after the
	// epoch's backward pass, before the step, by name.
	GradNorms map[string]float64 `json:"grad_norms"`
}

// UnmarshalJSON reads a null validation loss as NaN.
func (e *Epoch) UnmarshalJSON(b []byte) error {
	type plain Epoch
	var p struct {
		plain
		ValCE *float64 `json:"val_ce"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = Epoch(p.plain)
	e.ValCE = math.NaN()
	if p.ValCE != nil {
		e.ValCE = *p.ValCE
	}
	return nil
}

// MarshalJSON writes a NaN validation loss as null.
func (e Epoch) MarshalJSON() ([]byte, error) {
	type plain Epoch
	p := struct {
		plain
		ValCE *float64 `json:"val_ce"`
	}{plain: plain(e)}
	if !math.IsNaN(e.ValCE) {
		p.ValCE = &e.ValCE
	}
	return json.Marshal(p)
}

// Train trains m on split with Fit, as the replica trains an exported run,
// and records the same: every epoch's loss, validation cross entropy and
// each parameter's gradient norm, the restored best epoch, the output of
// Model.Forward after training, and Model.Predict's classes and measures.
func Train(m *cuq.Model, split graph.Split, opts ...cuq.FitOption) (*Result, error) {
	r := &Result{Dtype: "float64"}
	flows, others := m.Parameters()
	params := append(others, flows...)
	record := cuq.OnEpoch(func(e cuq.EpochStats) {
		norms := make(map[string]float64, len(params))
		for _, p := range params {
			s := 0.0
			if p.Grad != nil {
				for _, v := range p.Grad.Data {
					s += float64(v * v)
				}
			}
			norms[p.Name] = math.Sqrt(s)
		}
		r.Epochs = append(r.Epochs, Epoch{Phase: e.Phase.String(), Epoch: e.Epoch, Loss: e.Loss, ValCE: e.ValCE, GradNorms: norms})
	})
	hist, err := m.Fit(split, append(opts, record)...)
	if err != nil {
		return nil, err
	}
	r.BestEpoch, r.BestValCE = hist.BestEpoch, hist.BestValCE
	out, err := m.Forward(nil)
	if err != nil {
		return nil, err
	}
	r.Output = Array{File: "output.f64", Dtype: "f8", Shape: []int{out.Rows, out.Cols}}
	r.Values = out.Data
	p, err := m.Predict(nil)
	if err != nil {
		return nil, err
	}
	r.ClassFile = Array{File: "class.i64", Dtype: "i8", Shape: []int{len(p.Class)}}
	r.Class = p.Class
	for _, u := range measures {
		if v := p.Get(u); v != nil {
			r.Measures.Names = append(r.Measures.Names, u.String())
			r.Measures.Values = append(r.Measures.Values, v)
		}
	}
	r.Measures.Array = Array{File: "measures.f64", Dtype: "f8", Shape: []int{len(r.Measures.Names), len(p.Class)}}
	return r, nil
}

// WriteResult writes r as the replica does: result.json, the output
// values, classes and measures into dir.
func WriteResult(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeRaw(filepath.Join(dir, r.Output.File), r.Values); err != nil {
		return err
	}
	class := make([]int64, len(r.Class))
	for i, c := range r.Class {
		class[i] = int64(c)
	}
	if err := writeRaw(filepath.Join(dir, r.ClassFile.File), class); err != nil {
		return err
	}
	if err := writeRaw(filepath.Join(dir, r.Measures.File), slices.Concat(r.Measures.Values...)); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644)
}

// GradFloor is the smallest gradient norm, as a fraction of the epoch's
// largest, whose relative difference Compare measures; a smaller one is
// compared relative to the floor instead. Some gradients are zero but for
// rounding: in both codes the a_dst gradients of CUQ-GAT's layers are
// 10⁻²¹ to 10⁻¹⁶ of the largest in most epochs (the softmax over a node's
// in-edges cancels its own score while all its edges are on one side of the
// LeakyReLU). Their rounding depends on the order of summation, so either
// code against itself with its edge list permuted differs in them by
// several 10⁻⁹ of a floor of 10⁻⁸ (docs/records/faithfulness.md); a floor
// ten times higher puts that noise well below the lock-step tolerance, and
// a real gradient of that size hardly moves the parameters.
const GradFloor = 1e-7

// Drift holds the largest relative differences |a−b|/max(|a|, |b|) of one
// result from another (for gradient norms, the denominator is at least
// GradFloor times the epoch's largest gradient norm).
type Drift struct {
	Loss, GradNorm, ValCE, Output float64
	WorstGrad                     string    // the parameter and epoch of GradNorm
	LossAt, GradNormAt            []float64 // the largest per epoch
	// Rank is Spearman's ρ (see Spearman) of each uncertainty measure over
	// all nodes, by name.
	Rank map[string]float64
}

// Compare returns how far b is from a: both must have run the same epochs
// and report the same parameters, output shape and measures.
func Compare(a, b *Result) (Drift, error) {
	var d Drift
	if len(a.Epochs) != len(b.Epochs) {
		return d, fmt.Errorf("replica: %d epochs against %d", len(a.Epochs), len(b.Epochs))
	}
	for i, ea := range a.Epochs {
		eb := b.Epochs[i]
		if ea.Phase != eb.Phase || ea.Epoch != eb.Epoch {
			return d, fmt.Errorf("replica: epoch %d is %s %d against %s %d", i, ea.Phase, ea.Epoch, eb.Phase, eb.Epoch)
		}
		l := rel(ea.Loss, eb.Loss)
		d.LossAt = append(d.LossAt, l)
		d.Loss = max(d.Loss, l)
		if math.IsNaN(ea.ValCE) != math.IsNaN(eb.ValCE) {
			return d, fmt.Errorf("replica: %s epoch %d evaluated in one result only", ea.Phase, ea.Epoch)
		}
		if !math.IsNaN(ea.ValCE) {
			d.ValCE = max(d.ValCE, rel(ea.ValCE, eb.ValCE))
		}
		if len(ea.GradNorms) != len(eb.GradNorms) {
			return d, fmt.Errorf("replica: %s epoch %d: %d gradients against %d", ea.Phase, ea.Epoch, len(ea.GradNorms), len(eb.GradNorms))
		}
		if err := d.addGradNorms(ea, eb); err != nil {
			return d, err
		}
	}
	if !slices.Equal(a.Output.Shape, b.Output.Shape) || len(a.Values) != len(b.Values) {
		return d, fmt.Errorf("replica: output of shape %v against %v", a.Output.Shape, b.Output.Shape)
	}
	for i, v := range a.Values {
		d.Output = max(d.Output, rel(v, b.Values[i]))
	}
	if !slices.Equal(a.Measures.Names, b.Measures.Names) {
		return d, fmt.Errorf("replica: measures %v against %v", a.Measures.Names, b.Measures.Names)
	}
	d.Rank = make(map[string]float64, len(a.Measures.Names))
	for m, name := range a.Measures.Names {
		rho, err := eval.Spearman(a.Measures.Values[m], b.Measures.Values[m])
		if err != nil {
			return d, fmt.Errorf("replica: %s: %w", name, err)
		}
		d.Rank[name] = rho
	}
	return d, nil
}

// addGradNorms records in d the drift of epoch eb's gradient norms from
// ea's, which has as many: each parameter's relative difference, its
// denominator at least GradFloor times ea's largest norm.
func (d *Drift) addGradNorms(ea, eb Epoch) error {
	largest := 0.0
	for _, g := range ea.GradNorms {
		largest = max(largest, g)
	}
	worst := 0.0
	for _, name := range slices.Sorted(maps.Keys(ea.GradNorms)) {
		ga, gb := ea.GradNorms[name], eb.GradNorms[name]
		if _, ok := eb.GradNorms[name]; !ok {
			return fmt.Errorf("replica: no gradient of %s", name)
		}
		g := math.Abs(ga-gb) / max(math.Abs(ga), math.Abs(gb), GradFloor*largest)
		if ga == gb {
			g = 0
		}
		worst = max(worst, g)
		if g > d.GradNorm {
			d.GradNorm, d.WorstGrad = g, fmt.Sprintf("%s at %s epoch %d", name, ea.Phase, ea.Epoch)
		}
	}
	d.GradNormAt = append(d.GradNormAt, worst)
	return nil
}

// rel is the relative difference of a and b (0 when equal, infinities
// included).
func rel(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// ReadRun reads the run.json that Export wrote to dir.
func ReadRun(dir string) (*Run, error) {
	return readJSON[Run](filepath.Join(dir, "run.json"))
}

// readJSON reads the JSON file at path into a T.
func readJSON[T any](path string) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("replica: %s: %w", path, err)
	}
	return v, nil
}

// ReadResult reads the replica's result.json, output, classes and
// measures from dir.
func ReadResult(dir string) (*Result, error) {
	r, err := readJSON[Result](filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	out, err := readRaw(dir, r.Output)
	if err != nil {
		return nil, err
	}
	r.Values = make([]float64, len(out))
	for i, w := range out {
		r.Values[i] = math.Float64frombits(w)
	}
	class, err := readRaw(dir, r.ClassFile)
	if err != nil {
		return nil, err
	}
	r.Class = make([]int, len(class))
	for i, w := range class {
		r.Class[i] = int(int64(w))
	}
	ms, err := readRaw(dir, r.Measures.Array)
	if err != nil {
		return nil, err
	}
	if len(r.Measures.Shape) != 2 || r.Measures.Shape[0] != len(r.Measures.Names) {
		return nil, fmt.Errorf("replica: %d measures %v stored in shape %v", len(r.Measures.Names), r.Measures.Names, r.Measures.Shape)
	}
	n := r.Measures.Shape[1]
	for m := range r.Measures.Names {
		v := make([]float64, n)
		for i, w := range ms[m*n : (m+1)*n] {
			v[i] = math.Float64frombits(w)
		}
		r.Measures.Values = append(r.Measures.Values, v)
	}
	return r, nil
}

// readRaw reads the little-endian 8-byte words of array a from dir,
// checking their count against a's shape.
func readRaw(dir string, a Array) ([]uint64, error) {
	if a.File == "" {
		return nil, fmt.Errorf("replica: result.json names no file for an array of shape %v", a.Shape)
	}
	raw, err := os.ReadFile(filepath.Join(dir, a.File))
	if err != nil {
		return nil, err
	}
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	if len(raw) != 8*n {
		return nil, fmt.Errorf("replica: %s has %d bytes, want %d values of shape %v", a.File, len(raw), n, a.Shape)
	}
	w := make([]uint64, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return w, nil
}
