package tensor

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestKernelsFollowGODEBUG runs this test binary again with GODEBUG
// switching processor features off, and checks that Kernels reports the
// path chosen: AVX2 with AVX-512 off, portable with AVX2 off. On arm64
// (under qemu-user, say) they are the NEON ones, elsewhere portable.
func TestKernelsFollowGODEBUG(t *testing.T) {
	if os.Getenv("CUQ_PRINT_KERNELS") == "1" {
		os.Stdout.WriteString("kernels=" + Kernels() + "\n")
		return
	}
	if runtime.GOARCH != "amd64" {
		if k := Kernels(); k != "portable" && !(runtime.GOARCH == "arm64" && k == "neon") {
			t.Errorf("on %s: kernels %q, want portable (or neon on arm64)", runtime.GOARCH, k)
		}
		return
	}
	run := func(godebug string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelsFollowGODEBUG$")
		cmd.Env = append(os.Environ(), "CUQ_PRINT_KERNELS=1", "GODEBUG="+godebug)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if k, ok := strings.CutPrefix(line, "kernels="); ok {
				return k
			}
		}
		t.Fatalf("GODEBUG=%s: no kernels line in\n%s", godebug, out)
		return ""
	}
	if got := run("cpu.avx2=off"); got != "portable" {
		t.Errorf("with AVX2 off: kernels %q, want portable", got)
	}
	want := Kernels()
	if want == "avx512" {
		want = "avx2"
	}
	if got := run("cpu.avx512f=off"); got != want {
		t.Errorf("with AVX-512 off: kernels %q, want %q (here: %q)", got, want, Kernels())
	}
}
