package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SpecFile is the name of the file, in a grid's output directory, that
// records the grid's Spec.
const SpecFile = "grid.json"

// SpecVersion is the version of the grid.json format.
const SpecVersion = 1

// MaxJobs bounds the jobs of one grid. The paper's grid has 7,980; a grid
// of a hundred thousand jobs, at a few seconds per job, already takes
// days, and Run lists the jobs in memory (some hundred bytes each) and
// looks for each job's record before the first epoch.
const MaxJobs = 100_000

// Spec defines the runs of a grid: its datasets, models, settings, the
// number of splits and initialisations and the epoch cap. Run writes it to
// OUT/grid.json before the first job, so that the records in OUT/runs come
// with the grid they were run for, and Collect builds tables from the runs
// of the grids it finds there and nothing else. Shard and Shards say which
// part of the grid the directory was run for; they do not change its jobs.
type Spec struct {
	Version  int           `json:"version"`
	Datasets []SpecDataset `json:"datasets"`
	// Models are Model.Key names, Settings Setting.String names.
	Models    []string `json:"models"`
	Settings  []string `json:"settings"`
	Splits    int      `json:"splits"`
	Inits     int      `json:"inits"`
	MaxEpochs int      `json:"max_epochs"`
	// IndependentDropout marks a grid whose every split draws its own
	// dropout masks (Grid.IndependentDropout).
	IndependentDropout bool `json:"independent_dropout,omitempty"`
	Shard              int  `json:"shard"`
	Shards             int  `json:"shards"`
}

// SpecDataset is a dataset of a Spec; FixedSplit marks a dataset with one
// official split (OGBN Arxiv), which runs split 1 only.
type SpecDataset struct {
	Name       string `json:"name"`
	FixedSplit bool   `json:"fixed_split,omitempty"`
}

// Spec returns the grid's Spec (with its shard).
func (g *Grid) Spec() (*Spec, error) {
	if g.err != nil {
		return nil, g.err
	}
	if len(g.names) == 0 {
		return nil, fmt.Errorf("experiment: no datasets")
	}
	s := &Spec{Version: SpecVersion, Splits: g.splits, Inits: g.inits, MaxEpochs: g.maxEpochs, IndependentDropout: g.independentDropout,
		Shard: g.shard, Shards: g.shards}
	for _, name := range g.names {
		s.Datasets = append(s.Datasets, SpecDataset{Name: name, FixedSplit: g.fixedSplit(name)})
	}
	s.Models, s.Settings = Keys(g.models), Names(g.settings)
	if _, err := s.NumJobs(); err != nil {
		return nil, err
	}
	return s, nil
}

// parse returns the spec's models and settings, checking every field.
func (s *Spec) parse() ([]Model, []Setting, error) {
	if s.Version != SpecVersion {
		return nil, nil, fmt.Errorf("version %d, want %d", s.Version, SpecVersion)
	}
	if len(s.Datasets) == 0 || len(s.Models) == 0 || len(s.Settings) == 0 {
		return nil, nil, fmt.Errorf("%d datasets, %d models, %d settings: need at least one of each", len(s.Datasets), len(s.Models), len(s.Settings))
	}
	if s.Splits < 1 || s.Inits < 1 || s.MaxEpochs < 0 || s.Shards < 1 || s.Shard < 0 || s.Shard >= s.Shards {
		return nil, nil, fmt.Errorf("splits %d, inits %d, max_epochs %d, shard %d/%d out of range", s.Splits, s.Inits, s.MaxEpochs, s.Shard, s.Shards)
	}
	var names []string
	for _, d := range s.Datasets {
		if d.Name == "" || strings.ContainsAny(d.Name, ",\"\n\r/\\") || slices.Contains(names, d.Name) {
			return nil, nil, fmt.Errorf("dataset name %q empty, repeated or holding a comma, quote, slash or newline", d.Name)
		}
		names = append(names, d.Name)
	}
	models, err := parseDistinct(s.Models, ParseModel, "model")
	if err != nil {
		return nil, nil, err
	}
	settings, err := parseDistinct(s.Settings, ParseSetting, "setting")
	if err != nil {
		return nil, nil, err
	}
	return models, settings, nil
}

// NumJobs returns the number of jobs of the grid (all shards) without
// listing them. A grid of more than MaxJobs jobs is an error.
func (s *Spec) NumJobs() (int, error) {
	models, settings, err := s.parse()
	if err != nil {
		return 0, fmt.Errorf("experiment: grid %w", err)
	}
	_, _, total, err := s.plan(models, settings)
	return total, err
}

