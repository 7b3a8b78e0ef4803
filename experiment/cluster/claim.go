// Package cluster runs one grid across processes and machines: claims on
// a shared file system, so that workers never run a job twice and take
// over the jobs of workers that died; the shard a batch scheduler (a
// Slurm job array, a Kubernetes Indexed Job) assigns through the
// environment; and the file lock by which a grid owns its output
// directory. It knows files and names, not what a job computes: package
// experiment is its user.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultLease is the lease of a claim that the cuq command uses unless
// told otherwise: a job whose worker died is taken over at most this long
// after the worker's last heartbeat.
const DefaultLease = 5 * time.Minute

// MinLease is the shortest lease experiment.Grid.Claim accepts. A claim is renewed
// every quarter lease, and each renewal and each look at another worker's
// claim reads the file system; below some hundreds of milliseconds a
// loaded machine or a network file system misses renewals, and workers
// take the jobs over from each other again and again instead of running
// them. Leases of seconds suit tests on one machine; across machines use
// minutes (DefaultLease).
const MinLease = 250 * time.Millisecond

// maxGeneration bounds claim generations. Each takeover of a job adds one,
// so a real job never comes near it; a claim file named with a higher
// generation was not written by a worker and is removed as damaged.
const maxGeneration = 1 << 20

// How claims work. Workers that share an output directory (see
// experiment.Grid.Claim) claim a job before they run it with a claim file beside the
// job's record, runs/<dataset>/<model>/s01_i01_clean.claim.<generation>.
// A file is created complete under a temporary name and hard-linked to its
// claim name, which fails when the name exists: of the workers that race
// for a generation exactly one wins, and no worker ever reads a claim half
// written. The highest generation present is the job's claim.
//
// The claim's worker renews it, four times per lease, by setting the
// file's modification time to the present; a claim not renewed for longer
// than the lease it names has expired: its worker died or lost the file
// system. Another worker then takes the job over by creating the next
// generation and removing the older ones. A claim file that cannot be
// read counts as expired. A worker that finds a higher generation than
// its own, or its own file gone or rewritten, has lost the job and
// abandons it without writing a record. When a job ends the worker
// writes its record, then removes its claim files, so that a worker that
// claims the job afterwards finds the record and gives the claim back.
//
// Expiry compares a file's modification time with the reader's clock:
// the machines' clocks must agree to well within a lease, as NTP keeps
// them. A claim renewed further in the future than its lease tells of
// clocks that disagree (or of a file time set by hand); waiting for it
// could take hours, so it is taken over at once as expired, and the
// takeover's reason says so. Claim files whose generation is beyond
// maxGeneration, which no worker makes, are removed as damaged.

// ErrLost is the cause of a job abandoned because its claim passed
// to another worker.
var ErrLost = errors.New("claim lost")

// Claimer claims jobs for one worker: a process whose jobs other
// processes, here or on other machines, may want to run too.
type Claimer struct {
	id    claimInfo // Worker, Host, PID and LeaseSeconds of every claim
	lease time.Duration
}

// claimInfo is the content of a claim file.
type claimInfo struct {
	// Worker identifies the worker: host, process id and a random part.
	Worker       string    `json:"worker"`
	Host         string    `json:"host"`
	PID          int       `json:"pid"`
	Job          string    `json:"job"`
	Generation   int       `json:"generation"`
	LeaseSeconds float64   `json:"lease_seconds"`
	Claimed      time.Time `json:"claimed"`
}

// NewClaimer returns a Claimer with a new worker identity. Its random
// part tells apart workers with the same host name and process id, such
// as the successive pods of a Kubernetes Job (each its container's
// process 1 on a host named after the Job).
func NewClaimer(lease time.Duration) *Claimer {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	var r [4]byte
	rand.Read(r[:]) // never fails: crypto/rand ends the program instead
	pid := os.Getpid()
	return &Claimer{
		id: claimInfo{
			Worker: fmt.Sprintf("%s:%d:%s", host, pid, hex.EncodeToString(r[:])),
			Host:   host, PID: pid, LeaseSeconds: lease.Seconds(),
		},
		lease: lease,
	}
}

// Worker returns w's identity as its claim files name it: host, process
// id and a random part.
func (w *Claimer) Worker() string { return w.id.Worker }

// Lease returns the lease of w's claims.
func (w *Claimer) Lease() time.Duration { return w.lease }

// Claim is a job's claim held by this worker (Claimer.Acquire).
type Claim struct {
	w      *Claimer
	record string // the job's record file
	gen    int
	path   string // the claim file of generation gen
}

// claimPrefix returns the path of the claim files of the job whose record
// is the file record, without their generation.
func claimPrefix(record string) string {
	return strings.TrimSuffix(record, ".json") + ".claim."
}

