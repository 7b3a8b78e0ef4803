package main

import (
	"fmt"
	"io"
	"strings"
)

// runMerge runs the merge subcommand: it aggregates the records of the
// given grid output directories (e.g. the shards') and writes the tables
// and the report to -out. The directories must hold grids of the same
// protocol (experiment.Collect) and, between them, a record of every job.
func runMerge(o *outputs, stdout, _ io.Writer) error {
	if n := len(o.res.Missing); n > 0 {
		return fmt.Errorf("merge: %d jobs of the grid have no record in %s (the first: %v, file %s); run the missing shards (or rerun the grid with the same flags) and merge again",
			n, strings.Join(o.dirs, ", "), o.res.Missing[0], o.res.Missing[0].Path())
	}
	if err := o.res.WriteTables(o.out); err != nil {
		return err
	}
	if err := o.res.WriteReport(o.out, o.report); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d records of %d datasets and %d models: tables in %s/tables, report %s/report.html\n",
		len(o.res.Records), len(o.res.Datasets), len(o.res.Present), o.out, o.out)
	return nil
}
