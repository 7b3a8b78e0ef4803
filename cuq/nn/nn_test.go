package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func weighted(t *ad.Tape, x *ad.Value, seed uint64) *ad.Value {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := Uniform(rng, x.Data.Rows, x.Data.Cols, 1)
	return t.Sum(t.Mul(x, ad.Const(w)))
}

func check(t *testing.T, name string, params []*ad.Value, build func(tp *ad.Tape) *ad.Value) {
	t.Helper()
	worst, err := ad.GradCheck(params, 1e-6, build)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if worst > 1e-6 {
		t.Errorf("%s: gradient relative error %.3g", name, worst)
	}
}

// ring returns the symmetric-normalised adjacency of an n-cycle with self
// loops, and the attention graph over its pattern.
func ring(n int) (*tensor.CSR, *AttentionGraph) {
	var ri, ci []int
	for i := 0; i < n; i++ {
		for _, j := range []int{i, (i + 1) % n, (i + n - 1) % n} {
			ri, ci = append(ri, i), append(ci, j)
		}
	}
	p, _ := tensor.FromCOO(n, n, ri, ci, nil)
	norm := p.Clone()
	for k := range norm.Val {
		norm.Val[k] = 1.0 / 3
	}
	att, err := NewAttentionGraph(p)
	if err != nil {
		panic(err)
	}
	return norm, att
}

func TestRadialFlowGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	// larger raw parameters than the init so that b h is far from 0
	f := scaledFlows(t, rng, 3, 4, 5, 3)
	z := ad.Param("z", Uniform(rng, 6, 5, 1))
	check(t, "RadialFlows", append(f.Params(), z), func(tp *ad.Tape) *ad.Value {
		return weighted(tp, f.LogDensity(tp, z), 3)
	})
}

// A flow with zero layers is the standard normal base density.
func TestRadialFlowBaseDensity(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	f, _ := NewRadialFlows("flow", 2, 0, 3, rng)
	z := ad.Const(tensor.MustFromSlice(1, 3, []float64{1, -2, 0.5}))
	got := f.LogDensity(ad.NewEvalTape(), z).Data
	want := -1.5*math.Log(2*math.Pi) - 0.5*(1+4+0.25)
	for _, v := range got.Data {
		if math.Abs(v-want) > 1e-12 {
			t.Fatalf("log density %v, want %v", v, want)
		}
	}
}

// The flow density integrates to 1 (D = 1, checked by quadrature), which
// validates the log-determinant independently of the gradient check.
func TestRadialFlowNormalised(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	f, _ := NewRadialFlows("flow", 1, 3, 1, rng)
	for i := range f.A.Data.Data {
		f.A.Data.Data[i], f.B.Data.Data[i] = 0.3, 1.5 // b > 0: strong contraction
	}
	const lo, hi, n = -12.0, 12.0, 48001
	dz := (hi - lo) / (n - 1)
	pts := tensor.New(n, 1)
	for i := range pts.Data {
		pts.Data[i] = lo + float64(i)*dz
	}
	logp := f.LogDensity(ad.NewEvalTape(), ad.Const(pts)).Data
	s := 0.0
	for _, v := range logp.Data {
		s += math.Exp(v) * dz
	}
	if math.Abs(s-1) > 1e-4 {
		t.Errorf("∫ p(z) dz = %v, want 1", s)
	}
}

func TestPPRGradientAndClosedForm(t *testing.T) {
	norm, _ := ring(5)
	ppr, err := graph.NewPPR(norm, 0.1, 4)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	x := ad.Param("x", Uniform(rng, 5, 3, 1))
	check(t, "PPR", []*ad.Value{x}, func(tp *ad.Tape) *ad.Value { return weighted(tp, Propagate(tp, ppr, x), 1) })

	// closed form Σ_{k<K} t(1−t)^k Â^k x + (1−t)^K Â^K x
	dense := norm.ToDense()
	want := tensor.New(5, 3)
	pow := x.Data.Clone()
	for k := 0; k <= 4; k++ {
		c := 0.1 * math.Pow(0.9, float64(k))
		if k == 4 {
			c = math.Pow(0.9, 4)
		}
		want.AddScaled(c, pow)
		pow = tensor.Mul(dense, pow)
	}
	got := Propagate(ad.NewEvalTape(), ppr, ad.Const(x.Data)).Data
	for i := range want.Data {
		if math.Abs(got.Data[i]-want.Data[i]) > 1e-12 {
			t.Fatalf("PPR = %v, want %v", got, want)
		}
	}
}

func TestGCNAndGATGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	norm, att := ring(6)
	x := ad.Param("x", Uniform(rng, 6, 4, 1))
	gcn := &GCN{Lin: NewGlorotLinear("gcn", 4, 3, true, rng)}
	gcn.Lin.B.Data.Fill(0.3)
	check(t, "GCN", append(gcn.Params(), x), func(tp *ad.Tape) *ad.Value { return weighted(tp, gcn.Forward(tp, norm, x), 2) })

	for _, c := range []struct {
		heads  int
		concat bool
	}{{1, true}, {1, false}, {2, true}, {2, false}, {3, true}, {3, false}} {
		gat := sharpen(NewGAT("gat", 4, 3, c.heads, c.concat, rng))
		name := fmt.Sprintf("GAT(heads %d, concat %v)", c.heads, c.concat)
		check(t, name, append(gat.Params(), x), func(tp *ad.Tape) *ad.Value { return weighted(tp, gat.Forward(tp, att, x, nil), 3) })
	}

	proj := NewLinear("proj", 3, 2, true, rng)
	check(t, "GCN projected", append(append(gcn.Params(), proj.Params()...), x), func(tp *ad.Tape) *ad.Value {
		return weighted(tp, gcn.ForwardProjected(tp, norm, x, proj), 5)
	})
	for _, heads := range []int{1, 2} {
		gat := sharpen(NewGAT("gat", 4, 3, heads, true, rng))
		concatProj := NewLinear("proj", 3*heads, 2, true, rng)
		params := append(append(gat.Params(), concatProj.Params()...), x)
		check(t, fmt.Sprintf("GAT projected (heads %d)", heads), params, func(tp *ad.Tape) *ad.Value {
			return weighted(tp, gat.ForwardProjected(tp, att, x, concatProj, nil), 6)
		})
	}

	lin := NewLinear("lin", 4, 2, true, rng)
	feats := tensor.DenseToCSR(tensor.MustFromSlice(3, 4, []float64{1, 0, 0, 2, 0, 0, 3, 0, 0.5, 0, 0, 0}))
	check(t, "Linear(CSR)", lin.Params(), func(tp *ad.Tape) *ad.Value { return weighted(tp, lin.ForwardConst(tp, feats), 4) })
}

// The projected forms l(layer(x)) computed with the projection moved before
// the propagation or aggregation agree with the layer followed by l.
func TestProjectedFormsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	norm, att := ring(7)
	x := ad.Const(Uniform(rng, 7, 5, 1))
	tp := ad.NewEvalTape()
	ppr, err := graph.NewPPR(norm, 0.1, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, bias := range []bool{true, false} {
		lin := NewLinear("lin", 5, 3, bias, rng)
		closeTo(t, fmt.Sprintf("PPR (bias %v)", bias), PropagateProjected(tp, ppr, x, lin).Data, lin.Forward(tp, Propagate(tp, ppr, x)).Data)
		gcn := &GCN{Lin: NewGlorotLinear("gcn", 5, 4, bias, rng)}
		if bias {
			gcn.Lin.B.Data.Fill(0.3)
		}
		out := NewLinear("out", 4, 3, !bias, rng)
		closeTo(t, fmt.Sprintf("GCN (bias %v)", bias), gcn.ForwardProjected(tp, norm, x, out).Data, out.Forward(tp, gcn.Forward(tp, norm, x)).Data)
	}
	for _, heads := range []int{1, 3} {
		for _, concat := range []bool{true, false} {
			gat := sharpen(NewGAT("gat", 5, 4, heads, concat, rng))
			out := NewLinear("out", gat.B.Data.Cols, 3, true, rng)
			name := fmt.Sprintf("GAT (heads %d, concat %v)", heads, concat)
			closeTo(t, name, gat.ForwardProjected(tp, att, x, out, nil).Data, out.Forward(tp, gat.Forward(tp, att, x, nil)).Data)
		}
	}
	gat := NewGAT("gat", 5, 4, 2, true, rng)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "projection of input size 4 after a layer of 8 features") {
			t.Errorf("mismatched projection: panic %v", r)
		}
	}()
	gat.ForwardProjected(tp, att, x, NewLinear("out", 4, 3, true, rng), nil)
}

