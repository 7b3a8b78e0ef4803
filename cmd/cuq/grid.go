package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// runGrid runs the grid subcommand.
func runGrid(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseGrid(args, os.LookupEnv, stderr)
	if err != nil {
		return err
	}
	p := &gridProgress{w: stderr, quiet: cfg.quiet, bar: isTerminal(stderr) && !cfg.quiet}
	if !cfg.quiet {
		if err := printPlan(stderr, cfg); err != nil {
			return err
		}
	}
	sum, err := cfg.grid.Progress(p.event).Run(ctx)
	p.finish()
	if sum != nil && sum.PreviousGrid != "" {
		fmt.Fprintf(stderr, "notice: %s held the runs of another grid (%s); its runs are reused where they belong to this grid, the tables hold this grid's runs only\n", cfg.out, sum.PreviousGrid)
	}
	if sum != nil && (sum.Ran > 0 || sum.Skipped > 0 || sum.Elsewhere > 0 || len(sum.Failed) > 0) {
		if cfg.claim {
			fmt.Fprintf(stdout, "%d jobs: %d already finished, %d run now, %d run by other workers, %d failed\n", sum.Jobs, sum.Skipped, sum.Ran, sum.Elsewhere, len(sum.Failed))
		} else {
			fmt.Fprintf(stdout, "%d jobs: %d already finished, %d run now, %d failed\n", sum.Jobs, sum.Skipped, sum.Ran, len(sum.Failed))
		}
		for _, path := range sum.Redone {
			fmt.Fprintf(stdout, "redone damaged record %s\n", path)
		}
		for _, t := range sum.TakenOver {
			fmt.Fprintf(stdout, "took over %s\n", t)
		}
		switch {
		case sum.Complete && err == nil:
			fmt.Fprintf(stdout, "tables in %s/tables, report %s/report.html\n", cfg.out, cfg.out)
		case cfg.shard != "" && err == nil:
			fmt.Fprintf(stdout, "shard %s done; when all shards are done run: cuq merge -out OUT DIR...\n", cfg.shard)
		}
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("grid interrupted; finished runs are kept in %s/runs, rerun the same command to resume", cfg.out)
	}
	return err
}

// printPlan prints the grid's size at once, before Run looks for finished
// records (seconds for a large grid) and loads the datasets.
func printPlan(w io.Writer, cfg *gridConfig) error {
	spec, err := cfg.grid.Spec()
	if err != nil {
		return err
	}
	n, err := spec.NumJobs()
	if err != nil {
		return err
	}
	part := ""
	if cfg.shard != "" {
		part = fmt.Sprintf(", shard %s runs %d of them", cfg.shard, (n+spec.Shards-1-spec.Shard)/spec.Shards)
	}
	fmt.Fprintf(w, "grid: %d jobs (%d datasets, %d models, %d splits, %d inits; settings %s) in %s%s; looking for finished records and loading the data\n",
		n, len(spec.Datasets), len(spec.Models), spec.Splits, spec.Inits, strings.Join(spec.Settings, ", "), cfg.out, part)
	return nil
}

// gridConfig is a parsed grid command line.
type gridConfig struct {
	grid  *experiment.Grid
	out   string
	shard string // "i/n" of a sharded grid
	claim bool
	quiet bool
}

