package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// clusterVars are the environment variables through which batch
// schedulers assign a grid's shard (cluster.ShardFromEnv).
var clusterVars = []string{
	cluster.SlurmTaskIDVar, cluster.SlurmTaskCountVar, cluster.SlurmTaskMinVar,
	cluster.SlurmTaskMaxVar, cluster.SlurmTaskStepVar, cluster.KubernetesIndexVar, cluster.ShardCountVar,
}

// noEnv is an environment without variables.
func noEnv(string) (string, bool) { return "", false }

// envOf returns a lookup function over the variables given as KEY=value.
func envOf(vars ...string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		for _, kv := range vars {
			if k, v, _ := strings.Cut(kv, "="); k == key {
				return v, true
			}
		}
		return "", false
	}
}

// The shard comes from -shard, from the environment, or from both when
// they agree; -claim takes no shard. Every other combination is an error
// before anything runs.
func TestGridShardFromFlagAndEnvironment(t *testing.T) {
	slurm := []string{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4", "SLURM_ARRAY_TASK_COUNT=4"}
	kube := []string{"JOB_COMPLETION_INDEX=3", "CUQ_SHARD_COUNT=5"}
	for _, c := range []struct {
		args   []string
		env    []string
		shard  string // "i/n", "" for the whole grid, or "error: <substring>"
		notice string // on stderr
	}{
		{nil, nil, "", ""},
		{[]string{"-shard", "1/3"}, nil, "1/3", ""},
		{nil, slurm, "1/4", "notice: running shard 1/4 of the Slurm job array (SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=4)"},
		{[]string{"-shard", "auto"}, slurm, "1/4", "notice: running shard 1/4 of the Slurm job array"},
		{[]string{"-shard", "1/4"}, slurm, "1/4", ""},
		{[]string{"-shard", "auto"}, kube, "3/5", "notice: running shard 3/5 of the Kubernetes Indexed Job (JOB_COMPLETION_INDEX=3, CUQ_SHARD_COUNT=5)"},
		{nil, kube, "3/5", "Kubernetes Indexed Job"},
		{[]string{"-claim"}, slurm, "", "notice: -claim: this worker takes its jobs from the whole grid; the environment's shard variables are ignored"},
		{[]string{"-claim", "-lease", "1m"}, nil, "", ""},
		{[]string{"-shard", "auto"}, nil, "error: -shard auto: the environment sets no shard (neither SLURM_ARRAY_TASK_ID of a Slurm job array nor JOB_COMPLETION_INDEX of a Kubernetes Indexed Job)", ""},
		{[]string{"-shard", "0/4"}, slurm, "error: grid: -shard 0/4 conflicts with shard 1/4 of the Slurm job array (SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=4); drop -shard to run the environment's shard", ""},
		{[]string{"-shard", "1/3"}, kube, "error: -shard 1/3 conflicts with shard 3/5 of the Kubernetes Indexed Job", ""},
		{[]string{"-shard", "-1/4"}, nil, `error: -shard "-1/4": want i/n with 0 ≤ i < n, e.g. 0/4, or auto`, ""},
		{[]string{"-shard", "0/0"}, nil, `error: -shard "0/0"`, ""},
		{nil, []string{"SLURM_ARRAY_TASK_ID=2"}, "error: grid: cluster: shard from the Slurm job array: SLURM_ARRAY_TASK_ID=2 needs SLURM_ARRAY_TASK_COUNT", ""},
		{[]string{"-shard", "2/4"}, []string{"SLURM_ARRAY_TASK_ID=2"}, "error: SLURM_ARRAY_TASK_ID=2 needs SLURM_ARRAY_TASK_COUNT", ""},
		{[]string{"-shard", "auto"}, []string{"JOB_COMPLETION_INDEX=1"}, "error: JOB_COMPLETION_INDEX=1 is set but CUQ_SHARD_COUNT is not", ""},
		{nil, []string{"JOB_COMPLETION_INDEX=5", "CUQ_SHARD_COUNT=5"}, "error: JOB_COMPLETION_INDEX=5 is out of range for CUQ_SHARD_COUNT=5", ""},
		{nil, []string{"JOB_COMPLETION_INDEX=0", "CUQ_SHARD_COUNT=0"}, "error: CUQ_SHARD_COUNT=0", ""},
		{nil, []string{"SLURM_ARRAY_TASK_ID=-3", "SLURM_ARRAY_TASK_COUNT=4"}, "error: SLURM_ARRAY_TASK_ID=-3 is negative", ""},
		{nil, append(slices.Clone(slurm), "JOB_COMPLETION_INDEX=2", "CUQ_SHARD_COUNT=4"), "error: the Slurm job array (SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=4) assigns shard 1/4 but the Kubernetes Indexed Job (JOB_COMPLETION_INDEX=2, CUQ_SHARD_COUNT=4) assigns shard 2/4", ""},
		{nil, append(slices.Clone(slurm), "JOB_COMPLETION_INDEX=1", "CUQ_SHARD_COUNT=4"), "1/4", "notice: running shard 1/4 of the Slurm job array (SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=4) and Kubernetes Indexed Job (JOB_COMPLETION_INDEX=1, CUQ_SHARD_COUNT=4)"},
		{[]string{"-claim", "-shard", "1/2"}, nil, "error: grid: -shard 1/2 and -claim exclude each other", ""},
		{[]string{"-claim", "-shard", "auto"}, slurm, "error: -shard auto and -claim exclude each other", ""},
		{[]string{"-claim", "-lease", "0s"}, nil, "error: grid: -lease 0s is below the minimum of 250ms", ""},
		{[]string{"-claim", "-lease", "1ns"}, nil, "error: grid: -lease 1ns is below the minimum of 250ms", ""},
		{[]string{"-claim", "-lease", "1ms"}, nil, "error: grid: -lease 1ms is below the minimum of 250ms", ""},
		{[]string{"-claim", "-lease", "250ms"}, nil, "", ""},
		{[]string{"-lease", "1m"}, nil, "error: grid: -lease needs -claim", ""},
	} {
		args := append([]string{"-datasets", "synthetic", "-out", t.TempDir()}, c.args...)
		var stderr strings.Builder
		cfg, err := parseGrid(args, envOf(c.env...), &stderr)
		what := fmt.Sprintf("cuq grid %s with %v", strings.Join(c.args, " "), c.env)
		if want, isErr := strings.CutPrefix(c.shard, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want %q", what, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		spec, err := cfg.grid.Spec()
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if spec.Shards > 1 || cfg.shard != "" {
			got = fmt.Sprintf("%d/%d", spec.Shard, spec.Shards)
		}
		if got != c.shard || cfg.shard != c.shard {
			t.Errorf("%s: shard %q (flag %q), want %q", what, got, cfg.shard, c.shard)
		}
		if !strings.Contains(stderr.String(), c.notice) || (c.notice == "" && stderr.Len() > 0) {
			t.Errorf("%s: stderr %q, want %q", what, stderr.String(), c.notice)
		}
	}
}

// tinyGridArgs is a 12-job grid on the synthetic graph that trains for
// two epochs: GKDE, APPNP and GPN, 2 splits, the clean graph with Gaussian
// noise and leave-out classes.
var tinyGridArgs = []string{"-datasets", "synthetic", "-models", "gkde,appnp,gpn", "-settings", "classification,gaussian,loc",
	"-splits", "2", "-inits", "1", "-max-epochs", "2"}

// process is a cuq command running in a child process.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	exited         chan error
}

// startCuq starts the cuq command (this test binary with CUQ_TEST_MAIN=1)
// with args and the environment variables env added to the test's.
func startCuq(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	return startCuqVia(t, os.Args[0], env, args...)
}

// wait waits for p to exit successfully.
func (p *process) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", what, err, p.stdout.String(), p.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s still runs after 2 minutes; stderr:\n%s", what, p.stderr.String())
	}
}

