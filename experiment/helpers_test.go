package experiment

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/datasets"
)

// tinyDataset is a 160-node, 4-class contextual SBM with informative
// Gaussian features, one class left out in LOC: every model trains on it in
// milliseconds.
func tinyDataset(t testing.TB, name string) *Dataset {
	t.Helper()
	g, err := datasets.CSBM(160, 4).Features(16).FeatureSignal(2).AvgDegree(4).Seed(7).Name(name).Done()
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDataset(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tinyGrid is a quick grid on tinyDataset writing to out.
func tinyGrid(t testing.TB, out string, models ...Model) *Grid {
	return Paper().Dataset(tinyDataset(t, "Tiny")).Models(models...).Splits(2).Inits(1).MaxEpochs(8).Out(out)
}

// readTables returns the contents of every file under dir/tables by name.
func readTables(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "tables", "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// extendedCSV returns the lines of tables' extended.csv (see readTables),
// header first.
func extendedCSV(t *testing.T, tables map[string]string) [][]string {
	t.Helper()
	lines, err := csv.NewReader(strings.NewReader(tables["extended.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return lines
}
