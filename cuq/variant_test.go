package cuq_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// variantGraph is the 7-node, 2-class graph of the package's internal
// tests (tinyGraph): two triangles joined by the edge 2–3, and node 6 on
// its own, with a split of 2 training and 2 validation nodes.
var variantGraph = cuq.TinyGraph

// trained returns the model of b on g fitted briefly on split.
func trained(t *testing.T, b cuq.ModelBuilder, g *graph.Graph, split graph.Split) *cuq.Model {
	t.Helper()
	m := must(b.Done(g))
	if _, err := m.Fit(split, cuq.MaxEpochs(8)); err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	return m
}

// twin returns the model of b on g with the parameters of m: one training
// step sets its class prior from split (the prior m's Fit set on the same
// split), then m's parameters are copied into it.
func twin(t *testing.T, b cuq.ModelBuilder, g *graph.Graph, split graph.Split, m *cuq.Model) *cuq.Model {
	t.Helper()
	tw := must(b.Done(g))
	if _, err := tw.Step(split); err != nil {
		t.Fatalf("%s: %v", tw.Name(), err)
	}
	f1, o1 := m.Parameters()
	f2, o2 := tw.Parameters()
	from, to := append(f1, o1...), append(f2, o2...)
	if len(from) != len(to) {
		t.Fatalf("%s has %d parameter tensors, %s %d", m.Name(), len(from), tw.Name(), len(to))
	}
	for k := range from {
		if !from[k].Data.SameShape(to[k].Data) {
			t.Fatalf("parameter %d: %s has %s, %s %s", k, m.Name(), from[k].Data.Shape(), tw.Name(), to[k].Data.Shape())
		}
		copy(to[k].Data.Data, from[k].Data.Data)
	}
	return tw
}

func denseData(d *tensor.Dense) []float64 {
	if d == nil {
		return nil
	}
	return d.Data
}

// predictionDiff names the first field in which a and b differ in a bit,
// "" when every number is the same.
func predictionDiff(a, b *cuq.Prediction) string {
	if !slices.Equal(a.Class, b.Class) {
		return "Class"
	}
	if !slices.Equal(a.Available(), b.Available()) {
		return fmt.Sprintf("measures %v and %v", a.Available(), b.Available())
	}
	fields := map[string][2][]float64{
		"Prob": {denseData(a.Prob), denseData(b.Prob)}, "Alpha": {denseData(a.Alpha), denseData(b.Alpha)},
		"Logits": {denseData(a.Logits), denseData(b.Logits)}, "EUFeat": {a.EUFeat, b.EUFeat},
	}
	for _, u := range uq.AllMeasures {
		fields[u.String()] = [2][]float64{a.Get(u), b.Get(u)}
	}
	for name, v := range fields {
		if !tensor.SameBits(v[0], v[1]) {
			return name
		}
	}
	return ""
}

// propagationMatrix returns the dense K-step personalised-PageRank matrix
// Π = Σ_{j<K} t(1−t)ʲ Âʲ + (1−t)ᴷ Âᴷ over the adjacency of g with self
// loops, normalised symmetrically (D^−½(A+I)D^−½) or by rows (D^−1(A+I)).
func propagationMatrix(g *graph.Graph, k int, tp float64, symmetric bool) [][]float64 {
	n := g.N
	a := make([][]float64, n)
	adj := g.Adj.ToDense()
	for i := range a {
		a[i] = slices.Clone(adj.Row(i))
		a[i][i] = 1
	}
	deg := make([]float64, n)
	for i := range a {
		for _, v := range a[i] {
			deg[i] += v
		}
	}
	for i := range a {
		for j := range a[i] {
			if symmetric {
				a[i][j] /= math.Sqrt(deg[i] * deg[j])
			} else {
				a[i][j] /= deg[i]
			}
		}
	}
	identity := func() [][]float64 {
		m := make([][]float64, n)
		for i := range m {
			m[i] = make([]float64, n)
			m[i][i] = 1
		}
		return m
	}
	pi, power := make([][]float64, n), identity() // power = Âʲ
	for i := range pi {
		pi[i] = make([]float64, n)
	}
	for j := 0; j <= k; j++ {
		w := tp * math.Pow(1-tp, float64(j))
		if j == k {
			w = math.Pow(1-tp, float64(k))
		}
		for r := range pi {
			for c := range pi[r] {
				pi[r][c] += w * power[r][c]
			}
		}
		next := make([][]float64, n)
		for r := range next {
			next[r] = make([]float64, n)
			for q := range next[r] {
				for c := range next[r] {
					next[r][c] += power[r][q] * a[q][c]
				}
			}
		}
		power = next
	}
	return pi
}

