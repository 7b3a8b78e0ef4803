//go:build !unix

package experiment

import (
	"errors"
	"os"
)

// flock reports errNoLocks: without flock, grids do not check who owns
// their output directory.
func flock(*os.File, bool, bool) error { return errNoLocks }

// errNoLocks reports a file system without file locks.
var errNoLocks = errors.New("no file locks")
