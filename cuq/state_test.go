package cuq_test

import (
	"bytes"
	"encoding/gob"
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
)

// A state taken from a trained model, stored and put into a model built
// on the graph with another seed, predicts as the trained model did, bit
// for bit; its variants too.
func TestStateRoundTrip(t *testing.T) {
	g, split := smallGraph(t)
	for _, b := range []cuq.ModelBuilder{cuq.GPN(), cuq.APPNP(), cuq.CUQGCN()} {
		m := must(b.Done(g))
		want := fitPredict(t, m, split, cuq.MaxEpochs(10))
		s := must(m.State())
		if _, isGPN := b.(*cuq.PostNetBuilder); isGPN != (s.LogPrior != nil) {
			t.Errorf("%s: class prior %v", m.Name(), s.LogPrior)
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(s); err != nil {
			t.Fatal(err)
		}
		var stored cuq.State
		if err := gob.NewDecoder(&buf).Decode(&stored); err != nil {
			t.Fatal(err)
		}
		var other cuq.ModelBuilder
		switch b := b.(type) {
		case *cuq.PostNetBuilder:
			other = b.Seed(99)
		case *cuq.FirstOrderBuilder:
			other = b.Seed(99)
		}
		again := must(other.Done(g))
		if _, err := again.Predict(nil); err == nil {
			t.Fatalf("%s: an untrained model predicts", again.Name())
		}
		if err := again.SetState(stored); err != nil {
			t.Fatal(err)
		}
		got := must(again.Predict(nil))
		for i, v := range want.Prob.Data {
			if math.Float64bits(v) != math.Float64bits(got.Prob.Data[i]) {
				t.Fatalf("%s: probability %d is %v after SetState, %v trained", m.Name(), i, got.Prob.Data[i], v)
			}
		}
		for i, v := range want.TU {
			if math.Float64bits(v) != math.Float64bits(got.TU[i]) {
				t.Fatalf("%s: TU of node %d is %v after SetState, %v trained", m.Name(), i, got.TU[i], v)
			}
		}
		stored.Params[0][0] += 1
		if must(again.State()).Params[0][0] == stored.Params[0][0] {
			t.Errorf("%s: the model shares the state's slices", m.Name())
		}
	}
}

func TestStateErrors(t *testing.T) {
	g, split := smallGraph(t)
	gpn := must(cuq.GPN().Done(g))
	if _, err := gpn.State(); err == nil || !strings.Contains(err.Error(), "GPN is not trained") {
		t.Errorf("untrained: error %v", err)
	}
	fitPredict(t, gpn, split, cuq.MaxEpochs(3))
	s := must(gpn.State())
	v := must(gpn.WithPropagation(2, 0.2))
	appnp := must(cuq.APPNP().Done(g))
	fitPredict(t, appnp, split, cuq.MaxEpochs(3))
	short := s
	short.LogPrior = s.LogPrior[:1]
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"GKDE", second(must(cuq.GKDE().Done(g)).State()), "GKDE has no parameters"},
		{"variant", second(v.State()), "prediction-time variant of GPN"},
		{"variant set", v.SetState(s), "prediction-time variant of GPN"},
		{"other shape", must(cuq.GPN().Latent(8).Done(g)).SetState(s), "the state's parameter 0 has 640 values, flow.x0 has 320"},
		{"fewer parameters", must(cuq.GPN().Done(g)).SetState(cuq.State{Params: s.Params[:2], LogPrior: s.LogPrior}), "a state of 2 parameters"},
		{"prior", must(cuq.GPN().Done(g)).SetState(short), "class prior has 1 classes, the model 4"},
		{"prior on APPNP", must(cuq.APPNP().Done(g)).SetState(cuq.State{Params: must(appnp.State()).Params, LogPrior: s.LogPrior}), "without a PostNet head"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}