// mulRows returns Π·x for x of N rows.
func mulRows(pi [][]float64, x *tensor.Dense) [][]float64 {
	out := make([][]float64, len(pi))
	for i := range pi {
		out[i] = make([]float64, x.Cols)
		for j, w := range pi[i] {
			for c, v := range x.Row(j) {
				out[i][c] += w * v
			}
		}
	}
	return out
}

// near reports whether got is within 1e-9 of want relative to scale.
func near(got, want, scale float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, scale) }

// A variant with m's own propagation or pooling predicts exactly as m.
func TestVariantOfOwnKnobsIsTheModel(t *testing.T) {
	g, split := variantGraph(t)
	for _, c := range []struct {
		b       cuq.ModelBuilder
		k       int
		tp      float64
		pooling cuq.Pooling // −1: no PostNet
	}{
		{cuq.GPN(), 10, 0.1, cuq.LogLinear},
		{cuq.GPN().Propagation(3, 0.3), 3, 0.3, cuq.LogLinear},
		{cuq.LOPGPN(), 10, 0.1, cuq.Linear},
		{cuq.LOPGPN().Prune(0.01), 10, 0.1, cuq.Linear},
		{cuq.CUQPPR().Conv(cuq.APPNPConv(4, 0.2)), 4, 0.2, cuq.Behavioral},
		{cuq.APPNP(), 10, 0.1, -1},
	} {
		m := trained(t, c.b, g, split)
		want := predict(t, m)
		v := must(m.WithPropagation(c.k, c.tp))
		variants := []*cuq.Model{v, must(v.WithPropagation(c.k, c.tp))}
		if c.pooling >= 0 {
			variants = append(variants, must(m.WithPooling(c.pooling)))
		}
		for _, v := range variants {
			if v.Name() != m.Name() {
				t.Errorf("variant of %s with its own knobs is named %q", m.Name(), v.Name())
			}
			if d := predictionDiff(predict(t, v), want); d != "" {
				t.Errorf("%s: the variant with its own knobs differs in %s", m.Name(), d)
			}
		}
	}
}

// WithPropagation(0, t) is the feature-only prediction α = 1 + β_ft, and
// WithPropagation(k, t) propagates that evidence by the dense K-step
// matrix Π, as the preset with Propagation(k, t) and the same parameters.
func TestGPNWithPropagation(t *testing.T) {
	g, split := variantGraph(t)
	m := trained(t, cuq.GPN(), g, split)
	own := predict(t, m)
	feat := predict(t, must(m.WithPropagation(0, 0.3)))
	beta := tensor.New(g.N, g.NumClasses) // β_ft = α_ft − 1
	for i := range g.N {
		a0 := 0.0
		for c, a := range feat.Alpha.Row(i) {
			a0 += a
			beta.Set(i, c, a-1)
		}
		if !near(a0, -own.EUFeat[i], a0) || feat.EUPC[i] != -a0 || feat.EUFeat[i] != own.EUFeat[i] {
			t.Fatalf("node %d: feature-only α₀ = %v, EU_PC %v, m's EU_FEAT %v", i, a0, feat.EUPC[i], own.EUFeat[i])
		}
	}
	// t = 1 teleports back at every step: Π = I as for K = 0
	if d := predictionDiff(predict(t, must(m.WithPropagation(5, 1))), feat); d != "" {
		t.Errorf("K = 5, t = 1 differs from K = 0 in %s", d)
	}
	for _, c := range []struct {
		k  int
		tp float64
	}{{1, 0.1}, {3, 0.25}, {10, 0.1}, {20, 0.05}} {
		v := must(m.WithPropagation(c.k, c.tp))
		if want := fmt.Sprintf("GPN, K = %d, t = %g", c.k, c.tp); c.k != 10 && v.Name() != want {
			t.Errorf("variant named %q, want %q", v.Name(), want)
		}
		p := predict(t, v)
		want := mulRows(propagationMatrix(g, c.k, c.tp, true), beta)
		for i := range g.N {
			for k, a := range p.Alpha.Row(i) {
				if !near(a-1, want[i][k], want[i][k]) {
					t.Fatalf("K = %d, t = %v: α[%d][%d] − 1 = %v, want Π·β_ft = %v", c.k, c.tp, i, k, a-1, want[i][k])
				}
			}
		}
		tw := twin(t, cuq.GPN().Propagation(c.k, c.tp), g, split, m)
		if d := predictionDiff(predict(t, tw), p); d != "" {
			t.Errorf("K = %d, t = %v: differs in %s from the preset with that propagation", c.k, c.tp, d)
		}
	}
}

