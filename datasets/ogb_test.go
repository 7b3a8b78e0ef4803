package datasets_test

import (
	"bytes"
	"compress/gzip"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// tinyOGB is a 5-node dataset in the raw OGB layout: directed edges 0→1,
// 1→0, 1→2, 3→4 (so undirected {0,1} {1,2} {3,4}), 3 features, labels
// 0 1 0 2 1, split train {1, 0}, valid {2}, test {3}; node 4 is unused.
func tinyOGB() map[string]string {
	return testenv.OGBFiles("0,1\n1,0\n1,2\n3,4\n", "0.5,-1,2\n0,0,0\n1e-3,2.5,-0.25\n3,3,3\n-7,0.125,1\n",
		"0\n1\n0\n2\n1\n", "1\n0\n", "2\n", "3\n")
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func writeOGB(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteGzipFiles(t, dir, files)
	return dir
}

func TestLoadOGBArxiv(t *testing.T) {
	g, split, err := datasets.LoadOGBArxiv(writeOGB(t, tinyOGB()))
	if err != nil {
		t.Fatal(err)
	}
	if g.N != 5 || g.NumClasses != 3 || g.NumFeatures() != 3 || !slices.Equal(g.Labels, []int{0, 1, 0, 2, 1}) {
		t.Fatalf("N %d C %d F %d labels %v", g.N, g.NumClasses, g.NumFeatures(), g.Labels)
	}
	wantAdj := [][]int{{1}, {0, 2}, {1}, {4}, {3}}
	for i, want := range wantAdj {
		if got := g.Adj.Ind[g.Adj.Ptr[i]:g.Adj.Ptr[i+1]]; !slices.Equal(got, want) {
			t.Errorf("adjacency row %d = %v, want %v", i, got, want)
		}
	}
	checkSymmetric(t, g)
	// Features are kept as they are: dense, not normalised.
	want := []float64{0.5, -1, 2, 0, 0, 0, 1e-3, 2.5, -0.25, 3, 3, 3, -7, 0.125, 1}
	if x := toDense(g.Features); !slices.Equal(x.Data, want) {
		t.Errorf("features %v, want %v", x.Data, want)
	}
	if !slices.Equal(split.Train, []int{0, 1}) || !slices.Equal(split.Val, []int{2}) ||
		!slices.Equal(split.Test, []int{3}) || !slices.Equal(split.Unused, []int{4}) {
		t.Errorf("split %+v", split)
	}
}

func TestLoadOGBArxivErrors(t *testing.T) {
	with := func(rel, content string) map[string]string {
		m := maps.Clone(tinyOGB())
		m[rel] = content
		return m
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		file  string
		want  string
	}{
		{"bad float", with("raw/node-feat.csv.gz", "0.5,-1,2\n0,x,0\n1,1,1\n1,1,1\n1,1,1\n"), "node-feat.csv.gz line 2", `value 2: strconv.ParseFloat: parsing "x"`},
		{"NaN", with("raw/node-feat.csv.gz", "0.5,-1,2\n0,0,0\n1,NaN,1\n1,1,1\n1,1,1\n"), "node-feat.csv.gz line 3", "value 2 is NaN"},
		{"ragged", with("raw/node-feat.csv.gz", "0.5,-1,2\n0,0\n"), "node-feat.csv.gz line 2", "2 values, the first line has 3"},
		{"feature rows", with("raw/node-feat.csv.gz", "1,2,3\n"), "node-label.csv.gz line 2", "more labels than the 1 feature rows"},
		{"edge range", with("raw/edge.csv.gz", "0,1\n3,5\n"), "edge.csv.gz line 2", "node index 5 out of range [0, 5)"},
		{"edge fields", with("raw/edge.csv.gz", "0,1,2\n"), "edge.csv.gz line 1", "3 fields, want src,dst"},
		{"negative label", with("raw/node-label.csv.gz", "0\n1\n-1\n2\n1\n"), "node-label.csv.gz line 3", "label -1 is negative"},
		{"empty class", with("raw/node-label.csv.gz", "0\n2\n0\n2\n2\n"), "node-label.csv.gz", "class 1 has no nodes"},
		{"huge label", with("raw/node-label.csv.gz", "0\n1\n0\n9999999999\n1\n"), "node-label.csv.gz line 4", "label 9999999999 out of range [0, 5): more classes than nodes"},
		{"split range", with("split/time/test.csv.gz", "3\n9\n"), "test.csv.gz line 2", "node index 9 out of range"},
		{"split overlap", with("split/time/valid.csv.gz", "2\n0\n"), "split/time", "node 0 is in train and in val"},
	} {
		dir := writeOGB(t, c.files)
		_, _, err := datasets.LoadOGBArxiv(dir)
		if err == nil || !strings.Contains(err.Error(), c.file) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q and %q", c.name, err, c.file, c.want)
		}
	}

	dir := writeOGB(t, tinyOGB())
	os.Remove(filepath.Join(dir, "split", "time", "valid.csv.gz"))
	if _, _, err := datasets.LoadOGBArxiv(dir); err == nil || !strings.Contains(err.Error(), "valid.csv.gz: no such file") {
		t.Errorf("missing file: %v", err)
	}
	dir = writeOGB(t, tinyOGB())
	full := gz(strings.Repeat("1,2\n", 1000))
	os.WriteFile(filepath.Join(dir, "raw", "edge.csv.gz"), full[:len(full)-12], 0o644)
	if _, _, err := datasets.LoadOGBArxiv(dir); err == nil || !strings.Contains(err.Error(), "edge.csv.gz") || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated gzip: %v", err)
	}
}