// sharpen scales up the attention vectors of gat so that its attention is
// far from uniform, and sets a bias that is not zero.
func sharpen(gat *GAT) *GAT {
	scale([]*ad.Value{gat.ASrc, gat.ADst}, 4)
	for i := range gat.B.Data.Data {
		gat.B.Data.Data[i] = 0.1 * float64(i+1)
	}
	return gat
}

// A single-head layer draws its parameters as the single-head GATConv
// (W: in × out, a_src and a_dst: out values with the Glorot bound
// √(6/(1+out))) and computes the single-head formula
// yᵢ = Σⱼ softmaxⱼ(LeakyReLU(a_src·hⱼ + a_dst·hᵢ)) hⱼ + b, h = xW, written
// here with generic ops, with identical values.
func TestGATSingleHeadMatchesFormula(t *testing.T) {
	_, att := ring(7)
	pattern := att.Pattern
	dst := make([]int, pattern.NNZ())
	for i := 0; i < pattern.Rows; i++ {
		for k := pattern.Ptr[i]; k < pattern.Ptr[i+1]; k++ {
			dst[k] = i
		}
	}
	for _, concat := range []bool{true, false} {
		gat := NewGAT("gat", 5, 4, 1, concat, rand.New(rand.NewPCG(8, 8)))
		rng := rand.New(rand.NewPCG(8, 8))
		bound := math.Sqrt(6.0 / 5)
		for _, want := range []struct {
			p *ad.Value
			d *tensor.Dense
		}{{gat.W, Glorot(rng, 5, 4)}, {gat.ASrc, Uniform(rng, 4, 1, bound)}, {gat.ADst, Uniform(rng, 4, 1, bound)}} {
			if !slices.Equal(want.p.Data.Data, want.d.Data) {
				t.Fatalf("%s = %v, want the single-head draws %v", want.p.Name, want.p.Data.Data, want.d.Data)
			}
		}
		sharpen(gat)
		aSrc := ad.Param("a_src", tensor.MustFromSlice(4, 1, gat.ASrc.Data.Data))
		aDst := ad.Param("a_dst", tensor.MustFromSlice(4, 1, gat.ADst.Data.Data))
		x := ad.Param("x", Uniform(rand.New(rand.NewPCG(9, 9)), 7, 5, 1))
		formula := func(tp *ad.Tape) *ad.Value {
			h := tp.MatMul(x, gat.W)
			e := tp.Add(tp.GatherRows(tp.MatMul(h, aSrc), pattern.Ind), tp.GatherRows(tp.MatMul(h, aDst), dst))
			alpha := tp.SegmentSoftmax(tp.LeakyReLU(e, 0.2), pattern.Ptr)
			return tp.Add(tp.SpMMValues(pattern, alpha, h), gat.B)
		}
		grads := func(build func(tp *ad.Tape) *ad.Value, params ...*ad.Value) ([]float64, [][]float64) {
			for _, p := range params {
				p.ZeroGrad()
			}
			tp := ad.NewTape()
			y := build(tp)
			if err := tp.Backward(weighted(tp, y, 4)); err != nil {
				t.Fatal(err)
			}
			var g [][]float64
			for _, p := range params {
				g = append(g, slices.Clone(p.Grad.Data))
			}
			return y.Data.Data, g
		}
		gotY, got := grads(func(tp *ad.Tape) *ad.Value { return gat.Forward(tp, att, x, nil) }, x, gat.W, gat.ASrc, gat.ADst, gat.B)
		wantY, want := grads(formula, x, gat.W, aSrc, aDst, gat.B)
		if !slices.Equal(gotY, wantY) {
			t.Fatalf("concat %v: y = %v, want %v", concat, gotY, wantY)
		}
		for i, name := range []string{"x", "W", "a_src", "a_dst", "b"} {
			for j := range want[i] {
				if math.Abs(got[i][j]-want[i][j]) > 1e-12 {
					t.Fatalf("concat %v: ∂%s[%d] = %v, want %v", concat, name, j, got[i][j], want[i][j])
				}
			}
		}
	}
}

