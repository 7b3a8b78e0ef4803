// Package memstat reads the memory figures that cuqgnn reports with its
// timings: the process's peak resident set size and the machine's RAM.
package memstat