// tablesOf returns every file under dir/tables by name.
func tablesOf(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "tables", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tables in %s (%v)", dir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// sameTables fails unless dir holds exactly the tables want, byte for byte.
func sameTables(t *testing.T, what, dir string, want map[string][]byte) {
	t.Helper()
	got := tablesOf(t, dir)
	for name, w := range want {
		if g, ok := got[name]; !ok || string(g) != string(w) {
			t.Errorf("%s: tables/%s differs from the single-process grid's", what, name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d tables, the single-process grid %d", what, len(got), len(want))
	}
}

// reference holds the tables of tinyGridArgs run in one process.
var reference struct {
	sync.Mutex
	tables map[string][]byte
}

// referenceTables runs tinyGridArgs in one process (this one), once for
// all tests, and returns its tables.
func referenceTables(t *testing.T) map[string][]byte {
	t.Helper()
	reference.Lock()
	defer reference.Unlock()
	if reference.tables == nil {
		dir := t.TempDir()
		if _, _, err := runCLI(append([]string{"grid", "-out", dir, "-quiet"}, tinyGridArgs...)...); err != nil {
			t.Fatal(err)
		}
		reference.tables = tablesOf(t, dir)
	}
	return reference.tables
}

// Shards of a Slurm job array (--array=1-3) and of a Kubernetes Indexed
// Job (completions 3), each three processes writing into one directory at
// once, give the single-process grid's tables, byte for byte, once merged;
// the last shard to finish writes them too.
func TestClusterShardsShareOneDirectory(t *testing.T) {
	want := referenceTables(t)
	for _, c := range []struct {
		scheduler string
		env       func(i int) []string
		args      []string
	}{
		{"Slurm", func(i int) []string {
			return []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i+1), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_JOB_ID=4242"}
		}, nil},
		{"Kubernetes", func(i int) []string {
			return []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), "CUQ_SHARD_COUNT=3"}
		}, []string{"-shard", "auto"}},
	} {
		t.Run(c.scheduler, func(t *testing.T) {
			shared := filepath.Join(t.TempDir(), "results")
			var procs []*process
			for i := range 3 {
				args := append(append([]string{"grid", "-out", shared, "-quiet"}, tinyGridArgs...), c.args...)
				procs = append(procs, startCuq(t, c.env(i), args...))
			}
			for i, p := range procs {
				p.wait(t, fmt.Sprintf("shard %d", i))
				if out := p.stdout.String(); !strings.Contains(out, "4 jobs: 0 already finished, 4 run now, 0 failed") {
					t.Errorf("shard %d ran other than its 4 of the 12 jobs:\n%s", i, out)
				}
				if notice := fmt.Sprintf("notice: running shard %d/3 of the %s", i, map[string]string{"Slurm": "Slurm job array", "Kubernetes": "Kubernetes Indexed Job"}[c.scheduler]); !strings.Contains(p.stderr.String(), notice) {
					t.Errorf("shard %d: stderr lacks %q:\n%s", i, notice, p.stderr.String())
				}
			}
			merged := t.TempDir()
			if _, _, err := runCLI("merge", "-out", merged, shared); err != nil {
				t.Fatal(err)
			}
			sameTables(t, "merged shards", merged, want)
			sameTables(t, "tables the last shard wrote", shared, want)
		})
	}
}

