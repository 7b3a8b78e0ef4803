// Package experiment runs the paper's experiment grid: every model of the
// paper on every dataset, split and initialisation, in the settings
// classification, leave-out classes, Gaussian and Bernoulli feature noise,
// set up and evaluated as the reference implementation does. Each training
// run is a Job whose Record is written atomically as a JSON file as soon as
// it finishes, so an interrupted grid resumes where it stopped. The jobs
// can be sharded over machines (Grid.Shard, with the shard read from a
// Slurm job array's or a Kubernetes Indexed Job's environment by
// cluster.ShardFromEnv) and the records merged, or any number of workers on any
// machines can share one output directory and claim its jobs one by one
// (Grid.Claim). The grid's Spec (datasets, models, settings, splits,
// inits, epoch cap) is recorded beside its runs, so that Collect
// aggregates the runs of that grid and nothing else into the reference's
// tables (id_ood.csv, acc_rej_<type>_<dataset>.csv), a Markdown table and
// an HTML report with the accuracy-rejection figure, and refuses to merge
// shards of grids run differently.
//
//	sum, err := experiment.Paper().Datasets("CoraML").Splits(10).Inits(1).
//		DataDir(dir).Out("results").Run(ctx)
package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// Grid is the specification of an experiment grid; build it with Paper and
// its fluent options, then call Run. Option errors are reported by Jobs and
// Run.
type Grid struct {
	names     []string
	namesSet  bool
	memory    map[string]*Dataset
	models    []Model
	settings  []Setting
	splits    int
	inits     int
	dataDir   string
	out       string
	shard     int
	shards    int
	maxEpochs int
	// independentDropout gives every split its own dropout masks.
	independentDropout bool
	workers            int
	lease              time.Duration
	progress           func(Event)
	report             ReportOptions
	err                error
}

// Paper returns the paper's grid: the six benchmark datasets, the seven
// models, the four settings, 10 splits and 10 initialisations (the
// reference's num_splits and num_inits; OGBN Arxiv has one split, GKDE one
// init), data from datasets.Dir(), results in the directory "results".
func Paper() *Grid {
	return &Grid{
		names:    datasets.PaperNames(),
		memory:   map[string]*Dataset{},
		models:   slices.Clone(AllModels),
		settings: slices.Clone(AllSettings),
		splits:   10, inits: 10,
		dataDir: datasets.Dir(), out: "results",
		shards: 1,
	}
}

func (g *Grid) fail(format string, args ...any) *Grid {
	if g.err == nil {
		g.err = fmt.Errorf("experiment: "+format, args...)
	}
	return g
}

// Datasets sets the benchmark datasets by name (see datasets.Names; also
// SyntheticName), in the order of the tables.
func (g *Grid) Datasets(names ...string) *Grid {
	if len(names) == 0 {
		return g.fail("no datasets")
	}
	g.names, g.namesSet = g.names[:0], true
	for _, n := range names {
		name := SyntheticName
		if !isSynthetic(n) {
			spec, err := datasets.Info(n)
			if err != nil {
				if g.err == nil {
					g.err = fmt.Errorf("experiment: %w", err)
				}
				return g
			}
			name = spec.Name
		}
		if slices.Contains(g.names, name) {
			return g.fail("dataset %s given twice", name)
		}
		g.names = append(g.names, name)
	}
	return g
}

// Dataset adds an in-memory dataset (see NewDataset), replacing one of the
// same name. Unless Datasets was called before, it replaces the paper's
// datasets: Paper().Dataset(d) runs on d alone.
func (g *Grid) Dataset(d *Dataset) *Grid {
	if d == nil || d.Graph == nil {
		return g.fail("nil dataset")
	}
	if !g.namesSet {
		g.names, g.namesSet = g.names[:0], true
	}
	g.memory[d.Name] = d
	if !slices.Contains(g.names, d.Name) {
		g.names = append(g.names, d.Name)
	}
	return g
}

