package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/experiment/reftables"
)

// Results are the records of a grid aggregated over splits and inits.
//
// Every statistic is eval.Aggregate over the runs of one dataset, model
// and setting: the mean, the sample variance (ddof 1) and the standard
// error sqrt(var/n) with n the number of runs aggregated. For a complete
// grid n is the reference's configured num_splits·num_inits, except for
// GKDE, which runs one init: there n is the number of splits, whereas the
// reference divides by splits·inits too and so reports GKDE standard errors
// √inits too small; this quirk is not reproduced.
type Results struct {
	// Datasets in table order: the paper's datasets in the paper's order,
	// then others in order of appearance.
	Datasets []string
	// Models are the paper's models present, in the paper's order: those of
	// the paper's tables and figure.
	Models []Model
	// Present lists every model with records, in the catalogue's order
	// (the paper's first).
	Present []Model
	// Rows of id_ood.csv, datasets × models (pairs without records left
	// out).
	Rows []reftables.IDOODRow
	// Curves[dataset][key][model] aggregates the accuracy-rejection curves
	// of the classification setting; key is a measure name or
	// PredictedAlpha.
	Curves map[string]map[string]map[Model]eval.CurveStat
	// Extended holds the rows of the extended table: every dataset, model
	// and setting whose records carry the metrics beyond the paper (see
	// Metric), committees and extended settings included, in table order.
	Extended []ExtendedRow
	// Reliability[dataset][model] adds up the reliability bins of the
	// classification setting over the runs; SetSizes[dataset][model][score]
	// the counts of conformal set sizes.
	Reliability map[string]map[Model][]BinCount
	SetSizes    map[string]map[Model]map[string][]int
	// Records are the records aggregated, in a deterministic order.
	Records []*Record
	// Damaged lists the record files that were skipped because they could
	// not be read (see ReadRecord) or hold another run than their name
	// says.
	Damaged []DamagedRecord
	// Missing lists the jobs of the grids recorded in the directories (see
	// Spec) that have no usable record: the tables leave them out, so they
	// are incomplete until the jobs are run.
	Missing []Job
}

// DamagedRecord is a record file that Collect skipped, and why.
type DamagedRecord struct {
	Path string
	Err  error
}

// Collect reads the records of one or more grid output directories (for
// example the output directories of the shards of a grid) and aggregates
// them with Aggregate.
//
// The directories' grid.json files (see Spec) say which runs belong to
// the grid: only the records of those jobs are aggregated, run with the
// grid's epoch cap and holding every setting the grid asked for; records
// left in a directory by other grids are ignored, and jobs without a
// usable record are listed in Results.Missing. The grids of the
// directories must agree on the number of splits and inits and on the
// epoch cap; otherwise Collect returns an error saying what differs. Their
// datasets, models and settings may differ: the tables then cover all of
// them. For directories without grid.json (written before grids recorded
// their Spec) every record counts, and the records must agree on the
// epoch cap.
//
// A job found in several directories counts once: the first directory
// given wins. Damaged records, and records stored under another run's
// name, are skipped and listed in Results.Damaged. Collect returns an
// error when a directory cannot be read or there is no record at all.
func Collect(dirs ...string) (*Results, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("experiment: Collect: no directories")
	}
	var specs []*Spec
	var specDirs []string
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "runs")); err != nil {
			return nil, fmt.Errorf("experiment: Collect: %s holds no runs directory: %w", dir, err)
		}
		s, err := ReadSpec(dir)
		switch {
		case err == nil:
			specs, specDirs = append(specs, s), append(specDirs, dir)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("experiment: Collect: %w", err)
		}
	}
	for i := 1; i < len(specs); i++ {
		if d := specs[0].protocolDiff(specs[i]); d != "" {
			return nil, fmt.Errorf("experiment: Collect: %s and %s hold different grids (%s): their runs cannot be averaged together",
				specDirs[0], specDirs[i], d)
		}
	}
	if len(specs) == 0 {
		return collectAll(dirs)
	}
	return collectGrid(specs, dirs)
}

