package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/cuqgnn/cuqgnn/datasets"
)

// deployDir is the repository's deploy directory, seen from this package.
const deployDir = "../../deploy"

// The sbatch script, run by bash as three tasks of an array --array=0-2
// into one directory, runs the grid in three shards whose tables equal
// the single-process grid's; outside an array it stops with an error
// naming the variables.
func TestSlurmScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	want := referenceTables(t)
	submit := t.TempDir()
	script, err := filepath.Abs(filepath.Join(deployDir, "slurm", "cuq-grid.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	// The script runs $CUQ: here this test binary as the cuq command.
	base := []string{"CUQ=" + os.Args[0], "SLURM_SUBMIT_DIR=" + submit, "SLURM_MEM_PER_NODE=8192"}
	var tasks []*process
	for i := range 3 {
		env := append(slices.Clone(base), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=2", "SLURM_ARRAY_TASK_COUNT=3")
		tasks = append(tasks, startCuqVia(t, bash, env, append([]string{script}, tinyGridArgs...)...))
	}
	for i, p := range tasks {
		p.wait(t, fmt.Sprintf("array task %d", i))
		if !strings.Contains(p.stderr.String(), fmt.Sprintf("notice: running shard %d/3 of the Slurm job array", i)) {
			t.Errorf("task %d stderr:\n%s", i, p.stderr.String())
		}
	}
	sameTables(t, "sbatch array", filepath.Join(submit, "results"), want)

	p := startCuqVia(t, bash, base, append([]string{script}, tinyGridArgs...)...)
	err = <-p.exited
	if err == nil || !strings.Contains(p.stderr.String(), "cuq: grid: -shard auto: the environment sets no shard") {
		t.Errorf("script outside an array: %v\n%s", err, p.stderr.String())
	}
}

// startCuqVia starts program with args, the cuq command (this test
// binary) being what it runs.
func startCuqVia(t *testing.T, program string, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(program, args...), exited: make(chan error, 1)}
	p.cmd.Env = append(append(os.Environ(), "CUQ_TEST_MAIN=1"), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

// manifest is the part of the Kubernetes manifest the test checks.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		AccessModes    []string `yaml:"accessModes"`
		CompletionMode string   `yaml:"completionMode"`
		Completions    int      `yaml:"completions"`
		Template       struct {
			Spec struct {
				InitContainers []container `yaml:"initContainers"`
				Containers     []container `yaml:"containers"`
				Volumes        []struct {
					Name string `yaml:"name"`
					PVC  struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type container struct {
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Env   []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// The Indexed Job manifest gives its pods the shards 0 to completions−1
// of one grid: CUQ_SHARD_COUNT equals the completions, the grid
// container's arguments parse, and the data and output directories are
// on the shared volume the manifest claims, as the datasets the init
// container fetches.
func TestKubernetesManifest(t *testing.T) {
	f, err := os.Open(filepath.Join(deployDir, "kubernetes", "cuq-grid-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	byKind := map[string]manifest{}
	for {
		var m manifest
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		byKind[m.Kind] = m
	}
	job, pvc := byKind["Job"], byKind["PersistentVolumeClaim"]
	if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions < 1 {
		t.Fatalf("job completion mode %q, %d completions", job.Spec.CompletionMode, job.Spec.Completions)
	}
	if !slices.Equal(pvc.Spec.AccessModes, []string{"ReadWriteMany"}) {
		t.Errorf("volume access modes %v, want ReadWriteMany", pvc.Spec.AccessModes)
	}
	pod := job.Spec.Template.Spec
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 1 || len(pod.Volumes) != 1 || pod.Volumes[0].PVC.ClaimName != pvc.Metadata.Name {
		t.Fatalf("pod %+v", pod)
	}
	grid, fetch := pod.Containers[0], pod.InitContainers[0]
	if grid.Image != fetch.Image {
		t.Errorf("images %s and %s", grid.Image, fetch.Image)
	}
	var env []string
	for _, e := range grid.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	if grid.Args[0] != "grid" {
		t.Fatalf("container runs %v", grid.Args)
	}
	for i := range job.Spec.Completions {
		// Kubernetes adds the pod's index.
		cfg, err := parseGrid(grid.Args[1:], envOf(append(env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))...), io.Discard)
		if err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		if want := fmt.Sprintf("%d/%d", i, job.Spec.Completions); cfg.shard != want {
			t.Errorf("pod %d runs shard %q, want %s", i, cfg.shard, want)
		}
	}
	mounted := func(c container, dir string) bool {
		return slices.ContainsFunc(c.VolumeMounts, func(m struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		}) bool {
			return m.Name == pod.Volumes[0].Name && strings.HasPrefix(dir, m.MountPath+"/")
		})
	}
	flag := func(args []string, name string) string {
		i := slices.Index(args, name)
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("no %s in %v", name, args)
		}
		return args[i+1]
	}
	data, out := flag(grid.Args, "-data"), flag(grid.Args, "-out")
	if !mounted(grid, data) || !mounted(grid, out) || !mounted(fetch, data) || flag(fetch.Args, "-data") != data {
		t.Errorf("data %s and output %s not both on the shared volume of both containers", data, out)
	}
	if fetch.Args[0] != "download" {
		t.Fatalf("init container runs %v", fetch.Args)
	}
	for _, name := range strings.Split(fetch.Args[len(fetch.Args)-1], ",") {
		if _, err := datasets.Info(name); err != nil {
			t.Error(err)
		}
	}
}

// The container image's build stage builds the command from the
// directories it copies: the same build from a directory holding only
// those succeeds, and the binary runs. Skipped with -short (it compiles
// the module once more).
func TestContainerfileBuildsTheCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	f, err := os.Open(filepath.Join(deployDir, "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := t.TempDir()
	var build string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 3 && fields[0] == "COPY" && !strings.HasPrefix(fields[1], "--"):
			for _, src := range fields[1 : len(fields)-1] {
				if err := os.CopyFS(filepath.Join(ctx, src), os.DirFS(filepath.Join("../..", src))); err != nil {
					// A single file.
					b, rerr := os.ReadFile(filepath.Join("../..", src))
					if rerr != nil {
						t.Fatalf("COPY %s: %v", src, err)
					}
					if err := os.WriteFile(filepath.Join(ctx, src), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		case len(fields) > 1 && fields[0] == "RUN" && strings.Contains(sc.Text(), " go build "):
			build = sc.Text()
		}
	}
	if !strings.Contains(build, "CGO_ENABLED=0 go build ") || !strings.HasSuffix(build, " ./cmd/cuq") {
		t.Fatalf("build step %q: want a static build of ./cmd/cuq", build)
	}
	bin := filepath.Join(t.TempDir(), "cuq")
	cmd := exec.Command(goTool, "build", "-trimpath", "-o", bin, "./cmd/cuq")
	cmd.Dir, cmd.Env = ctx, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in the image's build context: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "-h").CombinedOutput(); err != nil || !strings.Contains(string(out), "usage: cuq <command>") {
		t.Errorf("cuq -h: %v\n%s", err, out)
	}
}
