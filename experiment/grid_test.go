package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestJobsCanonicalOrderAndOverrides(t *testing.T) {
	jobs, err := Paper().Datasets("CoraML", "arxiv").Splits(3).Inits(2).Jobs()
	if err != nil {
		t.Fatal(err)
	}
	// CoraML: 6 models × 3 splits × 2 inits + GKDE 3 × 1; OGBN Arxiv: one
	// split, GKDE 1 init, LOP-GPN at most 2, others 2. Two jobs per run
	// (clean graph, leave-out classes).
	if want := 2 * ((6*3*2 + 3) + (1 + 6*2)); len(jobs) != want {
		t.Fatalf("%d jobs, want %d", len(jobs), want)
	}
	first := jobs[:4]
	want := []Job{
		{Dataset: "CoraML", Model: APPNP, Split: 1, Init: 1, Settings: []Setting{Classification, GaussianNoise, BernoulliNoise}},
		{Dataset: "CoraML", Model: APPNP, Split: 1, Init: 1, Trained: LeaveOutClasses, Settings: []Setting{LeaveOutClasses}},
		{Dataset: "CoraML", Model: APPNP, Split: 1, Init: 2, Settings: []Setting{Classification, GaussianNoise, BernoulliNoise}},
		{Dataset: "CoraML", Model: APPNP, Split: 1, Init: 2, Trained: LeaveOutClasses, Settings: []Setting{LeaveOutClasses}},
	}
	for i := range want {
		if first[i].String() != want[i].String() || first[i].Trained != want[i].Trained {
			t.Errorf("job %d = %v (trained for %v), want %v (trained for %v)", i, first[i], first[i].Trained, want[i], want[i].Trained)
		}
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		if seen[j.Path()] {
			t.Fatalf("two jobs write %s", j.Path())
		}
		seen[j.Path()] = true
		if j.Dataset == "OGBNArxiv" && (j.Split != 1 || (j.Model == GKDE && j.Init != 1) || j.Init > 2) {
			t.Errorf("arxiv job %v", j)
		}
	}
	// Only the settings asked for; noise settings share the clean job.
	jobs, err = Paper().Datasets("CoraML").Splits(1).Inits(1).Models(GPN).Settings(BernoulliNoise, Classification).Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Trained != Classification || !slices.Equal(jobs[0].Settings, []Setting{Classification, BernoulliNoise}) {
		t.Errorf("jobs %v", jobs)
	}
}

func TestShardsPartitionTheGrid(t *testing.T) {
	g := Paper().Datasets("CoraML", "CiteSeer").Splits(4).Inits(3)
	all, err := g.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 5, 7} {
		count := map[string]int{}
		for i := range n {
			part, err := g.Shard(i, n).ShardJobs()
			if err != nil {
				t.Fatal(err)
			}
			if len(part) < len(all)/n || len(part) > len(all)/n+1 {
				t.Errorf("shard %d/%d has %d of %d jobs", i, n, len(part), len(all))
			}
			for _, j := range part {
				count[j.Path()]++
			}
		}
		if len(count) != len(all) {
			t.Errorf("%d shards cover %d of %d jobs", n, len(count), len(all))
		}
		for p, c := range count {
			if c != 1 {
				t.Errorf("%d shards: %s run %d times", n, p, c)
			}
		}
	}
}

func TestGridOptionErrors(t *testing.T) {
	for _, c := range []struct {
		g    *Grid
		want string
	}{
		{Paper().Datasets("CoraML", "Nope"), `unknown dataset "Nope"`},
		{Paper().Splits(0), "0 splits"},
		{Paper().Inits(-1), "-1 inits"},
		{Paper().Shard(3, 3), "shard 3/3"},
		{Paper().Models(), "no models"},
		{Paper().Settings(Setting(999)), "unknown setting"},
		{Paper().MaxEpochs(-2), "max epochs -2"},
		{Paper().Models(GPN, APPNP, GPN), "model GPN given twice"},
		{Paper().Datasets("CoraML", "cora_ml"), "dataset CoraML given twice"},
		{Paper().Settings(LeaveOutClasses, Classification, LeaveOutClasses), "setting loc given twice"},
		{Paper().Splits(1 << 40), "grid of more than 100000 jobs, the most one grid may have"},
		{Paper().Splits(1 << 62).Inits(1 << 62), "grid of more than 100000 jobs, the most one grid may have"},
	} {
		if _, err := c.g.Jobs(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
		if _, err := c.g.Run(context.Background()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run error %v, want %q", err, c.want)
		}
	}
}

func TestRunMissingData(t *testing.T) {
	dir := t.TempDir()
	_, err := Paper().Datasets("CiteSeer").Splits(1).Inits(1).DataDir(dir).Out(t.TempDir()).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "citeseer.npz") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing data: %v", err)
	}
}

