package chromium

import (
	"os"
	"testing"
	"time"
)

// EnvRequire names the environment variable that, set to 1, turns a
// missing browser into a test failure instead of a skip.
const EnvRequire = "CUQ_REQUIRE_CHROMIUM"

// ForTest starts a browser for tb (see Start), which is closed when the
// test ends. Without a browser it skips the test, or fails it when
// EnvRequire is set to 1.
func ForTest(tb testing.TB, timeout time.Duration) *Browser {
	tb.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatal(err)
		}
		tb.Skip(err)
	}
	b, err := Start(path, timeout)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Error(err)
		}
	})
	return b
}