// parseGrid parses the grid command's flags into a grid whose every
// option is checked (experiment.Grid.Spec), so that a bad flag is an error
// before anything runs. Without -datasets the grid runs the paper's
// datasets present in -data, or the synthetic graph (with a notice on
// stderr) when none is. lookupEnv (os.LookupEnv) gives the environment,
// where a batch scheduler may have set the shard (see gridShard).
func parseGrid(args []string, lookupEnv func(string) (string, bool), stderr io.Writer) (*gridConfig, error) {
	fs := newFlagSet("grid", "[flags]", stderr)
	dataDir := fs.String("data", datasets.Dir(), "directory holding the dataset files")
	dsList := fs.String("datasets", "", "comma-separated datasets ("+strings.Join(datasets.Names(), ", ")+", "+experiment.SyntheticName+", or paths: .npz files, directories of CSV files, OGB directories); default: the paper's datasets present in -data, or the synthetic graph when none is")
	modelList := fs.String("models", strings.Join(experiment.Keys(experiment.AllModels), ","),
		"comma-separated models: the paper's (default), or also "+strings.Join(experiment.Keys(experiment.ExtendedModels), ", "))
	settingList := fs.String("settings", strings.Join(experiment.Names(experiment.AllSettings), ","),
		"comma-separated settings: the paper's (default), or also "+strings.Join(experiment.Names(experiment.ExtendedSettings), ", "))
	splits := fs.Int("splits", 10, "number of random splits")
	inits := fs.Int("inits", 10, "number of initialisations per split")
	out := fs.String("out", "results", "output directory")
	shard := fs.String("shard", "", "run only shard i of n, given as i/n with 0 ≤ i < n, or auto: the shard the environment assigns (a Slurm job array's SLURM_ARRAY_TASK_ID, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX of CUQ_SHARD_COUNT); without -shard the environment's shard if it sets one, else the whole grid")
	claim := fs.Bool("claim", false, "share -out with other workers of the same grid, here or on other machines: claim each job before running it, wait for the jobs of other workers and take over those whose claims expire")
	lease := fs.Duration("lease", cluster.DefaultLease, "with -claim: how long a claim lasts without renewal (renewed four times per lease) before another worker takes its job over; at least "+cluster.MinLease.String())
	maxEpochs := fs.Int("max-epochs", 0, "cap on training epochs (0: the paper's early stopping only)")
	independent := fs.Bool("independent-dropout", false, "give every split its own dropout masks (the reference draws the same masks on every split of an init; a departure from its protocol, for studying how often training fails)")
	report := reportFlag(fs)
	jobs := fs.Int("jobs", 1, "jobs run at once")
	quiet := fs.Bool("quiet", false, "no progress output")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if *out == "" {
		return nil, fmt.Errorf("grid: -out must name a directory")
	}
	if *jobs > experiment.MaxWorkers() {
		fmt.Fprintf(stderr, "notice: -jobs %d: running at most %d jobs at once (twice the %d CPUs in use); more would only add memory\n", *jobs, experiment.MaxWorkers(), runtime.GOMAXPROCS(0))
	}
	models, err := experiment.ParseModels(*modelList)
	if err != nil {
		return nil, err
	}
	settings, err := experiment.ParseSettings(*settingList)
	if err != nil {
		return nil, err
	}
	g := experiment.Paper()
	if err := gridDatasets(g, *dsList, flagSet(fs, "datasets"), *dataDir, stderr); err != nil {
		return nil, err
	}
	g.Models(models...).Settings(settings...).
		Splits(*splits).Inits(*inits).DataDir(*dataDir).Out(*out).MaxEpochs(*maxEpochs).Workers(*jobs).
		Report(*report)
	if *independent {
		g.IndependentDropout()
	}
	cfg := &gridConfig{grid: g, out: *out, claim: *claim, quiet: *quiet}
	if err := cfg.distribute(*shard, *lease, flagSet(fs, "lease"), lookupEnv, stderr); err != nil {
		return nil, err
	}
	if _, err := g.Spec(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// gridDatasets adds the datasets of -datasets to g: registry names, and
// paths loaded here; without the flag the paper's datasets present in
// dataDir, or the synthetic graph when none is.
func gridDatasets(g *experiment.Grid, list string, given bool, dataDir string, stderr io.Writer) error {
	names := splitComma(list)
	if len(names) == 0 && given {
		return fmt.Errorf("grid: -datasets %q names no dataset", list)
	}
	if len(names) == 0 {
		names = experiment.Available(dataDir, datasets.PaperNames()...)
		if len(names) == 0 {
			fmt.Fprintf(stderr, "notice: no dataset files in %s; running on the synthetic CoraML-like graph (pass -data DIR for the real data, or run \"cuq download\")\n", dataDir)
			names = []string{experiment.SyntheticName}
		}
	}
	var registered []string
	for _, name := range names {
		if !isPath(name) {
			registered = append(registered, name)
		}
	}
	if len(registered) > 0 {
		g.Datasets(registered...)
	}
	for _, name := range names {
		if isPath(name) {
			d, err := pathDataset(name, stderr)
			if err != nil {
				return err
			}
			g.Dataset(d)
		}
	}
	return nil
}

// distribute says how the grid's jobs are shared: claimed by workers of
// one output directory (-claim, with its -lease), or run as the shard of
// -shard or of the environment (see gridShard).
func (cfg *gridConfig) distribute(shard string, lease time.Duration, leaseGiven bool, lookupEnv func(string) (string, bool), stderr io.Writer) error {
	g := cfg.grid
	switch {
	case cfg.claim:
		if shard != "" {
			return fmt.Errorf("grid: -shard %s and -claim exclude each other: claiming workers take their jobs from the whole grid", shard)
		}
		if lease < cluster.MinLease {
			return fmt.Errorf("grid: -lease %v is below the minimum of %v: claims are renewed four times per lease, and shorter leases expire before a loaded machine renews them (across machines use minutes)", lease, cluster.MinLease)
		}
		if env, err := cluster.ShardFromEnv(lookupEnv); env != nil || err != nil {
			fmt.Fprintln(stderr, "notice: -claim: this worker takes its jobs from the whole grid; the environment's shard variables are ignored")
		}
		g.Claim(lease)
	case leaseGiven:
		return fmt.Errorf("grid: -lease needs -claim")
	default:
		sh, err := gridShard(shard, lookupEnv)
		if err != nil {
			return err
		}
		if sh != nil {
			if sh.Source != "" {
				fmt.Fprintf(stderr, "notice: running shard %v of the %s\n", sh, sh.Source)
			}
			g.Shard(sh.Index, sh.Count)
			cfg.shard = sh.String()
		}
	}
	return nil
}

// gridShard returns the shard a grid runs, nil for the whole grid, from
// the -shard flag and the environment (cluster.ShardFromEnv):
//
//   - -shard i/n runs shard i of n; when the environment sets a shard it
//     must be the same one;
//   - -shard auto runs the environment's shard, which must be set;
//   - without -shard the grid runs the environment's shard if it sets one,
//     else the whole grid.
//
// An environment whose shard variables are partial, malformed or out of
// range is an error in all three cases. The shard's Source is empty when
// it came from the flag alone.
func gridShard(flag string, lookupEnv func(string) (string, bool)) (*cluster.Shard, error) {
	env, err := cluster.ShardFromEnv(lookupEnv)
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	switch flag {
	case "":
		return env, nil
	case "auto":
		if env == nil {
			return nil, fmt.Errorf("grid: -shard auto: the environment sets no shard (neither %s of a Slurm job array nor %s of a Kubernetes Indexed Job)",
				cluster.SlurmTaskIDVar, cluster.KubernetesIndexVar)
		}
		return env, nil
	}
	i, n, err := parseShard(flag)
	if err != nil {
		return nil, err
	}
	if env != nil && (env.Index != i || env.Count != n) {
		return nil, fmt.Errorf("grid: -shard %d/%d conflicts with shard %v of the %s; drop -shard to run the environment's shard", i, n, env, env.Source)
	}
	return &cluster.Shard{Index: i, Count: n}, nil
}

// parseShard parses "i/n" with 0 ≤ i < n.
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("grid: -shard %q: want i/n with 0 ≤ i < n, e.g. 0/4, or auto", s)
	}
	return i, n, nil
}

