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
	out, dirs, report, err := parseOutput("report", "[-out OUT] DIR...", "output directory (default: the first DIR)", false, args, stderr)
	if err != nil {
		return err
	}
	if out == "" {
		out = dirs[0]
	}
	res, err := collect(dirs, stderr)
	if err != nil {
		return err
	}
	if n := len(res.Missing); n > 0 {
		fmt.Fprintf(stderr, "notice: %d jobs of the grid have no record yet (the first: %v); the report shows the %d runs there are\n", n, res.Missing[0], len(res.Records))
	}
	if err := res.WriteReport(out, report); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report %s/report.html, figures %s/figures/arc.png and arc.svg\n", out, out)
	return nil
}

// reportFlag declares -echarts-cdn, which grid, merge and report share, and
// returns the report options it sets.
func reportFlag(fs *flag.FlagSet) *experiment.ReportOptions {
	o := new(experiment.ReportOptions)
	fs.StringVar(&o.CDN, "echarts-cdn", "", "load ECharts in report.html from this address instead of inlining it (default: inlined, draws offline)")
	return o
}

// parseOutput parses the command line of merge and report: -out (required
// when needOut), -echarts-cdn and at least one grid output directory.
func parseOutput(name, synopsis, outUsage string, needOut bool, args []string, stderr io.Writer) (out string, dirs []string, report experiment.ReportOptions, err error) {
	fs := newFlagSet(name, synopsis, stderr)
	fs.StringVar(&out, "out", "", outUsage)
	r := reportFlag(fs)
	if err := fs.Parse(args); err != nil {
		return "", nil, report, err
	}
	if fs.NArg() == 0 || needOut && out == "" {
		fs.Usage()
		need := "at least one grid output directory"
		if needOut {
			need = "-out OUT and " + need
		}
		return "", nil, report, fmt.Errorf("%s: need %s", name, need)
	}
	return out, fs.Args(), *r, nil
}
