package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// RecordVersion is the version of the record format; records of another
// version are treated as missing and redone.
const RecordVersion = 1

// Record is the result of one Job, stored as one JSON file per job.
type Record struct {
	Version int    `json:"version"`
	Dataset string `json:"dataset"`
	Model   string `json:"model"` // Model.Key
	Split   int    `json:"split"`
	Init    int    `json:"init"`
	// LOC marks a leave-out-classes run; Trained names any other setting
	// with a model of its own that the run trained for ("" for the
	// classification model and for leave-out classes, so that records
	// written before it existed read alike).
	LOC     bool   `json:"loc"`
	Trained string `json:"trained,omitempty"`
	// MaxEpochs is the RunOptions.MaxEpochs the job ran with (0: the
	// preset's); a grid with another value redoes the job.
	MaxEpochs int `json:"max_epochs"`
	// IndependentDropout is the RunOptions.IndependentDropout the job ran
	// with; a grid with the other value redoes the job.
	IndependentDropout bool    `json:"independent_dropout,omitempty"`
	Epochs             int     `json:"epochs"` // training epochs run, warm-up included
	BestEpoch          int     `json:"best_epoch"`
	TrainSeconds       float64 `json:"train_seconds"`
	// SharedTrainings counts the trainings the job took from another job
	// of its grid instead of running them (RunOptions.Trainings): 1 for a
	// model whose training was shared, the shared members of a committee.
	// TrainSeconds then is the time the job itself took.
	SharedTrainings int     `json:"shared_trainings,omitempty"`
	EvalSeconds     float64 `json:"eval_seconds"`
	// ValAccuracy is the model's accuracy on the validation nodes of the
	// graph it trained on; ValChance, for a model whose training ended by
	// early stopping (not GKDE, which does not train, nor a run cut by
	// MaxEpochs), the share of the most frequent class among them: the
	// accuracy of a constant prediction, which is where a model stuck at
	// the class prior stays (see Collapsed). Records written before cuqgnn
	// kept them have neither.
	ValAccuracy float64 `json:"val_accuracy,omitempty"`
	ValChance   float64 `json:"val_chance,omitempty"`
	// Results holds one result per evaluated setting, by Setting.String.
	Results map[string]*Result `json:"results"`
	// Checksum is the hex SHA-256 of the record's JSON encoding with an
	// empty Checksum; it detects damaged files.
	Checksum string `json:"checksum"`
}

// Result is a model's evaluation in one setting. Measures are keyed by
// their uq names (TU, AU, EU, EU_PC, EU_SO, LC); a measure the model lacks
// is absent.
type Result struct {
	// Accuracy is on all test nodes (leave-out classes: the ID test nodes).
	Accuracy float64 `json:"accuracy"`
	// IDAccuracy and OODAccuracy are on the ID and OOD test nodes of an
	// OOD setting; nil in Classification.
	IDAccuracy  *float64 `json:"id_accuracy,omitempty"`
	OODAccuracy *float64 `json:"ood_accuracy,omitempty"`
	NumID       int      `json:"num_id,omitempty"`
	NumOOD      int      `json:"num_ood,omitempty"`
	// AUROC of OOD detection per measure.
	AUROC map[string]float64 `json:"auroc,omitempty"`
	// IDMean and OODMean are the mean uncertainties of the ID and OOD test
	// nodes per measure.
	IDMean  map[string]float64 `json:"id_mean,omitempty"`
	OODMean map[string]float64 `json:"ood_mean,omitempty"`
	// ARC holds the accuracy-rejection curves of the Classification setting
	// (eval.ARCPoints accuracies at p = 0, 0.01, …, 1) per measure and
	// PredictedAlpha.
	ARC map[string][]float64 `json:"arc,omitempty"`
	// Metrics holds the metrics beyond the paper, keyed by Metric.Key.
	// Records written before cuqgnn recorded them have none.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Reliability holds the classification setting's test nodes in
	// eval.DefaultBins equal-width confidence bins, the data of its
	// reliability diagram.
	Reliability []BinCount `json:"reliability,omitempty"`
	// SetSizes counts, per conformal score, the evaluated test nodes by
	// the size of their prediction set: SetSizes[score][k] sets of k
	// classes.
	SetSizes map[string][]int `json:"set_sizes,omitempty"`
	// Severity is the noise severity of a point of a sweep (GaussianSweep,
	// BernoulliSweep), whose result holds the points in Sweep.
	Severity float64   `json:"severity,omitempty"`
	Sweep    []*Result `json:"sweep,omitempty"`
}

