//go:build unix

package testenv

import (
	"syscall"
	"testing"
)

// MakeFIFO creates a named pipe at path, a file that is not a regular
// file, for tests of loaders that must refuse one instead of blocking on
// it. It reports false where the system has no named pipes.
func MakeFIFO(tb testing.TB, path string) bool {
	tb.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		tb.Fatal(err)
	}
	return true
}
