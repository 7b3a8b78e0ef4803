package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// claimFiles returns the claim files and temporary files under dir.
func claimFiles(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(e.Name(), ".claim.") || strings.Contains(e.Name(), ".tmp") {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

var claimJob = Job{Dataset: "Tiny", Model: GPN, Split: 1, Init: 1, Settings: []Setting{Classification}}

// Workers racing for the same jobs: each job is claimed by exactly one,
// the others are told which worker holds it.
func TestClaimExclusive(t *testing.T) {
	out := t.TempDir()
	const workers, jobs = 8, 10
	var mu sync.Mutex
	winners := map[string][]string{}
	var wg sync.WaitGroup
	for range workers {
		w := newClaimer(time.Hour)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for split := 1; split <= jobs; split++ {
				j := claimJob
				j.Split = split
				a, err := w.acquire(j, filepath.Join(out, j.Path()))
				if err != nil {
					t.Error(err)
					return
				}
				if a.claim == nil {
					if !strings.HasPrefix(a.holder, "worker ") {
						t.Errorf("holder %q", a.holder)
					}
					continue
				}
				if a.takeover != "" {
					t.Errorf("took over a live claim: %s", a.takeover)
				}
				mu.Lock()
				winners[j.Path()] = append(winners[j.Path()], w.id.Worker)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(winners) != jobs {
		t.Errorf("%d of %d jobs claimed", len(winners), jobs)
	}
	for p, ws := range winners {
		if len(ws) != 1 {
			t.Errorf("%s claimed by %d workers: %v", p, len(ws), ws)
		}
	}
	if files := claimFiles(t, out); len(files) != jobs {
		t.Errorf("%d claim files, want %d: %v", len(files), jobs, files)
	}
}

// A claim whose lease expired is taken over: the new claim is the next
// generation, the old file goes, and the old worker learns it lost the
// job and leaves the new claim alone.
func TestClaimTakeoverAfterExpiry(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, claimJob.Path())
	a, b := newClaimer(time.Minute), newClaimer(time.Hour)
	got, err := a.acquire(claimJob, record)
	if err != nil || got.claim == nil {
		t.Fatalf("first claim: %+v, %v", got, err)
	}
	held := got.claim
	if held.path != strings.TrimSuffix(record, ".json")+".claim.1" {
		t.Errorf("claim file %s", held.path)
	}
	got, err = b.acquire(claimJob, record)
	if err != nil || got.claim != nil || !strings.Contains(got.holder, a.id.Worker) {
		t.Fatalf("claim of a live job: %+v, %v", got, err)
	}
	// a's last renewal was 61 s ago, past its one-minute lease (b's own
	// lease of an hour does not count).
	past := time.Now().Add(-61 * time.Second)
	must(t, os.Chtimes(held.path, past, past))
	got, err = b.acquire(claimJob, record)
	if err != nil || got.claim == nil {
		t.Fatalf("takeover: %+v, %v", got, err)
	}
	if want := "the lease of worker " + a.id.Worker + " expired "; !strings.Contains(got.takeover, want) {
		t.Errorf("takeover reason %q, want %q", got.takeover, want)
	}
	if got.claim.gen != 2 {
		t.Errorf("generation %d, want 2", got.claim.gen)
	}
	if _, err := os.Stat(held.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the expired claim file stays: %v", err)
	}
	if err := held.check(); !errors.Is(err, errClaimLost) {
		t.Errorf("old worker's check: %v, want a lost claim", err)
	}
	if err := held.renew(); !errors.Is(err, errClaimLost) {
		t.Errorf("old worker's renewal: %v, want a lost claim", err)
	}
	held.release()
	if err := got.claim.check(); err != nil {
		t.Errorf("the old worker's release touched the new claim: %v", err)
	}
	got.claim.release()
	if files := claimFiles(t, out); len(files) != 0 {
		t.Errorf("files left: %v", files)
	}
}

// A stalled worker that wakes up after its job was taken over finds a
// higher generation and loses the job, even though its own file is back.
func TestClaimLostToHigherGeneration(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, claimJob.Path())
	a, b := newClaimer(time.Hour), newClaimer(time.Hour)
	got, err := a.acquire(claimJob, record)
	if err != nil {
		t.Fatal(err)
	}
	taker := &claim{w: b, record: record, gen: 2, path: claimName(record, 2)}
	if won, err := taker.create(claimJob); !won || err != nil {
		t.Fatalf("create generation 2: %v, %v", won, err)
	}
	err = got.claim.check()
	if !errors.Is(err, errClaimLost) || !strings.Contains(err.Error(), "worker "+b.id.Worker+" took the job over") {
		t.Errorf("check: %v", err)
	}
	if won, err := taker.create(claimJob); won || err != nil {
		t.Errorf("created generation 2 twice: %v, %v", won, err)
	}
}

// Damaged claim files count as expired, with a message naming the file.
func TestClaimDamagedFile(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":      "{\"worker\": \"h:1:ab\", \"gen",
		"empty":         "",
		"no worker":     `{"worker": "", "generation": 1, "lease_seconds": 300}`,
		"no lease":      `{"worker": "h:1:ab", "generation": 1, "lease_seconds": 0}`,
		"no generation": `{"worker": "h:1:ab", "lease_seconds": 300}`,
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			record := filepath.Join(out, claimJob.Path())
			must(t, os.MkdirAll(filepath.Dir(record), 0o755))
			damaged := claimName(record, 1)
			must(t, os.WriteFile(damaged, []byte(content), 0o644))
			got, err := newClaimer(time.Hour).acquire(claimJob, record)
			if err != nil || got.claim == nil {
				t.Fatalf("acquire: %+v, %v", got, err)
			}
			if want := "claim file " + damaged + " is damaged ("; !strings.HasPrefix(got.takeover, want) || !strings.HasSuffix(got.takeover, "); taken over as expired") {
				t.Errorf("takeover reason %q, want %q...", got.takeover, want)
			}
			if _, err := os.Stat(damaged); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("damaged file stays: %v", err)
			}
			got.claim.release()
		})
	}
}

