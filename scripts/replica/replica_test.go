package replica_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

func csbm(t *testing.T, sparse bool) (*graph.Graph, graph.Split) {
	t.Helper()
	c := datasets.CSBM(120, 3).Features(12).Seed(4)
	if sparse {
		c = c.BagOfWords(5)
	}
	return testenv.Split(t, c.Done, graph.Stratified(0.1, 0.2, 0.7))
}

func readRun(t *testing.T, dir string) *replica.Run {
	t.Helper()
	r, err := replica.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readArray reads an array that Export wrote, checking its dtype and
// decoding each little-endian 8-byte item with decode.
func readArray[T any](t *testing.T, dir string, a replica.Array, dtype string, decode func(uint64) T) []T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, a.File))
	if err != nil {
		t.Fatal(err)
	}
	if a.Dtype != dtype {
		t.Fatalf("%s: dtype %q, want %s", a.File, a.Dtype, dtype)
	}
	v := make([]T, len(b)/8)
	for i := range v {
		v[i] = decode(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

func readFloats(t *testing.T, dir string, a replica.Array) []float64 {
	t.Helper()
	return readArray(t, dir, a, "f8", math.Float64frombits)
}

func readInts(t *testing.T, dir string, a replica.Array) []int {
	t.Helper()
	return readArray(t, dir, a, "i8", func(u uint64) int { return int(int64(u)) })
}

func checkCSR(t *testing.T, dir, what string, s replica.Sparse, want *tensor.CSR) {
	t.Helper()
	if s.Rows != want.Rows || s.Cols != want.Cols ||
		!slices.Equal(readInts(t, dir, s.Ptr), want.Ptr) ||
		!slices.Equal(readInts(t, dir, s.Ind), want.Ind) ||
		!slices.Equal(readFloats(t, dir, s.Val), want.Val) {
		t.Errorf("%s: exported CSR differs from the graph's", what)
	}
}

// Every exported array reads back bit for bit as the model's own, in the
// documented order and groups, with the schedule of the preset.
func TestExportRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		model  string
		sparse bool
	}{{"cuq_gcn", true}, {"gpn", false}, {"appnp", false}} {
		t.Run(tc.model, func(t *testing.T) {
			g, split := csbm(t, tc.sparse)
			m := replicaModel(t, g, g.Name, tc.model)
			dir := t.TempDir()
			if _, err := replica.Export(dir, m, m.Schedule(), g.Name, tc.model, 10, 0.1, split); err != nil {
				t.Fatal(err)
			}
			r := readRun(t, dir)
			if r.Model != tc.model || r.Nodes != g.N || r.Classes != g.NumClasses || r.K != 10 || r.Teleport != 0.1 {
				t.Errorf("header %+v", r)
			}
			if !slices.Equal(r.TrainNodes, split.Train) || !slices.Equal(r.ValNodes, split.Val) ||
				!slices.Equal(r.TestNodes, split.Test) || !slices.Equal(r.Labels, g.Labels) {
				t.Error("split or labels differ")
			}
			checkCSR(t, dir, "adjacency", r.Adjacency, g.Adj)
			if tc.sparse {
				if r.FeatureCSR == nil || r.FeatureDense != nil {
					t.Fatal("sparse features not exported as CSR")
				}
				checkCSR(t, dir, "features", *r.FeatureCSR, g.Features.(*tensor.CSR))
			} else {
				if r.FeatureDense == nil || r.FeatureCSR != nil {
					t.Fatal("dense features not exported dense")
				}
				if !slices.Equal(readFloats(t, dir, *r.FeatureDense), g.Features.(*tensor.Dense).Data) {
					t.Error("features differ")
				}
			}
			h := r.Train
			if tc.model == "appnp" {
				if h.LR != 0.01 || h.WeightDecay != 1e-4 || h.WarmupEpochs != 0 || h.Latent != 0 {
					t.Errorf("APPNP schedule %+v", h)
				}
			} else if h.LR != 0.01 || h.WeightDecay != 1e-3 || h.FlowWeightDecay != 0 || h.EntropyReg != 1e-4 ||
				h.WarmupEpochs != 5 || h.Latent != 16 || h.FlowLayers != 10 || h.Patience != 50 || h.EvalEvery != 1 {
				t.Errorf("PostNet schedule %+v", h)
			}
			flows, others := m.Parameters()
			all := append(others, flows...)
			if len(r.Params) != len(all) {
				t.Fatalf("%d parameters exported, the model has %d", len(r.Params), len(all))
			}
			for i, p := range r.Params {
				want, group := all[i], "others"
				if i >= len(others) {
					group = "flows"
				}
				if p.Name != want.Name || p.Group != group || !slices.Equal(p.Shape, []int{want.Data.Rows, want.Data.Cols}) {
					t.Errorf("parameter %d: %s (%s, %v), want %s (%s, %d×%d)", i, p.Name, p.Group, p.Shape, want.Name, group, want.Data.Rows, want.Data.Cols)
				}
				if !slices.Equal(readFloats(t, dir, p.Array), want.Data.Data) {
					t.Errorf("%s: values differ", p.Name)
				}
			}
		})
	}
}