// claimName returns the claim file of generation gen of the job whose
// record is the file record.
func claimName(record string, gen int) string {
	return claimPrefix(record) + strconv.Itoa(gen)
}

// generations returns the claim generations present for record, in
// increasing order, and the claim files whose generation is a number
// beyond maxGeneration.
func generations(record string) (gens []int, absurd []string, err error) {
	ents, err := os.ReadDir(filepath.Dir(record))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: claims: %w", err)
	}
	prefix := filepath.Base(claimPrefix(record))
	for _, e := range ents {
		s, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || s == "" || strings.Trim(s, "0123456789") != "" || s[0] == '0' {
			continue
		}
		if g, err := strconv.Atoi(s); err == nil && g <= maxGeneration {
			gens = append(gens, g)
		} else {
			absurd = append(absurd, filepath.Join(filepath.Dir(record), e.Name()))
		}
	}
	slices.Sort(gens)
	return gens, absurd, nil
}

// maxClaimBytes bounds a claim file; a real one is some 250 bytes.
const maxClaimBytes = 64 << 10

// readClaim reads the claim file at path and its modification time. An
// error wrapping fs.ErrNotExist means the file is gone; any other error
// means it is damaged or unreadable.
func readClaim(path string) (claimInfo, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return claimInfo{}, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return claimInfo{}, time.Time{}, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxClaimBytes+1))
	if err != nil {
		return claimInfo{}, st.ModTime(), err
	}
	if len(b) > maxClaimBytes {
		return claimInfo{}, st.ModTime(), fmt.Errorf("more than %d bytes", maxClaimBytes)
	}
	var c claimInfo
	if err := json.Unmarshal(b, &c); err != nil {
		return claimInfo{}, st.ModTime(), err
	}
	if c.Worker == "" || c.Generation < 1 || c.Generation > maxGeneration || !(c.LeaseSeconds > 0) || math.IsInf(c.LeaseSeconds, 0) {
		return claimInfo{}, st.ModTime(), fmt.Errorf("worker %q, generation %d, lease %g s: incomplete", c.Worker, c.Generation, c.LeaseSeconds)
	}
	return c, st.ModTime(), nil
}

// lease returns the lease the claim's worker renews it within.
func (c claimInfo) lease() time.Duration {
	return time.Duration(c.LeaseSeconds * float64(time.Second))
}

// Attempt is the outcome of Claimer.acquire.
type Attempt struct {
	Claim *Claim // the claim acquired, or nil
	// Holder describes the live worker holding the job when Claim is nil.
	Holder string
	// Takeover says, when the claim was taken over from another worker,
	// why: its lease expired, or its claim file was damaged.
	Takeover string
}

// maxClaimRaces bounds the attempts of Acquire to claim one job while
// other workers keep claiming and releasing it.
const maxClaimRaces = 16

// Acquire claims the job named job, whose record is the file record: it
// creates the job's first claim, or takes over a claim that expired or is
// damaged, or reports the live worker that holds the job.
func (w *Claimer) Acquire(job, record string) (Attempt, error) {
	if err := os.MkdirAll(filepath.Dir(record), 0o755); err != nil {
		return Attempt{}, fmt.Errorf("cluster: claims: %w", err)
	}
	for range maxClaimRaces {
		gens, absurd, err := generations(record)
		if err != nil {
			return Attempt{}, err
		}
		top, why := 0, ""
		for _, path := range absurd {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return Attempt{}, fmt.Errorf("cluster: claims: removing claim file %s, whose generation no worker makes: %w", path, err)
			}
			why = fmt.Sprintf("claim file %s has a generation beyond %d, which no worker makes; removed as damaged", path, maxGeneration)
		}
		if len(gens) > 0 {
			top = gens[len(gens)-1]
			path := claimName(record, top)
			held, renewed, err := readClaim(path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue // released meanwhile
			case err != nil:
				why = fmt.Sprintf("claim file %s is damaged (%v); taken over as expired", path, err)
			case time.Until(renewed) > held.lease():
				why = fmt.Sprintf("claim file %s of worker %s was renewed %v in the future, beyond its lease of %v: this machine's clock and that worker's (or the file server's) disagree, or the file time was set by hand; taken over as expired",
					path, held.Worker, time.Until(renewed).Round(time.Second), held.lease())
			case time.Since(renewed) <= held.lease():
				return Attempt{Holder: fmt.Sprintf("worker %s, renewed %v ago", held.Worker, time.Since(renewed).Round(time.Millisecond))}, nil
			default:
				why = fmt.Sprintf("the lease of worker %s expired %v ago (not renewed for %v, lease %v)", held.Worker,
					(time.Since(renewed) - held.lease()).Round(time.Millisecond), time.Since(renewed).Round(time.Millisecond), held.lease())
			}
		}
		c := &Claim{w: w, record: record, gen: top + 1, path: claimName(record, top+1)}
		won, err := c.create(job)
		if err != nil {
			return Attempt{}, err
		}
		if !won {
			continue
		}
		if top > 0 || len(absurd) > 0 {
			c.removeOlder()
			removeLeftovers(record, w.lease)
		}
		return Attempt{Claim: c, Takeover: why}, nil
	}
	return Attempt{}, fmt.Errorf("cluster: claims: %s: claimed and released by other workers %d times in a row", job, maxClaimRaces)
}