// claimInFile is the part of a claim file that identifies its worker.
type claimInFile struct {
	Worker string `json:"worker"`
	PID    int    `json:"pid"`
}

// catchMidJob watches the claim files under out for one of the worker p
// whose job has no record yet, with p stopped so that it cannot finish
// the job meanwhile, and kills p there (SIGKILL). It returns the job's
// record file, the worker's identity and the time of the kill.
func catchMidJob(t *testing.T, p *process, out string) (record, worker string, killed time.Time) {
	t.Helper()
	pid := p.cmd.Process.Pid
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		claims, _ := filepath.Glob(filepath.Join(out, "runs", "*", "*", "*.claim.*"))
		for _, path := range claims {
			if strings.HasPrefix(filepath.Base(path), ".") {
				continue // a claim being written: .<job>.claim.<generation>.tmp<random>
			}
			var c claimInFile
			if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &c) != nil || c.PID != pid {
				continue
			}
			if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatalf("the worker ended before it was caught mid-job: %v", err)
			}
			base, _, _ := strings.Cut(path, ".claim.")
			_, claimErr := os.Stat(path)
			_, recordErr := os.Stat(base + ".json")
			if claimErr == nil && recordErr != nil {
				killed = time.Now()
				if err := p.cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				<-p.exited
				return base + ".json", c.Worker, killed
			}
			p.cmd.Process.Signal(syscall.SIGCONT)
		}
		select {
		case err := <-p.exited:
			t.Fatalf("the worker ended (%v) before it was caught mid-job; stderr:\n%s", err, p.stderr.String())
		default:
		}
	}
	t.Fatal("no claim of the worker seen in a minute")
	return
}

// doneLine matches the progress line of a finished job.
var doneLine = regexp.MustCompile(`(?m)^\[\d+/\d+\] (.+) done in `)