// A takeover removes the temporary files the dead worker left while
// writing, and only those older than a lease.
func TestClaimTakeoverRemovesLeftovers(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, claimJob.Path())
	w := newClaimer(time.Minute)
	got, err := w.acquire(claimJob, record)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(record)
	stale := []string{filepath.Join(dir, ".s01_i01_clean.json.tmp123"), filepath.Join(dir, ".s01_i01_clean.claim.1.tmp456")}
	fresh := filepath.Join(dir, ".s01_i01_clean.json.tmp789")
	past := time.Now().Add(-2 * time.Minute)
	for _, f := range append(stale, fresh) {
		must(t, os.WriteFile(f, []byte("partial"), 0o644))
	}
	for _, f := range append(stale, got.claim.path) {
		must(t, os.Chtimes(f, past, past))
	}
	taken, err := newClaimer(time.Minute).acquire(claimJob, record)
	if err != nil || taken.claim == nil {
		t.Fatalf("takeover: %+v, %v", taken, err)
	}
	taken.claim.release()
	if files := claimFiles(t, out); !slices.Equal(files, []string{fresh}) {
		t.Errorf("files left %v, want only the fresh one", files)
	}
}

// While the job runs its claim is renewed, so nobody takes it over; when
// another worker takes it over anyway, the job's context is cancelled
// with a lost claim; when renewals stop, the claim expires.
func TestClaimKeep(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, claimJob.Path())
	lease := 300 * time.Millisecond
	a, b := newClaimer(lease), newClaimer(lease)
	got, err := a.acquire(claimJob, record)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := got.claim.keep(context.Background())
	time.Sleep(3 * lease)
	if other, err := b.acquire(claimJob, record); err != nil || other.claim != nil {
		t.Fatalf("a renewed claim was taken over after 3 leases: %+v, %v", other, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("job cancelled while its claim was renewed: %v", context.Cause(ctx))
	}
	stop()
	time.Sleep(lease + 100*time.Millisecond)
	other, err := b.acquire(claimJob, record)
	if err != nil || other.claim == nil || !strings.Contains(other.takeover, "expired") {
		t.Fatalf("no takeover after renewals stopped: %+v, %v", other, err)
	}

	// Now b holds the job; c takes it over behind b's back.
	ctx, stop = other.claim.keep(context.Background())
	defer stop()
	c := &claim{w: newClaimer(lease), record: record, gen: other.claim.gen + 1, path: claimName(record, other.claim.gen+1)}
	if won, err := c.create(claimJob); !won || err != nil {
		t.Fatal(won, err)
	}
	select {
	case <-ctx.Done():
		if cause := context.Cause(ctx); !errors.Is(cause, errClaimLost) {
			t.Errorf("cause %v, want a lost claim", cause)
		}
	case <-time.After(10 * lease):
		t.Fatal("the job went on after its claim was taken over")
	}
}

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
	lease := 400 * time.Millisecond
	// The dead worker's claim on the first job in run order.
	dead := newClaimer(lease)
	deadJob := runOrder(all)[0]
	if a, err := dead.acquire(deadJob, filepath.Join(shared, deadJob.Path())); err != nil || a.claim == nil {
		t.Fatal(a, err)
	}
	claimedAt := time.Now()
	// The job one grid will lose while it runs it.
	stolenJob := runOrder(all)[len(all)-1]
	thief := newClaimer(lease)
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
							record := filepath.Join(shared, e.Job.Path())
							gens, _, _ := generations(record)
							c := &claim{w: thief, record: record, gen: gens[len(gens)-1] + 1}
							c.path = claimName(record, c.gen)
							if won, err := c.create(e.Job); !won || err != nil {
								t.Errorf("stealing %v: %v, %v", e.Job, won, err)
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
	for _, want := range []string{deadJob.String() + ": the lease of worker " + dead.id.Worker, stolenJob.String() + ": the lease of worker " + thief.id.Worker} {
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
	if files := claimFiles(t, shared); len(files) != 0 {
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
		{1, DefaultLease, time.Second},
		{100, DefaultLease, time.Second},
		{1000, DefaultLease, 10 * time.Second},
		{100000, DefaultLease, DefaultLease / 4},
		{1, 400 * time.Millisecond, 100 * time.Millisecond},
	} {
		if got := waitPoll(c.held, c.lease); got != c.want {
			t.Errorf("waitPoll(%d, %v) = %v, want %v", c.held, c.lease, got, c.want)
		}
	}
}

// A lease below MinLease is refused: a zero ticker period panicked, and
// leases of a millisecond made two workers take one job over from each
// other hundreds of times.
func TestClaimLeaseMinimum(t *testing.T) {
	for _, lease := range []time.Duration{time.Nanosecond, time.Millisecond, MinLease - 1} {
		_, err := Paper().Claim(lease).Jobs()
		if want := "claim lease " + lease.String() + " is below the minimum of " + MinLease.String(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Claim(%v): error %v, want %q", lease, err, want)
		}
	}
	if _, err := Paper().Claim(MinLease).Jobs(); err != nil {
		t.Errorf("Claim(MinLease): %v", err)
	}
}

// A claim renewed at a time further in the future than its lease cannot
// come from a clock that agrees with ours: it is taken over at once, with
// a reason saying so, instead of being waited out. A claim a little ahead
// (within its lease) is live.
func TestClaimFromTheFuture(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, claimJob.Path())
	a, b := newClaimer(time.Minute), newClaimer(time.Minute)
	got, err := a.acquire(claimJob, record)
	if err != nil || got.claim == nil {
		t.Fatalf("first claim: %+v, %v", got, err)
	}
	soon := time.Now().Add(30 * time.Second)
	must(t, os.Chtimes(got.claim.path, soon, soon))
	if other, err := b.acquire(claimJob, record); err != nil || other.claim != nil {
		t.Fatalf("a claim 30 s ahead with a 1-minute lease was taken over: %+v, %v", other, err)
	}
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(got.claim.path, later, later))
	other, err := b.acquire(claimJob, record)
	if err != nil || other.claim == nil {
		t.Fatalf("a claim an hour ahead was not taken over: %+v, %v", other, err)
	}
	if want := "in the future"; !strings.Contains(other.takeover, want) || !strings.Contains(other.takeover, "clock") {
		t.Errorf("takeover reason %q, want one saying the claim is %s and naming the clocks", other.takeover, want)
	}
	other.claim.release()
}