// APPNP's variant propagates the unpropagated logits (K = 0) by Π, as the
// preset with that propagation; CUQ-PPR's and LOP-GPN's variants (dense
// and pruned Π) predict as their presets with that propagation.
func TestWithPropagationOfOtherModels(t *testing.T) {
	g, split := variantGraph(t)
	m := trained(t, cuq.APPNP(), g, split)
	z0 := predict(t, must(m.WithPropagation(0, 0.1))).Logits
	p := predict(t, must(m.WithPropagation(4, 0.2)))
	want := mulRows(propagationMatrix(g, 4, 0.2, true), z0)
	for i := range g.N {
		for c, z := range p.Logits.Row(i) {
			if !near(z, want[i][c], want[i][c]) {
				t.Fatalf("APPNP logit [%d][%d] = %v, want Π·z₀ = %v", i, c, z, want[i][c])
			}
		}
	}
	for _, c := range []struct {
		b    cuq.ModelBuilder
		twin func(k int, tp float64) cuq.ModelBuilder
	}{
		{cuq.APPNP(), func(k int, tp float64) cuq.ModelBuilder { return cuq.APPNP().Propagation(k, tp) }},
		{cuq.CUQPPR(), func(k int, tp float64) cuq.ModelBuilder { return cuq.CUQPPR().Conv(cuq.APPNPConv(k, tp)) }},
		{cuq.LOPGPN(), func(k int, tp float64) cuq.ModelBuilder { return cuq.LOPGPN().Propagation(k, tp) }},
		{cuq.LOPGPN().Prune(0.05), func(k int, tp float64) cuq.ModelBuilder { return cuq.LOPGPN().Prune(0.05).Propagation(k, tp) }},
	} {
		m := trained(t, c.b, g, split)
		for _, k := range []int{0, 2, 7} {
			v := must(m.WithPropagation(k, 0.3))
			tw := twin(t, c.twin(k, 0.3), g, split, m)
			if d := predictionDiff(predict(t, v), predict(t, tw)); d != "" {
				t.Errorf("%s: differs in %s from the preset with K = %d, t = 0.3", v.Name(), d, k)
			}
		}
	}
}