// plan returns the settings of a grid's clean-graph jobs, those with
// models of their own (one job each per split and init: one more per
// setting), and its number of jobs, at most MaxJobs.
func (s *Spec) plan(models []Model, settings []Setting) (clean, own []Setting, total int, err error) {
	for _, st := range knownSettings {
		switch {
		case !slices.Contains(settings, st):
		case st.ownModel():
			own = append(own, st)
		default:
			clean = append(clean, st)
		}
	}
	perRun := uint64(len(own)) // jobs per split and init
	if len(clean) > 0 {
		perRun++
	}
	splits := func(d SpecDataset) int {
		if d.FixedSplit {
			return 1
		}
		return s.Splits
	}
	var sum uint64
	for _, d := range s.Datasets {
		for _, m := range models {
			hi, n := bits.Mul64(uint64(splits(d)), uint64(numInits(d.Name, m, s.Inits)))
			hi2, n := bits.Mul64(n, perRun)
			if sum += n; hi != 0 || hi2 != 0 || sum > MaxJobs {
				return nil, nil, 0, fmt.Errorf("experiment: grid of more than %d jobs, the most one grid may have (%d splits, %d inits; the paper's grid has 7,980 jobs)", MaxJobs, s.Splits, s.Inits)
			}
		}
	}
	return clean, own, int(sum), nil
}

// Jobs returns every job of the grid (all shards) in the canonical order:
// datasets, models, splits, inits as given, and for each the clean-graph
// job (classification and the noise settings, which share its model)
// before the leave-out-classes job. Sharding indexes this order. A grid of
// more than MaxJobs jobs is an error.
func (s *Spec) Jobs() ([]Job, error) {
	models, settings, err := s.parse()
	if err != nil {
		return nil, fmt.Errorf("experiment: grid %w", err)
	}
	clean, own, total, err := s.plan(models, settings)
	if err != nil {
		return nil, err
	}
	splits := func(d SpecDataset) int {
		if d.FixedSplit {
			return 1
		}
		return s.Splits
	}
	jobs := make([]Job, 0, total)
	for _, d := range s.Datasets {
		for _, m := range models {
			for split := 1; split <= splits(d); split++ {
				for init := 1; init <= numInits(d.Name, m, s.Inits); init++ {
					j := Job{Dataset: d.Name, Model: m, Split: split, Init: init}
					if len(clean) > 0 {
						j.Settings = clean
						jobs = append(jobs, j)
					}
					for _, st := range own {
						j.Trained, j.Settings = st, []Setting{st}
						jobs = append(jobs, j)
					}
				}
			}
		}
	}
	return jobs, nil
}

// protocolDiff describes how the run protocols of s and o differ: the
// numbers of splits and inits and the epoch cap, which change what the
// tables average over or how every model is trained. "" means they agree.
// Datasets, models and settings may differ: grids with the same protocol
// merge into one table.
func (s *Spec) protocolDiff(o *Spec) string {
	var diffs []string
	for _, f := range []struct {
		name string
		a, b int
	}{{"splits", s.Splits, o.Splits}, {"inits", s.Inits, o.Inits}, {"max_epochs", s.MaxEpochs, o.MaxEpochs},
		{"independent_dropout", b2i(s.IndependentDropout), b2i(o.IndependentDropout)}} {
		if f.a != f.b {
			diffs = append(diffs, fmt.Sprintf("%s %d and %d", f.name, f.a, f.b))
		}
	}
	return strings.Join(diffs, ", ")
}

// Diff describes how the grids of s and o differ, "" when they have the
// same jobs (whatever their shards).
func (s *Spec) Diff(o *Spec) string {
	var diffs []string
	if d := s.protocolDiff(o); d != "" {
		diffs = append(diffs, d)
	}
	set := func(name string, a, b []string) {
		a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
		if !slices.Equal(a, b) {
			diffs = append(diffs, fmt.Sprintf("%s %s and %s", name, strings.Join(a, ","), strings.Join(b, ",")))
		}
	}
	names := func(s *Spec) []string {
		var out []string
		for _, d := range s.Datasets {
			out = append(out, d.Name)
		}
		return out
	}
	set("datasets", names(s), names(o))
	set("models", s.Models, o.Models)
	set("settings", s.Settings, o.Settings)
	return strings.Join(diffs, "; ")
}

// maxSpecBytes bounds a grid.json file; a real one is a few hundred bytes.
const maxSpecBytes = 1 << 20

// ReadSpec reads the Spec that Run recorded in the output directory dir.
// A directory without one (written before grids recorded their Spec) gives
// an error wrapping fs.ErrNotExist.
func ReadSpec(dir string) (*Spec, error) {
	path := filepath.Join(dir, SpecFile)
	b, err := readFileMax(path, maxSpecBytes)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", path, err)
	}
	_, settings, err := s.parse()
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", path, err)
	}
	// Settings written with the reference's names by earlier versions
	// read as today's (see Setting.String).
	s.Settings = s.Settings[:0]
	for _, st := range settings {
		s.Settings = append(s.Settings, st.String())
	}
	return &s, nil
}

// write records s in dir atomically.
func (s *Spec) write(dir string) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, SpecFile), append(b, '\n'))
}

// readFileMax reads the regular file at path, refusing one of more than
// max bytes, or another kind of file (a FIFO would block), before opening
// it.
func readFileMax(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", path, st.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: more than %d bytes", path, max)
	}
	return b, err
}

// parseDistinct parses every name with parse; a value named twice is an
// error.
func parseDistinct[T comparable](names []string, parse func(string) (T, error), what string) ([]T, error) {
	values := make([]T, len(names))
	for i, name := range names {
		v, err := parse(name)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	if err := distinct(values, what); err != nil {
		return nil, err
	}
	return values, nil
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
