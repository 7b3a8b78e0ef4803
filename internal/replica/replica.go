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
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Models lists the model kinds the replica implements, by the grid's keys.
var Models = []string{"appnp", "gpn", "gpn_lop", "cuq_ppr", "cuq_gcn", "cuq_gat"}

// Preset returns the paper's preset of model (one of Models) on g with all
// dropout off, the form the replica trains in lock step.
func Preset(g *graph.Graph, model string) (*cuq.Builder, error) {
	enc := cuq.MLP(64).Dropout(0)
	switch model {
	case "appnp":
		return cuq.APPNPModel(g).Encoder(enc), nil
	case "gpn":
		return cuq.GPN(g).Encoder(enc), nil
	case "gpn_lop":
		return cuq.LOPGPN(g).Encoder(enc), nil
	case "cuq_ppr":
		return cuq.CUQPPR(g).Encoder(enc), nil
	case "cuq_gcn":
		return cuq.CUQGCN(g).Encoder(enc).Conv(cuq.GCN(64).Dropout(0)), nil
	case "cuq_gat":
		return cuq.CUQGAT(g).Encoder(enc).Conv(cuq.GAT(64).Dropout(0)), nil
	}
	return nil, fmt.Errorf("replica: unknown model %q (want one of %v)", model, Models)
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
// split: m's graph, split, labels, initial parameters and hyperparameters.
// Call it before training. model is m's kind, one of Models; k and
// teleport are the propagation's (the presets use 10 and 0.1). The replica
// implements no dropout and no pruning of LOP-GPN's mixture weights: build
// m with Preset for a lock-step check.
func Export(dir string, m *cuq.Model, model string, k int, teleport float64, split graph.Split) (*Run, error) {
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
	tc := m.Training()
	_, f := g.Features.Dims()
	r := &Run{Model: model, Nodes: g.N, Classes: g.NumClasses, Features: f, K: k, Teleport: teleport,
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

// Result is what the replica writes after training: result.json and the
// final outputs in alpha.f64.
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
}

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

// ReadResult reads the replica's result.json and output from dir.
func ReadResult(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("replica: %s: %w", filepath.Join(dir, "result.json"), err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, r.Output.File))
	if err != nil {
		return nil, err
	}
	n := 1
	for _, s := range r.Output.Shape {
		n *= s
	}
	if len(raw) != 8*n {
		return nil, fmt.Errorf("replica: %s has %d bytes, want %d float64 of shape %v", r.Output.File, len(raw), n, r.Output.Shape)
	}
	r.Values = make([]float64, n)
	for i := range r.Values {
		r.Values[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return &r, nil
}
