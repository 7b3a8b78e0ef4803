// Command collapse measures how often a model's training collapses (ends
// with a validation accuracy near chance) over many runs with independent
// dropout streams, in cuqgnn and in the PyTorch replica of the reference,
// and summarises the rates, their confidence intervals and whether the
// first epochs predict a collapse. It is the study of GPN on Amazon
// Photos in docs/records/faithfulness.md.
//
// Run r = 1…N trains split (r−1) mod 10 + 1 with init ⌊(r−1)/10⌋ + 1,
// so 100 runs cover 10 splits × 10 inits. Each run draws its own dropout
// masks, a departure from the reference's protocol (whose masks repeat
// on every split of an init): cuqgnn from its dropout stream number
// split of the run's seed and init (cuq.Seeding's Stream, as
// cuq grid -independent-dropout), the replica from torch's generator
// seeded with r (side "torch"), or from cuqgnn's stream of the same run
// (side "masks": does the reference's float32 training end where
// cuqgnn's does on the same masks?). With -shared-stream cuqgnn draws as
// the reference's protocol does, the same stream on every split.
//
// Usage:
//
//	go run ./scripts/replica/collapse [-data DIR] -dataset AmazonPhotos -model gpn -settings classification,leave_out_classes -runs 100 -sides cuqgnn,torch -out DIR
//	go run ./scripts/replica/collapse -summary -out DIR
//
// Every run is one JSON file in DIR, written when the run ends; a rerun
// skips the runs present. It is part of the workshop, not of the shipped
// command cuq.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "collapse:", err)
		}
		os.Exit(2)
	}
}

// The sides a run can be trained on.
var sides = []string{"cuqgnn", "torch", "masks"}

// settings are the settings a run can train in.
var settings = []string{"classification", "leave_out_classes"}