// collectGrid aggregates the records of the jobs of specs found in dirs.
func collectGrid(specs []*Spec, dirs []string) (*Results, error) {
	var jobs []Job
	index := map[string]int{}
	for _, s := range specs {
		js, err := s.Jobs()
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			k, ok := index[j.Path()]
			if !ok {
				index[j.Path()] = len(jobs)
				jobs = append(jobs, j)
				continue
			}
			// The same run asked for by several grids: all their settings.
			var union []Setting
			for _, st := range knownSettings {
				if slices.Contains(jobs[k].Settings, st) || slices.Contains(j.Settings, st) {
					union = append(union, st)
				}
			}
			jobs[k].Settings = union
		}
	}
	var records []*Record
	var damaged []DamagedRecord
	var missing []Job
	for _, j := range jobs {
		var found *Record
		for _, dir := range dirs {
			path := filepath.Join(dir, j.Path())
			if _, err := os.Stat(path); err != nil {
				continue
			}
			r, err := readRecordOf(path, j)
			if err != nil {
				damaged = append(damaged, DamagedRecord{path, err})
				continue
			}
			if r.covers(j, specs[0].MaxEpochs, specs[0].IndependentDropout) {
				found = r
				break
			}
		}
		if found == nil {
			missing = append(missing, j)
			continue
		}
		records = append(records, found)
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("experiment: Collect: no records of the grid in %s", strings.Join(dirs, ", "))
	}
	res, err := Aggregate(records)
	if err != nil {
		return nil, err
	}
	res.Damaged, res.Missing = damaged, missing
	return res, nil
}

// readRecordOf reads the record at path, which must hold the run of job j
// (its name says so).
func readRecordOf(path string, j Job) (*Record, error) {
	r, err := ReadRecord(path)
	if err != nil {
		return nil, err
	}
	trained, err := r.trainedFor()
	if err != nil {
		return nil, err
	}
	if r.Dataset != j.Dataset || r.Model != j.Model.Key() || r.Split != j.Split || r.Init != j.Init || trained != j.Trained {
		held, _ := r.Job()
		return nil, fmt.Errorf("experiment: record %s holds the run %v, not %v as its name says", path, held, j)
	}
	return r, nil
}

// collectAll aggregates every record under dir/runs of each directory,
// for output directories without grid.json.
func collectAll(dirs []string) (*Results, error) {
	var records []*Record
	var damaged []DamagedRecord
	var first string // the first record's path, for epoch-cap conflicts
	seen := map[string]bool{}
	for _, dir := range dirs {
		root := filepath.Join(dir, "runs")
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !strings.HasSuffix(path, ".json") || strings.HasPrefix(e.Name(), ".") {
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			if seen[rel] {
				return nil
			}
			r, err := ReadRecord(path)
			if err == nil {
				var j Job
				if j, err = r.Job(); err == nil && j.Path() != rel {
					err = fmt.Errorf("experiment: record %s holds the run %v, whose name is %s", path, j, j.Path())
				}
			}
			if err != nil {
				damaged = append(damaged, DamagedRecord{path, err})
				return nil
			}
			if len(records) > 0 && r.MaxEpochs != records[0].MaxEpochs {
				return fmt.Errorf("%s ran with max_epochs %d and %s with %d: their runs cannot be averaged together",
					first, records[0].MaxEpochs, path, r.MaxEpochs)
			}
			if len(records) == 0 {
				first = path
			}
			seen[rel] = true
			records = append(records, r)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("experiment: Collect: %w", err)
		}
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("experiment: Collect: no records in %s", strings.Join(dirs, ", "))
	}
	res, err := Aggregate(records)
	if err != nil {
		return nil, err
	}
	res.Damaged = damaged
	return res, nil
}