// Head k of a multi-head layer is the single-head layer with the k-th block
// of W and the k-th attention vectors; the heads are concatenated or
// averaged.
func TestGATHeadsAreSingleHeadLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	_, att := ring(6)
	x := ad.Const(Uniform(rng, 6, 4, 1))
	const heads, out = 3, 2
	for _, concat := range []bool{true, false} {
		gat := sharpen(NewGAT("gat", 4, out, heads, concat, rng))
		y := gat.Forward(ad.NewEvalTape(), att, x, nil).Data
		want := tensor.New(6, gat.B.Data.Cols)
		for k := 0; k < heads; k++ {
			single := NewGAT("head", 4, out, 1, true, rng)
			for r := 0; r < 4; r++ {
				copy(single.W.Data.Row(r), gat.W.Data.Row(r)[k*out:(k+1)*out])
			}
			copy(single.ASrc.Data.Data, gat.ASrc.Data.Row(k))
			copy(single.ADst.Data.Data, gat.ADst.Data.Row(k))
			yk := single.Forward(ad.NewEvalTape(), att, x, nil).Data
			for i := 0; i < 6; i++ {
				for c := 0; c < out; c++ {
					if concat {
						want.Set(i, k*out+c, yk.At(i, c))
					} else {
						want.Set(i, c, want.At(i, c)+yk.At(i, c)/heads)
					}
				}
			}
		}
		for i := 0; i < 6; i++ {
			for c, b := range gat.B.Data.Data {
				if got := y.At(i, c); math.Abs(got-(want.At(i, c)+b)) > 1e-12 {
					t.Fatalf("concat %v: y[%d,%d] = %v, want %v", concat, i, c, got, want.At(i, c)+b)
				}
			}
		}
	}
}

// With uniform attention scores GAT reduces to the mean over N(i) ∪ {i}.
func TestGATUniformAttentionIsMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	_, att := ring(5)
	gat := NewGAT("gat", 2, 2, 1, true, rng)
	gat.ASrc.Data.Zero()
	gat.ADst.Data.Zero()
	gat.W.Data = tensor.MustFromSlice(2, 2, []float64{1, 0, 0, 1})
	x := tensor.MustFromSlice(5, 2, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	y := gat.Forward(ad.NewEvalTape(), att, ad.Const(x), nil).Data
	for i := 0; i < 5; i++ {
		for j := 0; j < 2; j++ {
			want := (x.At(i, j) + x.At((i+1)%5, j) + x.At((i+4)%5, j)) / 3
			if math.Abs(y.At(i, j)-want) > 1e-12 {
				t.Fatalf("y[%d,%d] = %v, want %v", i, j, y.At(i, j), want)
			}
		}
	}
}

func TestInitializerBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	lin := NewLinear("l", 100, 50, true, rng)
	for _, v := range lin.W.Data.Data {
		if math.Abs(v) > 0.1 {
			t.Fatalf("Linear weight %v outside ±1/√100", v)
		}
	}
	g := Glorot(rng, 30, 70)
	bound := math.Sqrt(6.0 / 100)
	maxAbs := 0.0
	for _, v := range g.Data {
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	if maxAbs > bound || maxAbs < 0.9*bound {
		t.Errorf("Glorot max |w| = %v, bound %v", maxAbs, bound)
	}
	a := rand.New(rand.NewPCG(9, 9))
	b := rand.New(rand.NewPCG(9, 9))
	if NewLinear("x", 3, 3, true, a).W.Data.At(1, 1) != NewLinear("x", 3, 3, true, b).W.Data.At(1, 1) {
		t.Error("the same seed must give the same initial weights")
	}
}

// flowRun holds the log-densities of a RadialFlows and the gradients of
// Σ g ⊙ log p with respect to its parameters and the latents.
type flowRun struct {
	logp, x0, a, b, z []float64
}

var flowRunParts = []string{"log p", "∂x0", "∂a", "∂b", "∂z"}

func (r flowRun) part(name string) []float64 {
	return map[string][]float64{"log p": r.logp, "∂x0": r.x0, "∂a": r.a, "∂b": r.b, "∂z": r.z}[name]
}

