package cuq_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// negMaxLogit is a post-hoc score registered by the test: −max_k z_ik.
var negMaxLogit = uq.MustRegisterPostHoc("NEG_MAX_LOGIT")

func negMaxLogitScore(_ *graph.Graph, z *tensor.Dense) ([]float64, error) {
	out := make([]float64, z.Rows)
	for i := range out {
		out[i] = -slices.Max(z.Row(i))
	}
	return out, nil
}

// TestPostHoc checks a score added with uq.RegisterPostHoc and cuq.PostHoc
// against its formula on the model's own logits, built with Done and
// wrapped around a trained model with Of, and its errors.
func TestPostHoc(t *testing.T) {
	g, split := energyGraph(t)
	m := must(cuq.PostHoc(cuq.GCN(), negMaxLogit, "MaxLogit", negMaxLogitScore).Done(g))
	if m.Name() != "MaxLogit-GCN" || m.Measure() != negMaxLogit {
		t.Fatalf("name %q, measure %v", m.Name(), m.Measure())
	}
	fitted(t, m, split, cuq.MaxEpochs(30))
	p, err := m.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Uncertainty(negMaxLogit)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.N {
		if want := -slices.Max(p.Logits.Row(i)); got[i] != want {
			t.Fatalf("node %d: score %v, want −max z = %v", i, got[i], want)
		}
	}
	if av := p.Available(); av[len(av)-1] != negMaxLogit || p.Model != "MaxLogit-GCN" {
		t.Fatalf("available %v, model %q", av, p.Model)
	}
	// the same score around the trained GCN, built by Of
	of := must(cuq.PostHoc(nil, negMaxLogit, "MaxLogit", negMaxLogitScore).Of(m.Base()))
	q, err := of.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Get(negMaxLogit), got) {
		t.Fatal("Of's score differs from Done's")
	}

	short := func(g *graph.Graph, z *tensor.Dense) ([]float64, error) { return make([]float64, g.N-1), nil }
	failing := func(*graph.Graph, *tensor.Dense) ([]float64, error) { return nil, errors.New("no score today") }
	for _, tc := range []struct {
		score cuq.LogitScore
		want  string
	}{
		{short, "the score returned 199 values for 200 nodes"},
		{failing, "MaxLogit-GCN: no score today"},
	} {
		bad := must(cuq.PostHoc(nil, negMaxLogit, "MaxLogit", tc.score).Of(m.Base()))
		if _, err := bad.Predict(nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	for _, tc := range []struct {
		b    *cuq.EnergyBuilder
		want string
	}{
		{cuq.PostHoc(cuq.GCN(), uq.TU, "X", negMaxLogitScore), "measure TU is not a post-hoc score added with uq.RegisterPostHoc"},
		{cuq.PostHoc(cuq.GCN(), uq.GNNSafe, "X", negMaxLogitScore), "measure GNNSAFE is not a post-hoc score added"},
		{cuq.PostHoc(cuq.GCN(), negMaxLogit, "X", negMaxLogitScore).Temperature(2), "not a PostHoc score's"},
		{cuq.PostHoc(cuq.GCN(), negMaxLogit, "X", negMaxLogitScore).Steps(2), "not a PostHoc score's"},
		{cuq.PostHoc(cuq.GPN(), negMaxLogit, "X", negMaxLogitScore), "GPN has no logits"},
	} {
		if _, err := tc.b.Done(g); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	// Of checks the options as Done does
	if _, err := cuq.Energy(nil).Temperature(0).Of(m.Base()); err == nil || !strings.Contains(err.Error(), "temperature 0") {
		t.Errorf("Of with temperature 0: error %v", err)
	}
}
