package experiment

import (
	"strings"
	"testing"
)

func TestParseModel(t *testing.T) {
	for m := range numModels {
		for _, name := range []string{m.Key(), m.String(), strings.ToUpper(m.Key())} {
			got, err := ParseModel(name)
			if err != nil || got != m {
				t.Errorf("ParseModel(%q) = %v, %v, want %v", name, got, err, m)
			}
		}
	}
	for name, want := range map[string]Model{"gdk": GKDE, "cuq_appnp": CUQPPR, "LOPGPN": LOPGPN, " cuq-gat ": CUQGAT} {
		if got, err := ParseModel(name); err != nil || got != want {
			t.Errorf("ParseModel(%q) = %v, %v, want %v", name, got, err, want)
		}
	}
	// The paper's models first, then every other model of the catalogue.
	_, err := ParseModel("mlp")
	if err == nil || !strings.Contains(err.Error(), `"mlp" (valid: appnp, gkde, gpn, gpn_lop, cuq_ppr, cuq_gcn, cuq_gat,`) {
		t.Errorf("unknown model error: %v", err)
	}
	for m := range numModels {
		if err != nil && !strings.Contains(err.Error(), " "+m.Key()+",") && !strings.HasSuffix(err.Error(), " "+m.Key()+")") {
			t.Errorf("unknown model error %q does not list %s", err, m.Key())
		}
	}
	if _, err := ParseModels(" , "); err == nil || !strings.Contains(err.Error(), "empty model list") {
		t.Errorf("empty list error: %v", err)
	}
}

func TestParseSetting(t *testing.T) {
	for name, want := range map[string]Setting{
		"classification": Classification, "loc": LeaveOutClasses, "ood_loc": LeaveOutClasses,
		"gaussian": GaussianNoise, "Normal": GaussianNoise, "ood_features_normal": GaussianNoise,
		"bernoulli": BernoulliNoise, "ber": BernoulliNoise, "ood_features_ber": BernoulliNoise,
		"edges": RandomEdges, "random-edges": RandomEdges, "DICE": DICE, "gaussian_sweep": GaussianSweep,
		"BernoulliSweep": BernoulliSweep,
	} {
		if got, err := ParseSetting(name); err != nil || got != want {
			t.Errorf("ParseSetting(%q) = %v, %v, want %v", name, got, err, want)
		}
	}
	for _, s := range knownSettings {
		if got, err := ParseSetting(s.String()); err != nil || got != s {
			t.Errorf("ParseSetting(%q) = %v, %v", s.String(), got, err)
		}
	}
	got, err := ParseSettings("loc,gaussian")
	if err != nil || len(got) != 2 || got[0] != LeaveOutClasses || got[1] != GaussianNoise {
		t.Errorf("ParseSettings = %v, %v", got, err)
	}
	if _, err := ParseSetting("shuffle"); err == nil || !strings.Contains(err.Error(), `"shuffle" (valid: classification, loc, gaussian, bernoulli, random_edges, dice, gaussian_sweep, bernoulli_sweep,`) {
		t.Errorf("unknown setting error: %v", err)
	}
	if _, err := ParseSettings("loc, ,shuffle"); err == nil || !strings.Contains(err.Error(), `unknown setting "shuffle"`) {
		t.Errorf("list with an unknown setting: %v", err)
	}
	if _, err := ParseSettings(" "); err == nil || !strings.HasPrefix(err.Error(), "experiment: empty setting list (valid: classification, loc, gaussian, bernoulli, random_edges, dice, gaussian_sweep, bernoulli_sweep,") {
		t.Errorf("empty list error: %v", err)
	}
}

func TestNewDatasetErrors(t *testing.T) {
	d := tinyDataset(t, "Tiny")
	for _, c := range []struct {
		leftOut int
		name    string
		want    string
	}{
		{0, "Tiny", "cannot leave out 0 of 4"},
		{3, "Tiny", "cannot leave out 3 of 4"},
		{1, "a/b", `graph name "a/b"`},
		{1, "", `graph name ""`},
	} {
		g := *d.Graph
		g.Name = c.name
		if _, err := NewDataset(&g, c.leftOut); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDataset(%q, %d): %v, want %q", c.name, c.leftOut, err, c.want)
		}
	}
	if _, err := NewDataset(nil, 1); err == nil {
		t.Error("NewDataset(nil): no error")
	}
}
