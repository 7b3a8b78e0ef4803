// Command cuq trains the models of the CUQ-GNN paper and runs its
// experiment grid from the command line.
//
// Usage:
//
//	cuq train  [-data DIR] -dataset NAME|FILE.npz -model NAME [-split K] [-init K] [-loc]
//	cuq grid   [-data DIR] [-datasets A,FILE.npz] [-models M,N] [-settings S,T] [-splits N] [-inits N] [-out OUT] [-shard i/n|auto | -claim [-lease D]]
//	cuq merge  -out OUT DIR...
//	cuq report [-out OUT] DIR...
//	cuq bench  [-data DIR] [-dataset NAME|FILE.npz] [-models M,N] [-epochs N] [-fit | -write-npz FILE]
//	cuq download [-data DIR] [-mirror URL] NAME...
//
// train trains one model and prints its accuracy and OOD-detection AUROCs;
// with -dataset synthetic, or without -dataset when CoraML's file is
// missing, it runs on the synthetic CoraML-like graph; a dataset named with
// -dataset that cannot be loaded is an error; an .npz file is taken as
// bench takes it (the graph named after the file, its last ⌊(C−1)/2⌋
// classes left out), in train and grid alike. grid runs the paper's grid (package
// experiment), writing one record per run under OUT/runs and, once
// every run has a record, the tables OUT/tables/id_ood.csv,
// OUT/tables/acc_rej_<type>_<dataset>.csv and the report OUT/report.html.
// With -shard i/n it runs the i-th of n disjoint parts of the grid; in a
// Slurm job array task or a Kubernetes Indexed Job pod it runs the part
// the scheduler's environment assigns (-shard auto, or no -shard). With
// -claim any number of grid processes, on any machines, share one output
// directory and claim its jobs one by one, taking over those of workers
// that died. merge builds the tables and the report from the output
// directories.
// report rebuilds the report alone. bench times training epochs (or, with
// -write-npz, writes its graph for the PyTorch baseline). download
// fetches the named datasets (or all) into the data directory, checking
// their sizes and SHA-256 (package datasets). (The export of a run for
// the PyTorch replica of the reference is the workshop's own command,
// scripts/replica/export.)
//
// Every flag is checked before the first epoch. The first interrupt
// (Ctrl-C) or SIGTERM stops the work after the current epoch, keeping
// every finished run; a second one ends the process at once.
//
// Model names: appnp, gkde, gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat (the
// display names APPNP, LOP-GPN, CUQ-GCN, ... work too). Settings:
// classification, loc, gaussian, bernoulli.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/cuqgnn/cuqgnn/internal/gctune"
	"github.com/cuqgnn/cuqgnn/internal/memstat"
)

// command is one subcommand of cuq.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists every subcommand, in the order usage shows them.
var commands = []command{
	{"train", "train one model, print accuracy and OOD-detection AUROCs", runTrain},
	{"grid", "run the paper's experiment grid (or one shard of it)", runGrid},
	{"merge", "build the tables and the report from grid output directories", onOutputs("merge", "-out OUT DIR...", "output directory for tables/ and report.html", true, runMerge)},
	{"report", "rebuild the HTML report from grid output directories", onOutputs("report", "[-out OUT] DIR...", "output directory (default: the first DIR)", false, runReport)},
	{"bench", "time a training epoch and an evaluation pass of each model", runBench},
	{"download", "fetch datasets into the data directory, checksummed", runDownload},
}

// usage returns the program's usage text, built from commands.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: cuq <command> [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun \"cuq <command> -h\" for the flags of a command.\n")
	return b.String()
}

// errNoCommand reports a command line without a command.
var errNoCommand = errors.New("no command")

func main() {
	tuneGC()
	ctx, stop := interruptible(context.Background(), os.Stderr, interruptNote(os.Args[1:]), os.Exit)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode returns the process status for run's error, printing the error:
// 0 for success and for help that was asked for (-h), 2 for a command line
// without a command, 1 for every other error.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errNoCommand):
		return 2
	}
	fmt.Fprintln(stderr, "cuq:", err)
	return 1
}

// interruptNote returns what the first interrupt of the command line args
// prints: the work it stops and what is kept.
func interruptNote(args []string) string {
	if len(args) > 0 && args[0] == "download" {
		return "cuq: stopping the download; datasets already downloaded are kept, the partial file is removed (interrupt again to quit at once)"
	}
	return "cuq: stopping after the current epoch; finished runs are kept (interrupt again to quit at once)"
}

// interruptible returns a context that the first SIGINT or SIGTERM
// cancels, printing note, so that the work stops after the current epoch
// and finished runs are kept. A second signal calls exit at once with the
// shell's status for it (128 + the signal number), even when the process
// is blocked where no context reaches, such as opening a FIFO. stop ends
// the handling.
func interruptible(parent context.Context, stderr io.Writer, note string, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			fmt.Fprintln(stderr, note)
			cancel()
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			fmt.Fprintln(stderr, "cuq: interrupted again; quitting")
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			exit(code)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// gcSoftLimit caps the heap: the project's memory target is 8 GiB of peak
// resident memory for OGBN Arxiv.
const gcSoftLimit = 6 << 30

// gcPolicy lets a collection cycle accumulate up to 1 GiB of garbage, with
// GOGC between 100 (Go's default) and 400. A training epoch allocates its
// intermediate matrices afresh: on a small graph such as CoraML, whose
// live heap is small, GOGC=100 collects so often that collection takes a
// large share of an epoch, which GOGC=400 avoids; on a graph of OGBN
// Arxiv's size, whose live heap is large, GOGC=400 grows the heap to the
// soft limit, and GOGC=100 keeps the peak far lower
// (docs/records/performance.md).
var gcPolicy = gctune.Policy{Min: 100, Max: 400, Headroom: 1 << 30}

// tuneGC trades memory for speed unless the user set GOGC or GOMEMLIMIT:
// GOGC follows gcPolicy after every collection, and a soft memory limit
// of 60% of physical memory or gcSoftLimit, whichever is less, makes the
// largest graphs collect in time.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		gctune.Start(gcPolicy)
	}
	if ram := memstat.Physical(); os.Getenv("GOMEMLIMIT") == "" && ram > 0 {
		debug.SetMemoryLimit(min(ram/10*6, gcSoftLimit))
	}
}

// run dispatches to the subcommand named by args[0].
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errNoCommand
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return nil
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		if c.name == name {
			return c.run(ctx, rest, stdout, stderr)
		}
		names[i] = c.name
	}
	return fmt.Errorf("unknown command %q (valid: %s)", name, strings.Join(names, ", "))
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// writes its usage to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cuq %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs and rejects positional arguments, which
// the commands that take only flags do not expect.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", fs.Name(), fs.Args())
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal), where
// progress bars are drawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