// GPN's linear pooling is the mixture Σⱼ Πᵢⱼ Dir(α_ft(j)) of the
// feature-only Dirichlets with the dense random-walk PPR weights Π, with
// LOP-GPN's measures, computed here by hand.
func TestGPNWithLinearPooling(t *testing.T) {
	g, split := variantGraph(t)
	m := trained(t, cuq.GPN(), g, split)
	lin := must(m.WithPooling(cuq.Linear))
	if lin.Name() != "GPN, linear pooling" {
		t.Errorf("variant named %q", lin.Name())
	}
	p := predict(t, lin)
	comp := predict(t, must(m.WithPropagation(0, 0.1))) // Dir(α_ft(j)) and its measures
	pi := propagationMatrix(g, 10, 0.1, false)
	for i := range g.N {
		mean := make([]float64, g.NumClasses)
		alpha := make([]float64, g.NumClasses)
		var au, eupc, euso, hw float64
		for j, w := range pi[i] {
			a0 := 0.0
			for _, a := range comp.Alpha.Row(j) {
				a0 += a
			}
			for c, a := range comp.Alpha.Row(j) {
				mean[c] += w * a / a0
				alpha[c] += w * a
			}
			au += w * comp.AU[j]
			eupc -= w * a0
			euso += w * comp.EUSO[j]
			if w > 0 {
				hw -= w * math.Log(w)
			}
		}
		tu, maxp := 0.0, 0.0
		for _, q := range mean {
			tu -= q * math.Log(q)
			maxp = math.Max(maxp, q)
		}
		for c := range mean {
			if !near(p.Prob.At(i, c), mean[c], 1) || !near(p.Alpha.At(i, c), alpha[c], alpha[c]) {
				t.Fatalf("node %d class %d: p̄ %v, Πα %v; want %v, %v", i, c, p.Prob.At(i, c), p.Alpha.At(i, c), mean[c], alpha[c])
			}
		}
		for _, q := range []struct {
			u    uq.Measure
			want float64
		}{{uq.TU, tu}, {uq.AU, au}, {uq.EU, tu - au}, {uq.EUPC, eupc}, {uq.EUSO, euso + hw}, {uq.LC, 1 - maxp}} {
			if got := p.Get(q.u)[i]; !near(got, q.want, q.want) {
				t.Fatalf("node %d: %s = %v, want %v", i, q.u, got, q.want)
			}
		}
		if p.EUFeat[i] != comp.EUFeat[i] {
			t.Fatalf("node %d: EU_FEAT %v, want the head's %v", i, p.EUFeat[i], comp.EUFeat[i])
		}
	}
	tw := twin(t, cuq.LOPGPN(), g, split, m)
	if d := predictionDiff(p, predict(t, tw)); d != "" {
		t.Errorf("differs in %s from LOP-GPN with GPN's parameters", d)
	}
	// the credal sets of the mixture, as LOP-GPN's
	if err := p.AddCredal(1); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Available(), uq.GH) {
		t.Errorf("credal measures missing: %v", p.Available())
	}
}

