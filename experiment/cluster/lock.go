package cluster

import (
	"errors"
	"os"
)

// ErrLocked reports a lock that another process holds.
var ErrLocked = errors.New("locked by another process")

// LockFile opens (creating) the file at path and locks it, exclusively
// or shared, waiting for the lock when wait is set; release unlocks and
// closes it. It fails with ErrLocked when another process holds a
// conflicting lock and wait is not set, and with an error wrapping
// ErrNoLocks when the file system has no locks.
func LockFile(path string, exclusive, wait bool) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f, exclusive, wait); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
