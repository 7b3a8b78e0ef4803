package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// TestMain lets a test run the cuq command itself in a child process (the
// test binary with CUQ_TEST_MAIN=1), for what only a process shows: exit
// statuses, signals, several processes sharing a directory. The tests
// themselves run without the variables of a batch scheduler, so that a CI
// job run as a Slurm array task or an Indexed Job pod does not shard the
// grids they run.
func TestMain(m *testing.M) {
	if os.Getenv("CUQ_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	for _, k := range clusterVars {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}

// A dataset named with -dataset that is not in the data directory is an
// error pointing to cuq download; it used to train on the synthetic graph
// and exit 0.
func TestNamedDatasetMissing(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"train", "-data", dir, "-dataset", "CiteSeer", "-model", "gkde", "-quiet"},
		{"bench", "-data", dir, "-dataset", "CiteSeer", "-models", "gkde", "-epochs", "1"},
	} {
		out, _, err := runCLI(args...)
		want := `citeseer.npz: no such file or directory (the data directory must hold citeseer.npz); run "cuq download -data ` + dir + ` CiteSeer" to fetch it`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cuq %s: error %v, want %q", strings.Join(args, " "), err, want)
		}
		if out != "" {
			t.Errorf("cuq %s printed results:\n%s", args[0], out)
		}
	}
}

// bench reads $CUQ_DATA, as its help says; it used to look in the working
// directory and run on the synthetic graph.
func TestBenchUsesDataDir(t *testing.T) {
	t.Setenv("CUQ_DATA", testenv.RequireDatasets(t))
	out, _, err := runCLI("bench", "-models", "gkde", "-epochs", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "cuqgnn nodes=2995 features=2879 classes=7 ") {
		t.Errorf("bench did not read CoraML from $CUQ_DATA:\n%s", out)
	}
}

// downloadServer serves files over https under their names and makes the
// download command use it.
func downloadServer(t *testing.T, files map[string][]byte) string {
	srv, _ := testenv.FileServer(t, files)
	httpClient = srv.Client()
	t.Cleanup(func() { httpClient = nil })
	return srv.URL
}

// cuq download fetches CoraML from a local https server into the data
// directory, checked against its size and SHA-256; a second run finds it
// there, and train then uses it.
func TestDownloadCommand(t *testing.T) {
	cora, err := os.ReadFile(filepath.Join(testenv.RequireDatasets(t), "cora_ml.npz"))
	if err != nil {
		t.Fatal(err)
	}
	mirror := downloadServer(t, map[string][]byte{"cora_ml.npz": cora})
	dir := filepath.Join(t.TempDir(), "data")
	out, _, err := runCLI("download", "-data", dir, "-mirror", mirror, "coraml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cora_ml.npz")
	if want := "CoraML: downloaded to " + path + " (1622498 bytes, SHA-256 verified) in "; !strings.HasPrefix(out, want) {
		t.Errorf("output %q, want %q", out, want)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, cora) {
		t.Errorf("stored file differs from the served one (%v)", err)
	}
	out, _, err = runCLI("download", "-data", dir, "-mirror", mirror, "CoraML")
	if err != nil || out != "CoraML: present in "+path+"\n" {
		t.Errorf("second download: %q, %v", out, err)
	}
	out, _, err = runCLI("train", "-data", dir, "-dataset", "CoraML", "-model", "gkde", "-quiet")
	if err != nil || !strings.Contains(out, "GKDE on CoraML (2995 nodes, 7 classes)") {
		t.Errorf("train on the downloaded file: %v\n%s", err, out)
	}
}

// A download whose content differs from the registered file fails and
// leaves nothing in the data directory.
func TestDownloadCommandChecksumMismatch(t *testing.T) {
	mirror := downloadServer(t, map[string][]byte{"citeseer_full.npz": make([]byte, 519139)})
	dir := t.TempDir()
	_, _, err := runCLI("download", "-data", dir, "-mirror", mirror, "CiteSeer")
	if err == nil || !strings.Contains(err.Error(), "datasets: CiteSeer: download "+mirror+"/citeseer_full.npz: checksum mismatch: SHA-256 ") {
		t.Errorf("err = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d entries in the data directory", len(ents))
	}
	if _, _, err := runCLI("download", "-data", dir, "-mirror", "http://127.0.0.1:1", "CiteSeer"); err == nil || !strings.Contains(err.Error(), "not an https URL") {
		t.Errorf("plain-http mirror: %v", err)
	}
}