// create writes the claim file of c's generation unless it exists,
// reporting whether it did.
func (c *Claim) create(job string) (bool, error) {
	info := c.w.id
	info.Job, info.Generation, info.Claimed = job, c.gen, time.Now().UTC()
	b, err := json.MarshalIndent(info, "", " ")
	if err != nil {
		return false, fmt.Errorf("cluster: claims: %w", err)
	}
	dir := filepath.Dir(c.path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(c.path)+".tmp*")
	if err != nil {
		return false, fmt.Errorf("cluster: claims: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("cluster: claims: %w", err)
	}
	err = os.Link(tmp, c.path)
	if err != nil && sameFile(tmp, c.path) {
		// Over NFS a link can succeed and still report an error when
		// its reply is lost; the file then is ours.
		err = nil
	}
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	}
	return false, fmt.Errorf("cluster: claims need hard links in the output directory: %w", err)
}

// sameFile reports whether paths a and b name the same file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// removeOlder removes the claim files of generations below c's: those of
// the workers c took the job over from.
func (c *Claim) removeOlder() {
	gens, _, _ := generations(c.record)
	for _, g := range gens {
		if g < c.gen {
			os.Remove(claimName(c.record, g))
		}
	}
}

// removeLeftovers removes the temporary files that a worker killed while
// writing the record or a claim of record left behind: those not
// modified for longer than lease, which no live worker's can be.
func removeLeftovers(record string, lease time.Duration) {
	dir := filepath.Dir(record)
	for _, pattern := range []string{"." + filepath.Base(record) + ".tmp*", "." + filepath.Base(claimPrefix(record)) + "*.tmp*"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) > lease {
				os.Remove(f)
			}
		}
	}
}

// check returns an error wrapping ErrLost when c is no longer this
// worker's claim: its file is gone or rewritten, or another worker has
// taken the job over.
func (c *Claim) Check() error {
	info, _, err := readClaim(c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: claim file %s removed", ErrLost, c.path)
	case err != nil:
		return fmt.Errorf("cluster: claim file %s: %w", c.path, err)
	case info.Worker != c.w.id.Worker || info.Generation != c.gen:
		return fmt.Errorf("%w: claim file %s now belongs to worker %s", ErrLost, c.path, info.Worker)
	}
	gens, _, err := generations(c.record)
	if err != nil {
		return err
	}
	if len(gens) == 0 {
		return fmt.Errorf("%w: claim file %s removed", ErrLost, c.path)
	}
	if top := gens[len(gens)-1]; top > c.gen {
		by := "another worker"
		if info, _, err := readClaim(claimName(c.record, top)); err == nil {
			by = "worker " + info.Worker
		}
		return fmt.Errorf("%w: %s took the job over", ErrLost, by)
	}
	return nil
}

// Renew extends c's lease to a full lease from now.
func (c *Claim) Renew() error {
	if err := c.Check(); err != nil {
		return err
	}
	now := time.Now()
	if err := os.Chtimes(c.path, now, now); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: claim file %s removed", ErrLost, c.path)
		}
		return fmt.Errorf("cluster: renewing claim: %w", err)
	}
	return nil
}

// Keep renews c four times per lease while the job runs. It returns a
// context for the job that is cancelled, with a cause wrapping
// ErrLost, when the claim passes to another worker or cannot be
// renewed for half a lease; stop ends the renewals.
func (c *Claim) Keep(ctx context.Context) (job context.Context, stop func()) {
	job, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(c.w.lease / 4)
		defer tick.Stop()
		renewed := time.Now()
		for {
			select {
			case <-job.Done():
				return
			case <-tick.C:
			}
			err := c.Renew()
			switch {
			case err == nil:
				renewed = time.Now()
			case errors.Is(err, ErrLost):
				cancel(err)
				return
			case time.Since(renewed) > c.w.lease/2:
				cancel(fmt.Errorf("%w: not renewed for %v: %v", ErrLost, time.Since(renewed).Round(time.Millisecond), err))
				return
			}
		}
	}()
	return job, func() {
		cancel(nil)
		<-done
	}
}

// Release removes c's claim file, if it still is this worker's, and any
// older generation.
func (c *Claim) Release() {
	c.removeOlder()
	if info, _, err := readClaim(c.path); err == nil && info.Worker == c.w.id.Worker && info.Generation == c.gen {
		os.Remove(c.path)
	}
}
