package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "gkde", "-dataset", "synthetic", "-out", dir}, "the replica has no GKDE (valid: appnp, gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat)"},
		{[]string{"-model", "mlp", "-out", dir}, `unknown model "mlp"`},
		{[]string{"-model", "gpn"}, "-out is required"},
		{[]string{"-out", dir}, "-model is required"},
		{[]string{"-model", "gpn", "-epochs", "-1", "-out", dir}, "-epochs -1: want 0 (export only) or a positive number"},
		{[]string{"-model", "gpn", "-split", "0", "-out", dir}, "-split 0: splits are numbered from 1"},
		{[]string{"-model", "gpn", "-out", dir, "extra"}, "unexpected arguments"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), c.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("export %s: error %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestExportSynthetic exports an APPNP run on the synthetic graph and
// trains it for two epochs; the run and cuqgnn's result read back.
func TestExportSynthetic(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-dataset", "synthetic", "-model", "APPNP", "-split", "2", "-epochs", "2", "-out", dir}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "exported APPNP on Synthetic (3000 nodes), split 2, init 1") || !strings.Contains(s, "trained 2 epochs") {
		t.Errorf("output:\n%s", s)
	}
	r, err := replica.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "appnp" || r.Nodes != 3000 || len(r.Params) != 4 || r.Train.MaxEpochs != 2 {
		t.Errorf("run %s: %d nodes, %d parameters, %d epochs", r.Model, r.Nodes, len(r.Params), r.Train.MaxEpochs)
	}
	res, err := replica.ReadResult(filepath.Join(dir, "cuqgnn"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Epochs) != 2 || !(res.Epochs[0].Loss > 0) || len(res.Values) != 3000*7 {
		t.Errorf("result: %d epochs, first loss %v, %d output values", len(res.Epochs), res.Epochs[0].Loss, len(res.Values))
	}
}