// A claim file with an absurd generation (2⁶³−1, whose successor wrapped
// to a negative generation and blocked the job on every rerun) is removed
// as damaged; the job is claimed afresh and stays claimed.
func TestClaimAbsurdGeneration(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, claimJob.Path())
	must(t, os.MkdirAll(filepath.Dir(record), 0o755))
	absurd := claimName(record, math.MaxInt64)
	content := fmt.Sprintf(`{"worker": "h:1:ab", "generation": %d, "lease_seconds": 60}`, int64(math.MaxInt64))
	must(t, os.WriteFile(absurd, []byte(content), 0o644))
	past := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(absurd, past, past))
	w := newClaimer(time.Minute)
	got, err := w.acquire(claimJob, record)
	if err != nil || got.claim == nil {
		t.Fatalf("acquire: %+v, %v", got, err)
	}
	if got.claim.gen < 1 || got.claim.gen > maxGeneration {
		t.Errorf("generation %d, want one in 1..%d", got.claim.gen, maxGeneration)
	}
	if err := got.claim.check(); err != nil {
		t.Errorf("the new claim is not held: %v", err)
	}
	if _, err := os.Stat(absurd); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the absurd claim file stays: %v", err)
	}
	if !strings.Contains(got.takeover, "generation") {
		t.Errorf("takeover reason %q, want one naming the generation", got.takeover)
	}
	got.claim.release()
	if files := claimFiles(t, out); len(files) != 0 {
		t.Errorf("claim files left: %v", files)
	}
}