// Models sets the models.
func (g *Grid) Models(models ...Model) *Grid {
	if err := checkChoice(models, "model", func(m Model) bool { return m >= 0 && m < numModels }); err != nil {
		return g.fail("%v", err)
	}
	g.models = slices.Clone(models)
	return g
}

// Settings sets the settings.
func (g *Grid) Settings(settings ...Setting) *Grid {
	if err := checkChoice(settings, "setting", Setting.known); err != nil {
		return g.fail("%v", err)
	}
	g.settings = slices.Clone(settings)
	return g
}

// checkChoice checks the values of an option that chooses among known
// values (Models, Settings): each known, at least one, none twice.
func checkChoice[T comparable](values []T, what string, known func(T) bool) error {
	for _, v := range values {
		if !known(v) {
			return fmt.Errorf("unknown %s %v", what, v)
		}
	}
	if len(values) == 0 {
		return fmt.Errorf("no %ss", what)
	}
	return distinct(values, what)
}

// distinct returns an error naming the first value that repeats.
func distinct[T comparable](values []T, what string) error {
	for i, v := range values {
		if slices.Contains(values[:i], v) {
			return fmt.Errorf("%s %v given twice", what, v)
		}
	}
	return nil
}

// Workers sets how many jobs run at once (default 1), at most MaxWorkers.
// Jobs are independent; on a few cores two workers keep the cores busy
// through the serial parts of a training epoch.
func (g *Grid) Workers(n int) *Grid { return g.setCount(&g.workers, n, "workers %d") }

// MaxWorkers is the most jobs Run runs at once, whatever Workers says:
// twice GOMAXPROCS. A training epoch already uses every core, so more jobs
// at once do not finish sooner; each holds its model, optimiser state and
// activations (tens of MB for CUQ-GAT on CoraML, see
// docs/records/performance.md), and thousands of them exhausted the memory.
func MaxWorkers() int { return 2 * runtime.GOMAXPROCS(0) }

// Splits sets the number of random splits 1..n (the paper: 10).
func (g *Grid) Splits(n int) *Grid { return g.setCount(&g.splits, n, "%d splits") }

// Inits sets the number of initialisations 1..n per split (the paper: 10;
// its quick grid: 1).
func (g *Grid) Inits(n int) *Grid { return g.setCount(&g.inits, n, "%d inits") }

// setCount sets *field to n, which must be at least 1; what formats n in
// the error.
func (g *Grid) setCount(field *int, n int, what string) *Grid {
	if n < 1 {
		return g.fail(what+", need at least 1", n)
	}
	*field = n
	return g
}

// DataDir sets the directory holding the dataset files.
func (g *Grid) DataDir(dir string) *Grid { g.dataDir = dir; return g }

// Out sets the output directory: records go to OUT/runs, tables to
// OUT/tables, the report to OUT/report.html.
func (g *Grid) Out(dir string) *Grid { g.out = dir; return g }

// Shard makes Run do only shard i of n (0 ≤ i < n): the jobs whose index
// in the canonical order of Jobs is i modulo n. The shards partition the
// grid; they may share one output directory or merge theirs with
// Collect. cluster.ShardFromEnv reads i and n from a batch scheduler's
// environment. Shard and Claim exclude each other.
func (g *Grid) Shard(i, n int) *Grid {
	if n < 1 || i < 0 || i >= n {
		return g.fail("shard %d/%d, want 0 ≤ i < n", i, n)
	}
	if g.lease > 0 && n > 1 {
		return g.fail("shard %d/%d of a claiming grid: claiming workers take their jobs from the whole grid", i, n)
	}
	g.shard, g.shards = i, n
	return g
}

