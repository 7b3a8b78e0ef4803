//go:build !unix

package cluster

import (
	"errors"
	"os"
)

// flock reports ErrNoLocks: without flock, grids do not check who owns
// their output directory.
func flock(*os.File, bool, bool) error { return ErrNoLocks }

// ErrNoLocks reports a file system without file locks.
var ErrNoLocks = errors.New("no file locks")
