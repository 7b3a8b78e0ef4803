//go:build unix

package datasets

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockPart takes an exclusive lock on f, the open temporary file (or
// directory) of a running download, without waiting; the kernel releases
// it when the process ends, however it ends. It fails when another
// download holds the lock, and with an error wrapping errNoLocks when the
// file system has no locks.
func lockPart(f *os.File) (unlock func(), err error) {
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); {
	case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL):
		return nil, fmt.Errorf("%w: %v", errNoLocks, err)
	case err != nil:
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN) }, nil
}

// errNoLocks reports a file system without file locks.
var errNoLocks = errors.New("no file locks")

// renameOpen reports whether a finished download is renamed into place
// while its locked file is open, as it is here.
const renameOpen = true
