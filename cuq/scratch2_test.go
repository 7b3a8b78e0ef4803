package cuq_test

import (
	"os"
	"runtime/pprof"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
)

func TestScratchProf(t *testing.T) {
	g, _ := datasets.Load("CoraML", datasets.FromDir("/work/shared/datasets"), datasets.NoDownload())
	sp, _ := g.Split(graph.Stratified(0.05, 0.15, 0.8))
	name := os.Getenv("M")
	for _, p := range paperPresets {
		if p.name != name {
			continue
		}
		m := p.build(g).MustBuild()
		m.Step(sp)
		f, _ := os.Create("/tmp/m.prof")
		pprof.StartCPUProfile(f)
		for i := 0; i < 40; i++ {
			m.Step(sp)
			m.Forward(nil)
		}
		pprof.StopCPUProfile()
		f.Close()
	}
}
