package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/cuqgnn/cuqgnn/experiment"
)

// runReport runs the report subcommand: it rebuilds report.html and the
// static figures from the records of the given grid output directories.
func runReport(o *outputs, stdout, stderr io.Writer) error {
	if n := len(o.res.Missing); n > 0 {
		fmt.Fprintf(stderr, "notice: %d jobs of the grid have no record yet (the first: %v); the report shows the %d runs there are\n", n, o.res.Missing[0], len(o.res.Records))
	}
	if err := o.res.WriteReport(o.out, o.report); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report %s/report.html, figures %s/figures/arc.png and arc.svg\n", o.out, o.out)
	return nil
}

// reportFlag declares -echarts-cdn, which grid, merge and report share, and
// returns the report options it sets.
func reportFlag(fs *flag.FlagSet) *experiment.ReportOptions {
	o := new(experiment.ReportOptions)
	fs.StringVar(&o.CDN, "echarts-cdn", "", "load ECharts in report.html from this address instead of inlining it (default: inlined, draws offline)")
	return o
}

// outputs is the command line of merge and report and the records it
// names.
type outputs struct {
	out    string   // the output directory
	dirs   []string // the grid output directories
	report experiment.ReportOptions
	res    *experiment.Results
}

// onOutputs adapts a command over grid output directories (merge, report)
// to a subcommand: it reads its command line and the records (readOutputs)
// and hands them to run.
func onOutputs(name, synopsis, outUsage string, needOut bool, run func(o *outputs, stdout, stderr io.Writer) error) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(_ context.Context, args []string, stdout, stderr io.Writer) error {
		o, err := readOutputs(name, synopsis, outUsage, needOut, args, stderr)
		if err != nil {
			return err
		}
		return run(o, stdout, stderr)
	}
}

// readOutputs parses the command line of merge and report, -out (required
// when needOut, else by default the first directory), -echarts-cdn and at
// least one grid output directory, and collects the records of the
// directories, warning about damaged ones.
func readOutputs(name, synopsis, outUsage string, needOut bool, args []string, stderr io.Writer) (*outputs, error) {
	o := new(outputs)
	fs := newFlagSet(name, synopsis, stderr)
	fs.StringVar(&o.out, "out", "", outUsage)
	r := reportFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() == 0 || needOut && o.out == "" {
		fs.Usage()
		need := "at least one grid output directory"
		if needOut {
			need = "-out OUT and " + need
		}
		return nil, fmt.Errorf("%s: need %s", name, need)
	}
	o.dirs, o.report = fs.Args(), *r
	if o.out == "" {
		o.out = o.dirs[0]
	}
	res, err := experiment.Collect(o.dirs...)
	if err != nil {
		return nil, err
	}
	for _, d := range res.Damaged {
		fmt.Fprintf(stderr, "warning: skipped damaged record %s (rerun the grid to redo it): %v\n", d.Path, d.Err)
	}
	o.res = res
	return o, nil
}
