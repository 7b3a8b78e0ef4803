package explore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/truth"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func TestTrainingSettings(t *testing.T) {
	for _, c := range []struct {
		e    *TrainingExplorer
		want string
	}{
		{Training().Homophily(0.1), "h = 0.1, want a value in [0.2, 1]"},
		{Training().Signal(3.5), "s = 3.5"},
		{Training().Seed(0), "seed = 0"},
		{Training().Nodes(30), "30 nodes, want 60 to 2000"},
		{Training().MaxEpochs(0), "at most 0 epochs"},
		{Training().Flows(11), "11 radial flows"},
		{Training().Patience(101), "patience 101, want 1 to the maximum epochs 100"},
	} {
		if err := c.e.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
		if _, err := Encode(c.e); err == nil {
			t.Errorf("Encode accepted %+v", c.e.cfg)
		}
		if _, err := c.e.View(Start(c.e)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("View of %+v: error %v, want %q", c.e.cfg, err, c.want)
		}
	}
	e := Training().Homophily(0.55).Signal(2.25).Seed(7).Nodes(300).MaxEpochs(60).Flows(3).Patience(15)
	d, err := Decode(must(Encode(e)))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.(*TrainingExplorer).cfg; got != e.cfg {
		t.Errorf("after the round trip %+v, want %+v", got, e.cfg)
	}
	if got := Start(d); !slices.Equal(got, []float64{0.55, 2.25, 7}) {
		t.Errorf("starts at %v, want [0.55 2.25 7]", got)
	}
	if _, err := Decode(`{"kind":"training","config":{"nodes":500,"flows":0}}`); err == nil || !strings.Contains(err.Error(), "0 radial flows") {
		t.Errorf("Decode of 0 flows: error %v", err)
	}
	for _, c := range []struct {
		values []float64
		want   string
	}{
		{[]float64{0.9, 1}, "2 values for 3 controls"},
		{[]float64{0.15, 1, 1}, "h = 0.15"},
		{[]float64{0.9, math.NaN(), 1}, "s = NaN"},
		{[]float64{0.9, 1, 2.5}, "seed = 2.5, want a whole number"},
	} {
		if _, err := Training().View(c.values); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("View(%v): error %v, want %q", c.values, err, c.want)
		}
	}
}

