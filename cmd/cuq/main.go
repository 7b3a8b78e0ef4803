// Command cuq trains the models of the CUQ-GNN paper and runs its
// experiment grid from the command line.
//
// Usage:
//
//	cuq train  [-data DIR] -dataset NAME -model NAME [-split K] [-init K] [-loc]
//	cuq grid   [-data DIR] [-datasets A,B] [-models M,N] [-settings S,T] [-splits N] [-inits N] [-out OUT] [-shard i/n]
//	cuq merge  -out OUT DIR...
//	cuq report [-out OUT] DIR...
//	cuq bench  [-data DIR] [-dataset NAME] [-models M,N] [-epochs N]
//	cuq download [-data DIR] [-mirror URL] NAME...
//
// train trains one model and prints its accuracy and OOD-detection AUROCs;
// with -dataset synthetic, or without -dataset when CoraML's file is
// missing, it runs on the synthetic CoraML-like graph; a dataset named with
// -dataset that cannot be loaded is an error. grid runs the paper's grid (package
// cuq/experiment), writing one record per run under OUT/runs and, once
// every run has a record, the tables OUT/tables/id_ood.csv,
// OUT/tables/acc_rej_<type>_<dataset>.csv and the report OUT/report.html.
// With -shard i/n it runs the i-th of n disjoint parts of the grid; merge
// builds the tables and the report from the shards' output directories.
// report rebuilds the report alone. bench times training epochs. download
// fetches the named datasets (or all) into the data directory, checking
// their sizes and SHA-256 (package datasets).
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
	"syscall"
)

const usage = `usage: cuq <command> [flags]

commands:
  train   train one model, print accuracy and OOD-detection AUROCs
  grid    run the paper's experiment grid (or one shard of it)
  merge   build the tables and the report from grid output directories
  report  rebuild the HTML report from grid output directories
  bench   time a training epoch and an evaluation pass of each model
  download  fetch datasets into the data directory, checksummed

Run "cuq <command> -h" for the flags of a command.
`

func main() {
	tuneGC()
	ctx, stop := interruptible(context.Background(), os.Stderr, os.Exit)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "cuq:", err)
		os.Exit(1)
	}
}

// interruptible returns a context that the first SIGINT or SIGTERM
// cancels, so that the work stops after the current epoch and finished
// runs are kept. A second signal calls exit at once with the shell's
// status for it (128 + the signal number), even when the process is
// blocked where no context reaches, such as opening a FIFO. stop ends the
// handling.
func interruptible(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "cuq: stopping after the current epoch; finished runs are kept (interrupt again to quit at once)")
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

// gcSoftLimit caps the heap that GOGC=400 may grow to: the project's
// memory target is 8 GiB of peak resident memory for OGBN Arxiv, and
// training CUQ-GCN on a graph of its size under GOGC=400 alone grew past
// 10 GiB.
const gcSoftLimit = 6 << 30

// tuneGC trades memory for speed unless the user set GOGC or GOMEMLIMIT:
// a training epoch allocates its intermediate matrices afresh, and with the
// default GOGC=100 collection takes up to a third of an epoch on CoraML.
// GOGC=400 is capped by a soft memory limit of 60% of physical memory or
// gcSoftLimit, whichever is less, so the largest graphs still collect in
// time.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if ram := physicalMemory(); os.Getenv("GOMEMLIMIT") == "" && ram > 0 {
		debug.SetMemoryLimit(min(ram/10*6, gcSoftLimit))
	}
}

// run dispatches to the subcommand named by args[0].
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "train":
		return runTrain(ctx, rest, stdout, stderr)
	case "grid":
		return runGrid(ctx, rest, stdout, stderr)
	case "merge":
		return runMerge(rest, stdout, stderr)
	case "report":
		return runReport(rest, stdout, stderr)
	case "bench":
		return runBench(rest, stdout, stderr)
	case "download":
		return runDownload(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q (valid: train, grid, merge, report, bench, download)", cmd)
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
