package readme

import (
	"bytes"
	"context"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// example returns the README's first Go code block that is a whole
// program.
func example(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```go\n")[1:] {
		code, _, ok := strings.Cut(block, "```")
		if ok && strings.HasPrefix(code, "package main\n") {
			return code
		}
	}
	t.Fatal("README.md has no Go code block starting with package main")
	return ""
}

// TestREADMEExample builds the README's example as a program of its own
// module (which uses this checkout) and runs it on CoraML: it must print
// a test accuracy within 5 points of the paper's CUQ-PPR accuracy.
func TestREADMEExample(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	code := example(t, root)
	if formatted, err := format.Source([]byte(code)); err != nil || !bytes.Equal(formatted, []byte(code)) {
		t.Errorf("the README example is not gofmt-formatted (err %v)", err)
	}
	data := testenv.RequireDatasets(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the example with")
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module readme\n\ngo 1.26.8\n\nrequire github.com/cuqgnn/cuqgnn v0.0.0\n\nreplace github.com/cuqgnn/cuqgnn => " + root + "\n"
	for name, body := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(code)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "run", "-mod=mod", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CUQ_DATA="+data, "GOPROXY=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run the README example: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(\d+) epochs; test accuracy ([0-9.]+)%, ([0-9.]+)% after rejecting`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("unexpected output:\n%s", out)
	}
	acc, _ := strconv.ParseFloat(string(m[2]), 64)
	rejected, _ := strconv.ParseFloat(string(m[3]), 64)
	paper, ok := experiment.PaperAccuracy("CoraML", "CUQ-PPR")
	if !ok {
		t.Fatal("no published CUQ-PPR accuracy on CoraML")
	}
	if acc < paper-5 || acc > paper+5 {
		t.Errorf("the example's test accuracy %.1f%% is not within 5 points of the paper's %.2f%%", acc, paper)
	}
	if rejected <= acc {
		t.Errorf("rejecting by EU lowered the accuracy: %.1f%% → %.1f%%", acc, rejected)
	}
	t.Logf("README example: %s", bytes.TrimSpace(out))
}