type options struct {
	dataDir, dataset, model, out, python, script string
	settings, sides                              []string
	first, runs                                  int
	list                                         []int
	dropout                                      float64
	summary, shared                              bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	o := options{}
	var settingList, sideList string
	fs := flag.NewFlagSet("collapse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dataDir, "data", datasets.Dir(), "directory holding the dataset files")
	fs.StringVar(&o.dataset, "dataset", "AmazonPhotos", "dataset")
	fs.StringVar(&o.model, "model", "gpn", "model ("+strings.Join(replica.Models, ", ")+")")
	fs.StringVar(&settingList, "settings", "classification", "comma-separated settings ("+strings.Join(settings, ", ")+")")
	fs.StringVar(&sideList, "sides", "cuqgnn", "comma-separated sides ("+strings.Join(sides, ", ")+")")
	fs.IntVar(&o.first, "first", 1, "first run number")
	fs.IntVar(&o.runs, "runs", 100, "number of runs, from -first on")
	fs.Func("list", "comma-separated run numbers to train instead of -first and -runs", func(v string) error {
		for _, f := range strings.Split(v, ",") {
			r, err := strconv.Atoi(f)
			if err != nil || r < 1 {
				return fmt.Errorf("run %q: want a positive number", f)
			}
			o.list = append(o.list, r)
		}
		return nil
	})
	fs.Float64Var(&o.dropout, "dropout", 0.5, "dropout probability where the reference has it")
	fs.StringVar(&o.python, "python", "/usr/bin/python3", "Python with torch, for the replica's sides")
	fs.StringVar(&o.script, "replica", "scripts/replica/replica.py", "the replica's script")
	fs.BoolVar(&o.shared, "shared-stream", false, "draw cuqgnn's masks from stream 0 on every split, as the reference's protocol does (give it an -out of its own)")
	fs.BoolVar(&o.summary, "summary", false, "summarise the runs in -out instead of training")
	fs.StringVar(&o.out, "out", "", "directory of the runs' files")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.settings, o.sides = strings.Split(settingList, ","), strings.Split(sideList, ",")
	for _, s := range o.settings {
		if !slices.Contains(settings, s) {
			return o, fmt.Errorf("-settings: unknown setting %q (valid: %s)", s, strings.Join(settings, ", "))
		}
	}
	for _, s := range o.sides {
		if !slices.Contains(sides, s) {
			return o, fmt.Errorf("-sides: unknown side %q (valid: %s)", s, strings.Join(sides, ", "))
		}
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.out == "":
		return o, errors.New("-out is required")
	case o.first < 1 || o.runs < 1:
		return o, fmt.Errorf("-first %d -runs %d: want positive numbers", o.first, o.runs)
	}
	return o, nil
}

// Run is one training run's outcome, the file the command writes per run.
type Run struct {
	Dataset, Model, Setting, Side string
	Run, Split, Init              int
	// TorchSeed seeds the replica's generator on side "torch";
	// DropoutStream is cuqgnn's stream on the other sides.
	TorchSeed     int    `json:",omitempty"`
	DropoutStream uint64 `json:",omitempty"`
	// Epochs counts the main training epochs; BestEpoch is the restored
	// one, numbered within them.
	Epochs, BestEpoch int
	BestValCE         float64
	// ValCE is the validation cross entropy of every main epoch (null
	// where it was not finite).
	ValCE []*float64
	// ValAccuracy and TestAccuracy are the restored model's (under leave-out
	// classes, on the in-distribution test nodes); Chance is the best
	// validation accuracy of a constant prediction, the share of the most
	// frequent class among the validation nodes, which is what a model
	// stuck at the class prior reaches.
	ValAccuracy, TestAccuracy, Chance float64
	Seconds                           float64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if o.summary {
		runs, err := readRuns(o.out)
		if err != nil {
			return err
		}
		return summarise(stdout, runs)
	}
	key, err := replica.ModelKey(o.model)
	if err != nil {
		return err
	}
	d, err := experiment.LoadDataset(o.dataset, o.dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	list := o.list
	if list == nil {
		for r := o.first; r < o.first+o.runs; r++ {
			list = append(list, r)
		}
	}
	for _, r := range list {
		for _, setting := range o.settings {
			for _, side := range o.sides {
				file := filepath.Join(o.out, fmt.Sprintf("%s-%s-%s-%s-%03d.json", d.Name, key, setting, side, r))
				if _, err := os.Stat(file); err == nil {
					continue
				}
				res, err := train(ctx, o, d, key, setting, side, r)
				if err != nil {
					return fmt.Errorf("%s %s %s run %d: %w", key, setting, side, r, err)
				}
				if err := writeJSON(file, res); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s %s %s run %d (split %d init %d): %d epochs, best %d, validation %.1f%%, test %.1f%% (%.0fs)\n",
					key, setting, side, r, res.Split, res.Init, res.Epochs, res.BestEpoch, 100*res.ValAccuracy, 100*res.TestAccuracy, res.Seconds)
			}
		}
	}
	return nil
}

// train trains run r of the model on one side.
func train(ctx context.Context, o options, d *experiment.Dataset, key, setting, side string, r int) (*Run, error) {
	start := time.Now()
	k, init := (r-1)%10+1, (r-1)/10+1
	s, err := d.Split(k)
	if err != nil {
		return nil, err
	}
	g, split, test := d.Graph, s, s.Test
	if setting == "leave_out_classes" {
		loc, err := graph.LeaveOutClasses(d.Graph, s, d.LeftOut)
		if err != nil {
			return nil, err
		}
		g, split, test = loc.Graph, loc.Split, loc.IDTest
	}
	seeding := cuq.DefaultSeeding()
	seeding.Init, seeding.Stream = init, uint64(k)
	if o.shared {
		seeding.Stream = 0
	}
	b, err := replica.Preset(d.Name, key, o.dropout, seeding)
	if err != nil {
		return nil, err
	}
	m, err := b.Done(g)
	if err != nil {
		return nil, err
	}
	stream := seeding.Stream
	res := &Run{Dataset: d.Name, Model: key, Setting: setting, Side: side, Run: r, Split: k, Init: init}
	var out *replica.Result
	switch side {
	case "cuqgnn":
		res.DropoutStream = stream
		out, err = replica.Train(m, split, experiment.Schedule(d.Name, m, 0))
	case "masks":
		res.DropoutStream = stream
		out, err = trainReplica(ctx, o, m, d.Name, key, split, "--go-dropout", fmt.Sprintf("%d,%d,%d", seeding.Seed, seeding.Init, stream))
	default:
		res.TorchSeed = r
		out, err = trainReplica(ctx, o, m, d.Name, key, split, "--seed", fmt.Sprint(r))
	}
	if err != nil {
		return nil, err
	}
	if err := res.score(out, g.Labels, split.Val, test); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// score records in r the validation cross-entropy of every training epoch
// of out, and its accuracies on the validation nodes val and the test nodes
// test of a graph with labels, and the chance accuracy on val.
func (r *Run) score(out *replica.Result, labels, val, test []int) error {
	for _, e := range out.Epochs {
		if e.Phase == "train" {
			var ce *float64
			if !math.IsNaN(e.ValCE) && !math.IsInf(e.ValCE, 0) {
				ce = &e.ValCE
			}
			r.ValCE = append(r.ValCE, ce)
		}
	}
	r.Epochs, r.BestEpoch, r.BestValCE = len(r.ValCE), out.BestEpoch, out.BestValCE
	var err error
	if r.ValAccuracy, err = eval.Accuracy(out.Class, labels, val); err != nil {
		return err
	}
	if r.TestAccuracy, err = eval.Accuracy(out.Class, labels, test); err != nil {
		return err
	}
	if r.Chance, err = eval.Chance(labels, val); err != nil {
		return err
	}
	return nil
}

// trainReplica exports m's run on a graph of the dataset named dataset and trains it in the replica, in float32
// as the reference, with the dropout drawn as the flags say.
func trainReplica(ctx context.Context, o options, m *cuq.Model, dataset, key string, split graph.Split, draw ...string) (*replica.Result, error) {
	dir, err := os.MkdirTemp("", "collapse-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := replica.Export(dir, m, experiment.Schedule(dataset, m, 0), dataset, key, 10, 0.1, split); err != nil {
		return nil, err
	}
	args := append([]string{o.script, dir, "--dtype", "float32", "--dropout", fmt.Sprint(o.dropout), "--out", filepath.Join(dir, "out")}, draw...)
	if msg, err := exec.CommandContext(ctx, o.python, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("replica: %v\n%s", err, msg)
	}
	return replica.ReadResult(filepath.Join(dir, "out"))
}

func writeJSON(file string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// readRuns reads every run file in dir.
func readRuns(dir string) ([]*Run, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no runs in %s", dir)
	}
	var runs []*Run
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := new(Run)
		if err := json.Unmarshal(b, r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}
