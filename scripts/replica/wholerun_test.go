package replica_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

// env returns the comma-separated list in the environment variable key,
// or def.
func env(key, def string) []string {
	if v := os.Getenv(key); v != "" {
		def = v
	}
	return strings.Split(def, ",")
}

// TestWholeRuns compares whole training runs, as the paper trains them
// (dropout 0.5, early stopping), of cuqgnn and of the replica in float32,
// the reference's precision, from the same exported split and initial
// weights: per dataset, model and setting, the test accuracy and
// (leave-out classes) each measure's OOD AUROC, mean ± standard error on
// both sides, and the paired t-test of the per-run differences. It
// writes the Markdown table to the file $CUQ_REPLICA_RUNS and runs only
// when that is set:
//
//	CUQ_REPLICA_RUNS=runs.md go test ./scripts/replica -run TestWholeRuns -v -timeout 0
//
// $CUQ_REPLICA_DATASETS (CoraML,CiteSeer), $CUQ_REPLICA_MODELS (all of
// replica.Models), $CUQ_REPLICA_SETTINGS (classification,
// leave_out_classes), $CUQ_REPLICA_SPLITS (10: splits 1 to 10; or a list
// of split numbers such as 6,9, for a control of the runs that matter)
// and $CUQ_REPLICA_INITS (1) choose the runs. $CUQ_REPLICA_MASKS chooses
// the replica's dropout: torch (the default; torch's generator seeded
// with split + 100·(init−1), so the two sides drop different units and
// the test compares two distributions of runs) or cuqgnn (--go-dropout:
// the same masks as cuqgnn, so each pair differs only by float32 against
// float64).
// $CUQ_REPLICA_MEASURES=float64 has the replica compute the uncertainty
// measures in float64 from its float32 output (--measures-float64), the
// control that separates its training from its arithmetic of the measures.
// $CUQ_REPLICA_DTYPE=float64 has it train in float64, with a float64-
// accurate trigamma (--exact-trigamma): with cuqgnn's masks, the control
// that shows what remains of a gap once the precision is the same.
//
// $CUQ_REPLICA_CACHE=DIR keeps every finished pair of runs as a small JSON
// file under DIR (see cachedRun) and reuses it on the next invocation, so
// that a campaign of many hours can be interrupted and resumed, and tables
// of other selections be written from the runs already done.
func TestWholeRuns(t *testing.T) {
	file := os.Getenv("CUQ_REPLICA_RUNS")
	if file == "" {
		t.Skip("set CUQ_REPLICA_RUNS=FILE.md to compare whole runs with the replica")
	}
	py := python(t)
	dir := testenv.RequireDatasets(t)
	splits, err := splitNumbers(env("CUQ_REPLICA_SPLITS", "10"))
	if err != nil {
		t.Fatalf("CUQ_REPLICA_SPLITS: %v", err)
	}
	inits, err := strconv.Atoi(env("CUQ_REPLICA_INITS", "1")[0])
	if err != nil || inits < 1 {
		t.Fatalf("CUQ_REPLICA_INITS: want a number ≥ 1: %v", err)
	}
	cache := os.Getenv("CUQ_REPLICA_CACHE")
	side := replicaSide{masks: env("CUQ_REPLICA_MASKS", "torch")[0]}
	if side.masks != "torch" && side.masks != "cuqgnn" {
		t.Fatalf("CUQ_REPLICA_MASKS=%s: want torch or cuqgnn", side.masks)
	}
	side.measures64 = isFloat64(t, "CUQ_REPLICA_MEASURES")
	side.train64 = isFloat64(t, "CUQ_REPLICA_DTYPE")
	var b strings.Builder
	fmt.Fprintf(&b, "| dataset | model | setting | metric | cuqgnn | replica (%s) | difference | paired t p |\n|---|---|---|---|---|---|---|---|\n", side.dtype())
	for _, name := range env("CUQ_REPLICA_DATASETS", "CoraML,CiteSeer") {
		d, err := experiment.LoadDataset(name, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, model := range env("CUQ_REPLICA_MODELS", strings.Join(replica.Models, ",")) {
			for _, setting := range env("CUQ_REPLICA_SETTINGS", "classification,leave_out_classes") {
				var metrics []string
				values := map[string][2][]float64{}
				for _, k := range splits {
					for init := 1; init <= inits; init++ {
						r := cachedRun(t, cache, py, d, model, setting, k, init, side)
						metrics = r.Metrics
						for i, n := range r.Metrics {
							v := values[n]
							v[0], v[1] = append(v[0], r.Sides[0][i]), append(v[1], r.Sides[1][i])
							values[n] = v
						}
					}
				}
				for _, n := range metrics {
					p, err := replica.PairedT(values[n][0], values[n][1])
					if err != nil {
						t.Fatal(err)
					}
					row := fmt.Sprintf("| %s | %s | %s | %s | %.1f ± %.1f | %.1f ± %.1f | %+.1f ± %.1f | %.2f |\n", d.Name, model, setting, n,
						100*p.MeanA, 100*p.SEA, 100*p.MeanB, 100*p.SEB, 100*p.MeanDiff, 100*p.SEDiff, p.P)
					t.Log(row)
					b.WriteString(row)
				}
			}
		}
	}
	initWord := "inits"
	if inits == 1 {
		initWord = "init"
	}
	measures := ""
	if side.measures64 {
		measures = ", its measures computed in float64"
	}
	fmt.Fprintf(&b, "\n%s × %d %s per row, the replica's dropout masks drawn by %s%s; mean ± standard error in percent; the difference is cuqgnn − replica per run, tested by the paired t-test (%d degrees of freedom).\n", splitWords(splits), inits, initWord, side.masks, measures, len(splits)*inits-1)
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// isFloat64 reads the precision $key, float32 (the default) or float64,
// and reports whether it is float64.
func isFloat64(t *testing.T, key string) bool {
	switch v := env(key, "float32")[0]; v {
	case "float32":
		return false
	case "float64":
		return true
	default:
		t.Fatalf("%s=%s: want float32 or float64", key, v)
		return false
	}
}

// replicaSide says how the replica runs: whose dropout masks it draws
// (torch or cuqgnn), whether it computes the measures in float64 and
// whether it trains in float64.
type replicaSide struct {
	masks      string
	measures64 bool
	train64    bool
}

// String names the variant in cache file names: the masks, with "-m64"
// for measures in float64 and "-f64" for training in float64.
func (s replicaSide) String() string {
	name := s.masks
	if s.measures64 {
		name += "-m64"
	}
	if s.train64 {
		name += "-f64"
	}
	return name
}

// dtype is the precision the replica trains in.
func (s replicaSide) dtype() string {
	if s.train64 {
		return "float64"
	}
	return "float32"
}

// pairOfRuns is one whole run on each side, as wholeRun returns it and the
// cache stores it.
type pairOfRuns struct {
	// Metrics names the values: "Acc", then "AUROC <measure>" per measure
	// under leave-out classes.
	Metrics []string `json:"metrics"`
	// Sides holds cuqgnn's values (0) and the replica's (1), and Epochs
	// each side's number of epochs trained, warm-up included.
	Sides  [2][]float64 `json:"sides"`
	Epochs [2]int       `json:"epochs"`
}

// cachedRun returns wholeRun's pair of runs, from the cache directory when
// it holds them (cache/DATASET/MODEL/SETTING/splitK-initI-SIDE.json) and
// otherwise trained and then stored there. An empty cache trains every time.
func cachedRun(t *testing.T, cache, py string, d *experiment.Dataset, model, setting string, k, init int, side replicaSide) pairOfRuns {
	t.Helper()
	if cache == "" {
		return wholeRun(t, py, d, model, setting, k, init, side)
	}
	file := filepath.Join(cache, d.Name, model, setting, fmt.Sprintf("split%d-init%d-%s.json", k, init, side))
	r, err := loadPair(file)
	switch {
	case err == nil:
		t.Logf("%s %s %s split %d init %d: cached, cuqgnn %.3f, replica %.3f", d.Name, model, setting, k, init, r.Sides[0], r.Sides[1])
		return r
	case !errors.Is(err, fs.ErrNotExist):
		t.Fatal(err)
	}
	r = wholeRun(t, py, d, model, setting, k, init, side)
	if err := storePair(file, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// loadPair reads a pair of runs that storePair wrote; a missing file gives
// an error wrapping fs.ErrNotExist.
func loadPair(file string) (pairOfRuns, error) {
	var r pairOfRuns
	b, err := os.ReadFile(file)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("cached run %s: %w", file, err)
	}
	return r, nil
}

// storePair writes r to file, creating its directory: to a temporary file
// first, then renamed, so that an interrupted write leaves no partial file.
func storePair(file string, r pairOfRuns) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".run-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err := errors.Join(err, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// wholeRun trains model on split k of d in setting (classification or
// leave_out_classes) in cuqgnn and in the replica, and returns the metric
// names and both sides' values: the test accuracy (in-distribution test
// nodes under leave-out classes) and then each measure's OOD AUROC.
func wholeRun(t *testing.T, py string, d *experiment.Dataset, model, setting string, k, init int, side replicaSide) pairOfRuns {
	t.Helper()
	start := time.Now()
	s, err := d.Split(k)
	if err != nil {
		t.Fatal(err)
	}
	g, split, id, ood := d.Graph, s, s.Test, []int(nil)
	switch setting {
	case "classification":
	case "leave_out_classes":
		loc, err := graph.LeaveOutClasses(d.Graph, s, d.LeftOut)
		if err != nil {
			t.Fatal(err)
		}
		g, split, id, ood = loc.Graph, loc.Split, loc.IDTest, loc.OODTest
	default:
		t.Fatalf("setting %q (want classification or leave_out_classes)", setting)
	}
	seeding := cuq.DefaultSeeding()
	seeding.Init = init
	b, err := replica.Preset(d.Name, model, 0.5, seeding)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Done(g)
	if err != nil {
		t.Fatal(err)
	}
	schedule := experiment.Schedule(d.Name, m, 0)
	run := t.TempDir()
	if _, err := replica.Export(run, m, schedule, d.Name, model, 10, 0.1, split); err != nil {
		t.Fatal(err)
	}
	// The replica (one thread) trains while cuqgnn does: a pair of runs
	// takes the longer of the two rather than their sum.
	out := filepath.Join(run, "replica")
	draw := []string{"--seed", fmt.Sprint(k + 100*(init-1))}
	if side.masks == "cuqgnn" {
		draw = []string{"--go-dropout", fmt.Sprintf("%d,%d", seeding.Seed, seeding.Init)}
	}
	if side.measures64 {
		draw = append(draw, "--measures-float64")
	}
	if side.train64 {
		draw = append(draw, "--exact-trigamma")
	}
	var replicaOut bytes.Buffer
	cmd := exec.Command(py, append([]string{script(t), run, "--dtype", side.dtype(), "--dropout", "0.5", "--out", out}, draw...)...)
	cmd.Stdout, cmd.Stderr = &replicaOut, &replicaOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	goSide, err := replica.Train(m, split, schedule)
	goTime := time.Since(start)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("replica: %v\n%s", err, replicaOut.Bytes())
	}
	rep, err := replica.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var sides [2][]float64
	for i, r := range []*replica.Result{goSide, rep} {
		right := 0
		for _, n := range id {
			if r.Class[n] == g.Labels[n] {
				right++
			}
		}
		names = []string{"Acc"}
		sides[i] = append(sides[i], float64(right)/float64(len(id)))
		if ood == nil {
			continue
		}
		for j, u := range r.Measures.Names {
			v := r.Measures.Values[j]
			auc, err := eval.AUROC(pick(v, id), pick(v, ood))
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, "AUROC "+u)
			sides[i] = append(sides[i], auc)
		}
	}
	t.Logf("%s %s %s split %d init %d: epochs %d / %d, cuqgnn %.3f, replica %.3f (%s; cuqgnn done after %s)", d.Name, model, setting, k, init,
		len(goSide.Epochs), len(rep.Epochs), sides[0], sides[1], time.Since(start).Round(time.Second), goTime.Round(time.Second))
	return pairOfRuns{Metrics: names, Sides: sides, Epochs: [2]int{len(goSide.Epochs), len(rep.Epochs)}}
}

// pick returns v at the given nodes.
func pick(v []float64, nodes []int) []float64 {
	out := make([]float64, len(nodes))
	for i, n := range nodes {
		out[i] = v[n]
	}
	return out
}

// A pair of runs in the cache is read back as stored and reused without
// training (the interpreter given does not exist); a missing one reads as
// fs.ErrNotExist.
func TestWholeRunCache(t *testing.T) {
	cache := t.TempDir()
	want := pairOfRuns{Metrics: []string{"Acc", "AUROC TU"}, Sides: [2][]float64{{0.875, 0.5}, {0.8125, 0.75}}, Epochs: [2]int{120, 98}}
	file := filepath.Join(cache, "CoraML", "gpn", "leave_out_classes", "split3-init2-torch.json")
	if err := storePair(file, want); err != nil {
		t.Fatal(err)
	}
	d := &experiment.Dataset{Name: "CoraML"}
	got := cachedRun(t, cache, "/nonexistent/python3", d, "gpn", "leave_out_classes", 3, 2, replicaSide{masks: "torch"})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cached run %+v, want %+v", got, want)
	}
	if _, err := loadPair(filepath.Join(cache, "CoraML", "gpn", "leave_out_classes", "split3-init2-cuqgnn.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing run: error %v", err)
	}
	if got := (replicaSide{masks: "cuqgnn", measures64: true}).String(); got != "cuqgnn-m64" {
		t.Errorf("the replica side with cuqgnn's masks and measures in float64 is cached as %q, want cuqgnn-m64", got)
	}
	if got := (replicaSide{masks: "cuqgnn", train64: true}).String(); got != "cuqgnn-f64" {
		t.Errorf("the replica side with cuqgnn's masks training in float64 is cached as %q, want cuqgnn-f64", got)
	}
	if entries, err := os.ReadDir(filepath.Dir(file)); err != nil || len(entries) != 1 {
		t.Errorf("cache directory holds %v (%v), want the one file", entries, err)
	}
}

