package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/cuqgnn/cuqgnn/cuq/experiment"
)

// runReport runs the report subcommand: it rebuilds report.html and the
// static figures from the records of the given grid output directories.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "[-out OUT] DIR...", stderr)
	out := fs.String("out", "", "output directory (default: the first DIR)")
	report := reportFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("report: need at least one grid output directory")
	}
	if *out == "" {
		*out = fs.Arg(0)
	}
	res, err := collect(fs.Args(), stderr)
	if err != nil {
		return err
	}
	if n := len(res.Missing); n > 0 {
		fmt.Fprintf(stderr, "notice: %d jobs of the grid have no record yet (the first: %v); the report shows the %d runs there are\n", n, res.Missing[0], len(res.Records))
	}
	if err := res.WriteReport(*out, *report); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report %s/report.html, figures %s/figures/arc.png and arc.svg\n", *out, *out)
	return nil
}

// reportFlag declares -echarts-cdn, which grid, merge and report share, and
// returns the report options it sets.
func reportFlag(fs *flag.FlagSet) *experiment.ReportOptions {
	o := new(experiment.ReportOptions)
	fs.StringVar(&o.CDN, "echarts-cdn", "", "load ECharts in report.html from this address instead of inlining it (default: inlined, draws offline)")
	return o
}
