package memstat

import (
	"runtime"
	"testing"
)

func TestPeakRSSGrowsWithTouchedMemory(t *testing.T) {
	before := PeakRSS()
	if before <= 0 {
		t.Fatalf("PeakRSS() = %d, want > 0", before)
	}
	// Touch 256 MiB: the peak must rise by most of it.
	b := make([]byte, 256<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	after := PeakRSS()
	runtime.KeepAlive(b)
	if after-before < 200<<20 {
		t.Errorf("peak RSS rose by %d MiB after touching 256 MiB", (after-before)>>20)
	}
	if p := Physical(); runtime.GOOS == "linux" && p < after {
		t.Errorf("Physical() = %d, less than this process's peak %d", p, after)
	}
}
