package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/experiment"
)

// runMerge runs the merge subcommand: it aggregates the records of the
// given grid output directories (e.g. the shards') and writes the tables
// and the report to -out. The directories must hold grids of the same
// protocol (experiment.Collect) and, between them, a record of every job.
func runMerge(args []string, stdout, stderr io.Writer) error {
	out, dirs, report, err := parseOutput("merge", "-out OUT DIR...", "output directory for tables/ and report.html", true, args, stderr)
	if err != nil {
		return err
	}
	res, err := collect(dirs, stderr)
	if err != nil {
		return err
	}
	if n := len(res.Missing); n > 0 {
		return fmt.Errorf("merge: %d jobs of the grid have no record in %s (the first: %v, file %s); run the missing shards (or rerun the grid with the same flags) and merge again",
			n, strings.Join(dirs, ", "), res.Missing[0], res.Missing[0].Path())
	}
	if err := res.WriteTables(out); err != nil {
		return err
	}
	if err := res.WriteReport(out, report); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d records of %d datasets and %d models: tables in %s/tables, report %s/report.html\n",
		len(res.Records), len(res.Datasets), len(res.Models), out, out)
	return nil
}

// collect reads the records of dirs, warning about damaged ones.
func collect(dirs []string, stderr io.Writer) (*experiment.Results, error) {
	res, err := experiment.Collect(dirs...)
	if err != nil {
		return nil, err
	}
	for _, d := range res.Damaged {
		fmt.Fprintf(stderr, "warning: skipped damaged record %s (rerun the grid to redo it): %v\n", d.Path, d.Err)
	}
	return res, nil
}
