package testenv

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// pythonWithNumpy returns a Python interpreter that imports numpy:
// python3 on the PATH or /usr/bin/python3, or "" if neither does.
func pythonWithNumpy() string {
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import numpy").Run() == nil {
			return path
		}
	}
	return ""
}

// NumpyOracle runs scripts/<script> of the module, an independent numpy
// implementation that a test compares the Go numerics with: it writes in
// as JSON to the script's standard input and decodes the script's
// standard output, JSON, into out. It skips the test where no Python with
// numpy is installed (python3 on the PATH or /usr/bin/python3) and fails
// it, with the script's standard error, when the script is missing, fails
// or answers with something other than JSON.
func NumpyOracle(tb testing.TB, script string, in, out any) {
	tb.Helper()
	python := pythonWithNumpy()
	if python == "" {
		tb.Skip("no python3 with numpy")
	}
	root := moduleRoot()
	if root == "" {
		tb.Fatal("no go.mod above the working directory")
	}
	path := filepath.Join(root, "scripts", script)
	b, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(python, path)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	answer, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s %s: %v\n%s", python, path, err, stderr.String())
	}
	if err := json.Unmarshal(answer, out); err != nil {
		tb.Fatalf("%s answers: %v", path, err)
	}
}
