// Package readme holds the test that the library example in the
// repository's README compiles and runs as written, with the result the
// README states.
package readme