// Claim makes Run one of any number of workers (processes on this or
// other machines, each with its own Workers goroutines) that run the grid
// together into one output directory, with no fixed shares: before it
// runs a job, a worker claims it with a claim file in the output
// directory that it renews while the job runs, four times per lease
// (cluster.DefaultLease is a good choice). No two workers run a job at once; a
// job whose claim was not renewed for longer than its lease (its worker
// died) is taken over by another worker, as is a job whose claim file is
// damaged. Run returns when every job of the grid has a record, waiting
// for the jobs that other workers run, or when the jobs left failed in
// this Run. The workers must run the same grid and their machines' clocks
// must agree to well within a lease; the output directory's file system
// must support hard links (local disks, NFS, Lustre and CephFS do). The
// lease must be at least cluster.MinLease. A claim renewed further in the future
// than its lease (the clocks disagree) is taken over at once, with a
// reason saying so. Claim and Shard exclude each other.
func (g *Grid) Claim(lease time.Duration) *Grid {
	if lease < cluster.MinLease {
		return g.fail("claim lease %v is below the minimum of %v: claims are renewed four times per lease, and shorter leases expire before a loaded machine renews them", lease, cluster.MinLease)
	}
	if g.shards > 1 {
		return g.fail("claims in shard %d/%d: claiming workers take their jobs from the whole grid", g.shard, g.shards)
	}
	g.lease = lease
	return g
}

// MaxEpochs caps the training epochs of every model (0: the presets'
// 100000 with early stopping), for quick runs and tests. Records remember
// the cap, and a grid with another cap redoes them.
func (g *Grid) MaxEpochs(n int) *Grid {
	if n < 0 {
		return g.fail("max epochs %d", n)
	}
	g.maxEpochs = n
	return g
}

// IndependentDropout gives every split its own dropout masks
// (cuq.Seeding's Stream, the split's number), where the
// reference, and the grid by default, draws the same masks in every run
// of an init. It departs from the reference's protocol: it is for studying
// how often a model's training fails with its masks (GPN on Amazon Photos,
// see docs/records/faithfulness.md), with as many independent streams as
// runs. The grid's records and Spec say so, and grids with and without it
// do not share records or merge.
func (g *Grid) IndependentDropout() *Grid { g.independentDropout = true; return g }

// Progress calls fn on every event of Run, from Run's goroutine.
func (g *Grid) Progress(fn func(Event)) *Grid { g.progress = fn; return g }

// Report sets how Run writes the HTML report.
func (g *Grid) Report(o ReportOptions) *Grid { g.report = o; return g }

// fixedSplit reports whether the dataset has one official split (OGBN
// Arxiv, or an in-memory dataset with Official set).
func (g *Grid) fixedSplit(name string) bool {
	d, ok := g.memory[name]
	spec, _ := record(name)
	return (ok && d.Official != nil) || spec.HasOfficialSplit()
}

// Jobs returns every job of the grid in the canonical order (see
// Spec.Jobs); sharding indexes this order.
func (g *Grid) Jobs() ([]Job, error) {
	s, err := g.Spec()
	if err != nil {
		return nil, err
	}
	return s.Jobs()
}

// ShardJobs returns the jobs of the grid's shard (all jobs without Shard).
func (g *Grid) ShardJobs() ([]Job, error) {
	jobs, err := g.Jobs()
	if err != nil {
		return nil, err
	}
	var mine []Job
	for i, j := range jobs {
		if i%g.shards == g.shard {
			mine = append(mine, j)
		}
	}
	return mine, nil
}

// EventKind says what an Event reports.
type EventKind int

// The events of Run.
const (
	// Planned: the jobs to run are known (Total), Skipped were finished
	// before.
	Planned EventKind = iota
	// Started: Job starts.
	Started
	// Finished: Job's record is written.
	Finished
	// Failed: Job failed with Err; the grid goes on.
	Failed
	// TakenOver: a claiming grid (Claim) takes Job over from another
	// worker; Note says why (its lease expired, its claim file is
	// damaged). Started follows.
	TakenOver
	// Abandoned: a claiming grid stopped running Job because another
	// worker took it over (Note says which); it waits for that worker.
	Abandoned
	// Waiting: every job left is claimed by another worker; a claiming
	// grid waits for them (Note says how many and which).
	Waiting
)

