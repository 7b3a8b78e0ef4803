package eval

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestRanks(t *testing.T) {
	got := Ranks([]float64{3, 1, 3, 2, 3})
	if want := []float64{4, 1, 4, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("ranks %v, want %v", got, want)
	}
}

func TestSpearman(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		want float64
	}{
		// Ranks (1, 2.5, 2.5, 4, 5) and (2, 1, 3.5, 3.5, 5), mean 3:
		// Σdxdy = 2 + 1 − 0.25 + 0.5 + 4 = 7.25, Σdx² = Σdy² = 9.5.
		{"ties", []float64{1, 2, 2, 3, 4}, []float64{2, 1, 3, 3, 5}, 7.25 / 9.5},
		// No ties: 1 − 6Σd²/(n(n²−1)) = 1 − 6·2/60.
		{"no ties", []float64{10, 20, 30, 40}, []float64{1, 3, 2, 4}, 0.8},
		{"monotone", []float64{-1, 0, 1, 2, 3}, []float64{math.Exp(-1), 1, math.E, math.Exp(2), math.Exp(3)}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{30, 20, -5}, -1},
	} {
		got, err := Spearman(c.x, c.y)
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: ρ = %v (err %v), want %v", c.name, got, err, c.want)
		}
	}
}

func TestTopAUROC(t *testing.T) {
	for _, c := range []struct {
		name         string
		score, truth []float64
		q, want      float64
	}{
		// Top 40% of 5 = 2 nodes (truth 0.9 and 0.8, scores 4 and 2) against
		// scores 1, 3, 0: 4 beats all three, 2 beats two, so 5 of 6 pairs.
		{"hand", []float64{1, 4, 3, 2, 0}, []float64{0.1, 0.9, 0.5, 0.8, 0.2}, 0.4, 5.0 / 6},
		// k = 1 but three values tie at the top: all three are positives.
		{"truth ties", []float64{0.5, 0.5, 0.2, 0.1}, []float64{1, 1, 1, 0}, 0.25, 1},
		// Two positives tie with the negative's score: (1 + ½ + ½)/3.
		{"score ties", []float64{0.3, 0.1, 0.1, 0.1}, []float64{1, 1, 1, 0}, 0.25, 2.0 / 3},
	} {
		got, err := TopAUROC(c.score, c.truth, c.q)
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: AUROC %v (err %v), want %v", c.name, got, err, c.want)
		}
	}
}

func TestTruthMetricErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"length", func() error { _, err := Spearman([]float64{1, 2}, []float64{1}); return err }, "2 scores against 1 ground-truth values"},
		{"short", func() error { _, err := Spearman([]float64{1}, []float64{1}); return err }, "need at least 2 values"},
		{"NaN", func() error { _, err := TopAUROC([]float64{1, math.NaN()}, []float64{1, 2}, 0.5); return err }, "NaN at index 1"},
		{"constant", func() error { _, err := Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); return err }, "constant vector"},
		{"q", func() error { _, err := TopAUROC([]float64{1, 2}, []float64{1, 2}, 1); return err }, "top fraction 1 outside (0, 1)"},
		{"all tied", func() error { _, err := TopAUROC([]float64{1, 2}, []float64{3, 3}, 0.2); return err }, "no negatives"},
	} {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