// BinCount is one confidence bin of a reliability diagram in a form that
// adds up over runs: the number of nodes, how many of them are predicted
// correctly, and the sum of their confidences.
type BinCount struct {
	Count         int     `json:"count"`
	Correct       int     `json:"correct"`
	ConfidenceSum float64 `json:"confidence_sum"`
}

// Collapsed reports whether the run's training collapsed: its model ended
// with a validation accuracy near chance (eval.Collapsed). GPN on Amazon
// Photos sometimes does (docs/records/faithfulness.md). The reports count
// such runs apart so that a low mean is seen to come from them; the
// reference's tables keep them in their means, as the reference does. A
// record without the chance (written before cuqgnn kept it, of GKDE, or
// of a run cut by MaxEpochs before its early stop) is not collapsed.
func (r *Record) Collapsed() bool {
	return r.ValChance > 0 && eval.Collapsed(r.ValAccuracy, r.ValChance)
}

// Job returns the job the record belongs to, with the settings it holds in
// the reference's order.
func (r *Record) Job() (Job, error) {
	m, err := ParseModel(r.Model)
	if err != nil {
		return Job{}, err
	}
	trained, err := r.trainedFor()
	if err != nil {
		return Job{}, err
	}
	j := Job{Dataset: r.Dataset, Model: m, Split: r.Split, Init: r.Init, Trained: trained}
	for _, s := range knownSettings {
		if _, ok := r.Results[s.String()]; ok {
			j.Settings = append(j.Settings, s)
		}
	}
	return j, nil
}

// setTrained records the setting whose model the run trained (see LOC and
// Trained).
func (r *Record) setTrained(s Setting) {
	r.LOC, r.Trained = s == LeaveOutClasses, ""
	if s != Classification && s != LeaveOutClasses {
		r.Trained = s.String()
	}
}

// trainedFor returns the setting whose model the run trained: Trained,
// else LeaveOutClasses for a LOC run, else Classification.
func (r *Record) trainedFor() (Setting, error) {
	switch {
	case r.Trained != "" && r.LOC:
		return 0, fmt.Errorf("experiment: record of %s %s split %d init %d: both loc and trained %q", r.Dataset, r.Model, r.Split, r.Init, r.Trained)
	case r.Trained != "":
		s, err := ParseSetting(r.Trained)
		if err == nil && (s == Classification || s == LeaveOutClasses || !s.ownModel()) {
			err = fmt.Errorf("experiment: record trained for %q, a setting without a model of its own", r.Trained)
		}
		return s, err
	case r.LOC:
		return LeaveOutClasses, nil
	}
	return Classification, nil
}