// The poolings of GPN, LOP-GPN and CUQ-PPR carry over to one another: the
// variant predicts as the preset of the target pooling with the same
// parameters and propagation; with K = 0 the three poolings coincide (up
// to rounding), as each then sees a node's own features only.
func TestWithPoolingMatchesPresets(t *testing.T) {
	g, split := variantGraph(t)
	preset := map[cuq.Pooling]func(k int, tp float64) cuq.ModelBuilder{
		cuq.LogLinear:  func(k int, tp float64) cuq.ModelBuilder { return cuq.GPN().Propagation(k, tp) },
		cuq.Linear:     func(k int, tp float64) cuq.ModelBuilder { return cuq.LOPGPN().Propagation(k, tp) },
		cuq.Behavioral: func(k int, tp float64) cuq.ModelBuilder { return cuq.CUQPPR().Conv(cuq.APPNPConv(k, tp)) },
	}
	for _, c := range []struct {
		b     cuq.ModelBuilder
		k     int
		tp    float64
		names map[cuq.Pooling]string
	}{
		{cuq.GPN().Propagation(3, 0.3), 3, 0.3, map[cuq.Pooling]string{
			cuq.LogLinear: "GPN", cuq.Linear: "GPN, linear pooling", cuq.Behavioral: "GPN, behavioral pooling"}},
		{cuq.LOPGPN(), 10, 0.1, map[cuq.Pooling]string{
			cuq.LogLinear: "LOP-GPN, log-linear pooling", cuq.Linear: "LOP-GPN", cuq.Behavioral: "LOP-GPN, behavioral pooling"}},
		{cuq.CUQPPR(), 10, 0.1, map[cuq.Pooling]string{
			cuq.LogLinear: "CUQ-PPR, log-linear pooling", cuq.Linear: "CUQ-PPR, linear pooling", cuq.Behavioral: "CUQ-PPR"}},
	} {
		m := trained(t, c.b, g, split)
		var local []*cuq.Prediction
		for _, pool := range []cuq.Pooling{cuq.LogLinear, cuq.Linear, cuq.Behavioral} {
			v := must(m.WithPooling(pool))
			if v.Name() != c.names[pool] {
				t.Errorf("%s with %v pooling is named %q, want %q", m.Name(), pool, v.Name(), c.names[pool])
			}
			tw := twin(t, preset[pool](c.k, c.tp), g, split, m)
			if d := predictionDiff(predict(t, v), predict(t, tw)); d != "" {
				t.Errorf("%s differs in %s from %s with its parameters", v.Name(), d, tw.Name())
			}
			local = append(local, predict(t, must(v.WithPropagation(0, c.tp))))
		}
		for _, p := range local[1:] {
			for _, u := range uq.AllMeasures {
				for i, want := range local[0].Get(u) {
					if got := p.Get(u)[i]; !near(got, want, want) {
						t.Fatalf("%s, K = 0: %s of node %d is %v, with log-linear pooling %v", p.Model, u, i, got, want)
					}
				}
			}
		}
	}
	// a variant of a variant is named after how it differs from the origin
	m := trained(t, cuq.GPN(), g, split)
	v := must(must(m.WithPooling(cuq.Linear)).WithPropagation(3, 0.2))
	if v.Name() != "GPN, linear pooling, K = 3, t = 0.2" {
		t.Errorf("variant of a variant named %q", v.Name())
	}
	if d := predictionDiff(predict(t, v), predict(t, twin(t, cuq.LOPGPN().Propagation(3, 0.2), g, split, m))); d != "" {
		t.Errorf("%s differs in %s from LOP-GPN with K = 3, t = 0.2", v.Name(), d)
	}
	if back := must(v.WithPooling(cuq.LogLinear)); back.Name() != "GPN, K = 3, t = 0.2" {
		t.Errorf("back to log-linear pooling: named %q", back.Name())
	}
}