// Three claiming workers share one directory; one is killed mid-job.
// Every job is run exactly once, except that of the killed worker, which
// another worker takes over once its lease expired; the tables equal the
// single-process grid's, and no claim or temporary file is left.
func TestClaimingWorkersOneKilled(t *testing.T) {
	want := referenceTables(t)
	cfg, err := parseGrid(tinyGridArgs, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := cfg.grid.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(t.TempDir(), "results")
	const lease = 3 * time.Second
	args := append([]string{"grid", "-out", shared, "-claim", "-lease", lease.String()}, tinyGridArgs...)
	// The Slurm variables of an array task are ignored by claiming workers.
	victim := startCuq(t, []string{"SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_COUNT=3"}, args...)
	survivors := []*process{startCuq(t, nil, args...), startCuq(t, nil, args...)}
	killedRecord, victimID, killedAt := catchMidJob(t, victim, shared)
	var killedJob experiment.Job
	for _, j := range jobs {
		if filepath.Join(shared, j.Path()) == killedRecord {
			killedJob = j
		}
	}
	if killedJob.Dataset == "" {
		t.Fatalf("killed while running %s, not a job of the grid", killedRecord)
	}
	for i, p := range survivors {
		p.wait(t, fmt.Sprintf("worker %d", i))
	}

	runs := map[string]int{}
	for _, p := range append(survivors, victim) {
		for _, m := range doneLine.FindAllStringSubmatch(p.stderr.String(), -1) {
			runs[m[1]]++
		}
	}
	for _, j := range jobs {
		if runs[j.String()] != 1 {
			t.Errorf("%v finished %d times, want once", j, runs[j.String()])
		}
	}
	if len(runs) != len(jobs) {
		t.Errorf("%d jobs finished, want %d: %v", len(runs), len(jobs), runs)
	}
	if strings.Contains(victim.stderr.String(), killedJob.String()+" done") {
		t.Errorf("the killed worker finished its job %v", killedJob)
	}
	var takeovers []string
	for _, p := range survivors {
		for _, line := range strings.Split(p.stdout.String(), "\n") {
			if strings.HasPrefix(line, "took over ") {
				takeovers = append(takeovers, line)
			}
		}
		if !regexp.MustCompile(`^12 jobs: \d+ already finished, \d+ run now, \d+ run by other workers, 0 failed\n`).MatchString(p.stdout.String()) {
			t.Errorf("worker summary:\n%s", p.stdout.String())
		}
	}
	if want := "took over " + killedJob.String() + ": the lease of worker " + victimID + " expired "; len(takeovers) != 1 || !strings.HasPrefix(takeovers[0], want) {
		t.Errorf("takeovers %q, want one starting %q", takeovers, want)
	}
	if !strings.Contains(victim.stderr.String(), "notice: -claim: this worker takes its jobs from the whole grid; the environment's shard variables are ignored") {
		t.Errorf("no notice that the Slurm variables are ignored:\n%s", victim.stderr.String())
	}
	// The worker renewed its claim four times per lease, so it expired
	// at least three quarters of a lease after the kill.
	st, err := os.Stat(killedRecord)
	if err != nil {
		t.Fatal(err)
	}
	if d := st.ModTime().Sub(killedAt); d < lease*3/4-100*time.Millisecond {
		t.Errorf("the killed worker's job was redone %v after the kill, before its lease could expire", d)
	}

	merged := t.TempDir()
	if _, _, err := runCLI("merge", "-out", merged, shared); err != nil {
		t.Fatal(err)
	}
	sameTables(t, "merged claiming workers", merged, want)
	sameTables(t, "tables the claiming workers wrote", shared, want)
	var left []string
	filepath.WalkDir(shared, func(path string, e os.DirEntry, err error) error {
		if err == nil && (strings.Contains(e.Name(), ".claim.") || strings.Contains(e.Name(), ".tmp")) {
			left = append(left, path)
		}
		return err
	})
	if len(left) > 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// A damaged claim file, here one cut short, counts as expired: a claiming
// worker takes its job over at once and says so.
func TestClaimingWorkerTakesOverDamagedClaim(t *testing.T) {
	out := t.TempDir()
	claim := filepath.Join(out, "runs", "Synthetic", "gkde", "s02_i01_clean.claim.1")
	if err := os.MkdirAll(filepath.Dir(claim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(claim, []byte(`{"worker": "node3:17:0a1b2c3d", "gener`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runCLI("grid", "-datasets", "synthetic", "-models", "gkde", "-settings", "classification", "-splits", "2", "-inits", "1",
		"-out", out, "-claim")
	if err != nil {
		t.Fatal(err)
	}
	want := "took over Synthetic GKDE split 2 init 1 [classification]: claim file " + claim + " is damaged (unexpected end of JSON input); taken over as expired\n"
	if !strings.Contains(stdout, "2 jobs: 0 already finished, 2 run now, 0 run by other workers, 0 failed\n"+want) {
		t.Errorf("stdout:\n%s\nwant the takeover %q", stdout, want)
	}
	if !strings.Contains(stderr, "taking over Synthetic GKDE split 2 init 1 [classification]: claim file "+claim+" is damaged") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if _, err := os.Stat(claim); !os.IsNotExist(err) {
		t.Errorf("the damaged claim file stays: %v", err)
	}
}

// -jobs beyond experiment.MaxWorkers is capped with a notice saying so.
func TestGridJobsCapNotice(t *testing.T) {
	var stderr strings.Builder
	args := []string{"-datasets", "synthetic", "-out", t.TempDir(), "-jobs", "10000"}
	if _, err := parseGrid(args, envOf(), &stderr); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("notice: -jobs 10000: running at most %d jobs at once", experiment.MaxWorkers())
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	stderr.Reset()
	if _, err := parseGrid([]string{"-datasets", "synthetic", "-out", t.TempDir(), "-jobs", "2"}, envOf(), &stderr); err != nil || stderr.Len() > 0 {
		t.Errorf("-jobs 2: %v, stderr %q", err, stderr.String())
	}
}
