package experiment

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

func ptr(x float64) *float64 { return &x }

// curve returns an accuracy-rejection curve constant at v.
func curve(v float64) []float64 {
	c := make([]float64, 101)
	for i := range c {
		c[i] = v
	}
	return c
}

func sampleRecord() *Record {
	return &Record{
		Dataset: "CoraML", Model: "gpn", Split: 2, Init: 1, Epochs: 120, BestEpoch: 70, TrainSeconds: 3.5,
		Results: map[string]*Result{
			"classification": {Accuracy: 0.8, ARC: map[string][]float64{"TU": curve(0.8), "EU_PC": curve(0.9)}},
			"bernoulli": {Accuracy: 0.7, IDAccuracy: ptr(0.75), OODAccuracy: ptr(0.2), NumID: 90, NumOOD: 10,
				AUROC: map[string]float64{"TU": 0.6}, IDMean: map[string]float64{"TU": 1}, OODMean: map[string]float64{"TU": 1.5}},
		},
	}
}

// readBack reads path with read, failing t on an error, checks that it
// gives want and returns what it read.
func readBack[T any](t *testing.T, read func(path string) (T, error), path string, want T) T {
	t.Helper()
	got, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	return got
}

func TestRecordRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "r.json")
	r := sampleRecord()
	must(t, WriteRecord(path, r))
	if r.Version != RecordVersion || len(r.Checksum) != 64 {
		t.Errorf("written record: version %d, checksum %q", r.Version, r.Checksum)
	}
	got := readBack(t, ReadRecord, path, r)
	j, err := got.Job()
	if err != nil {
		t.Fatal(err)
	}
	if want := "CoraML GPN split 2 init 1 [classification bernoulli]"; j.String() != want {
		t.Errorf("job %q, want %q", j, want)
	}
	if !got.covers(Job{Dataset: "CoraML", Model: GPN, Split: 2, Init: 1, Settings: []Setting{Classification}}, 0, false) {
		t.Error("record does not cover its job")
	}
	for _, other := range []Job{
		{Dataset: "CoraML", Model: GPN, Split: 2, Init: 1, Settings: []Setting{Classification, GaussianNoise}},
		{Dataset: "CoraML", Model: GPN, Split: 1, Init: 1, Settings: []Setting{Classification}},
		{Dataset: "CoraML", Model: CUQGCN, Split: 2, Init: 1, Settings: []Setting{Classification}},
	} {
		if got.covers(other, 0, false) {
			t.Errorf("record covers %v", other)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestReadRecordDetectsDamage writes records that are damaged in different
// ways and checks the error names the file and the problem.
func TestReadRecordDetectsDamage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	must(t, WriteRecord(good, sampleRecord()))
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// resealed re-encodes a modified record with a valid checksum, so only
	// the field checks can catch it.
	resealed := func(change func(*Record)) []byte {
		r := sampleRecord()
		r.Version = RecordVersion
		change(r)
		sum, err := r.checksum()
		if err != nil {
			t.Fatal(err)
		}
		r.Checksum = sum
		b, _ := json.Marshal(r)
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", raw[:len(raw)-40], "unexpected end of JSON"},
		{"garbage", []byte("{\"version\": 1, oops"), "invalid character"},
		{"tampered", []byte(strings.Replace(string(raw), `"split": 2`, `"split": 3`, 1)), "checksum mismatch"},
		{"version", resealed(func(r *Record) { r.Version = 99 }), "record version 99, want 1"},
		{"no results", resealed(func(r *Record) { r.Results = nil }), "results for 0 known settings"},
		{"unknown setting", resealed(func(r *Record) { r.Results["bogus"] = &Result{} }), `unknown setting "bogus"`},
		{"short curve", resealed(func(r *Record) { r.Results["classification"].ARC["TU"] = []float64{1, 1} }), "curve TU has 2 points, want 101"},
		{"no auroc", resealed(func(r *Record) { r.Results["bernoulli"].AUROC = nil }), "missing ID/OOD accuracy or AUROC"},
		{"bad measure", resealed(func(r *Record) { r.Results["bernoulli"].AUROC["XX"] = 0.5 }), `unknown uncertainty measure "XX"`},
		{"no dataset", resealed(func(r *Record) { r.Dataset = "" }), "incomplete identity"},
		{"bad model", resealed(func(r *Record) { r.Model = "mlp" }), `unknown model "mlp"`},
		{"loc mix", resealed(func(r *Record) { r.LOC = true }), "cannot share a model"},
	} {
		path := filepath.Join(dir, c.name+".json")
		must(t, os.WriteFile(path, c.data, 0o644))
		_, err := ReadRecord(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want %q naming the file", c.name, err, c.want)
		}
	}
}

// A file in place of a record that is far too large, or not a regular file
// (a FIFO would block the reader), is a damaged record, found without
// reading it.
func TestReadRecordHostileFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	must(t, os.WriteFile(big, make([]byte, maxRecordBytes+1), 0o644))
	var err error
	// The least of three readings: the count is process-wide, and a
	// goroutine an earlier test left running can add to one reading.
	alloc := uint64(math.MaxUint64)
	for range 3 {
		alloc = min(alloc, testenv.AllocatedBy(func() { _, err = ReadRecord(big) }))
	}
	if err == nil || !strings.Contains(err.Error(), "big.json: 4194305 bytes, more than 4194304") {
		t.Errorf("oversized record: %v", err)
	}
	if alloc > 1<<20 {
		t.Errorf("reading an oversized record allocated %d bytes", alloc)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if !testenv.MakeFIFO(t, fifo) {
		t.Skip("no named pipes on this system")
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRecord(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "fifo.json is not a regular file") {
			t.Errorf("FIFO record: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadRecord blocked on a FIFO")
	}
	must(t, os.WriteFile(filepath.Join(dir, SpecFile), make([]byte, maxSpecBytes+1), 0o644))
	if _, err := ReadSpec(dir); err == nil || !strings.Contains(err.Error(), "more than 1048576") {
		t.Errorf("oversized grid.json: %v", err)
	}
}

// Records written before settings had their own names carry the
// reference's keys (ood_features_ber, ...); they read as today's, so that
// a grid resumed with a newer cuqgnn does not redo them.
func TestReadRecordWithReferenceKeys(t *testing.T) {
	r := sampleRecord()
	r.Version = RecordVersion
	old := map[string]*Result{}
	for k, res := range r.Results {
		s, err := ParseSetting(k)
		if err != nil {
			t.Fatal(err)
		}
		old[s.ReferenceKey()] = res
	}
	r.Results = old
	sum, err := r.checksum()
	if err != nil {
		t.Fatal(err)
	}
	r.Checksum = sum
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"ood_features_ber"`) {
		t.Fatalf("test premise: the record does not use the reference's keys: %s", b)
	}
	got, err := parseRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Results["bernoulli"] == nil || got.Results["ood_features_ber"] != nil {
		t.Errorf("results keyed %v, want today's names", slices.Collect(maps.Keys(got.Results)))
	}
	j, err := got.Job()
	if err != nil || len(j.Settings) != len(r.Results) {
		t.Errorf("job %v (%v): settings lost", j, err)
	}
}