// Aggregate aggregates records (see Results). Records of the same job and
// setting must not repeat.
func Aggregate(records []*Record) (*Results, error) {
	sorted := slices.Clone(records)
	slices.SortFunc(sorted, func(a, b *Record) int {
		return strings.Compare(recordKey(a), recordKey(b))
	})
	results, dsSeen, models, err := groupResults(sorted)
	if err != nil {
		return nil, err
	}
	out := &Results{Records: sorted, Curves: map[string]map[string]map[Model]eval.CurveStat{}}
	out.Datasets = tableOrder(dsSeen)
	for m := range numModels {
		if models[m] {
			out.Present = append(out.Present, m)
		}
	}
	out.Models = slices.DeleteFunc(slices.Clone(out.Present), func(m Model) bool { return !m.record().paper })
	for _, ds := range out.Datasets {
		for _, m := range out.Models {
			row, found, err := out.idoodRow(ds, m, results)
			if err != nil {
				return nil, err
			}
			if found {
				out.Rows = append(out.Rows, row)
			}
		}
	}
	if err := out.aggregateExtended(sorted); err != nil {
		return nil, err
	}
	return out, nil
}

// resultGroup identifies the results of a dataset, model (Model.Key) and
// setting (Setting.String) over splits and inits.
type resultGroup struct{ ds, model, setting string }

// groupResults gathers the results of the records (sorted) by dataset,
// model and setting, and returns them with the datasets in the order of
// the records and the set of the models.
func groupResults(sorted []*Record) (map[resultGroup][]*Result, []string, map[Model]bool, error) {
	results := map[resultGroup][]*Result{}
	seen := map[string]bool{}
	var dsSeen []string
	models := map[Model]bool{}
	for _, r := range sorted {
		m, err := ParseModel(r.Model)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("experiment: Aggregate: %w", err)
		}
		models[m] = true
		if !slices.Contains(dsSeen, r.Dataset) {
			dsSeen = append(dsSeen, r.Dataset)
		}
		for _, s := range AllSettings {
			res, ok := r.Results[s.String()]
			if !ok {
				continue
			}
			key := fmt.Sprintf("%s|%s|%d|%d|%v", r.Dataset, r.Model, r.Split, r.Init, s)
			if seen[key] {
				return nil, nil, nil, fmt.Errorf("experiment: Aggregate: %s %s split %d init %d %v recorded twice", r.Dataset, m, r.Split, r.Init, s)
			}
			seen[key] = true
			g := resultGroup{r.Dataset, r.Model, s.String()}
			results[g] = append(results[g], res)
		}
	}
	return results, dsSeen, models, nil
}

// idoodRow aggregates the results of model m on dataset ds into its row of
// id_ood.csv, and its accuracy-rejection curves into res.Curves; found is
// false when m has no result on ds in the classification or an OOD
// setting.
func (res *Results) idoodRow(ds string, m Model, results map[resultGroup][]*Result) (row reftables.IDOODRow, found bool, err error) {
	get := func(s Setting) []*Result { return results[resultGroup{ds, m.Key(), s.String()}] }
	row = reftables.IDOODRow{Dataset: tableName(ds), Model: m.String()}
	if cl := get(Classification); len(cl) > 0 {
		found = true
		row.Acc = metric(cl, func(r *Result) (float64, bool) { return r.Accuracy, true })
		if err := res.addCurves(ds, m, cl); err != nil {
			return reftables.IDOODRow{}, false, err
		}
	}
	for k, s := range oodSettings {
		rs := get(s)
		if len(rs) == 0 {
			continue
		}
		found = true
		row.Settings[k] = settingResult(rs)
	}
	return row, found, nil
}

func recordKey(r *Record) string {
	return fmt.Sprintf("%s|%s|%04d|%04d|%v|%s", r.Dataset, r.Model, r.Split, r.Init, r.LOC, r.Trained)
}

// addCurves aggregates the accuracy-rejection curves of model m on ds.
func (res *Results) addCurves(ds string, m Model, rs []*Result) error {
	byKey := map[string][][]float64{}
	for _, r := range rs {
		for k, c := range r.ARC {
			byKey[k] = append(byKey[k], c)
		}
	}
	for k, curves := range byKey {
		cs, err := eval.AggregateCurves(curves, 0)
		if err != nil {
			return fmt.Errorf("experiment: %s %s curve %s: %w", ds, m, k, err)
		}
		if res.Curves[ds] == nil {
			res.Curves[ds] = map[string]map[Model]eval.CurveStat{}
		}
		if res.Curves[ds][k] == nil {
			res.Curves[ds][k] = map[Model]eval.CurveStat{}
		}
		res.Curves[ds][k][m] = cs
	}
	return nil
}
