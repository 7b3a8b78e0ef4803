package main

import (
	"io"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// FuzzGridFlags parses arbitrary grid command lines (arguments separated
// by NUL bytes). Parsing returns an error or a grid whose every job is
// valid and whose size stays within experiment.MaxJobs; it never panics
// and never runs anything.
func FuzzGridFlags(f *testing.F) {
	for _, args := range []string{
		"-splits 10 -inits 1 -out results",
		"-datasets CoraML,CiteSeer -splits 10 -inits 1 -out results -shard 0/4",
		"-datasets CoraML,CiteSeer -models cuq_ppr,cuq_gcn,cuq_gat -settings classification,gaussian -inits 4",
		"-datasets synthetic -models gkde,appnp -settings classification,gaussian -splits 1 -inits 1 -max-epochs 3 -jobs 2 -quiet",
		"-datasets arxiv,Photos -models gpn_lop,GKDE -settings loc -splits 3 -inits 2 -shard 2/3 -echarts=",
		"-datasets synthetic -models gkde -splits 2 -claim -lease 30s -jobs 2",
		"-datasets synthetic -shard auto",
	} {
		f.Add(strings.ReplaceAll(args, " ", "\x00"))
	}
	if dir := testenv.DatasetsDir(); dir != "" {
		f.Add("-data\x00" + dir + "\x00-models\x00gpn\x00-splits\x002\x00-inits\x002")
	}
	f.Fuzz(func(t *testing.T, line string) {
		var args []string
		if line != "" {
			args = strings.Split(line, "\x00")
		}
		cfg, err := parseGrid(args, noEnv, io.Discard)
		if err != nil {
			return
		}
		spec, err := cfg.grid.Spec()
		if err != nil {
			t.Fatalf("parsed grid has no spec: %v", err)
		}
		jobs, err := cfg.grid.ShardJobs()
		if err != nil {
			t.Fatalf("parsed grid has no jobs: %v", err)
		}
		all, _ := spec.Jobs()
		if len(all) == 0 || len(all) > experiment.MaxJobs || len(jobs) > len(all) {
			t.Fatalf("%d jobs in the shard, %d in the grid", len(jobs), len(all))
		}
		for _, j := range jobs {
			if j.Split < 1 || j.Split > spec.Splits || j.Init < 1 || j.Init > spec.Inits || len(j.Settings) == 0 {
				t.Fatalf("job %v of grid %+v", j, spec)
			}
		}
	})
}
