package cuq

import (
	"math"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

// masks draws the dropout masks of epochs training epochs of a model with
// the given seed and init, as its encoder and convolution draw them: per
// epoch one mask per site, each rows×cols, from the model's dropout
// stream in order, with probability p. keep[e][s][i] is 1 for a kept
// element.
func masks(seed uint64, init, epochs, sites, rows, cols int, p float64) [][][]float64 {
	rng := stream(Seeding{Seed: seed, Init: init}, dropoutStream)
	ones := tensor.New(rows, cols)
	for i := range ones.Data {
		ones.Data[i] = 1
	}
	out := make([][][]float64, epochs)
	for e := range out {
		tp := ad.NewTape()
		out[e] = make([][]float64, sites)
		for s := range sites {
			y := tp.Dropout(ad.Const(ones), p, rng)
			keep := make([]float64, len(y.Data.Data))
			for i, v := range y.Data.Data {
				if v != 0 {
					keep[i] = 1
				}
			}
			out[e][s] = keep
		}
	}
	return out
}

// correlation returns Pearson's correlation of a and b.
func correlation(a, b []float64) float64 {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma, mb = ma+a[i], mb+b[i]
	}
	ma, mb = ma/n, mb/n
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		sab, saa, sbb = sab+da*db, saa+da*da, sbb+db*db
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestDropoutMaskStream checks the properties of the dropout masks that
// could decide a run's fate (GPN on Amazon Photos; see
// docs/records/faithfulness.md) against their expected values, for masks
// of the size of Photos' hidden layer (7,650 nodes × 64) over 40 epochs
// and two sites, as CUQ-GCN draws them: every mask keeps 1 − p of its
// elements, and the masks of consecutive epochs, of the two sites and of
// two inits are uncorrelated. Each statistic is asserted within 5 of its
// standard errors (for a correlation of n independent pairs, 1/√n); the
// masks of one init are the same on every split, as the reference's.
func TestDropoutMaskStream(t *testing.T) {
	const rows, cols, epochs, sites, p = 7650, 64, 40, 2, 0.5
	n := float64(rows * cols)
	first := masks(42, 1, epochs, sites, rows, cols, p)
	second := masks(42, 2, epochs, sites, rows, cols, p)
	rateSE, corrSE := math.Sqrt(p*(1-p)/n), 1/math.Sqrt(n)
	for e := range epochs {
		for s := range sites {
			var kept float64
			for _, k := range first[e][s] {
				kept += k
			}
			if rate := kept / n; math.Abs(rate-(1-p)) > 5*rateSE {
				t.Errorf("epoch %d site %d keeps %.5f, want %.2f ± %.5f", e, s, rate, 1-p, 5*rateSE)
			}
			if e > 0 {
				if r := correlation(first[e][s], first[e-1][s]); math.Abs(r) > 5*corrSE {
					t.Errorf("epochs %d and %d, site %d: correlation %.5f", e-1, e, s, r)
				}
			}
			if r := correlation(first[e][s], second[e][s]); math.Abs(r) > 5*corrSE {
				t.Errorf("inits 1 and 2, epoch %d site %d: correlation %.5f", e, s, r)
			}
		}
		if r := correlation(first[e][0], first[e][1]); math.Abs(r) > 5*corrSE {
			t.Errorf("sites 0 and 1, epoch %d: correlation %.5f", e, r)
		}
	}
	// The stream does not depend on the split: the same init draws the
	// same masks on every split.
	again := masks(42, 1, 2, sites, rows, cols, p)
	if correlation(again[1][1], first[1][1]) != 1 {
		t.Error("init 1 drew other masks the second time")
	}
}

// TestDropoutStreamOption checks the builders' DropoutStream: stream 0 is the
// reference's (the masks of TestDropoutMaskStream), another stream draws
// other, uncorrelated masks, and the initial parameters do not change.
func TestDropoutStreamOption(t *testing.T) {
	const rows, cols, p = 400, 64, 0.5
	draw := func(s uint64) []float64 {
		rng := stream(Seeding{Seed: 42, Init: 3, Stream: s}, dropoutStream)
		ones := tensor.New(rows, cols)
		for i := range ones.Data {
			ones.Data[i] = 1
		}
		y := ad.NewTape().Dropout(ad.Const(ones), p, rng)
		keep := make([]float64, len(y.Data.Data))
		for i, v := range y.Data.Data {
			if v != 0 {
				keep[i] = 1
			}
		}
		return keep
	}
	if correlation(draw(0), masks(42, 3, 1, 1, rows, cols, p)[0][0]) != 1 {
		t.Error("stream 0 is not the default stream")
	}
	if r := correlation(draw(0), draw(7)); math.Abs(r) > 5/math.Sqrt(rows*cols) {
		t.Errorf("streams 0 and 7: correlation %v", r)
	}
	g, err := datasets.CSBM(200, 3).Features(8).Seed(1).Done()
	if err != nil {
		t.Fatal(err)
	}
	a, b := must(CUQPPR().Init(3).Done(g)), must(CUQPPR().Init(3).DropoutStream(7).Done(g))
	_, pa := a.Parameters()
	_, pb := b.Parameters()
	for k := range pa {
		for i, v := range pa[k].Data.Data {
			if pb[k].Data.Data[i] != v {
				t.Fatalf("parameter %d differs with another dropout stream", k)
			}
		}
	}
	if _, err := CUQPPR().DropoutStream(1 << 24).Done(g); err == nil {
		t.Error("stream 2²⁴ accepted")
	}
}

// must returns v, or panics with err: for builds that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
