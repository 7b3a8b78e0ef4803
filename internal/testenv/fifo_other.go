//go:build !unix

package testenv

import "testing"

// MakeFIFO reports false: this system has no named pipes.
func MakeFIFO(testing.TB, string) bool { return false }