// TestResume runs split 1 only, as if the grid had been interrupted, then
// the whole grid: the finished records are neither retrained nor
// rewritten. Damaged records are then detected and redone.
func TestResume(t *testing.T) {
	out := t.TempDir()
	ctx := context.Background()
	models := []Model{APPNP, GKDE, CUQPPR}
	sum, err := tinyGrid(t, out, models...).Splits(1).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 3 models × 1 split × (clean, LOC).
	if sum.Jobs != 6 || sum.Ran != 6 || sum.Skipped != 0 || !sum.Complete {
		t.Fatalf("first run: %+v", sum)
	}
	mtimes := map[string]time.Time{}
	firstRecords, _ := filepath.Glob(filepath.Join(out, "runs", "Tiny", "*", "*.json"))
	for _, f := range firstRecords {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		mtimes[f] = st.ModTime()
	}
	time.Sleep(20 * time.Millisecond) // so that a rewrite would change the mtime
	var started []Job
	sum, err = tinyGrid(t, out, models...).Progress(func(e Event) {
		if e.Kind == Started {
			started = append(started, e.Job)
		}
	}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Split 2 adds 2 jobs for APPNP and CUQ-PPR each; GKDE runs per split too.
	if sum.Jobs != 12 || sum.Skipped != 6 || sum.Ran != 6 || !sum.Complete {
		t.Fatalf("resumed run: %+v", sum)
	}
	for _, j := range started {
		if j.Split != 2 {
			t.Errorf("resumed run retrained %v", j)
		}
	}
	for f, m := range mtimes {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(m) {
			t.Errorf("%s rewritten", f)
		}
	}
	tables := readTables(t, out)
	if !strings.Contains(tables["id_ood.csv"], "\n0,Tiny,APPNP,") {
		t.Errorf("id_ood.csv:\n%.300s", tables["id_ood.csv"])
	}

	// Damage three records: cut one short, overwrite one with garbage,
	// change a number of a third without updating its checksum.
	damaged := []string{
		filepath.Join(out, Job{Dataset: "Tiny", Model: APPNP, Split: 1, Init: 1}.Path()),
		filepath.Join(out, Job{Dataset: "Tiny", Model: GKDE, Split: 2, Init: 1, Trained: LeaveOutClasses}.Path()),
		filepath.Join(out, Job{Dataset: "Tiny", Model: CUQPPR, Split: 2, Init: 1}.Path()),
	}
	b, err := os.ReadFile(damaged[0])
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(damaged[0], b[:len(b)/2], 0o644))
	must(t, os.WriteFile(damaged[1], []byte("not json"), 0o644))
	b, err = os.ReadFile(damaged[2])
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(string(b), `"accuracy": 0.`, `"accuracy": 1.`, 1)
	if tampered == string(b) {
		t.Fatal("no accuracy to tamper with")
	}
	must(t, os.WriteFile(damaged[2], []byte(tampered), 0o644))
	res, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, d := range res.Damaged {
		found = append(found, d.Path)
	}
	if !slices.Equal(sortedCopy(found), sortedCopy(damaged)) {
		t.Errorf("Collect found damaged %v, want %v", res.Damaged, damaged)
	}
	if len(res.Records) != 9 {
		t.Errorf("Collect kept %d records, want 9", len(res.Records))
	}
	sum, err = tinyGrid(t, out, models...).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 3 || sum.Skipped != 9 || !slices.Equal(sortedCopy(sum.Redone), sortedCopy(damaged)) {
		t.Errorf("after damage: %+v", sum)
	}
	for _, f := range damaged {
		if _, err := ReadRecord(f); err != nil {
			t.Errorf("redone record: %v", err)
		}
	}
	// Another epoch cap is another experiment: everything is redone.
	jobs, _ := tinyGrid(t, out, models...).MaxEpochs(9).Jobs()
	for _, j := range jobs {
		if done, _ := tinyGrid(t, out, models...).MaxEpochs(9).finished(j); done {
			t.Errorf("%v counted as finished under another epoch cap", j)
		}
	}
}

