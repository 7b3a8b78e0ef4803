package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// execution runs the jobs of a grid with a pool of workers: in run order,
// or in a claiming grid (Grid.Claim) the next job claimed, counting each
// job's events in the Summary and passing them to the grid's Progress.
type execution struct {
	g         *Grid
	todo      []Job             // the jobs to run, in run order
	damagedAt map[string]string // damaged record files by job path
	loader    *datasetCache
	trainings *cuq.TrainingCache // shared among the workers
	queue     *claimQueue        // nil: no claims

	mu      sync.Mutex // guards sum, done, handed and unsaved, and serialises events
	sum     *Summary
	done    int   // jobs finished or failed here
	handed  int   // jobs handed out without claims
	unsaved error // the first record that could not be saved
	stop    func()
}

// run starts the workers and returns when every job has run, ctx is done,
// or a record could not be saved (a full disk): then no further job
// starts, for it would train for nothing, and the jobs running finish.
func (x *execution) run(ctx context.Context) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	x.stop = stop
	if x.g.lease > 0 {
		x.queue = &claimQueue{g: x.g, w: cluster.NewClaimer(x.g.lease), pending: slices.Clone(x.todo), notify: x.report}
	}
	x.emit(Event{Kind: Planned})
	var wg sync.WaitGroup
	for range min(max(1, x.g.workers), MaxWorkers(), max(1, len(x.todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.work(ctx, runCtx)
		}()
	}
	wg.Wait()
	if x.queue != nil {
		x.sum.Elsewhere = int(x.queue.elsewhere.Load())
	}
}

// runShared runs job j as one of the grid's jobs running at once, which
// share the cores (tensor.ShareCores): with as many jobs as cores, each
// job's kernels run on one core.
func (x *execution) runShared(ctx context.Context, j Job, c *cluster.Claim) error {
	defer tensor.ShareCores()()
	return x.g.runOne(ctx, x.loader, x.trainings, j, c)
}

// work is one worker: it takes jobs until none is left or runCtx ends,
// runs each with ctx (which only the caller's interrupt cancels) and
// reports what became of it.
func (x *execution) work(ctx, runCtx context.Context) {
	for {
		j, c, ok, err := x.next(runCtx)
		if !ok {
			return
		}
		if err != nil {
			x.report(Event{Kind: Failed, Job: j, Err: err})
			continue
		}
		x.report(Event{Kind: Started, Job: j})
		start := time.Now()
		err = x.runShared(ctx, j, c)
		elapsed := time.Since(start)
		var save *saveError
		if errors.As(err, &save) {
			x.mu.Lock()
			if x.unsaved == nil {
				x.unsaved = err
			}
			x.mu.Unlock()
			x.stop()
		}
		switch {
		case err != nil && ctx.Err() != nil:
		case errors.Is(err, cluster.ErrLost):
			x.queue.requeue(j)
			x.report(Event{Kind: Abandoned, Job: j, Note: err.Error(), Elapsed: elapsed})
		case err != nil:
			x.report(Event{Kind: Failed, Job: j, Err: err, Elapsed: elapsed})
		default:
			x.report(Event{Kind: Finished, Job: j, Elapsed: elapsed})
		}
	}
}

// next hands a worker its next job: in run order, or in a claiming grid
// the next one claimed.
func (x *execution) next(ctx context.Context) (j Job, c *cluster.Claim, ok bool, err error) {
	if x.queue != nil {
		return x.queue.next(ctx)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.handed == len(x.todo) || ctx.Err() != nil {
		return Job{}, nil, false, nil
	}
	x.handed++
	return x.todo[x.handed-1], nil, true, nil
}

// report counts an event's job in the summary and emits the event.
func (x *execution) report(e Event) {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch e.Kind {
	case Finished:
		x.done++
		x.sum.Ran++
		if path, ok := x.damagedAt[e.Job.Path()]; ok {
			x.sum.Redone = append(x.sum.Redone, path)
		}
	case Failed:
		x.done++
		x.sum.Failed = append(x.sum.Failed, e.Err)
	case TakenOver:
		x.sum.TakenOver = append(x.sum.TakenOver, fmt.Sprintf("%v: %s", e.Job, e.Note))
	}
	e.Done = x.done
	if x.queue != nil {
		e.Done += int(x.queue.elsewhere.Load())
	}
	x.emit(e)
}

// emit passes e, with the plan's totals, to the grid's Progress.
func (x *execution) emit(e Event) {
	if x.g.progress != nil {
		e.Total, e.Skipped = len(x.todo), x.sum.Skipped
		x.g.progress(e)
	}
}
