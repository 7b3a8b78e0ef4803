package cluster

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

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// claimJob names the job the tests claim; jobRecord(split) is the record
// file of its split, relative to the output directory, as a grid lays
// records out.
const claimJob = "Tiny GPN split 1 init 1"

func jobRecord(split int) string { return fmt.Sprintf("runs/Tiny/gpn/s%02d_i01_clean.json", split) }

// Workers racing for the same jobs: each job is claimed by exactly one,
// the others are told which worker holds it.
func TestClaimExclusive(t *testing.T) {
	out := t.TempDir()
	const workers, jobs = 8, 10
	var mu sync.Mutex
	winners := map[string][]string{}
	var wg sync.WaitGroup
	for range workers {
		w := NewClaimer(time.Hour)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for split := 1; split <= jobs; split++ {
				record := jobRecord(split)
				a, err := w.Acquire(claimJob, filepath.Join(out, record))
				if err != nil {
					t.Error(err)
					return
				}
				if a.Claim == nil {
					if !strings.HasPrefix(a.Holder, "worker ") {
						t.Errorf("holder %q", a.Holder)
					}
					continue
				}
				if a.Takeover != "" {
					t.Errorf("took over a live claim: %s", a.Takeover)
				}
				mu.Lock()
				winners[record] = append(winners[record], w.id.Worker)
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
	if files := testenv.ClaimFiles(t, out); len(files) != jobs {
		t.Errorf("%d claim files, want %d: %v", len(files), jobs, files)
	}
}

// A claim whose lease expired is taken over: the new claim is the next
// generation, the old file goes, and the old worker learns it lost the
// job and leaves the new claim alone.
func TestClaimTakeoverAfterExpiry(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, jobRecord(1))
	a, b := NewClaimer(time.Minute), NewClaimer(time.Hour)
	got, err := a.Acquire(claimJob, record)
	if err != nil || got.Claim == nil {
		t.Fatalf("first claim: %+v, %v", got, err)
	}
	held := got.Claim
	if held.path != strings.TrimSuffix(record, ".json")+".claim.1" {
		t.Errorf("claim file %s", held.path)
	}
	got, err = b.Acquire(claimJob, record)
	if err != nil || got.Claim != nil || !strings.Contains(got.Holder, a.id.Worker) {
		t.Fatalf("claim of a live job: %+v, %v", got, err)
	}
	// a's last renewal was 61 s ago, past its one-minute lease (b's own
	// lease of an hour does not count).
	past := time.Now().Add(-61 * time.Second)
	must(t, os.Chtimes(held.path, past, past))
	got, err = b.Acquire(claimJob, record)
	if err != nil || got.Claim == nil {
		t.Fatalf("takeover: %+v, %v", got, err)
	}
	if want := "the lease of worker " + a.id.Worker + " expired "; !strings.Contains(got.Takeover, want) {
		t.Errorf("takeover reason %q, want %q", got.Takeover, want)
	}
	if got.Claim.gen != 2 {
		t.Errorf("generation %d, want 2", got.Claim.gen)
	}
	if _, err := os.Stat(held.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the expired claim file stays: %v", err)
	}
	if err := held.Check(); !errors.Is(err, ErrLost) {
		t.Errorf("old worker's check: %v, want a lost claim", err)
	}
	if err := held.Renew(); !errors.Is(err, ErrLost) {
		t.Errorf("old worker's renewal: %v, want a lost claim", err)
	}
	held.Release()
	if err := got.Claim.Check(); err != nil {
		t.Errorf("the old worker's release touched the new claim: %v", err)
	}
	got.Claim.Release()
	if files := testenv.ClaimFiles(t, out); len(files) != 0 {
		t.Errorf("files left: %v", files)
	}
}

// A stalled worker that wakes up after its job was taken over finds a
// higher generation and loses the job, even though its own file is back.
func TestClaimLostToHigherGeneration(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, jobRecord(1))
	a, b := NewClaimer(time.Hour), NewClaimer(time.Hour)
	got, err := a.Acquire(claimJob, record)
	if err != nil {
		t.Fatal(err)
	}
	taker := &Claim{w: b, record: record, gen: 2, path: claimName(record, 2)}
	if won, err := taker.create(claimJob); !won || err != nil {
		t.Fatalf("create generation 2: %v, %v", won, err)
	}
	err = got.Claim.Check()
	if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "worker "+b.id.Worker+" took the job over") {
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
			record := filepath.Join(out, jobRecord(1))
			must(t, os.MkdirAll(filepath.Dir(record), 0o755))
			damaged := claimName(record, 1)
			must(t, os.WriteFile(damaged, []byte(content), 0o644))
			got, err := NewClaimer(time.Hour).Acquire(claimJob, record)
			if err != nil || got.Claim == nil {
				t.Fatalf("acquire: %+v, %v", got, err)
			}
			if want := "claim file " + damaged + " is damaged ("; !strings.HasPrefix(got.Takeover, want) || !strings.HasSuffix(got.Takeover, "); taken over as expired") {
				t.Errorf("takeover reason %q, want %q...", got.Takeover, want)
			}
			if _, err := os.Stat(damaged); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("damaged file stays: %v", err)
			}
			got.Claim.Release()
		})
	}
}