func splitComma(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// gridProgress shows the progress of a grid: a bar with a time estimate on
// a terminal, one line per job otherwise, nothing when quiet.
type gridProgress struct {
	w     io.Writer
	quiet bool
	bar   bool
	pb    *progressbar.ProgressBar
	start time.Time
}

func (p *gridProgress) event(e experiment.Event) {
	if p.quiet {
		return
	}
	switch e.Kind {
	case experiment.Planned:
		p.start = time.Now()
		if e.Skipped > 0 {
			fmt.Fprintf(p.w, "%d jobs already finished; %d to run\n", e.Skipped, e.Total)
		}
		if p.bar && e.Total > 0 {
			p.pb = progressbar.NewOptions(e.Total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetWidth(30), progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionThrottle(200*time.Millisecond))
		}
	case experiment.Started:
		if p.pb != nil {
			p.pb.Describe(e.Job.String())
		}
	case experiment.TakenOver:
		p.println(fmt.Sprintf("taking over %v: %s", e.Job, e.Note))
	case experiment.Abandoned:
		p.println(fmt.Sprintf("abandoned %v: %s", e.Job, e.Note))
	case experiment.Waiting:
		p.println("waiting: " + e.Note)
	case experiment.Finished, experiment.Failed:
		if e.Kind == experiment.Failed {
			p.println(fmt.Sprintf("FAILED %v: %v", e.Job, e.Err))
		}
		if p.pb != nil {
			_ = p.pb.Add(1)
			return
		}
		elapsed := time.Since(p.start)
		eta := time.Duration(float64(elapsed) / float64(e.Done) * float64(e.Total-e.Done))
		fmt.Fprintf(p.w, "[%d/%d] %v done in %.1fs (elapsed %v, about %v left)\n", e.Done, e.Total, e.Job,
			e.Elapsed.Seconds(), elapsed.Round(time.Second), eta.Round(time.Second))
	}
}

func (p *gridProgress) println(s string) {
	if p.pb != nil {
		_, _ = progressbar.Bprintln(p.pb, s)
		return
	}
	fmt.Fprintln(p.w, s)
}

func (p *gridProgress) finish() {
	if p.pb != nil {
		_ = p.pb.Finish()
		fmt.Fprintln(p.w)
	}
}
