//go:build unix

package cluster

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// flock locks the open file f (see LockFile); closing f unlocks it.
func flock(f *os.File, exclusive, wait bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrLocked
		case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL):
			return fmt.Errorf("%w: %s: %v", ErrNoLocks, f.Name(), err)
		}
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
}

// ErrNoLocks reports a file system without file locks.
var ErrNoLocks = errors.New("no file locks")