// splitNumbers reads $CUQ_REPLICA_SPLITS, split by commas: one number N
// means the splits 1 to N, several numbers those splits, each once. A
// row's paired test needs at least two runs.
func splitNumbers(fields []string) ([]int, error) {
	var out []int
	for _, f := range fields {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 {
			return nil, fmt.Errorf("split %q: want a number ≥ 1", f)
		}
		if slices.Contains(out, k) {
			return nil, fmt.Errorf("split %d twice: a run would count twice in the paired test", k)
		}
		out = append(out, k)
	}
	if len(out) == 1 {
		n := out[0]
		out = out[:0]
		for k := 1; k <= n; k++ {
			out = append(out, k)
		}
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%v: want at least two splits", fields)
	}
	return out, nil
}

// splitWords describes the splits of a table: "10 splits" for 1 to 10,
// "splits 6, 9" for a list.
func splitWords(splits []int) string {
	consecutive := true
	for i, k := range splits {
		consecutive = consecutive && k == i+1
	}
	if consecutive {
		return fmt.Sprintf("%d splits", len(splits))
	}
	words := make([]string, len(splits))
	for i, k := range splits {
		words[i] = strconv.Itoa(k)
	}
	return "splits " + strings.Join(words, ", ")
}

func TestSplitNumbers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		text string
	}{{"10", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "10 splits"}, {"6,9", []int{6, 9}, "splits 6, 9"}, {"1,2", []int{1, 2}, "2 splits"}} {
		got, err := splitNumbers(strings.Split(c.in, ","))
		if err != nil || !slices.Equal(got, c.want) || splitWords(got) != c.text {
			t.Errorf("%q: %v, %v, %q; want %v, %q", c.in, got, err, splitWords(got), c.want, c.text)
		}
	}
	for _, bad := range []string{"1", "0,3", "x", "2,", "6,6"} {
		if got, err := splitNumbers(strings.Split(bad, ",")); err == nil {
			t.Errorf("%q: %v, want an error", bad, got)
		}
	}
}