// Event reports the progress of Run.
type Event struct {
	Kind EventKind
	Job  Job
	// Done counts the jobs finished or failed so far in this run; in a
	// claiming grid, also those other workers finished.
	Done    int
	Total   int // jobs to run in this run (claiming: left in the grid)
	Skipped int // jobs already finished before
	Err     error
	Elapsed time.Duration // of the job (Finished, Failed)
	Note    string        // what happened (TakenOver, Abandoned, Waiting)
}

// Summary is the outcome of Run.
type Summary struct {
	Jobs    int      // jobs of this shard
	Skipped int      // already finished, not redone
	Ran     int      // trained and written now
	Redone  []string // damaged records found and redone (their jobs finished)
	Failed  []error  // jobs that failed (no record written)
	// Complete reports that every job of the whole grid (all shards) has a
	// record in the output directory; Run then wrote the tables and the
	// report.
	Complete bool
	// PreviousGrid says how the grid recorded in the output directory
	// before this run differed from this one ("" when it did not or there
	// was none). Its records are reused where they belong to this grid;
	// the tables hold this grid's runs only.
	PreviousGrid string
	// Elsewhere counts, in a claiming grid, the jobs that other workers
	// finished during this run.
	Elsewhere int
	// TakenOver lists, in a claiming grid, the jobs this run took over
	// from other workers, each with the reason.
	TakenOver []string
}

// Run runs the grid's (shard's) jobs that have no finished record in the
// output directory, writing each record as soon as its job ends. Within a
// dataset it runs them split by split and init by init, all models of one
// run before the next, so that the first finished jobs (and a progress
// estimate built on them) sample every model. A failed job is reported
// and the others go on; Run returns an error listing the failures at the
// end, and a rerun retries them. A cancelled ctx stops Run after the
// current epoch with ctx's error; finished records are kept. When the whole
// grid has records, Run writes OUT/tables and OUT/report.html from the
// records of the grid's jobs (see Collect, Results.WriteTables and
// Results.WriteReport); records that other grids left in OUT are not
// counted. Shards and claiming workers that share OUT may each write the
// tables when they find the grid complete; the files are replaced
// atomically with the same contents.
//
// In a claiming grid (Claim) each of the Workers goroutines claims the
// next job in run order that has neither a record nor a live claim, and
// Run returns when every job has a record, or only jobs that failed here
// are left; meanwhile it waits for the jobs other workers run, to take
// over those whose claims expire.
//
// A record that cannot be written (a full disk) stops Run: no other job
// starts, and Run returns an error saying to free space and rerun.
//
// Before the first epoch Run checks what it can: it records the grid's
// Spec in OUT/grid.json (so an output directory that cannot be written
// fails at once), the report's ECharts file must be readable, and every
// dataset the jobs need is loaded. While it runs, Run holds a lock on
// OUT/.grid.lock that tells other grids it uses OUT: a grid with other
// jobs (another epoch cap, other splits, models, ...) started meanwhile
// on OUT is refused before it changes anything, while grids with the
// same jobs (shards, claiming workers) share OUT. The lock ends with the
// process, however it ends, so a killed grid never blocks OUT.
func (g *Grid) Run(ctx context.Context) (*Summary, error) {
	spec, err := g.Spec()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, err := g.plan(ctx)
	if err != nil {
		return x.sum, err
	}
	release, err := g.prepare(ctx, spec, x)
	if err != nil {
		return x.sum, err
	}
	defer release()
	x.run(ctx)
	sum := x.sum
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if x.unsaved != nil {
		return sum, fmt.Errorf("experiment: stopped after a record could not be saved; free space on the disk of %s (or make it writable) and rerun to go on, the finished records are kept: %w", g.out, x.unsaved)
	}
	if sum.Complete, err = g.complete(spec); err != nil {
		return sum, err
	}
	if sum.Complete {
		if err := g.writeResults(spec); err != nil {
			return sum, err
		}
	}
	if len(sum.Failed) > 0 {
		return sum, fmt.Errorf("experiment: %d of %d jobs failed: %w", len(sum.Failed), len(x.todo), errors.Join(sum.Failed...))
	}
	return sum, nil
}

