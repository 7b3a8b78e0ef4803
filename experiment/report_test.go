package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportWithoutThePapersModels runs a grid of models beyond the
// paper only, in the paper's leave-out-classes setting and a shift beyond
// it: the report has no table of the paper's OOD settings to fill (those
// hold the paper's models only) but is written, with the extended tables
// and the winner table.
func TestReportWithoutThePapersModels(t *testing.T) {
	out := t.TempDir()
	pagerank, err := ParseSetting("pagerank")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tinyGrid(t, out, GCN).Settings(Classification, LeaveOutClasses, pagerank).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Which uncertainty detects which shift", "OOD detection: leave-out classes", "GCN TU"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