// merge refuses shards of grids run with different epoch caps, and an
// incomplete set of shards; both used to be merged without a word.
func TestMergeRefusesMismatchedShards(t *testing.T) {
	root := t.TempDir()
	grid := func(dir, shard, maxEpochs string) {
		t.Helper()
		_, _, err := runCLI("grid", "-datasets", "synthetic", "-models", "gkde", "-settings", "classification", "-splits", "2", "-inits", "1",
			"-max-epochs", maxEpochs, "-shard", shard, "-out", filepath.Join(root, dir), "-quiet")
		if err != nil {
			t.Fatal(err)
		}
	}
	grid("a", "0/2", "3")
	grid("b", "1/2", "4")
	_, _, err := runCLI("merge", "-out", filepath.Join(root, "m"), filepath.Join(root, "a"), filepath.Join(root, "b"))
	if err == nil || !strings.Contains(err.Error(), "hold different grids (max_epochs 3 and 4)") {
		t.Errorf("merge of different epoch caps: %v", err)
	}
	_, _, err = runCLI("merge", "-out", filepath.Join(root, "m"), filepath.Join(root, "a"))
	if err == nil || !strings.Contains(err.Error(), "merge: 1 jobs of the grid have no record") || !strings.Contains(err.Error(), "s02_i01_clean.json") {
		t.Errorf("merge of one shard of two: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "m", "tables")); err == nil {
		t.Error("a refused merge wrote tables")
	}
}

// The first interrupt asks for a graceful stop; the second ends the
// process even when it is blocked where no context reaches (here opening
// a FIFO in place of a file of OGBN Arxiv, which the loader could stream).
// The second one used to be ignored, so that only SIGKILL stopped the
// process.
func TestSecondInterruptQuits(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "ogbn_arxiv", "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	// The loader reads the feature file first (it counts the nodes there):
	// a FIFO nobody writes blocks it, the label file is never reached.
	if err := os.WriteFile(filepath.Join(raw, "node-label.csv.gz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(raw, "node-feat.csv.gz"), 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	// bench loads its graph where no context reaches (train's load
	// ends at the first interrupt: TestTrainStopsWhileLoading).
	p := startCuq(t, nil, "bench", "-data", dir, "-dataset", "arxiv", "-models", "gkde")
	cmd, stderr, exited := p.cmd, &p.stderr, p.exited
	// Give the process time to install its handlers and block on the FIFO.
	time.Sleep(time.Second)
	cmd.Process.Signal(os.Interrupt)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s after 10 s; stderr:\n%s", what, stderr.String())
			}
		}
	}
	waitFor("notice of the first interrupt", func() bool { return strings.Contains(stderr.String(), "stopping after the current epoch") })
	select {
	case err := <-exited:
		t.Fatalf("the first interrupt ended the blocked process (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit %v, want status 130", err)
		}
		if !strings.Contains(stderr.String(), "interrupted again; quitting") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the second interrupt did not end the process; stderr:\n%s", stderr.String())
	}
}

// interruptible cancels its context on the first signal and calls exit on
// the second.
func TestInterruptible(t *testing.T) {
	var stderr syncBuffer
	code := make(chan int, 1)
	ctx, stop := interruptible(context.Background(), &stderr, "stopping", func(c int) { code <- c })
	defer stop()
	self, _ := os.FindProcess(os.Getpid())
	self.Signal(syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first signal did not cancel the context")
	}
	self.Signal(syscall.SIGTERM)
	select {
	case c := <-code:
		if c != 143 {
			t.Errorf("exit status %d, want 143 (128 + SIGTERM)", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second signal did not exit")
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in
// different goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An interrupt of cuq download speaks of the download, not of an epoch.
func TestDownloadInterruptNotice(t *testing.T) {
	// A server that accepts connections and never answers: the download
	// waits in its TLS handshake.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	p := startCuq(t, nil, "download", "-data", t.TempDir(), "-mirror", "https://"+ln.Addr().String(), "CoraML")
	cmd, stderr, exited := p.cmd, &p.stderr, p.exited
	time.Sleep(time.Second)
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the interrupt did not end the download; stderr:\n%s", stderr.String())
	}
	got := stderr.String()
	if strings.Contains(got, "epoch") || !strings.Contains(got, "stopping the download") {
		t.Errorf("stderr:\n%s\nwant a notice about stopping the download, none about epochs", got)
	}
}

// An interrupt while train loads its dataset ends the wait for the load.
func TestTrainStopsWhileLoading(t *testing.T) {
	dir := testenv.RequireDatasets(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := run(ctx, []string{"train", "-data", dir, "-dataset", "AmazonComputers", "-model", "gkde", "-quiet"}, &stdout, &stderr)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("the interrupt took %v to end the load", d)
	}
}
