package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cuqgnn/cuqgnn/experiment/reftables"
)

// realRecords returns the files of records of real runs: GKDE and APPNP
// (three epochs) on the tiny dataset, clean graph and leave-out classes.
func realRecords(f *testing.F) [][]byte {
	d := tinyDataset(f, "Tiny")
	dir := f.TempDir()
	var out [][]byte
	for _, j := range []Job{
		{Dataset: "Tiny", Model: GKDE, Split: 1, Init: 1, Settings: []Setting{Classification, GaussianNoise, BernoulliNoise}},
		{Dataset: "Tiny", Model: APPNP, Split: 2, Init: 1, Trained: LeaveOutClasses, Settings: []Setting{LeaveOutClasses}},
	} {
		r, err := RunJob(context.Background(), d, j, RunOptions{MaxEpochs: 3})
		if err != nil {
			f.Fatal(err)
		}
		path := filepath.Join(dir, j.Path())
		if err := WriteRecord(path, r); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzReadRecord decodes arbitrary record files. Whatever the input,
// decoding returns a record or an error without panicking. Since a mutated
// file rarely keeps a valid checksum, the input is also resealed (its
// checksum recomputed) so that the field checks meet hostile values; a
// record that passes them survives an encoding round trip and aggregates
// into a table.
func FuzzReadRecord(f *testing.F) {
	for _, b := range realRecords(f) {
		f.Add(b)
	}
	r := sampleRecord()
	r.Version = RecordVersion
	b, _ := json.Marshal(r)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		parseRecord(b)
		var r Record
		if json.Unmarshal(b, &r) != nil {
			return
		}
		r.Version = RecordVersion
		sum, err := r.checksum()
		if err != nil {
			return
		}
		r.Checksum = sum
		if r.validate() != nil {
			return
		}
		enc, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseRecord(enc)
		if err != nil {
			t.Fatalf("a valid record does not read back: %v", err)
		}
		if !reflect.DeepEqual(back, &r) {
			t.Fatalf("read back %+v, want %+v", back, &r)
		}
		res, err := Aggregate([]*Record{back})
		if err != nil {
			t.Fatalf("a valid record does not aggregate: %v", err)
		}
		var csv bytes.Buffer
		if err := reftables.WriteIDOOD(&csv, res.Rows); err != nil {
			t.Fatalf("a valid record does not make a table: %v", err)
		}
	})
}
