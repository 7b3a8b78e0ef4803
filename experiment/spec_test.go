package experiment

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A grid run in a directory that holds the records of a larger grid
// (more splits, more models) writes the tables of its own runs only: the
// same tables as in a fresh directory. Before grids recorded their Spec,
// the leftover records were averaged in.
func TestRunTablesHoldOnlyTheGridsRuns(t *testing.T) {
	ctx := context.Background()
	shared := t.TempDir()
	if _, err := tinyGrid(t, shared, APPNP, GKDE).Run(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if _, err := tinyGrid(t, fresh, APPNP).Splits(1).Run(ctx); err != nil {
		t.Fatal(err)
	}
	sum, err := tinyGrid(t, shared, APPNP).Splits(1).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 0 || sum.Skipped != 2 || !sum.Complete {
		t.Errorf("the smaller grid reran jobs: %+v", sum)
	}
	if want := "splits 2 and 1; models appnp,gkde and appnp"; sum.PreviousGrid != want {
		t.Errorf("PreviousGrid %q, want %q", sum.PreviousGrid, want)
	}
	want, got := readTables(t, fresh), readTables(t, shared)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s in the shared directory differs from a fresh run's:\n%.300s\nwant\n%.300s", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && !strings.HasSuffix(name, "_Tiny.csv") {
			t.Errorf("extra table %s", name)
		}
	}
	spec, err := ReadSpec(shared)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Splits != 1 || !slices.Equal(spec.Models, []string{"appnp"}) || spec.MaxEpochs != 8 {
		t.Errorf("grid.json records %+v", spec)
	}
}

// Shards of grids that differ in splits, inits or epoch cap are not merged:
// Collect says what differs. Without grid.json files, records of different
// epoch caps are refused likewise.
func TestCollectRefusesMixedGrids(t *testing.T) {
	ctx := context.Background()
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	must2(t)(tinyGrid(t, a, GKDE).Shard(0, 2).Run(ctx))
	must2(t)(tinyGrid(t, b, GKDE).MaxEpochs(5).Shard(1, 2).Run(ctx))
	must2(t)(tinyGrid(t, c, GKDE).Splits(1).Inits(2).Shard(1, 2).Run(ctx))
	for _, dirs := range [][]string{{a, b}, {a, c}} {
		_, err := Collect(dirs...)
		want := map[string]string{b: "(max_epochs 8 and 5)", c: "(splits 2 and 1, inits 1 and 2)"}[dirs[1]]
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), dirs[1]) {
			t.Errorf("Collect(%v): %v, want %q", dirs, err, want)
		}
	}
	for _, dir := range []string{a, b} {
		must(t, os.Remove(filepath.Join(dir, SpecFile)))
	}
	if _, err := Collect(a, b); err == nil || !strings.Contains(err.Error(), "with max_epochs 8 and") || !strings.Contains(err.Error(), "with 5: their runs cannot be averaged together") {
		t.Errorf("Collect of spec-less directories with different epoch caps: %v", err)
	}
}

