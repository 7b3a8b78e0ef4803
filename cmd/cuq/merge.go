package main

import (
	"fmt"
	"io"

	"github.com/cuqgnn/cuqgnn/cuq/experiment"
)

// runMerge runs the merge subcommand: it aggregates the records of the
// given grid output directories (e.g. the shards') and writes the tables
// and the report to -out.
func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", "-out OUT DIR...", stderr)
	out := fs.String("out", "", "output directory for tables/ and report.html")
	cdn := fs.String("echarts-cdn", "", "load ECharts in report.html from this address instead of inlining it (default: inlined, draws offline)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("merge: need -out OUT and at least one grid output directory")
	}
	res, err := collect(fs.Args(), stderr)
	if err != nil {
		return err
	}
	if err := res.WriteTables(*out); err != nil {
		return err
	}
	if err := res.WriteReport(*out, experiment.ReportOptions{CDN: *cdn}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d records of %d datasets and %d models: tables in %s/tables, report %s/report.html\n",
		len(res.Records), len(res.Datasets), len(res.Models), *out, *out)
	return nil
}

// collect reads the records of dirs, warning about damaged ones.
func collect(dirs []string, stderr io.Writer) (*experiment.Results, error) {
	res, err := experiment.Collect(dirs...)
	if err != nil {
		return nil, err
	}
	for _, path := range res.Damaged {
		fmt.Fprintf(stderr, "warning: skipped damaged record %s (rerun the grid to redo it)\n", path)
	}
	return res, nil
}