// flowKernelCase returns flows of the paper's latent size (16) and latents
// and output gradients on which an assembly kernel must agree with the
// portable code: full and partial blocks, masked lanes (zero output
// gradient) in both halves of a block and in the tail block, a latent on
// the centre of a layer (r = 0), and a non-finite chain in a masked lane.
func flowKernelCase(t *testing.T) (f *RadialFlows, z, g *tensor.Dense) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, classes = 21, 3
	f = scaledFlows(t, rng, classes, 10, 16, 4)
	z = Uniform(rng, n, 16, 1.5)
	copy(z.Row(2), f.X0.Data.Row(1))  // node 2 sits on the centre of class 1, layer 0,
	copy(z.Row(12), f.X0.Data.Row(0)) // node 12, first lane of a group of four, on class 0's
	g = Uniform(rng, n, classes, 1)
	for _, i := range []int{0, 5, 6, 11, 19} {
		g.Set(i, 2, 0)
	}
	for c := 0; c < classes; c++ { // a whole masked half
		for i := 8; i < 12; i++ {
			g.Set(i, c, 0)
		}
	}
	z.Set(9, 3, math.Inf(1)) // a non-finite chain nothing needs
	return f, z, g
}

// requireSameFlowRun fails the test unless got, from the kernel name,
// equals want to the bit (a NaN equals any NaN).
func requireSameFlowRun(t *testing.T, name string, got, want flowRun) {
	t.Helper()
	for _, part := range flowRunParts {
		w, v := want.part(part), got.part(part)
		for i := range w {
			if math.Float64bits(w[i]) != math.Float64bits(v[i]) && !(math.IsNaN(w[i]) && math.IsNaN(v[i])) {
				t.Fatalf("%s: %s[%d] = %v, portable code %v", name, part, i, v[i], w[i])
			}
		}
	}
}

// runFlows evaluates f on the latents z and back-propagates g.
func runFlows(t *testing.T, f *RadialFlows, z, g *tensor.Dense) flowRun {
	t.Helper()
	zv := ad.Param("z", z.Clone())
	for _, p := range f.Params() {
		p.Grad = nil
	}
	tp := ad.NewTape()
	logp := f.LogDensity(tp, zv)
	if err := tp.Backward(tp.Sum(tp.Mul(logp, ad.Const(g)))); err != nil {
		t.Fatal(err)
	}
	return flowRun{append([]float64(nil), logp.Data.Data...), f.X0.Grad.Data, f.A.Grad.Data, f.B.Grad.Data, zv.Grad.Data}
}

// The flows' results do not depend on how many cores share the work: the
// chains run in blocks fixed by the node indices and the parameter
// gradients are summed in a fixed order. 1100 nodes make several chunks
// of gradient sums and an incomplete last block.
func TestRadialFlowsIndependentOfCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(8, 8))
	for _, dim := range []int{16, 5} { // the kernels' size and the portable code's
		f := scaledFlows(t, rng, 3, 10, dim, 2)
		z, g := Uniform(rng, 1100, dim, 1.5), Uniform(rng, 1100, 3, 1)
		runtime.GOMAXPROCS(1)
		want := runFlows(t, f, z, g)
		for _, procs := range []int{2, 3, 5} {
			runtime.GOMAXPROCS(procs)
			got := runFlows(t, f, z, g)
			for _, name := range flowRunParts {
				w, v := want.part(name), got.part(name)
				for i := range w {
					if math.Float64bits(w[i]) != math.Float64bits(v[i]) {
						t.Fatalf("D=%d, %d cores: %s[%d] = %v, %v on one core", dim, procs, name, i, v[i], w[i])
					}
				}
			}
		}
	}
}

// At the paper's latent size (16) the kernels run where available; the
// gradients must check.
func TestRadialFlowGradientsAtPaperSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	f := scaledFlows(t, rng, 3, 10, 16, 4)
	z := ad.Param("z", Uniform(rng, 11, 16, 1.5))
	check(t, "RadialFlows(D=16)", append(f.Params(), z), func(tp *ad.Tape) *ad.Value {
		return weighted(tp, f.LogDensity(tp, z), 5)
	})
}

// scaledFlows returns radial flows of the given sizes whose raw parameters
// are factor times their initial values, so that every layer is far from
// the identity.
func scaledFlows(t *testing.T, rng *rand.Rand, classes, layers, dim int, factor float64) *RadialFlows {
	t.Helper()
	f, err := NewRadialFlows("flow", classes, layers, dim, rng)
	if err != nil {
		t.Fatal(err)
	}
	scale(f.Params(), factor)
	return f
}

// scale multiplies the values of ps by c.
func scale(ps []*ad.Value, c float64) {
	for _, p := range ps {
		for i := range p.Data.Data {
			p.Data.Data[i] *= c
		}
	}
}

