package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/experiment/cluster"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// Three claiming grids share one output directory with a job whose
// worker died holding its claim: every job runs once, the dead worker's
// after its lease expired, and the tables equal those of one grid alone.
// A job whose claim another worker takes over while it runs is abandoned
// and taken back when that worker's claim expires in turn.
func TestClaimingGrids(t *testing.T) {
	ctx := context.Background()
	models := []Model{APPNP, GKDE, GPN}
	whole := t.TempDir()
	if _, err := tinyGrid(t, whole, models...).Run(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := tinyGrid(t, whole, models...).Jobs()
	if err != nil {
		t.Fatal(err)
	}

	shared := t.TempDir()
	// Live workers renew every quarter lease; a second leaves a loaded CI
	// machine room to stall without losing a job.
	lease := time.Second
	// The dead worker's claim on the first job in run order.
	dead := cluster.NewClaimer(lease)
	deadJob := runOrder(all)[0]
	if a, err := dead.Acquire(deadJob.String(), filepath.Join(shared, deadJob.Path())); err != nil || a.Claim == nil {
		t.Fatal(a, err)
	}
	claimedAt := time.Now()
	// The job one grid will lose while it runs it.
	stolenJob := runOrder(all)[len(all)-1]
	var stealOnce sync.Once

	var mu sync.Mutex
	var started, abandoned []string
	var finishedAt time.Time
	var wg sync.WaitGroup
	sums := make([]*Summary, 3)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := tinyGrid(t, shared, models...).Claim(lease).Progress(func(e Event) {
				mu.Lock()
				defer mu.Unlock()
				switch e.Kind {
				case Started:
					started = append(started, e.Job.Path())
					if e.Job.Path() == stolenJob.Path() {
						stealOnce.Do(func() {
							if err := stealClaim(filepath.Join(shared, e.Job.Path()), e.Job.String(), lease); err != nil {
								t.Errorf("stealing %v: %v", e.Job, err)
							}
						})
					}
				case Abandoned:
					abandoned = append(abandoned, e.Job.Path())
				case Finished:
					if e.Job.Path() == deadJob.Path() {
						finishedAt = time.Now()
					}
				}
			})
			sum, err := g.Run(ctx)
			if err != nil {
				t.Error(err)
			}
			sums[i] = sum
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	ran := 0
	var takenOver []string
	for _, s := range sums {
		ran += s.Ran
		takenOver = append(takenOver, s.TakenOver...)
		if !s.Complete || s.Skipped+s.Ran+s.Elsewhere != s.Jobs {
			t.Errorf("worker summary %+v: want a complete grid, every job skipped, run or run elsewhere", s)
		}
	}
	if ran != len(all) {
		t.Errorf("%d jobs run, want %d", ran, len(all))
	}
	count := map[string]int{}
	for _, p := range started {
		count[p]++
	}
	for _, j := range all {
		want := 1
		if j.Path() == stolenJob.Path() {
			want = 2 // started, abandoned, started again
		}
		if count[j.Path()] != want {
			t.Errorf("%s started %d times, want %d", j.Path(), count[j.Path()], want)
		}
	}
	if !slices.Equal(abandoned, []string{stolenJob.Path()}) {
		t.Errorf("abandoned %v, want %s", abandoned, stolenJob.Path())
	}
	if len(takenOver) != 2 {
		t.Errorf("taken over: %q, want 2 jobs", takenOver)
	}
	for _, want := range []string{deadJob.String() + ": the lease of worker " + dead.Worker(), stolenJob.String() + ": the lease of worker thief"} {
		if !slices.ContainsFunc(takenOver, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no takeover %q in %q", want, takenOver)
		}
	}
	if finishedAt.Sub(claimedAt) < lease {
		t.Errorf("the dead worker's job finished %v after its claim, before its lease of %v expired", finishedAt.Sub(claimedAt), lease)
	}
	want, got := readTables(t, whole), readTables(t, shared)
	if len(want) < 3 || len(got) != len(want) {
		t.Fatalf("%d tables, want %d", len(got), len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s differs between one grid and three claiming ones", name)
		}
	}
	if files := testenv.ClaimFiles(t, shared); len(files) != 0 {
		t.Errorf("claim or temporary files left: %v", files)
	}
}

func TestClaimOptionErrors(t *testing.T) {
	for _, c := range []struct {
		g    *Grid
		want string
	}{
		{Paper().Claim(0), "claim lease 0s is below the minimum of 250ms"},
		{Paper().Claim(-time.Second), "claim lease -1s"},
		{Paper().Shard(1, 2).Claim(time.Minute), "claims in shard 1/2: claiming workers take their jobs from the whole grid"},
		{Paper().Claim(time.Minute).Shard(1, 2), "shard 1/2 of a claiming grid"},
	} {
		if _, err := c.g.Run(context.Background()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := Paper().Claim(time.Minute).Shard(0, 1).Jobs(); err != nil {
		t.Errorf("shard 0/1 of a claiming grid: %v", err)
	}
}

// A waiting worker looks every second, less often when it waits for many
// jobs (some 100 claim files a second at most), and at least four times
// per lease.
func TestWaitPoll(t *testing.T) {
	for _, c := range []struct {
		held  int
		lease time.Duration
		want  time.Duration
	}{
		{1, cluster.DefaultLease, time.Second},
		{100, cluster.DefaultLease, time.Second},
		{1000, cluster.DefaultLease, 10 * time.Second},
		{100000, cluster.DefaultLease, cluster.DefaultLease / 4},
		{1, 400 * time.Millisecond, 100 * time.Millisecond},
	} {
		if got := waitPoll(c.held, c.lease); got != c.want {
			t.Errorf("waitPoll(%d, %v) = %v, want %v", c.held, c.lease, got, c.want)
		}
	}
}

// A lease below cluster.MinLease is refused: a zero ticker period panicked, and
// leases of a millisecond made two workers take one job over from each
// other hundreds of times.
func TestClaimLeaseMinimum(t *testing.T) {
	for _, lease := range []time.Duration{time.Nanosecond, time.Millisecond, cluster.MinLease - 1} {
		_, err := Paper().Claim(lease).Jobs()
		if want := "claim lease " + lease.String() + " is below the minimum of " + cluster.MinLease.String(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Claim(%v): error %v, want %q", lease, err, want)
		}
	}
	if _, err := Paper().Claim(cluster.MinLease).Jobs(); err != nil {
		t.Errorf("Claim(cluster.MinLease): %v", err)
	}
}

// stealClaim writes the next generation of the claim of the job whose
// record is record, as a worker "thief" that took the job over would (the
// claim file layout of package cluster), so that the worker running the
// job loses it. Like a worker it writes a temporary file and links it into
// place: a claim file written in place can be read half-written by the
// other grids, which take it over as damaged.
func stealClaim(record, job string, lease time.Duration) error {
	prefix := strings.TrimSuffix(record, ".json") + ".claim."
	files, err := filepath.Glob(prefix + "*")
	if err != nil {
		return err
	}
	top := 0
	for _, f := range files {
		if g, err := strconv.Atoi(strings.TrimPrefix(f, prefix)); err == nil {
			top = max(top, g)
		}
	}
	if top == 0 {
		return fmt.Errorf("no claim of %s", record)
	}
	b, err := json.Marshal(map[string]any{"worker": "thief", "host": "elsewhere", "pid": 1, "job": job,
		"generation": top + 1, "lease_seconds": lease.Seconds(), "claimed": time.Now().UTC()})
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(record), ".thief.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Link(tmp, prefix+strconv.Itoa(top+1))
}
