package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// claimQueue hands the jobs of a claiming Run to its goroutines: each
// gets the first job in run order that has no record and no live claim.
// When the jobs left are all claimed by other workers it waits for them,
// polling (see waitPoll), so that it takes over those whose workers die.
type claimQueue struct {
	g      *Grid
	w      *cluster.Claimer
	notify func(Event) // reports TakenOver and Waiting; never called with mu held
	// elsewhere counts the jobs of pending that other workers finished.
	elsewhere atomic.Int64
	mu        sync.Mutex // guards the fields below
	// pending are the jobs that have no record and do not run here, in
	// run order.
	pending   []Job
	waitingOn int // held jobs of the last Waiting event
}

// next claims the next job, waiting while every job left is claimed by a
// live worker. It returns ok false when no job is left or ctx is done,
// and an error for a job it failed to claim (which it drops).
func (q *claimQueue) next(ctx context.Context) (j Job, c *cluster.Claim, ok bool, err error) {
	for {
		j, c, held, note, err := q.scan()
		if note != nil {
			q.notify(*note)
		}
		switch {
		case c != nil || err != nil:
			return j, c, true, err
		case held == 0:
			return Job{}, nil, false, nil
		}
		t := time.NewTimer(waitPoll(held, q.w.Lease()))
		select {
		case <-ctx.Done():
			t.Stop()
			return Job{}, nil, false, nil
		case <-t.C:
		}
	}
}

// waitPoll is the time between two looks at held jobs that other workers
// run: a second, or 10 ms per job, so that a worker reads at most some 100
// claim files a second, and at most a quarter of the lease.
func waitPoll(held int, lease time.Duration) time.Duration {
	return min(lease/4, max(time.Second, time.Duration(held)*10*time.Millisecond))
}

// scan claims the first pending job that is free. When none is it
// returns the number of jobs that live workers hold, and when that number
// changed an event to report.
func (q *claimQueue) scan() (j Job, c *cluster.Claim, held int, note *Event, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	first := ""
	for i := 0; i < len(q.pending); {
		j := q.pending[i]
		if done, _ := q.g.finished(j); done {
			q.pending = slices.Delete(q.pending, i, i+1)
			q.elsewhere.Add(1)
			continue
		}
		a, err := q.w.Acquire(j.String(), filepath.Join(q.g.out, j.Path()))
		if err != nil {
			q.pending = slices.Delete(q.pending, i, i+1)
			return j, nil, 0, nil, err
		}
		if a.Claim == nil {
			if held == 0 {
				first = fmt.Sprintf("%v, %s", j, a.Holder)
			}
			held++
			i++
			continue
		}
		q.pending = slices.Delete(q.pending, i, i+1)
		// The job's last worker may have written its record and released
		// its claim since finished looked.
		if done, _ := q.g.finished(j); done {
			a.Claim.Release()
			q.elsewhere.Add(1)
			continue
		}
		q.waitingOn = 0
		if a.Takeover != "" {
			note = &Event{Kind: TakenOver, Job: j, Note: a.Takeover}
		}
		return j, a.Claim, 0, note, nil
	}
	if held > 0 && held != q.waitingOn {
		msg := fmt.Sprintf("%d jobs left, all claimed by other workers (the first: %s); waiting for them to finish or their claims to expire", held, first)
		if held == 1 {
			msg = fmt.Sprintf("1 job left, claimed by another worker (%s); waiting for it to finish or its claim to expire", first)
		}
		note = &Event{Kind: Waiting, Note: msg}
	}
	q.waitingOn = held
	return Job{}, nil, held, note, nil
}

// requeue puts back a job this worker abandoned, to wait for the worker
// that took it over.
func (q *claimQueue) requeue(j Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append([]Job{j}, q.pending...)
}
