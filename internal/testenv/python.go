package testenv

import "os/exec"

// PythonWithNumpy returns a Python interpreter that imports numpy, for the
// tests that compare the Go numerics with an independent numpy script:
// python3 on the PATH or /usr/bin/python3, or "" if neither does.
func PythonWithNumpy() string {
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