// A ConstProduct gives a training pass the product of the evaluation pass
// before it only while the input and the parameters are those of that
// pass, bit for bit: a changed weight or bias, another input matrix, or a
// training pass in between make the training pass multiply. Sampling
// tapes neither keep nor take. Each pass's value and gradients are those
// of ForwardConst, for a layer with a bias and one without.
func TestConstProductTakesOnlyWhatStillHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	lin := NewLinear("lin", 5, 3, true, rng)
	x := tensor.DenseToCSR(Uniform(rng, 7, 5, 1))
	other := tensor.DenseToCSR(x.ToDense())
	var c ConstProduct
	// train runs a training pass through c and returns its value and
	// gradients, checked against ForwardConst's.
	train := func(step string, x tensor.Matrix) {
		t.Helper()
		grads := func(forward func(*ad.Tape) *ad.Value) (*tensor.Dense, []*tensor.Dense) {
			for _, p := range lin.Params() {
				p.ZeroGrad()
			}
			tp := ad.NewTape()
			v := forward(tp)
			if err := tp.Backward(weighted(tp, v, 9)); err != nil {
				t.Fatal(err)
			}
			var gs []*tensor.Dense
			for _, p := range lin.Params() {
				gs = append(gs, p.Grad.Clone())
			}
			return v.Data.Clone(), gs
		}
		got, gotGrads := grads(func(tp *ad.Tape) *ad.Value { return c.Forward(tp, lin, x) })
		want, wantGrads := grads(func(tp *ad.Tape) *ad.Value { return lin.ForwardConst(tp, x) })
		same := slices.Equal(got.Data, want.Data)
		for k := range gotGrads {
			same = same && slices.Equal(gotGrads[k].Data, wantGrads[k].Data)
		}
		if !same {
			t.Fatalf("%s: the training pass's value or gradients differ from ForwardConst's", step)
		}
	}
	evaluate := func() {
		t.Helper()
		got, want := c.Forward(ad.NewEvalTape(), lin, x), lin.ForwardConst(ad.NewEvalTape(), x)
		if !slices.Equal(got.Data.Data, want.Data.Data) {
			t.Fatal("the evaluation pass's value differs from ForwardConst's")
		}
	}
	expectHits := func(step string, want int) {
		t.Helper()
		if c.Hits() != want {
			t.Fatalf("%s: %d hits, want %d", step, c.Hits(), want)
		}
	}

	train("training first", x)
	expectHits("training first", 0)
	evaluate()
	train("after an evaluation", x)
	expectHits("after an evaluation", 1)
	train("a second training pass", x)
	expectHits("a second training pass", 1)

	evaluate()
	lin.W.Data.Data[4] = math.Nextafter(lin.W.Data.Data[4], 1)
	train("a weight one ulp off", x)
	expectHits("a weight one ulp off", 1)

	evaluate()
	lin.B.Data.Data[0] = -lin.B.Data.Data[0]
	train("a bias with its sign flipped", x)
	expectHits("a bias with its sign flipped", 1)

	evaluate()
	train("another input of equal values", other)
	expectHits("another input of equal values", 1)

	evaluate()
	c.Forward(ad.NewSamplingTape(), lin, x)
	train("after a sampling pass", x)
	expectHits("after a sampling pass", 2)

	c.Forward(ad.NewSamplingTape(), lin, x)
	train("a sampling pass only", x)
	expectHits("a sampling pass only", 2)

	evaluate()
	c.Drop()
	train("dropped", x)
	expectHits("dropped", 2)

	lin = NewLinear("lin", 5, 3, false, rng)
	evaluate()
	train("a layer without bias", x)
	expectHits("a layer without bias", 3)
}

// A constant input whose columns are not the layer's inputs is refused
// with both sizes, by ForwardConst and by a ConstProduct's evaluation
// pass alike.
func TestConstInputOfWrongWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	lin := NewLinear("lin", 5, 3, true, rng)
	x := tensor.DenseToCSR(Uniform(rng, 7, 4, 1))
	var c ConstProduct
	for name, f := range map[string]func(){
		"ForwardConst":         func() { lin.ForwardConst(ad.NewTape(), x) },
		"ConstProduct.Forward": func() { c.Forward(ad.NewEvalTape(), lin, x) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "nn.Linear: input 7x4 for a layer of input size 5") {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			f()
		}()
	}
}
