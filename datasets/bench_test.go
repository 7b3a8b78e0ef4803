package datasets_test

import (
	"archive/zip"
	"bytes"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/datasets/internal/npytest"
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
			benchGraph(b, func() (*graph.Graph, error) { return datasets.LoadNPZ(filepath.Join(dir, c.file), c.name) })
		})
	}
}

func BenchmarkArxivLike(b *testing.B) {
	benchGraph(b, func() (*graph.Graph, error) { return datasets.ArxivLike(1) })
}

func BenchmarkSynthetic(b *testing.B) { benchGraph(b, datasets.Synthetic) }

// benchGraph times making a graph and reports its memory (reportMemory).
func benchGraph(b *testing.B, makeGraph func() (*graph.Graph, error)) {
	b.ReportAllocs()
	var g *graph.Graph
	for b.Loop() {
		var err error
		if g, err = makeGraph(); err != nil {
			b.Fatal(err)
		}
	}
	reportMemory(b, g)
}

// BenchmarkHostileInputs times the rejection of small hostile files, each
// of which once crashed the process or allocated gigabytes; ns/op and
// B/op show that each ends in an error in well under a second and
// 100 MB.
func BenchmarkHostileInputs(b *testing.B) {
	dir := b.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		return path
	}
	// A stored member whose zip64 directory entry declares 1 TiB.
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "labels.npy", Method: zip.Store, CompressedSize64: 1 << 40, UncompressedSize64: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	w.Write(npytest.NPY(1, "|u1", []int{1<<40 - 128}, nil))
	zw.Close()
	npz := map[string]string{
		"npz_declaring_1TiB": write("absurd.npz", z.Bytes()),
		"npz_2^40_columns":   write("columns.npz", npytest.NPZ(zip.Deflate, withArray("attr_shape", i8(4, 1<<40))...)),
		"npz_label_2^63-1":   write("label.npz", npytest.NPZ(zip.Deflate, withArray("labels", i8(0, 1, math.MaxInt64, 0))...)),
	}
	ogb := func(files map[string]string) string {
		m := tinyOGB()
		maps.Copy(m, files)
		d, err := os.MkdirTemp(dir, "ogb")
		if err != nil {
			b.Fatal(err)
		}
		testenv.WriteGzipFiles(b, d, m)
		return d
	}
	ogbs := map[string]string{
		"ogb_wide_first_line": ogb(map[string]string{"raw/node-label.csv.gz": strings.Repeat("0\n", 200_000),
			"raw/node-feat.csv.gz": strings.Repeat("0,", 499_999) + "0\n1\n"}),
		"ogb_1M_rows_for_5_nodes": ogb(map[string]string{"raw/node-feat.csv.gz": strings.Repeat("1,2,3\n", 1_000_000)}),
		"ogb_1.2MB_line":          ogb(map[string]string{"raw/node-feat.csv.gz": strings.Repeat("0,", 600_000) + "0\n"}),
	}
	for _, name := range slices.Sorted(maps.Keys(npz)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := datasets.LoadNPZ(npz[name], "x"); err == nil {
					b.Fatal("no error")
				}
			}
		})
	}
	for _, name := range slices.Sorted(maps.Keys(ogbs)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := datasets.LoadOGBArxiv(ogbs[name]); err == nil {
					b.Fatal("no error")
				}
			}
		})
	}
}