func TestExportRejectsBadInput(t *testing.T) {
	g, split := csbm(t, false)
	m := replicaModel(t, g, g.Name, "gpn")
	if _, err := replica.Export(t.TempDir(), m, m.Schedule(), g.Name, "gkde", 10, 0.1, split); err == nil || !strings.Contains(err.Error(), `unknown model "gkde"`) {
		t.Errorf("GKDE export: error %v", err)
	}
	bad := graph.Split{Train: []int{0, g.N}, Val: split.Val}
	if _, err := replica.Export(t.TempDir(), m, m.Schedule(), g.Name, "gpn", 10, 0.1, bad); err == nil {
		t.Error("a split with a node out of range was exported")
	}
	if _, err := replica.Preset(g.Name, "mlp", 0, cuq.DefaultSeeding()); err == nil || !strings.Contains(err.Error(), `unknown model "mlp"`) {
		t.Errorf("Preset: error %v", err)
	}
}

// replicaModel builds model's replica preset for the dataset named dataset
// on g.
func replicaModel(t *testing.T, g *graph.Graph, dataset, model string) *cuq.Model {
	t.Helper()
	b, err := replica.Preset(dataset, model, 0, cuq.DefaultSeeding())
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Done(g)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ReadResult reads a null validation loss as NaN, the output, classes and
// measures bit for bit, and rejects an output file of the wrong size.
func TestReadResult(t *testing.T) {
	dir := t.TempDir()
	js := `{"dtype": "float64", "best_epoch": 2, "best_val_ce": 0.5,
 "epochs": [{"phase": "warmup", "epoch": 1, "loss": 3.5, "val_ce": null, "grad_norms": {"flow.a": 0.25}},
            {"phase": "train", "epoch": 1, "loss": 2.5, "val_ce": 0.75, "grad_norms": {"flow.a": 0.125}}],
 "output": {"file": "output.f64", "dtype": "f8", "shape": [1, 2]},
 "class": {"file": "class.i64", "dtype": "i8", "shape": [1]},
 "measures": {"names": ["TU", "EU_PC"], "file": "measures.f64", "dtype": "f8", "shape": [2, 1]}}`
	var out []byte
	for _, v := range []float64{1.5, -0.1} {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	for file, b := range map[string][]byte{"result.json": []byte(js), "output.f64": out, "measures.f64": out,
		"class.i64": binary.LittleEndian.AppendUint64(nil, 1)} {
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := replica.ReadResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Epochs) != 2 || !math.IsNaN(r.Epochs[0].ValCE) || r.Epochs[1].ValCE != 0.75 ||
		r.Epochs[1].Loss != 2.5 || r.Epochs[0].GradNorms["flow.a"] != 0.25 || r.BestEpoch != 2 {
		t.Errorf("result %+v", r)
	}
	if !slices.Equal(r.Values, []float64{1.5, -0.1}) {
		t.Errorf("output %v", r.Values)
	}
	if !slices.Equal(r.Class, []int{1}) || !slices.Equal(r.Measures.Names, []string{"TU", "EU_PC"}) ||
		len(r.Measures.Values) != 2 || r.Measures.Values[0][0] != 1.5 || r.Measures.Values[1][0] != -0.1 {
		t.Errorf("class %v, measures %+v", r.Class, r.Measures)
	}
	if err := os.WriteFile(filepath.Join(dir, "output.f64"), out[:8], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := replica.ReadResult(dir); err == nil || !strings.Contains(err.Error(), "has 8 bytes, want 2 values of shape [1 2]") {
		t.Errorf("short output: error %v", err)
	}
}

func result(loss float64, grads map[string]float64, out ...float64) *replica.Result {
	return &replica.Result{
		Epochs: []replica.Epoch{
			{Phase: "warmup", Epoch: 1, Loss: 10, ValCE: math.NaN(), GradNorms: map[string]float64{"w": 1, "a_dst": 0}},
			{Phase: "train", Epoch: 1, Loss: loss, ValCE: 0.5, GradNorms: grads},
		},
		Output:   replica.Array{File: "output.f64", Dtype: "f8", Shape: []int{1, len(out)}},
		Values:   out,
		Measures: replica.Measures{Names: []string{"TU"}, Values: [][]float64{{1, 2, 3}}},
	}
}

// Compare measures relative differences, takes gradients below the floor
// relative to it, and refuses results of different runs.
func TestCompare(t *testing.T) {
	a := result(2, map[string]float64{"w": 4, "a_dst": 1e-19}, 1, 2)
	b := result(2*(1+1e-6), map[string]float64{"w": 4 * (1 - 2e-9), "a_dst": 5e-19}, 1, 2*(1+3e-7))
	d, err := replica.Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-3*want }
	// a_dst differs by 4e-19 against the floor 1e-7·4: 1e-12 < w's 2e-9.
	if !near(d.Loss, 1e-6/(1+1e-6)) || !near(d.GradNorm, 2e-9) || d.WorstGrad != "w at train epoch 1" ||
		!near(d.Output, 3e-7/(1+3e-7)) || d.ValCE != 0 || len(d.LossAt) != 2 || d.LossAt[0] != 0 {
		t.Errorf("drift %+v", d)
	}
	if d.Rank["TU"] != 1 {
		t.Errorf("rank correlation of equal measures %v", d.Rank)
	}
	b.Measures.Values[0] = []float64{3, 2, 1}
	if d, err := replica.Compare(a, b); err != nil || d.Rank["TU"] != -1 {
		t.Errorf("rank correlation of reversed measures %v, %v", d.Rank, err)
	}
	b.Measures.Names = []string{"AU"}
	if _, err := replica.Compare(a, b); err == nil || !strings.Contains(err.Error(), "measures [TU] against [AU]") {
		t.Errorf("different measures: %v", err)
	}
	if d, err := replica.Compare(a, a); err != nil || d.Loss != 0 || d.GradNorm != 0 || d.Output != 0 {
		t.Errorf("a result against itself: %+v, %v", d, err)
	}
	short := result(2, map[string]float64{"w": 4, "a_dst": 0}, 1, 2)
	short.Epochs = short.Epochs[:1]
	if _, err := replica.Compare(a, short); err == nil || !strings.Contains(err.Error(), "2 epochs against 1") {
		t.Errorf("different epoch counts: %v", err)
	}
	other := result(2, map[string]float64{"w": 4, "b": 1}, 1, 2)
	if _, err := replica.Compare(a, other); err == nil || !strings.Contains(err.Error(), "no gradient of a_dst") {
		t.Errorf("different parameters: %v", err)
	}
}

// Prune follows the dataset registry by the dataset's name, for LOP-GPN
// only; Preset prunes that model's mixture weights and Export records the
// threshold, also on a graph derived from the dataset's, whatever its name.
func TestPrune(t *testing.T) {
	g, split := csbm(t, false)
	for _, tc := range []struct {
		name, model string
		want        float64
	}{
		{"AmazonPhotos", "gpn_lop", 0.01},
		{"AmazonComputers", "gpn_lop", 0.01},
		{"AmazonComputers", "gpn", 0},
		{"CoraML", "gpn_lop", 0},
		{"photos", "gpn_lop", 0}, // an alias is not the dataset's name
		{"csbm", "gpn_lop", 0},
	} {
		if got := replica.Prune(tc.name, tc.model); got != tc.want {
			t.Errorf("Prune(%s, %s) = %v, want %v", tc.name, tc.model, got, tc.want)
		}
		dir := t.TempDir()
		m := replicaModel(t, g, tc.name, tc.model)
		if _, err := replica.Export(dir, m, m.Schedule(), tc.name, tc.model, 10, 0.1, split); err != nil {
			t.Fatal(err)
		}
		if got := readRun(t, dir).Prune; got != tc.want {
			t.Errorf("%s, %s: run.json prune %v, want %v", tc.name, tc.model, got, tc.want)
		}
	}
	h := *g
	h.Name = "AmazonPhotos"
	loc, err := graph.LeaveOutClasses(&h, split, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(loc.Graph.Name, "AmazonPhotos, leave-out class") {
		t.Fatalf("leave-out-classes graph named %q", loc.Graph.Name)
	}
	dir := t.TempDir()
	lop := replicaModel(t, loc.Graph, "AmazonPhotos", "gpn_lop")
	if _, err := replica.Export(dir, lop, lop.Schedule(), "AmazonPhotos", "gpn_lop", 10, 0.1, loc.Split); err != nil {
		t.Fatal(err)
	}
	if got := readRun(t, dir).Prune; got != 0.01 {
		t.Errorf("LOP-GPN on %q: run.json prune %v, want 0.01", loc.Graph.Name, got)
	}
	// The pruned Π moves mass to the diagonal, so the same weights and step
	// give another output on the graph named AmazonPhotos.
	forward := func(dataset string) []float64 {
		m := replicaModel(t, g, dataset, "gpn_lop")
		if _, err := m.Step(split); err != nil {
			t.Fatal(err)
		}
		out, err := m.Forward(nil)
		if err != nil {
			t.Fatal(err)
		}
		return out.Data
	}
	if slices.Equal(forward("AmazonPhotos"), forward("csbm")) {
		t.Error("Preset: LOP-GPN on AmazonPhotos computes the exact mixture weights")
	}
}

// ModelKey accepts a key or a display name of a model the replica has,
// and names the valid ones otherwise.
func TestModelKey(t *testing.T) {
	for name, want := range map[string]string{"gpn": "gpn", "CUQ-GAT": "cuq_gat", "LOP-GPN": "gpn_lop"} {
		if got, err := replica.ModelKey(name); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := replica.ModelKey("gkde"); err == nil || !strings.Contains(err.Error(), "the replica has no GKDE (valid: appnp, gpn") {
		t.Errorf("gkde: %v", err)
	}
}