func TestVariantErrors(t *testing.T) {
	g, split := variantGraph(t)
	for _, c := range []struct {
		b            cuq.ModelBuilder
		prop, pooled string // "" when the variant exists
	}{
		{cuq.CUQGCN(), "CUQ-GCN has no APPNP propagation (GCN layers)", "CUQ-GCN has no APPNP propagation (GCN layers)"},
		{cuq.CUQGAT(), "CUQ-GAT has no APPNP propagation (GAT layers)", "CUQ-GAT has no APPNP propagation (GAT layers)"},
		{cuq.GCN(), "GCN has no APPNP propagation (GCN layers)", "GCN has no PostNet head"},
		{cuq.GKDE(), "GKDE has no APPNP propagation", "GKDE has no PostNet head"},
		{cuq.APPNP(), "", "APPNP has no PostNet head"},
		{cuq.APPNP().MCDropout(4).Name("MC-Dropout-APPNP"), "MC-Dropout-APPNP is a committee (MC dropout)", "MC-Dropout-APPNP has no PostNet head"},
		{cuq.MCDropoutGCN(), "MC-Dropout-GCN has no APPNP propagation", "MC-Dropout-GCN has no PostNet head"},
		{cuq.APPNP().DropEdge(0.2, 4).Name("DropEdge-APPNP"), "DropEdge-APPNP is a committee (DropEdge)", "DropEdge-APPNP has no PostNet head"},
		{cuq.CUQ().Name("PostNet"), "PostNet has no APPNP propagation (no convolution)", "PostNet has no APPNP propagation (no convolution)"},
		{cuq.CUQPPR().Pooling(cuq.LogLinear).Name("twice"), "twice propagates twice", "twice propagates twice"},
		{cuq.CUQGCN().Pooling(cuq.LogLinear).Name("GCN-GPN"), "", "GCN-GPN has GCN layers before its head"},
	} {
		m := must(c.b.Done(g))
		for _, e := range []struct {
			what, want string
			err        error
		}{
			{"WithPropagation", c.prop, second(m.WithPropagation(2, 0.2))},
			{"WithPooling", c.pooled, second(m.WithPooling(cuq.Linear))},
		} {
			switch {
			case e.want == "" && e.err != nil:
				t.Errorf("%s.%s: %v", m.Name(), e.what, e.err)
			case e.want != "" && (e.err == nil || !strings.Contains(e.err.Error(), e.want)):
				t.Errorf("%s.%s: error %v, want one containing %q", m.Name(), e.what, e.err, e.want)
			}
		}
	}
	m := trained(t, cuq.GPN(), g, split)
	for _, kt := range []struct {
		k  int
		tp float64
	}{{-1, 0.1}, {3, -0.1}, {3, 1.5}, {3, math.NaN()}, {3, math.Inf(1)}} {
		if _, err := m.WithPropagation(kt.k, kt.tp); err == nil || !strings.Contains(err.Error(), "need K ≥ 0 and teleport t ∈ [0, 1]") {
			t.Errorf("WithPropagation(%d, %v): error %v", kt.k, kt.tp, err)
		}
	}
	if _, err := m.WithPooling(cuq.Pooling(7)); err == nil || !strings.Contains(err.Error(), "unknown pooling") {
		t.Errorf("WithPooling(7): error %v", err)
	}
	v := must(m.WithPooling(cuq.Linear))
	want := "GPN, linear pooling is a prediction-time variant of GPN and shares its parameters: train GPN instead"
	if _, err := v.Fit(split); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Fit of a variant: error %v", err)
	}
	if _, err := v.Step(split); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Step of a variant: error %v", err)
	}
	// on another graph of the model's shape (here without the bridge 2–3),
	// as the preset; on one of another shape, refused as by m
	cut, err := graph.NewBuilder(2).
		Node(0, 1, 0, 0.2).Node(0, 0.9, 0.1, 0).Node(0, 0.8, 0, 0.1).
		Node(1, 0, 1, 0.3).Node(1, 0.1, 0.9, 0).Node(1, 0, 0.7, 0.2).
		Node(1, 0.5, 0.5, 0.5).
		Chain(0, 1, 2, 0).Chain(3, 4, 5, 3).Done()
	if err != nil {
		t.Fatal(err)
	}
	onCut, err := v.Predict(cut)
	if err != nil {
		t.Fatal(err)
	}
	twinOnCut, err := twin(t, cuq.LOPGPN(), g, split, m).Predict(cut)
	if err != nil {
		t.Fatal(err)
	}
	if d := predictionDiff(onCut, twinOnCut); d != "" {
		t.Errorf("on the cut graph the variant differs in %s from LOP-GPN", d)
	}
	if predictionDiff(onCut, predict(t, v)) == "" {
		t.Error("cutting the bridge changed no prediction")
	}
	small, _ := graph.NewBuilder(2).Node(0, 1, 0, 0).Node(1, 0, 1, 0).Edge(0, 1).Done()
	_, errM := m.Predict(small)
	_, errV := v.Predict(small)
	if errM == nil || errV == nil || !strings.Contains(errV.Error(), "was built for 7 nodes") {
		t.Errorf("Predict on a graph of 2 nodes: model %v, variant %v", errM, errV)
	}
}

// Making variants and predicting with them leaves m, its parameters and
// its predictions as they were.
func TestVariantsLeaveModelUnchanged(t *testing.T) {
	g, split := variantGraph(t)
	for _, b := range []cuq.ModelBuilder{cuq.GPN(), cuq.LOPGPN(), cuq.CUQPPR(), cuq.APPNP()} {
		m := trained(t, b, g, split)
		params := parameters(m)
		before := predict(t, m)
		variants := []*cuq.Model{must(m.WithPropagation(3, 0.4)), must(m.WithPropagation(0, 0.1))}
		if m.IsPostNet() {
			for _, p := range []cuq.Pooling{cuq.LogLinear, cuq.Linear, cuq.Behavioral} {
				variants = append(variants, must(must(m.WithPooling(p)).WithPropagation(5, 0.2)))
			}
		}
		for _, v := range variants {
			predict(t, v)
			if _, err := v.Forward(nil); err != nil {
				t.Fatal(err)
			}
		}
		if !equalParameters(params, parameters(m)) {
			t.Errorf("%s: parameters changed by its variants", m.Name())
		}
		if d := predictionDiff(before, predict(t, m)); d != "" {
			t.Errorf("%s: prediction changed by its variants, in %s", m.Name(), d)
		}
	}
}

