package kernelext

import (
	"errors"
	"strings"
	"testing"
)

// stopped replaces exit for a test and reports the status it was called
// with (-1: not called).
func stopped(t *testing.T) *int {
	t.Helper()
	status := -1
	exit = func(code int) { status = code }
	t.Cleanup(func() { exit = func(code int) { panic("exit in a test") } })
	return &status
}

func TestMustAndCheck(t *testing.T) {
	status := stopped(t)
	if got := Must(42, nil); got != 42 || *status != -1 {
		t.Errorf("Must(42, nil) = %d, exit %d", got, *status)
	}
	Check(nil)
	if *status != -1 {
		t.Errorf("Check(nil) exited with %d", *status)
	}
	Must(0, errors.New("no such file <cora_ml.npz>"))
	if *status != 1 {
		t.Errorf("Must with an error: exit status %d, want 1", *status)
	}
	if h := nextHTML(t); !strings.Contains(h, "no such file &lt;cora_ml.npz&gt;") || !strings.Contains(h, "<pre") {
		t.Errorf("error not shown (escaped) in the cell: %s", h)
	}
	*status = -1
	Check(errors.New("bad"))
	if *status != 1 {
		t.Errorf("Check with an error: exit status %d, want 1", *status)
	}
	nextHTML(t)
}

func TestClaim(t *testing.T) {
	status := stopped(t)
	Claim(0.93 > 0.9, "accuracy %.2f is above %.1f", 0.93, 0.9)
	if *status != -1 {
		t.Fatalf("a true claim exited with %d", *status)
	}
	if h := nextHTML(t); !strings.Contains(h, "✓ accuracy 0.93 is above 0.9") {
		t.Errorf("true claim shown as %q", h)
	}
	Claim(false, "EU rises with %s", "degree")
	if *status != 1 {
		t.Errorf("a false claim: exit status %d, want 1", *status)
	}
	if h := nextHTML(t); !strings.Contains(h, "claim failed: EU rises with degree") {
		t.Errorf("false claim shown as %q", h)
	}
}