// TestShardMergeEqualsUnsharded runs a grid whole and in three shards: the
// shards write no tables, and merging them gives the same tables.
func TestShardMergeEqualsUnsharded(t *testing.T) {
	ctx := context.Background()
	models := []Model{APPNP, GPN, LOPGPN, CUQGCN}
	whole := t.TempDir()
	if _, err := tinyGrid(t, whole, models...).Run(ctx); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := range 3 {
		dir := t.TempDir()
		sum, err := tinyGrid(t, dir, models...).Shard(i, 3).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Complete {
			t.Errorf("shard %d/3 reports a complete grid", i)
		}
		if _, err := os.Stat(filepath.Join(dir, "tables")); err == nil {
			t.Errorf("shard %d/3 wrote tables", i)
		}
		shards = append(shards, dir)
	}
	merged := t.TempDir()
	res, err := Collect(shards...)
	if err != nil {
		t.Fatal(err)
	}
	must(t, res.WriteTables(merged))
	want, got := readTables(t, whole), readTables(t, merged)
	if len(want) < 3 {
		t.Fatalf("unsharded run wrote %d tables", len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s differs after merging shards:\n%.400s\nwant\n%.400s", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("merged %d tables, unsharded %d", len(got), len(want))
	}

	// Concurrent workers give the same results as one.
	parallel := t.TempDir()
	if _, err := tinyGrid(t, parallel, models...).Workers(3).Run(ctx); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		if got := readTables(t, parallel)[name]; got != w {
			t.Errorf("%s differs with 3 workers", name)
		}
	}
}