// A variant of an untrained model refuses to predict as the model does,
// and once the model is trained predicts with the trained parameters.
func TestVariantOfUntrainedModel(t *testing.T) {
	g, split := variantGraph(t)
	for _, b := range []cuq.ModelBuilder{cuq.GPN(), cuq.APPNP(), cuq.CUQPPR()} {
		m := must(b.Done(g))
		v := must(m.WithPropagation(2, 0.3))
		_, errM := m.Predict(nil)
		_, errV := v.Predict(nil)
		if errM == nil || errV == nil || errM.Error() != errV.Error() {
			t.Fatalf("untrained %s: Predict error %v, the variant's %v", m.Name(), errM, errV)
		}
		if _, err := m.Fit(split, cuq.MaxEpochs(8)); err != nil {
			t.Fatal(err)
		}
		if d := predictionDiff(predict(t, v), predict(t, must(m.WithPropagation(2, 0.3)))); d != "" {
			t.Errorf("%s: a variant made before Fit differs in %s from one made after", m.Name(), d)
		}
	}
}

// variantBenchGraph returns CoraML when the shared datasets are present,
// else datasets.Synthetic (shaped like CoraML), split 5/15/80.
func variantBenchGraph(b *testing.B) (*graph.Graph, graph.Split) {
	load := datasets.Synthetic
	if dir := testenv.DatasetsDir(); dir != "" {
		load = func() (*graph.Graph, error) {
			return datasets.Load("CoraML", datasets.FromDir(dir), datasets.NoDownload())
		}
	}
	return testenv.Split(b, load, graph.Stratified(0.05, 0.15, 0.8))
}

// BenchmarkWithPropagationPredict times a notebook slider's move on
// CoraML: "new" makes a variant with another propagation and predicts
// with it, deriving its propagation (for LOP-GPN the dense Π of N²
// entries, or the pruned one of gpn_lop_pruned); "again" predicts once
// more with a variant already used.
func BenchmarkWithPropagationPredict(b *testing.B) {
	g, split := variantBenchGraph(b)
	for _, p := range []struct {
		name  string
		build cuq.ModelBuilder
	}{
		{"appnp", cuq.APPNP()}, {"gpn", cuq.GPN()}, {"gpn_lop", cuq.LOPGPN()},
		{"gpn_lop_pruned", cuq.LOPGPN().Prune(0.01)}, {"cuq_ppr", cuq.CUQPPR()},
	} {
		b.Run(p.name, func(b *testing.B) {
			m := must(p.build.Done(g))
			if _, err := m.Step(split); err != nil {
				b.Fatal(err)
			}
			b.Run("new", func(b *testing.B) {
				k := 0
				for b.Loop() {
					k++
					v, err := m.WithPropagation(1+k%20, 0.1)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := v.Predict(nil); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("again", func(b *testing.B) {
				v := must(m.WithPropagation(5, 0.2))
				for b.Loop() {
					if _, err := v.Predict(nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// An APPNP variant has logits and embeddings: GEBM's scores on it are
// those on the preset with that propagation and the same parameters.
func TestGEBMOfVariant(t *testing.T) {
	g, split := variantGraph(t)
	m := trained(t, cuq.APPNP(), g, split)
	var scores [2][]float64
	for k, c := range []cuq.Classifier{must(m.WithPropagation(3, 0.2)), twin(t, cuq.APPNP().Propagation(3, 0.2), g, split, m)} {
		e := must(cuq.GEBM(cuq.APPNP()).Of(c))
		if err := e.FitScores(split); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		p, err := e.Predict(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		scores[k] = p.Get(uq.GEBM)
	}
	if len(scores[0]) != g.N || !tensor.SameBits(scores[0], scores[1]) {
		t.Errorf("GEBM of the variant %v, of the preset %v", scores[0], scores[1])
	}
}