// checksum returns the hex SHA-256 of r's JSON encoding with an empty
// Checksum field.
func (r *Record) checksum() (string, error) {
	c := *r
	c.Checksum = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalSettings renames the results of records written with the
// reference's setting names (ood_features_normal, ...) to Setting.String
// names, so that records of earlier versions of cuqgnn are not redone.
func (r *Record) canonicalSettings() error {
	out := make(map[string]*Result, len(r.Results))
	for k, res := range r.Results {
		s, err := ParseSetting(k)
		if err != nil {
			return err
		}
		if _, dup := out[s.String()]; dup {
			return fmt.Errorf("setting %v recorded twice", s)
		}
		out[s.String()] = res
	}
	r.Results = out
	return nil
}

// validate checks a decoded record: version, checksum, identity and the
// completeness of every result.
func (r *Record) validate() error {
	if r.Version != RecordVersion {
		return fmt.Errorf("record version %d, want %d", r.Version, RecordVersion)
	}
	sum, err := r.checksum()
	if err != nil {
		return err
	}
	if sum != r.Checksum {
		return fmt.Errorf("checksum mismatch (stored %.12q, content %.12s)", r.Checksum, sum)
	}
	if err := r.canonicalSettings(); err != nil {
		return err
	}
	j, err := r.Job()
	if err != nil {
		return err
	}
	if r.Dataset == "" || r.Split < 1 || r.Init < 1 {
		return fmt.Errorf("incomplete identity: dataset %q, split %d, init %d", r.Dataset, r.Split, r.Init)
	}
	if len(j.Settings) == 0 || len(j.Settings) != len(r.Results) {
		return fmt.Errorf("results for %d known settings among %d", len(j.Settings), len(r.Results))
	}
	if err := j.validate(); err != nil {
		return err
	}
	for _, s := range j.Settings {
		if err := validateResult(s, r.Results[s.String()]); err != nil {
			return err
		}
	}
	return nil
}

// validateResult checks that res is a complete result of setting s.
func validateResult(s Setting, res *Result) error {
	if res == nil {
		return fmt.Errorf("%v: empty result", s)
	}
	switch {
	case s == Classification:
		if len(res.ARC) == 0 {
			return fmt.Errorf("%v: no accuracy-rejection curves", s)
		}
		for k, c := range res.ARC {
			if len(c) != eval.ARCPoints {
				return fmt.Errorf("%v: curve %s has %d points, want %d", s, k, len(c), eval.ARCPoints)
			}
		}
	case s.record().metricsOnly:
		if err := res.validateMetrics(); err != nil {
			return fmt.Errorf("%v: %w", s, err)
		}
	case !s.sweep():
		if err := res.validateDetection(); err != nil {
			return fmt.Errorf("%v: %w", s, err)
		}
	default:
		if len(res.Sweep) == 0 {
			return fmt.Errorf("%v: no severities", s)
		}
		for _, p := range res.Sweep {
			if p == nil {
				return fmt.Errorf("%v: empty result", s)
			}
			if err := p.validateDetection(); err != nil {
				return fmt.Errorf("%v severity %v: %w", s, p.Severity, err)
			}
		}
	}
	return nil
}

// validateDetection checks the result of an OOD setting.
func (res *Result) validateDetection() error {
	if res.IDAccuracy == nil || res.OODAccuracy == nil || len(res.AUROC) == 0 {
		return fmt.Errorf("missing ID/OOD accuracy or AUROC")
	}
	for k := range res.AUROC {
		if _, err := uq.ParseMeasure(k); err != nil {
			return err
		}
	}
	return res.validateMetrics()
}

// validateMetrics checks that a result's metrics are known metrics.
func (res *Result) validateMetrics() error {
	for k := range res.Metrics {
		if _, _, err := parseMetricKey(k); err != nil {
			return err
		}
	}
	return nil
}

// WriteRecord stores r at path atomically: it sets r's Version and
// Checksum, writes a temporary file in the same directory, syncs it and
// renames it over path, so that a reader sees either the old file or the
// complete new one.
func WriteRecord(path string, r *Record) error {
	r.Version = RecordVersion
	sum, err := r.checksum()
	if err != nil {
		return fmt.Errorf("experiment: record %s: %w", path, err)
	}
	r.Checksum = sum
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return fmt.Errorf("experiment: record %s: %w", path, err)
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, creating the directory.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	tmp := f.Name()
	err = f.Chmod(0o644)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("experiment: writing %s: %w", path, err)
	}
	return nil
}

// ReadRecord reads and checks a record written by WriteRecord. It returns
// an error naming the file when the file cannot be parsed, has another
// version, fails its checksum or lacks a field, i.e. when it is damaged or
// was cut short.
func ReadRecord(path string) (*Record, error) {
	b, err := readFileMax(path, maxRecordBytes)
	if err != nil {
		return nil, fmt.Errorf("experiment: record %w", err)
	}
	r, err := parseRecord(b)
	if err != nil {
		return nil, fmt.Errorf("experiment: record %s: %w", path, err)
	}
	return r, nil
}

// maxRecordBytes bounds a record file. A record holds a few dozen numbers
// per setting and 101-point curves of at most seven measures, some 20 KB.
const maxRecordBytes = 4 << 20

// parseRecord decodes and checks the JSON of a record.
func parseRecord(b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// covers reports whether r is a finished record of job j, run with
// maxEpochs: same identity and every setting of j present.
func (r *Record) covers(j Job, maxEpochs int, independentDropout bool) bool {
	if r.IndependentDropout != independentDropout {
		return false
	}
	if trained, err := r.trainedFor(); err != nil || trained != j.Trained {
		return false
	}
	if r.Dataset != j.Dataset || r.Model != j.Model.Key() || r.Split != j.Split || r.Init != j.Init || r.MaxEpochs != maxEpochs {
		return false
	}
	return !slices.ContainsFunc(j.Settings, func(s Setting) bool { return r.Results[s.String()] == nil })
}