// must2 fails the test on the error of a two-result call.
func must2(t *testing.T) func(*Summary, error) {
	return func(_ *Summary, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A record copied over another run's file is skipped as damaged, naming
// the file, and that run is missing, instead of failing the merge with
// "recorded twice".
func TestCollectMisplacedRecord(t *testing.T) {
	out := t.TempDir()
	must2(t)(tinyGrid(t, out, GKDE).Run(context.Background()))
	src := filepath.Join(out, Job{Dataset: "Tiny", Model: GKDE, Split: 1, Init: 1}.Path())
	dst := filepath.Join(out, Job{Dataset: "Tiny", Model: GKDE, Split: 2, Init: 1}.Path())
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(dst, b, 0o644))
	for _, legacy := range []bool{false, true} {
		if legacy {
			must(t, os.Remove(filepath.Join(out, SpecFile)))
		}
		res, err := Collect(out)
		if err != nil {
			t.Fatalf("legacy %v: %v", legacy, err)
		}
		if len(res.Damaged) != 1 || res.Damaged[0].Path != dst || !strings.Contains(res.Damaged[0].Err.Error(), "holds the run Tiny GKDE split 1 init 1") {
			t.Errorf("legacy %v: damaged %v, want %s holding split 1", legacy, res.Damaged, dst)
		}
		if len(res.Records) != 3 {
			t.Errorf("legacy %v: %d records, want 3", legacy, len(res.Records))
		}
		if !legacy && (len(res.Missing) != 1 || res.Missing[0].Path() != filepath.Join("runs", "Tiny", "gkde", "s02_i01_clean.json")) {
			t.Errorf("missing %v, want split 2's clean job", res.Missing)
		}
	}
	// Run redoes it.
	sum, err := tinyGrid(t, out, GKDE).Run(context.Background())
	if err != nil || sum.Ran != 1 || !slices.Equal(sum.Redone, []string{dst}) {
		t.Errorf("rerun: %+v, %v", sum, err)
	}
}

// Whatever cannot be right is refused before the first epoch: an output
// directory that is a file, a dataset that does not load. Run used to train every job and then fail every write.
func TestRunChecksBeforeTraining(t *testing.T) {
	file := filepath.Join(t.TempDir(), "results")
	must(t, os.WriteFile(file, nil, 0o644))
	data := t.TempDir()
	must(t, os.WriteFile(filepath.Join(data, "cora_ml.npz"), []byte("not a zip"), 0o644))
	for _, c := range []struct {
		name string
		g    *Grid
		want string
	}{
		{"out is a file", tinyGrid(t, file, APPNP), "output directory: mkdir " + file + ": not a directory"},
		{"out below a file", tinyGrid(t, filepath.Join(file, "sub"), APPNP), "not a directory"},
		{"corrupt dataset", Paper().Datasets("CoraML").Models(GKDE).Splits(1).Inits(1).DataDir(data).Out(t.TempDir()), "cora_ml.npz: npz: not a valid zip archive"},
	} {
		started := 0
		_, err := c.g.Progress(func(e Event) {
			if e.Kind == Started {
				started++
			}
		}).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if started > 0 {
			t.Errorf("%s: %d jobs started", c.name, started)
		}
	}
}

func TestSpecRoundTripAndJobs(t *testing.T) {
	dir := t.TempDir()
	g := Paper().Datasets("CoraML", "arxiv").Models(GPN, LOPGPN).Settings(LeaveOutClasses, Classification).Splits(3).Inits(4).MaxEpochs(7).Shard(1, 3).Out(dir)
	spec, err := g.Spec()
	if err != nil {
		t.Fatal(err)
	}
	must(t, spec.write(dir))
	got := readBack(t, ReadSpec, dir, spec)
	want, _ := g.Jobs()
	jobs, err := got.Jobs()
	if err != nil || !reflect.DeepEqual(jobs, want) {
		t.Errorf("the recorded spec gives %d jobs (%v), the grid %d", len(jobs), err, len(want))
	}
	// CoraML: 2 models × 3 splits × 4 inits; arxiv: GPN 1 × 4, LOP-GPN 1 × 2.
	if len(jobs) != 2*(2*3*4+4+2) {
		t.Errorf("%d jobs", len(jobs))
	}
	if _, err := ReadSpec(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("directory without grid.json: %v", err)
	}
	for _, c := range []struct {
		change func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Version = 2 }, "version 2, want 1"},
		{func(s *Spec) { s.Splits = 0 }, "splits 0"},
		{func(s *Spec) { s.Models = append(s.Models, "gpn") }, "model GPN given twice"},
		{func(s *Spec) { s.Settings = []string{"shuffle"} }, `unknown setting "shuffle"`},
		{func(s *Spec) { s.Datasets[0].Name = "../x" }, `dataset name "../x"`},
		{func(s *Spec) { s.Shard = 3 }, "shard 3/3"},
	} {
		s := *spec
		s.Datasets = slices.Clone(spec.Datasets)
		c.change(&s)
		must(t, s.write(dir))
		if _, err := ReadSpec(dir); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), SpecFile) {
			t.Errorf("%v, want %q naming the file", err, c.want)
		}
	}
}

// A grid.json written with the reference's setting names reads as today's,
// so that resuming such a grid does not report a different grid.
func TestReadSpecWithReferenceKeys(t *testing.T) {
	dir := t.TempDir()
	spec, err := Paper().Datasets("CoraML").Settings(Classification, GaussianNoise).Out(dir).Spec()
	if err != nil {
		t.Fatal(err)
	}
	spec.Settings = []string{"classification", "ood_features_normal"}
	must(t, spec.write(dir))
	got, err := ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Settings, []string{"classification", "gaussian"}) {
		t.Errorf("settings %v, want classification, gaussian", got.Settings)
	}
}
