package special

import (
	"math"
	"testing"
)

func TestSpecialFunctionValues(t *testing.T) {
	const gamma = 0.5772156649015329
	cases := []struct {
		name      string
		got, want float64
	}{
		{"digamma(1)", Digamma(1), -gamma},
		{"digamma(1/2)", Digamma(0.5), -gamma - 2*math.Ln2},
		{"digamma(10)", Digamma(10), -gamma + 1 + 1.0/2 + 1.0/3 + 1.0/4 + 1.0/5 + 1.0/6 + 1.0/7 + 1.0/8 + 1.0/9},
		{"digamma(-1/2)", Digamma(-0.5), 2 - gamma - 2*math.Ln2},
		{"digamma(1e6)", Digamma(1e6), math.Log(1e6) - 0.5e-6 - 1e-12/12},
		{"trigamma(1)", Trigamma(1), math.Pi * math.Pi / 6},
		{"trigamma(1e6)", Trigamma(1e6), 1e-6 + 0.5e-12 + 1e-18/6},
		{"trigamma(1/2)", Trigamma(0.5), math.Pi * math.Pi / 2},
		{"trigamma(2)", Trigamma(2), math.Pi*math.Pi/6 - 1},
		{"lgamma(1/2)", Lgamma(0.5), 0.5 * math.Log(math.Pi)},
		{"lgamma(5/2)", Lgamma(2.5), math.Log(0.75 * math.Sqrt(math.Pi))},
		{"lgamma(7/2)", Lgamma(3.5), math.Log(15.0 / 8 * math.Sqrt(math.Pi))},
		{"lgamma(6)", Lgamma(6), math.Log(120)},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.16g, want %.16g", c.name, c.got, c.want)
		}
	}
	if !math.IsNaN(Trigamma(0)) || !math.IsNaN(Digamma(-2)) {
		t.Error("trigamma(0) should be NaN")
	}
}
