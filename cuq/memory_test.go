package cuq_test

import (
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
)

// LOP-GPN without pruning needs the dense N×N matrix Π: on a graph whose
// Π the machine cannot hold it fails with an error suggesting pruning
// (on OGBN Arxiv's size it died with "fatal error: out of memory"), and
// with pruning it trains.
func TestLOPGPNDenseBeyondMemory(t *testing.T) {
	g, split := smallGraph(t) // 400 nodes: Π with its sparse copy is 3.84 MB
	defer cuq.SetPhysicalMemory(3 << 20)()
	m, err := cuq.LOPGPN().Done(g)
	if err == nil {
		_, err = m.Fit(split, cuq.MaxEpochs(2))
	}
	if err == nil || !strings.Contains(err.Error(), "Prune") || !strings.Contains(err.Error(), "400") {
		t.Errorf("LOP-GPN's dense Π beyond RAM: error %v, want one naming N and suggesting Prune", err)
	}
	m, err = cuq.LOPGPN().Prune(0.01).Done(g)
	if err == nil {
		_, err = m.Fit(split, cuq.MaxEpochs(2))
	}
	if err != nil {
		t.Errorf("pruned LOP-GPN: %v", err)
	}
}