// A few kilobytes of compressed CSV that declare enormous sizes give an
// error, allocating little. The first case (200,000 labels and a first
// feature line of 500,000 values, 3 KB compressed) used to reserve room for
// 10¹¹ features at once and crash with an out-of-memory error.
func TestLoadOGBHostileFiles(t *testing.T) {
	with := func(files map[string]string) map[string]string {
		m := maps.Clone(tinyOGB())
		maps.Copy(m, files)
		return m
	}
	wide := strings.Repeat("0,", 499_999) + "0\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"wide_first_line", with(map[string]string{"raw/node-label.csv.gz": strings.Repeat("0\n", 200_000), "raw/node-feat.csv.gz": wide + "1\n"}),
			"node-feat.csv.gz line 2: 1 values, the first line has 500000"},
		{"more_rows_than_labels", with(map[string]string{"raw/node-feat.csv.gz": strings.Repeat("1,2,3\n", 1_000_000)}),
			"node-feat.csv.gz line 6: more feature rows than the 5 labelled nodes"},
		{"line_beyond_1MiB", with(map[string]string{"raw/node-feat.csv.gz": strings.Repeat("0,", 600_000) + "0\n"}),
			"node-feat.csv.gz line 1: line longer than 1048576 bytes"},
		{"largest_label", with(map[string]string{"raw/node-label.csv.gz": "0\n1\n9223372036854775807\n0\n1\n"}),
			"node-label.csv.gz line 3: label 9223372036854775807 out of range [0, 5): more classes than nodes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeOGB(t, c.files)
			var err error
			alloc := testenv.AllocatedBy(func() { _, _, err = datasets.LoadOGBArxiv(dir) })
			t.Logf("%d bytes allocated: %v", alloc, err)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
			if alloc > 32<<20 {
				t.Errorf("allocated %d bytes, want at most 32 MiB", alloc)
			}
		})
	}
}

// TestLoadOGBInflatedLabels gives the tiny dataset a label file of 20
// million lines that gzip makes 20 kB: the loader stops at the first label
// beyond the 5 feature rows, before it has kept more than a few labels.
func TestLoadOGBInflatedLabels(t *testing.T) {
	files := tinyOGB()
	files["raw/node-label.csv.gz"] = strings.Repeat("0\n", 20_000_000)
	dir := writeOGB(t, files)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := datasets.LoadOGBArxiv(dir)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "node-label.csv.gz line 6: more labels than the 5 feature rows") {
		t.Fatalf("error %v, want one at line 6", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("allocated %d MB before the error", alloc>>20)
	}
}
