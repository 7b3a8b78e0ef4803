package experiment

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

// How a running grid owns its output directory. Grids with other jobs
// must not share an output directory at once: they would overwrite each
// other's records and grid.json. Every running Run holds a shared lock on
// OUT/.grid.lock (see lockFile); the kernel drops the lock of a process
// however it ends, so a dead grid never blocks the directory. Run checks
// in under an exclusive lock on OUT/.grid.lock.mutex, held only while it
// checks: when another Run holds .grid.lock, the grid recorded in
// grid.json is that Run's, and a grid with other jobs (Spec.Diff) is
// refused; otherwise no grid runs and Run records its own Spec. Grids with
// the same jobs (shards, claiming workers, a plain rerun) share the
// directory. On a file system without file locks the check is skipped.

const (
	ownerLock  = ".grid.lock"
	ownerMutex = ".grid.lock.mutex"
)

// own checks in the grid of spec as a user of the output directory (see
// above) and records spec there. It returns how the grid recorded there
// before differed ("" if it did not, or there was none), and release,
// which gives the directory up when Run ends.
func (g *Grid) own(spec *Spec) (previous string, release func(), err error) {
	mutex, err := cluster.LockFile(filepath.Join(g.out, ownerMutex), true, true)
	if errors.Is(err, cluster.ErrNoLocks) {
		previous, err := g.recordSpec(spec)
		return previous, func() {}, err
	}
	if err != nil {
		return "", nil, fmt.Errorf("experiment: output directory: %w", err)
	}
	defer mutex()
	probe, err := cluster.LockFile(filepath.Join(g.out, ownerLock), true, false)
	switch {
	case errors.Is(err, cluster.ErrLocked):
		// Another grid runs: grid.json is its Spec.
		running, rerr := ReadSpec(g.out)
		if rerr != nil {
			return "", nil, fmt.Errorf("experiment: %s is in use by another grid whose settings cannot be read (%v); wait until it ends, then rerun", g.out, rerr)
		}
		if d := running.Diff(spec); d != "" {
			return "", nil, fmt.Errorf("experiment: %s is in use by another grid with other settings (%s, the running grid's first); nothing was run or changed: wait until that grid ends and rerun, or give this grid another output directory", g.out, d)
		}
	case err != nil:
		return "", nil, fmt.Errorf("experiment: output directory: %w", err)
	default:
		probe()
	}
	shared, err := cluster.LockFile(filepath.Join(g.out, ownerLock), false, false)
	if err != nil {
		return "", nil, fmt.Errorf("experiment: output directory: %w", err)
	}
	previous, err = g.recordSpec(spec)
	if err != nil {
		shared()
		return "", nil, err
	}
	return previous, shared, nil
}

// recordSpec records spec in the output directory, returning how the
// grid recorded there before differed.
func (g *Grid) recordSpec(spec *Spec) (previous string, err error) {
	if old, err := ReadSpec(g.out); err == nil {
		previous = old.Diff(spec)
	}
	if err := spec.write(g.out); err != nil {
		return "", err
	}
	return previous, nil
}