// A takeover removes the temporary files the dead worker left while
// writing, and only those older than a lease.
func TestClaimTakeoverRemovesLeftovers(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, jobRecord(1))
	w := NewClaimer(time.Minute)
	got, err := w.Acquire(claimJob, record)
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
	for _, f := range append(stale, got.Claim.path) {
		must(t, os.Chtimes(f, past, past))
	}
	taken, err := NewClaimer(time.Minute).Acquire(claimJob, record)
	if err != nil || taken.Claim == nil {
		t.Fatalf("takeover: %+v, %v", taken, err)
	}
	taken.Claim.Release()
	if files := testenv.ClaimFiles(t, out); !slices.Equal(files, []string{fresh}) {
		t.Errorf("files left %v, want only the fresh one", files)
	}
}

// While the job runs its claim is renewed, so nobody takes it over; when
// another worker takes it over anyway, the job's context is cancelled
// with a lost claim; when renewals stop, the claim expires.
func TestClaimKeep(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, jobRecord(1))
	lease := 300 * time.Millisecond
	a, b := NewClaimer(lease), NewClaimer(lease)
	got, err := a.Acquire(claimJob, record)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := got.Claim.Keep(context.Background())
	time.Sleep(3 * lease)
	if other, err := b.Acquire(claimJob, record); err != nil || other.Claim != nil {
		t.Fatalf("a renewed claim was taken over after 3 leases: %+v, %v", other, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("job cancelled while its claim was renewed: %v", context.Cause(ctx))
	}
	stop()
	time.Sleep(lease + 100*time.Millisecond)
	other, err := b.Acquire(claimJob, record)
	if err != nil || other.Claim == nil || !strings.Contains(other.Takeover, "expired") {
		t.Fatalf("no takeover after renewals stopped: %+v, %v", other, err)
	}

	// Now b holds the job; c takes it over behind b's back.
	ctx, stop = other.Claim.Keep(context.Background())
	defer stop()
	c := &Claim{w: NewClaimer(lease), record: record, gen: other.Claim.gen + 1, path: claimName(record, other.Claim.gen+1)}
	if won, err := c.create(claimJob); !won || err != nil {
		t.Fatal(won, err)
	}
	select {
	case <-ctx.Done():
		if cause := context.Cause(ctx); !errors.Is(cause, ErrLost) {
			t.Errorf("cause %v, want a lost claim", cause)
		}
	case <-time.After(10 * lease):
		t.Fatal("the job went on after its claim was taken over")
	}
}

// A claim renewed at a time further in the future than its lease cannot
// come from a clock that agrees with ours: it is taken over at once, with
// a reason saying so, instead of being waited out. A claim a little ahead
// (within its lease) is live.
func TestClaimFromTheFuture(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, jobRecord(1))
	a, b := NewClaimer(time.Minute), NewClaimer(time.Minute)
	got, err := a.Acquire(claimJob, record)
	if err != nil || got.Claim == nil {
		t.Fatalf("first claim: %+v, %v", got, err)
	}
	soon := time.Now().Add(30 * time.Second)
	must(t, os.Chtimes(got.Claim.path, soon, soon))
	if other, err := b.Acquire(claimJob, record); err != nil || other.Claim != nil {
		t.Fatalf("a claim 30 s ahead with a 1-minute lease was taken over: %+v, %v", other, err)
	}
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(got.Claim.path, later, later))
	other, err := b.Acquire(claimJob, record)
	if err != nil || other.Claim == nil {
		t.Fatalf("a claim an hour ahead was not taken over: %+v, %v", other, err)
	}
	if want := "in the future"; !strings.Contains(other.Takeover, want) || !strings.Contains(other.Takeover, "clock") {
		t.Errorf("takeover reason %q, want one saying the claim is %s and naming the clocks", other.Takeover, want)
	}
	other.Claim.Release()
}

// A claim file with an absurd generation (2⁶³−1, whose successor wrapped
// to a negative generation and blocked the job on every rerun) is removed
// as damaged; the job is claimed afresh and stays claimed.
func TestClaimAbsurdGeneration(t *testing.T) {
	out := t.TempDir()
	record := filepath.Join(out, jobRecord(1))
	must(t, os.MkdirAll(filepath.Dir(record), 0o755))
	absurd := claimName(record, math.MaxInt64)
	content := fmt.Sprintf(`{"worker": "h:1:ab", "generation": %d, "lease_seconds": 60}`, int64(math.MaxInt64))
	must(t, os.WriteFile(absurd, []byte(content), 0o644))
	past := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(absurd, past, past))
	w := NewClaimer(time.Minute)
	got, err := w.Acquire(claimJob, record)
	if err != nil || got.Claim == nil {
		t.Fatalf("acquire: %+v, %v", got, err)
	}
	if got.Claim.gen < 1 || got.Claim.gen > maxGeneration {
		t.Errorf("generation %d, want one in 1..%d", got.Claim.gen, maxGeneration)
	}
	if err := got.Claim.Check(); err != nil {
		t.Errorf("the new claim is not held: %v", err)
	}
	if _, err := os.Stat(absurd); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the absurd claim file stays: %v", err)
	}
	if !strings.Contains(got.Takeover, "generation") {
		t.Errorf("takeover reason %q, want one naming the generation", got.Takeover)
	}
	got.Claim.Release()
	if files := testenv.ClaimFiles(t, out); len(files) != 0 {
		t.Errorf("claim files left: %v", files)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
