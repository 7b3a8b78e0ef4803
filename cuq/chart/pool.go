package chart

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/pool"
)

// PoolingTable tabulates TU / AU / EU of nodes of p under every pooling
// (alone, log-linear, linear, behavioural): one row per node i with a
// non-empty labels[i], which names the row.
func PoolingTable(p *pool.Pooled, labels []string) (*Table, error) {
	if p == nil {
		return nil, fmt.Errorf("chart.PoolingTable: nil pooling")
	}
	if len(labels) > p.N() {
		return nil, fmt.Errorf("chart.PoolingTable: %d labels for %d nodes", len(labels), p.N())
	}
	header := []string{"node"}
	for _, pl := range pool.Poolings {
		header = append(header, pl.String()+": TU / AU / EU")
	}
	var rows [][]string
	for i, label := range labels {
		if label == "" {
			continue
		}
		row := []string{label}
		for _, pl := range pool.Poolings {
			ms, err := p.Measures(pl)
			if err != nil {
				return nil, fmt.Errorf("chart.PoolingTable: %w", err)
			}
			row = append(row, fmt.Sprintf("%.2f / %.2f / %.2f", ms.TU[i], ms.AU[i], ms.EU[i]))
		}
		rows = append(rows, row)
	}
	return NewTable("TU / AU / EU (nats) of the probe nodes under each pooling", header, rows)
}
