package datasets_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// reportMemory adds two metrics to b: live-MB, the heap still in use after
// a collection while g is alive (the loaded graph's size), and sys-MB, the
// memory the process has obtained from the OS so far (a bound on the peak).
func reportMemory(b *testing.B, g *graph.Graph) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(g)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
}

func BenchmarkLoad(b *testing.B) {
	dir := testenv.RequireDatasets(b)
	for _, c := range sharedCases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var g *graph.Graph
			for b.Loop() {
				var err error
				if g, err = datasets.LoadNPZ(filepath.Join(dir, c.file), c.name); err != nil {
					b.Fatal(err)
				}
			}
			reportMemory(b, g)
		})
	}
}

func BenchmarkArxivLike(b *testing.B) {
	b.ReportAllocs()
	var g *graph.Graph
	for b.Loop() {
		var err error
		if g, err = datasets.ArxivLike(1); err != nil {
			b.Fatal(err)
		}
	}
	reportMemory(b, g)
}

func BenchmarkSynthetic(b *testing.B) {
	b.ReportAllocs()
	var g *graph.Graph
	for b.Loop() {
		var err error
		if g, err = datasets.Synthetic(); err != nil {
			b.Fatal(err)
		}
	}
	reportMemory(b, g)
}
