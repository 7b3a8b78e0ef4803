//go:build !unix

package datasets

import (
	"errors"
	"os"
)

// lockPart reports errNoLocks: without flock, removeStale falls back on
// the age of temporary files.
func lockPart(*os.File) (unlock func(), err error) { return nil, errNoLocks }

// errNoLocks reports a file system without file locks.
var errNoLocks = errors.New("no file locks")

// renameOpen reports whether a finished download is renamed into place
// while its locked file is open; here it is closed first (Windows cannot
// rename an open file).
const renameOpen = false