// plan returns the execution of the grid's shard: the jobs without a
// finished record, in run order (runOrder), and the damaged records
// among theirs. It stops on ctx, checked every 256 jobs, for looking for
// 100,000 records takes seconds.
func (g *Grid) plan(ctx context.Context) (*execution, error) {
	jobs, err := g.ShardJobs()
	if err != nil {
		return &execution{}, err
	}
	x := &execution{g: g, sum: &Summary{Jobs: len(jobs)}, damagedAt: map[string]string{}}
	for i, j := range jobs {
		if i%256 == 0 && ctx.Err() != nil {
			return x, ctx.Err()
		}
		done, damaged := g.finished(j)
		if done {
			x.sum.Skipped++
			continue
		}
		if damaged != "" {
			x.damagedAt[j.Path()] = damaged
		}
		x.todo = append(x.todo, j)
	}
	x.todo = runOrder(x.todo)
	return x, nil
}

// prepare checks before the first epoch what can fail early: every
// dataset file the jobs need is there, the output directory takes the
// grid's Spec (and its lock, which release gives back), and every dataset
// loads.
func (g *Grid) prepare(ctx context.Context, spec *Spec, x *execution) (release func(), err error) {
	for _, j := range x.todo {
		if _, ok := g.memory[j.Dataset]; !ok && j.Dataset != SyntheticName {
			if _, err := datasetFile(j.Dataset, g.dataDir); err != nil {
				return nil, err
			}
		}
	}
	previous, release, err := g.prepareOut(spec)
	if err != nil {
		return nil, err
	}
	x.sum.PreviousGrid = previous
	x.loader = &datasetCache{dir: g.dataDir, memory: g.memory, loaded: map[string]*Dataset{}}
	x.trainings = cuq.NewTrainingCache(sharedTrainingsBudget)
	for _, j := range x.todo {
		if err := x.loader.load(ctx, j.Dataset); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// complete reports whether every job of the grid, all shards, has a
// finished record.
func (g *Grid) complete(spec *Spec) (bool, error) {
	all, err := spec.Jobs()
	if err != nil {
		return false, err
	}
	return !slices.ContainsFunc(all, func(j Job) bool { done, _ := g.finished(j); return !done }), nil
}

// writeResults writes the tables and the report of the complete grid.
func (g *Grid) writeResults(spec *Spec) error {
	res, err := collectGrid([]*Spec{spec}, []string{g.out})
	if err != nil {
		return err
	}
	if err := res.WriteTables(g.out); err != nil {
		return err
	}
	return res.WriteReport(g.out, g.report)
}

// prepareOut creates the output directory and its runs directory, checks
// that no running grid with other jobs uses it, and records spec in it
// (see Grid.own), returning how the grid recorded there before differed
// ("" if it did not, or there was none) and release, which gives the
// directory up.
func (g *Grid) prepareOut(spec *Spec) (previous string, release func(), err error) {
	runs := filepath.Join(g.out, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return "", nil, fmt.Errorf("experiment: output directory: %w", err)
	}
	// Records are written below runs: make sure files can be created there.
	probe, err := os.CreateTemp(runs, ".probe*")
	if err != nil {
		return "", nil, fmt.Errorf("experiment: output directory: %w", err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return g.own(spec)
}

// runOrder orders jobs for running: dataset by dataset as given, within a
// dataset split by split and init by init, every model of a run before the
// next run, and within a run the clean graph's models first, then each
// setting's own models, so that the models that share a training (the
// grid's GCN, MC dropout, the energy scores and the first member of the
// GCN ensemble; see cuq.TrainingCache) run close together. The canonical
// order (Jobs) is model by model; the models'
// costs differ several times over (APPNP trains for thousands of epochs on
// the Amazon graphs, GKDE does not train), so running it in that order
// would make a progress estimate extrapolate from the slowest or fastest
// model. Run by run, the first finished jobs are a sample of the whole
// grid, and an interrupted grid leaves every model with the same splits
// finished.
func runOrder(jobs []Job) []Job {
	datasetRank := map[string]int{}
	for _, j := range jobs {
		if _, ok := datasetRank[j.Dataset]; !ok {
			datasetRank[j.Dataset] = len(datasetRank)
		}
	}
	ordered := slices.Clone(jobs)
	slices.SortStableFunc(ordered, func(a, b Job) int {
		return cmp.Or(cmp.Compare(datasetRank[a.Dataset], datasetRank[b.Dataset]),
			cmp.Compare(a.Split, b.Split), cmp.Compare(a.Init, b.Init), cmp.Compare(a.Trained, b.Trained))
	})
	return ordered
}

// finished reports whether j has a finished record in the output
// directory; damaged names a record file that exists but cannot be used
// (unreadable, or holding another run).
func (g *Grid) finished(j Job) (done bool, damaged string) {
	path := filepath.Join(g.out, j.Path())
	if _, err := os.Stat(path); err != nil {
		return false, ""
	}
	r, err := readRecordOf(path, j)
	if err != nil {
		return false, path
	}
	return r.covers(j, g.maxEpochs, g.independentDropout), ""
}

// datasetCache loads each dataset once for all workers.
type datasetCache struct {
	mu     sync.Mutex
	dir    string
	memory map[string]*Dataset
	loaded map[string]*Dataset
}

func (c *datasetCache) get(name string) (*Dataset, error) {
	if d, ok := c.memory[name]; ok {
		return d, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.loaded[name]; ok {
		return d, nil
	}
	d, err := LoadDataset(name, c.dir)
	if err != nil {
		return nil, err
	}
	c.loaded[name] = d
	return d, nil
}

// load loads the named dataset into the cache, returning ctx's error as
// soon as ctx is done: a dataset file takes seconds to parse, and an
// interrupt must not wait for it (the load goes on in the background and
// is dropped).
func (c *datasetCache) load(ctx context.Context, name string) error {
	errc := make(chan error, 1)
	go func() {
		_, err := c.get(name)
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runOne runs the job on its (cached) dataset, sharing trainings with the
// grid's other jobs through trainings, and writes its record. With
// a claim c it renews c while the job runs, abandons the job (with an
// error wrapping cluster.ErrLost) when c passes to another worker, and
// releases c at the end.
func (g *Grid) runOne(ctx context.Context, datasets *datasetCache, trainings *cuq.TrainingCache, j Job, c *cluster.Claim) error {
	if c != nil {
		defer c.Release()
		var stop func()
		ctx, stop = c.Keep(ctx)
		defer stop()
	}
	d, err := datasets.get(j.Dataset)
	if err != nil {
		return err
	}
	rec, err := RunJob(ctx, d, j, RunOptions{MaxEpochs: g.maxEpochs, IndependentDropout: g.independentDropout, Trainings: trainings})
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, cluster.ErrLost) {
		return fmt.Errorf("experiment: %v: %w", j, cause)
	}
	if err != nil {
		return err
	}
	if c != nil {
		if err := c.Check(); err != nil {
			return fmt.Errorf("experiment: %v: %w", j, err)
		}
	}
	if err := WriteRecord(filepath.Join(g.out, j.Path()), rec); err != nil {
		return &saveError{err}
	}
	return nil
}

// sharedTrainingsBudget is the memory a grid gives the trainings its jobs
// share (cuq.TrainingCache). A training takes 1.5 MB on CoraML (its first
// layer, 2,879 features × 64, and its history), so 64 MiB holds about 40:
// more than run order (runOrder) puts between the models of one network,
// while a grid whose trainings are not shared (the paper's) grows by no
// more than that.
const sharedTrainingsBudget = 64 << 20

// saveError is the error of a job whose record could not be written.
type saveError struct{ err error }

func (e *saveError) Error() string { return e.err.Error() }
func (e *saveError) Unwrap() error { return e.err }