// The explorer's numbers are those of truth.Sweep with the same models,
// bit for bit, and its epochs those of a Fit of each model on the
// sweep's graph; progress sees every epoch of that Fit, in order.
func TestTrainingMatchesNative(t *testing.T) {
	e := Training().Nodes(150).MaxEpochs(40).Patience(10)
	h, s, seed := 0.6, 1.5, uint64(3)
	var seen []Progress
	var states []string
	v, err := e.Train(context.Background(), []float64{h, s, float64(seed)}, func(p Progress) {
		seen = append(seen, p)
		if len(seen)%7 == 1 {
			c := p.View().Cells()
			states = append(states, c["cuqppr.state"].Text+" / "+c["gpn.state"].Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	schedule := cuq.PostNetSchedule()
	schedule.Patience, schedule.MaxEpochs = 10, 40
	fit := []cuq.FitOption{schedule}
	models := []truth.Model{
		{Name: "CUQ-PPR", Preset: cuq.CUQPPR().Flows(2), Fit: fit},
		{Name: "GPN", Preset: cuq.GPN().Flows(2), Fit: fit},
	}
	sweep := truth.Sweep(models...).Nodes(150).Homophily(h).Signal(s).Seeds(seed)
	table, err := sweep.Done()
	if err != nil {
		t.Fatal(err)
	}
	cells := v.Cells()
	same := func(key string, want float64) {
		t.Helper()
		c, ok := cells[key]
		if !ok {
			t.Errorf("no cell %s", key)
			return
		}
		if math.Float64bits(c.Value) != math.Float64bits(want) {
			t.Errorf("%s = %v, natively %v", key, c.Value, want)
		}
	}
	keys := map[string]string{"CUQ-PPR": "cuqppr", "GPN": "gpn"}
	for _, r := range table.Of(uq.AU, uq.EU) {
		k := keys[r.Model]
		same(k+".acc", r.Accuracy)
		same("bayes.acc", r.BayesAccuracy)
		if r.Measure == uq.AU {
			same(k+".rhoAU", r.Spearman)
		} else {
			same(k+".rhoEU", r.Spearman)
		}
	}
	point, err := sweep.Point(h, s, seed)
	if err != nil {
		t.Fatal(err)
	}
	var epochs []Progress
	for _, m := range models {
		model, err := m.Preset.Classifier(point.Graph)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := model.Fit(point.Split, m.Fit...)
		if err != nil {
			t.Fatal(err)
		}
		same(keys[m.Name]+".epochs", float64(hist.TrainEpochs()))
		same(keys[m.Name]+".best", float64(hist.BestEpoch))
		for _, e := range hist.Epochs {
			epochs = append(epochs, Progress{Model: m.Name, Epoch: e})
		}
	}
	if len(seen) != len(epochs) {
		t.Fatalf("progress called %d times, the models trained %d epochs", len(seen), len(epochs))
	}
	for i, p := range seen {
		w := epochs[i]
		if p.Model != w.Model || p.Epoch.Phase != w.Epoch.Phase || p.Epoch.Epoch != w.Epoch.Epoch ||
			math.Float64bits(p.Epoch.Loss) != math.Float64bits(w.Epoch.Loss) {
			t.Fatalf("progress %d: %s %v epoch %d loss %v, natively %s %v epoch %d loss %v", i,
				p.Model, p.Epoch.Phase, p.Epoch.Epoch, p.Epoch.Loss, w.Model, w.Epoch.Phase, w.Epoch.Epoch, w.Epoch.Loss)
		}
	}
	// While CUQ-PPR trains GPN waits; then GPN trains.
	if states[0] != "training: warm-up / waiting" {
		t.Errorf("state at the first epoch: %q", states[0])
	}
	if !strings.HasPrefix(states[1], "training: epoch ") || !strings.HasSuffix(states[1], " / waiting") {
		t.Errorf("state during CUQ-PPR's training: %q", states[1])
	}
	wantLast := fmt.Sprintf("trained: %s epochs / training: epoch ", cells["cuqppr.epochs"].Text)
	if last := states[len(states)-1]; !strings.HasPrefix(last, wantLast) {
		t.Errorf("state during GPN's training: %q, want it to start %q", last, wantLast)
	}
	// The view's cells: five per model, five for the Bayes-optimal row.
	want := []string{"bayes.acc", "bayes.best", "bayes.epochs", "bayes.rhoAU", "bayes.rhoEU"}
	for _, k := range []string{"cuqppr", "gpn"} {
		for _, c := range []string{"acc", "best", "epochs", "rhoAU", "rhoEU"} {
			want = append(want, k+"."+c)
		}
	}
	var got []string
	for k := range cells {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	for k, c := range cells {
		if !math.IsNaN(c.Value) && c.Text != fmt.Sprintf(map[bool]string{true: "%.0f", false: "%.3f"}[strings.HasSuffix(k, "epochs") || strings.HasSuffix(k, "best")], c.Value) {
			t.Errorf("%s shows %q for %v", k, c.Text, c.Value)
		}
	}
}

func TestTrainingCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Training().Nodes(100).Train(ctx, []float64{0.9, 1, 1}, func(Progress) {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n != 3 {
		t.Errorf("%d epochs after cancelling at the third, want none", n-3)
	}
}

func TestRanks(t *testing.T) {
	// Sorted: 1 (rank 0), 2, 2 (ranks 1 and 2, mean 1.5), 5 (rank 3), 7 (4).
	got := ranks([]float64{5, 2, 7, 1, 2})
	want := []float64{3.0 / 4, 1.5 / 4, 1, 0, 1.5 / 4}
	if !slices.Equal(got, want) {
		t.Errorf("ranks = %v, want %v", got, want)
	}
	if got := ranks([]float64{4}); !slices.Equal(got, []float64{0}) {
		t.Errorf("ranks of one value = %v", got)
	}
}

func TestTrainingAbout(t *testing.T) {
	a := Training().Flows(3).Patience(12).MaxEpochs(80).About()
	if !strings.Contains(a, "3 radial flows per class instead of 10, patience 12 instead of 50, at most 80 epochs") {
		t.Errorf("About does not state the models' sizes: %s", a)
	}
	if strings.Contains(a, "%!") {
		t.Errorf("About is misformatted: %s", a)
	}
}
