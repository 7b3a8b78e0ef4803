package experiment

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// A grid with other settings refuses an output directory that a running
// grid owns, before it writes anything (two grids with other epoch caps or
// splits overwrote each other's records and grid.json); an identical grid
// runs beside it, and once the owner ends another grid may reuse the
// directory.
func TestGridRefusesAnotherGridOnItsOut(t *testing.T) {
	out := t.TempDir()
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	owner := tinyGrid(t, out, GKDE).Progress(func(e Event) {
		if e.Kind == Started {
			once.Do(func() { close(started); <-release })
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := owner.Run(context.Background())
		done <- err
	}()
	<-started
	for _, c := range []struct {
		g    *Grid
		diff string
	}{
		{tinyGrid(t, out, GKDE).MaxEpochs(9), "max_epochs"},
		{tinyGrid(t, out, GKDE).Splits(1), "splits"},
		{tinyGrid(t, out, GKDE, GPN), "models"},
	} {
		sum, err := c.g.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "in use by another grid") || !strings.Contains(err.Error(), c.diff) ||
			!strings.Contains(err.Error(), "rerun") {
			t.Errorf("a grid with other %s: error %v, want one saying %s is in use by another grid and what to do", c.diff, err, out)
		}
		if sum != nil && sum.Ran > 0 {
			t.Errorf("a grid with other %s ran %d jobs", c.diff, sum.Ran)
		}
	}
	if s, err := ReadSpec(out); err != nil || s.MaxEpochs != 8 || s.Splits != 2 || len(s.Models) != 1 {
		t.Errorf("grid.json now %+v, %v; want the running grid's", s, err)
	}
	// An identical grid shares the directory.
	if _, err := tinyGrid(t, out, GKDE).Run(context.Background()); err != nil {
		t.Errorf("an identical grid beside the owner: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("owner: %v", err)
	}
	// The owner has ended: another grid may take the directory over.
	sum, err := tinyGrid(t, out, GKDE).MaxEpochs(9).Run(context.Background())
	if err != nil || sum.PreviousGrid == "" || !sum.Complete {
		t.Errorf("after the owner ended: %+v, %v", sum, err)
	}
}

// Workers beyond MaxWorkers are not started: -jobs 10000 started every job
// at once, each with its model's memory.
func TestWorkersCapped(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	g := tinyGrid(t, t.TempDir(), GPN).Splits(6).Inits(2).Workers(10000).Progress(func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case Started:
			running++
			most = max(most, running)
		case Finished, Failed:
			running--
		}
	})
	sum, err := g.Run(context.Background())
	if err != nil || sum.Ran != 24 {
		t.Fatalf("Run: %+v, %v", sum, err)
	}
	if most > MaxWorkers() {
		t.Errorf("%d jobs ran at once, want at most MaxWorkers() = %d", most, MaxWorkers())
	}
}

// An interrupt while Run plans a large grid stops it before it records
// anything or starts a job (the first SIGTERM used to wait for planning
// and loading to end).
func TestRunStopsWhilePlanning(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	planned := false
	g := Paper().Dataset(tinyDataset(t, "Tiny")).Models(GKDE).Settings(Classification).Splits(MaxJobs).Inits(1).Out(out).
		Progress(func(e Event) { planned = planned || e.Kind == Planned })
	start := time.Now()
	_, err := g.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if planned {
		t.Error("an interrupted Run went on to plan its jobs")
	}
	if _, err := os.Stat(filepath.Join(out, SpecFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an interrupted Run recorded its grid: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the interrupt took %v", d)
	}
}

// An interrupt while Run loads a dataset ends the wait for it.
func TestRunStopsWhileLoading(t *testing.T) {
	dir := testenv.RequireDatasets(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	g := Paper().Datasets("AmazonComputers").Models(GKDE).Settings(Classification).Splits(1).Inits(1).DataDir(dir).Out(t.TempDir())
	start := time.Now()
	sum, err := g.Run(ctx)
	if !errors.Is(err, context.Canceled) || (sum != nil && sum.Ran > 0) {
		t.Fatalf("Run: %+v, %v; want context.Canceled and no job run", sum, err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("the interrupt took %v to end the load", d)
	}
}

// A record that cannot be saved stops the grid at once, with an error
// saying to free space and rerun, instead of training every other job for
// nothing; a damaged record whose redo failed is not reported as redone.
func TestRunStopsAtFirstFailedSave(t *testing.T) {
	out := t.TempDir()
	g := tinyGrid(t, out, GKDE, GPN).Settings(Classification)
	jobs, err := g.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	first := runOrder(jobs)[0]
	// A directory where the first job's record goes: the record reads as
	// damaged and cannot be written.
	must(t, os.MkdirAll(filepath.Join(out, first.Path(), "x"), 0o755))
	started := 0
	sum, err := g.Progress(func(e Event) {
		if e.Kind == Started {
			started++
		}
	}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "free space") || !strings.Contains(err.Error(), "rerun") {
		t.Errorf("error %v, want one saying to free space and rerun", err)
	}
	if started != 1 || sum == nil || sum.Ran != 0 || len(sum.Failed) != 1 {
		t.Errorf("%d jobs started, summary %+v; want the grid stopped after the first", started, sum)
	}
	if sum != nil && len(sum.Redone) > 0 {
		t.Errorf("Redone %v after the redo failed", sum.Redone)
	}
}