func TestCollectErrors(t *testing.T) {
	if _, err := Collect(); err == nil {
		t.Error("Collect(): no error")
	}
	dir := t.TempDir()
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "no runs directory") {
		t.Errorf("empty dir: %v", err)
	}
	must(t, os.MkdirAll(filepath.Join(dir, "runs"), 0o755))
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("no records: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// TestRunCancel interrupts a grid after its first job: Run returns the
// context's error and the finished record stays.
func TestRunCancel(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := tinyGrid(t, out, APPNP, CUQPPR).Progress(func(e Event) {
		if e.Kind == Finished {
			cancel()
		}
	}).Run(ctx)
	if err != context.Canceled || sum.Ran != 1 || sum.Complete {
		t.Fatalf("cancelled run: %+v, %v", sum, err)
	}
	records, _ := filepath.Glob(filepath.Join(out, "runs", "Tiny", "*", "*.json"))
	if len(records) != 1 {
		t.Errorf("%d records after cancelling, want 1", len(records))
	}
}

// A grid runs split by split, and within a split every model's clean
// training before the settings' own trainings.
func TestRunGoesSplitBySplit(t *testing.T) {
	var started []string
	_, err := tinyGrid(t, t.TempDir(), APPNP, GKDE).Progress(func(e Event) {
		if e.Kind == Started {
			started = append(started, e.Job.Path())
		}
	}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	job := func(m Model, split int, loc bool) string {
		j := Job{Dataset: "Tiny", Model: m, Split: split, Init: 1}
		if loc {
			j.Trained = LeaveOutClasses
		}
		return j.Path()
	}
	want := []string{
		job(APPNP, 1, false), job(GKDE, 1, false), job(APPNP, 1, true), job(GKDE, 1, true),
		job(APPNP, 2, false), job(GKDE, 2, false), job(APPNP, 2, true), job(GKDE, 2, true),
	}
	if !slices.Equal(started, want) {
		t.Errorf("jobs started in the order\n%s\nwant\n%s", strings.Join(started, "\n"), strings.Join(want, "\n"))
	}
}

// TestIndependentDropout runs a grid with each split's own dropout masks
// on the output of a grid without: the records of the other protocol are
// not reused (every job runs again), the new records and grid.json say
// IndependentDropout, and a run's training differs from the reference
// stream's (same init and split, other masks).
func TestIndependentDropout(t *testing.T) {
	out := t.TempDir()
	ctx := context.Background()
	if _, err := tinyGrid(t, out, GPN).Settings(Classification).Run(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := ReadRecord(filepath.Join(out, Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1}.Path()))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tinyGrid(t, out, GPN).Settings(Classification).IndependentDropout().Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 0 || sum.Ran != 2 || !strings.Contains(sum.PreviousGrid, "independent_dropout 0 and 1") {
		t.Errorf("summary: skipped %d, ran %d, previous grid %q", sum.Skipped, sum.Ran, sum.PreviousGrid)
	}
	after, err := ReadRecord(filepath.Join(out, Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1}.Path()))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ReadSpec(out)
	if err != nil {
		t.Fatal(err)
	}
	if !after.IndependentDropout || before.IndependentDropout || !spec.IndependentDropout {
		t.Errorf("independent dropout: record before %v, after %v, spec %v", before.IndependentDropout, after.IndependentDropout, spec.IndependentDropout)
	}
	if before.Results["classification"].ARC["TU"][50] == after.Results["classification"].ARC["TU"][50] && before.BestEpoch == after.BestEpoch {
		t.Error("the run trained alike with the reference's and the split's dropout stream")
	}
}

// The grid's models on one GCN share its training: a grid of GCN,
// MC-Dropout-GCN, Energy-GCN and Ensemble-GCN trains the GCN of each split
// once, every record holds what the job alone, without sharing, gives,
// and the report's runs table counts the trainings taken.
func TestGridSharesTrainings(t *testing.T) {
	var models []Model
	for _, name := range []string{"gcn", "mcd_gcn", "energy", "ens_gcn"} {
		m, err := ParseModel(name)
		must(t, err)
		models = append(models, m)
	}
	out := t.TempDir()
	d := tinyDataset(t, "Tiny")
	_, err := tinyGrid(t, out, models...).Dataset(d).Settings(Classification, GaussianNoise).Workers(2).Run(context.Background())
	must(t, err)
	for split := 1; split <= 2; split++ {
		shared := 0
		for _, m := range models {
			j := Job{Dataset: "Tiny", Model: m, Split: split, Init: 1, Settings: []Setting{Classification, GaussianNoise}}
			got, err := ReadRecord(filepath.Join(out, j.Path()))
			must(t, err)
			alone, err := RunJob(context.Background(), d, j, RunOptions{MaxEpochs: 8})
			must(t, err)
			shared += got.SharedTrainings
			if alone.SharedTrainings != 0 {
				t.Errorf("%v alone shared %d trainings", j, alone.SharedTrainings)
			}
			g, _ := json.Marshal(got.Results)
			a, _ := json.Marshal(alone.Results)
			if got.Epochs != alone.Epochs || got.BestEpoch != alone.BestEpoch || got.ValAccuracy != alone.ValAccuracy || !bytes.Equal(g, a) {
				t.Errorf("%v: the grid's record differs from the job's alone (epochs %d and %d, best %d and %d)",
					j, got.Epochs, alone.Epochs, got.BestEpoch, alone.BestEpoch)
			}
		}
		if shared != 3 {
			t.Errorf("split %d: the grid shared %d trainings, want 3 (MC dropout's, the energy score's, the ensemble's first member's)", split, shared)
		}
	}
	res, err := Collect(out)
	must(t, err)
	inCatalogue := slices.Sorted(slices.Values(models))
	if !slices.Equal(res.Present, inCatalogue) || len(res.Models) != 0 {
		t.Errorf("results of models %v (present %v), want none of the paper's and %v present", res.Models, res.Present, inCatalogue)
	}
	runs, err := res.RunTable()
	must(t, err)
	// Which of the models running at once trains the GCN is a race; the
	// number of trainings taken is not.
	last, total := len(runs.Header)-1, 0
	for _, row := range runs.Rows {
		n, err := strconv.Atoi(row[last])
		must(t, err)
		total += n
	}
	if runs.Header[last] != "Shared trainings" || total != 6 {
		t.Errorf("the runs table's last column %q sums to %d, want Shared trainings summing to 6", runs.Header[last], total)
	}
}
