package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

func randParam(rng *rand.Rand, name string, r, c int, lo, hi float64) *Value {
	d := tensor.New(r, c)
	for i := range d.Data {
		d.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return Param(name, d)
}

// weighted reduces x to a scalar with fixed random weights so that every
// element's gradient differs.
func weighted(t *Tape, x *Value, seed uint64) *Value {
	rng := rand.New(rand.NewPCG(seed, 99))
	w := tensor.New(x.Data.Rows, x.Data.Cols)
	for i := range w.Data {
		w.Data[i] = rng.Float64()*2 - 1
	}
	return t.Sum(t.Mul(x, Const(w)))
}

func checkGrad(t *testing.T, name string, params []*Value, build func(tp *Tape) *Value) {
	t.Helper()
	worst, err := GradCheck(params, 1e-6, build)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if worst > 1e-6 {
		t.Errorf("%s: gradient relative error %.3g > 1e-6", name, worst)
	}
}

func TestUnaryGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type unaryCase struct {
		name   string
		lo, hi float64
		op     func(tp *Tape, x *Value) *Value
	}
	cases := []unaryCase{
		{"Exp", -2, 2, (*Tape).Exp},
		{"Log", 0.1, 3, (*Tape).Log},
		{"Log1p", -0.5, 3, (*Tape).Log1p},
		{"Softplus", -5, 5, (*Tape).Softplus},
		{"Sqrt", 0.1, 4, (*Tape).Sqrt},
		{"Pow", 0.1, 3, func(tp *Tape, x *Value) *Value { return tp.Pow(x, 2.5) }},
		{"Abs", -2, 2, (*Tape).Abs},
		{"Clamp", -3, 3, func(tp *Tape, x *Value) *Value { return tp.Clamp(x, -1, 1.5) }},
		{"ReLU", -2, 2, (*Tape).ReLU},
		{"ELU", -2, 2, (*Tape).ELU},
		{"GELU", -4, 4, (*Tape).GELU},
		{"LeakyReLU", -2, 2, func(tp *Tape, x *Value) *Value { return tp.LeakyReLU(x, 0.2) }},
		{"Tanh", -2, 2, (*Tape).Tanh},
		{"Sigmoid", -4, 4, (*Tape).Sigmoid},
		{"Lgamma", 0.2, 20, (*Tape).Lgamma},
		{"Digamma", 0.3, 50, (*Tape).Digamma},
		{"Scale", -2, 2, func(tp *Tape, x *Value) *Value { return tp.Scale(x, -3) }},
		{"AddConst", -2, 2, func(tp *Tape, x *Value) *Value { return tp.AddConst(x, 0.7) }},
		{"LogSoftmax", -3, 3, (*Tape).LogSoftmax},
	}
	for _, shape := range [][2]int{{1, 1}, {3, 4}, {7, 2}} {
		for _, c := range cases {
			x := randParam(rng, "x", shape[0], shape[1], c.lo, c.hi)
			// keep kinks of piecewise ops away from the finite-difference stencil
			for i, v := range x.Data.Data {
				if math.Abs(v) < 1e-3 || math.Abs(v-1) < 1e-3 || math.Abs(v-1.5) < 1e-3 || math.Abs(v+1) < 1e-3 {
					x.Data.Data[i] += 0.01
				}
			}
			checkGrad(t, c.name, []*Value{x}, func(tp *Tape) *Value { return weighted(tp, c.op(tp, x), 5) })
		}
	}
}

func TestBinaryBroadcastGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][2][2]int{
		{{3, 4}, {3, 4}}, {{3, 4}, {1, 4}}, {{3, 4}, {3, 1}}, {{3, 4}, {1, 1}},
		{{1, 4}, {3, 4}}, {{3, 1}, {1, 4}}, {{1, 1}, {2, 5}},
	}
	ops := map[string]func(tp *Tape, a, b *Value) *Value{
		"Add": (*Tape).Add, "Sub": (*Tape).Sub, "Mul": (*Tape).Mul, "Div": (*Tape).Div,
	}
	for name, op := range ops {
		for _, s := range shapes {
			a := randParam(rng, "a", s[0][0], s[0][1], 0.5, 2)
			b := randParam(rng, "b", s[1][0], s[1][1], 0.5, 2)
			checkGrad(t, name, []*Value{a, b}, func(tp *Tape) *Value { return weighted(tp, op(tp, a, b), 7) })
		}
	}
}

func TestBroadcastValues(t *testing.T) {
	tp := NewEvalTape()
	a := Const(tensor.MustFromSlice(2, 3, []float64{1, 2, 3, 4, 5, 6}))
	row := Const(tensor.MustFromSlice(1, 3, []float64{10, 20, 30}))
	col := Const(tensor.MustFromSlice(2, 1, []float64{100, 200}))
	got := tp.Add(tp.Add(a, row), col).Data.Data
	want := []float64{111, 122, 133, 214, 225, 236}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("broadcast add = %v, want %v", got, want)
		}
	}
}

func TestReductionGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][2]int{{1, 1}, {4, 3}, {2, 6}} {
		x := randParam(rng, "x", s[0], s[1], -2, 2)
		checkGrad(t, "Sum", []*Value{x}, func(tp *Tape) *Value { return tp.Sum(tp.Mul(x, x)) })
		checkGrad(t, "Mean", []*Value{x}, func(tp *Tape) *Value { return tp.Mean(tp.Exp(x)) })
		checkGrad(t, "SumRows", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.SumRows(x), 1) })
		checkGrad(t, "SumCols", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.SumCols(x), 2) })
		checkGrad(t, "MaxRows", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.MaxRows(x), 3) })
		checkGrad(t, "LogSumExpRows", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.LogSumExpRows(x), 4) })
		checkGrad(t, "MeanRows", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.MeanRows(x), 5) })
		checkGrad(t, "Max", []*Value{x}, func(tp *Tape) *Value { return tp.Scale(tp.Max(x), 3) })
		checkGrad(t, "LogSumExp", []*Value{x}, func(tp *Tape) *Value { return tp.Scale(tp.LogSumExp(x), -2) })
	}
}

func TestLinalgGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := randParam(rng, "a", 5, 3, -1, 1)
	b := randParam(rng, "b", 3, 4, -1, 1)
	checkGrad(t, "MatMul", []*Value{a, b}, func(tp *Tape) *Value { return weighted(tp, tp.MatMul(a, b), 1) })

	s, err := tensor.FromCOO(6, 5, []int{0, 0, 2, 3, 5, 5, 1}, []int{1, 4, 2, 0, 3, 4, 1}, []float64{0.5, -1, 2, 3, 0.25, 1, -2})
	if err != nil {
		t.Fatal(err)
	}
	x := randParam(rng, "x", 5, 3, -1, 1)
	checkGrad(t, "LeftMul(CSR)", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.LeftMul(s, x), 2) })
	vals := randParam(rng, "v", s.NNZ(), 1, -1, 1)
	checkGrad(t, "SpMMValues", []*Value{vals, x}, func(tp *Tape) *Value { return weighted(tp, tp.SpMMValues(s, vals, x), 3) })
	// rows of 5, 0 and 9 entries: blocks of four entries and remainders
	var ri, ci []int
	for _, row := range [][2]int{{0, 5}, {2, 9}} {
		for j := 0; j < row[1]; j++ {
			ri, ci = append(ri, row[0]), append(ci, j)
		}
	}
	wide, err := tensor.FromCOO(3, 9, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	wideVals := randParam(rng, "v", wide.NNZ(), 1, -1, 1)
	wideX := randParam(rng, "x", 9, 3, -1, 1)
	checkGrad(t, "SpMMValues(wide rows)", []*Value{wideVals, wideX}, func(tp *Tape) *Value {
		return weighted(tp, tp.SpMMValues(wide, wideVals, wideX), 4)
	})
	checkGrad(t, "LeftMul(Dense)", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.LeftMul(s.ToDense(), x), 2) })

	checkGrad(t, "Transpose", []*Value{a}, func(tp *Tape) *Value { return weighted(tp, tp.Transpose(a), 7) })
	bias := randParam(rng, "bias", 1, 4, -1, 1)
	checkGrad(t, "Affine", []*Value{a, b, bias}, func(tp *Tape) *Value { return weighted(tp, tp.Affine(a, b, bias), 5) })
	row := randParam(rng, "row", 1, 3, -1, 1)
	checkGrad(t, "LeftMulAddRow(CSR)", []*Value{x, row}, func(tp *Tape) *Value { return weighted(tp, tp.LeftMulAddRow(s, x, row), 6) })
	checkGrad(t, "LeftMulAddRow(Dense)", []*Value{x, row}, func(tp *Tape) *Value {
		return weighted(tp, tp.LeftMulAddRow(s.ToDense(), x, row), 6)
	})
	// The known product is computed afresh for every perturbed x, as a
	// caller must: the check then tests the gradients that are recorded.
	for name, bias := range map[string]*Value{"LeftMulAddRowKnown": row, "LeftMulAddRowKnown without bias": nil} {
		checkGrad(t, name, []*Value{x, row}, func(tp *Tape) *Value {
			known := NewEvalTape().LeftMulAddRow(s, x, bias).Data
			return weighted(tp, tp.LeftMulAddRowKnown(s, x, bias, known), 6)
		})
	}
}

// LeftMulAddRowKnown records the known value itself, whatever the operands
// hold, leaves it out of its tape's pool, and records the gradients
// LeftMulAddRow records, bit for bit.
func TestLeftMulAddRowKnownRecordsKnownValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	s, err := tensor.FromCOO(5, 9, []int{0, 0, 1, 3, 3, 3, 4}, []int{2, 8, 0, 1, 4, 7, 3}, []float64{0.5, -1, 2, 3, 0.25, 1, -2})
	if err != nil {
		t.Fatal(err)
	}
	x := randParam(rng, "x", 9, 6, -1, 1)
	b := randParam(rng, "b", 1, 6, -1, 1)
	known := randParam(rng, "known", 5, 6, -1, 1).Data
	pool := NewPool()
	tp := NewTape().WithPool(pool)
	got := tp.LeftMulAddRowKnown(s, x, b, known)
	if got.Data != known {
		t.Error("the value is a copy of the known product, not the product itself")
	}
	tp.Release()
	if d := pool.get(5, 6); d == known {
		t.Error("Release gave the known product, which the tape does not own, to the pool")
	}
	tp = NewTape()
	got = tp.LeftMulAddRowKnown(s, x, b, known)
	if err := tp.Backward(weighted(tp, got, 3)); err != nil {
		t.Fatal(err)
	}
	gx, gb := x.Grad.Clone(), b.Grad.Clone()
	x.ZeroGrad()
	b.ZeroGrad()
	tp = NewTape()
	if err := tp.Backward(weighted(tp, tp.LeftMulAddRow(s, x, b), 3)); err != nil {
		t.Fatal(err)
	}
	assertSame(t, "∂x", gx, x.Grad)
	assertSame(t, "∂b", gb, b.Grad)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "ad.LeftMulAddRowKnown: constant 5x9 times 9x6 plus 1x6 as 4x6") {
			t.Errorf("a 4×6 known product of a 5×9 · 9×6: panic %v", r)
		}
	}()
	tp.LeftMulAddRowKnown(s, x, b, tensor.New(4, 6))
}

// The fused bias ops give bit for bit the values of the product followed
// by a broadcast Add, and reduce to the plain product without a bias.
func TestFusedBiasMatchesTwoPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	tp := NewEvalTape()
	// 70 columns: a 64-column AVX2 block and a remainder
	x := randParam(rng, "x", 9, 40, -1, 1)
	w := randParam(rng, "w", 40, 70, -1, 1)
	b := randParam(rng, "b", 1, 70, -1, 1)
	assertSame(t, "Affine", tp.Affine(x, w, b).Data, tp.Add(tp.MatMul(x, w), b).Data)
	assertSame(t, "Affine without bias", tp.Affine(x, w, nil).Data, tp.MatMul(x, w).Data)
	s, err := tensor.FromCOO(5, 9, []int{0, 0, 1, 3, 3, 3, 4}, []int{2, 8, 0, 1, 4, 7, 3}, []float64{0.5, -1, 2, 3, 0.25, 1, -2})
	if err != nil {
		t.Fatal(err)
	}
	v := randParam(rng, "v", 9, 70, -1, 1)
	for _, m := range []tensor.Matrix{s, s.ToDense()} {
		assertSame(t, "LeftMulAddRow", tp.LeftMulAddRow(m, v, b).Data, tp.Add(tp.LeftMul(m, v), b).Data)
	}
	vec := randParam(rng, "w1", 40, 1, -1, 1)
	b1 := randParam(rng, "b1", 1, 1, -1, 1)
	assertSame(t, "Affine (one column)", tp.Affine(x, vec, b1).Data, tp.Add(tp.MatMul(x, vec), b1).Data)
}

func assertSame(t *testing.T, name string, got, want *tensor.Dense) {
	t.Helper()
	if !got.SameShape(want) {
		t.Fatalf("%s: shape %s, want %s", name, got.Shape(), want.Shape())
	}
	for i, v := range got.Data {
		if v != want.Data[i] {
			t.Fatalf("%s: element %d = %v, want %v", name, i, v, want.Data[i])
		}
	}
}

func TestIndexGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := randParam(rng, "x", 5, 3, -1, 1)
	idx := []int{4, 0, 0, 2, 4, 4}
	checkGrad(t, "GatherRows", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.GatherRows(x, idx), 1) })
	e := randParam(rng, "e", 6, 2, -1, 1)
	checkGrad(t, "ScatterAddRows", []*Value{e}, func(tp *Tape) *Value { return weighted(tp, tp.ScatterAddRows(e, idx, 5), 2) })
	checkGrad(t, "Pick", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.Pick(x, []int{2, 0, 1, 1, 2}), 3) })
	scores := randParam(rng, "s", 7, 1, -2, 2)
	ptr := []int{0, 3, 3, 4, 7}
	checkGrad(t, "SegmentSoftmax", []*Value{scores}, func(tp *Tape) *Value { return weighted(tp, tp.SegmentSoftmax(scores, ptr), 4) })
	checkGrad(t, "SliceCols", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.SliceCols(x, 1, 3), 5) })
	y := randParam(rng, "y", 5, 2, -1, 1)
	c := Const(tensor.New(5, 1))
	checkGrad(t, "ConcatCols", []*Value{x, y}, func(tp *Tape) *Value { return weighted(tp, tp.ConcatCols(x, c, y, x), 6) })
}

func TestSliceAndConcatValues(t *testing.T) {
	tp := NewEvalTape()
	x := Const(tensor.MustFromSlice(2, 3, []float64{1, 2, 3, 4, 5, 6}))
	if got := tp.SliceCols(x, 1, 3).Data; got.Rows != 2 || got.Cols != 2 || !slices.Equal(got.Data, []float64{2, 3, 5, 6}) {
		t.Errorf("SliceCols(x, 1, 3) = %v", got)
	}
	if got := tp.ConcatCols(tp.SliceCols(x, 2, 3), tp.SliceCols(x, 0, 2)).Data; got.Cols != 3 || !slices.Equal(got.Data, []float64{3, 1, 2, 6, 4, 5}) {
		t.Errorf("ConcatCols = %v", got)
	}
	if tp.SliceCols(x, 0, 3) != x || tp.ConcatCols(x) != x {
		t.Error("a slice of all columns and the concatenation of one input must be the input")
	}
}

func TestReductionValues(t *testing.T) {
	tp := NewEvalTape()
	x := Const(tensor.MustFromSlice(2, 2, []float64{1, 4, -2, 3}))
	if got := tp.Max(x).Scalar(); got != 4 {
		t.Errorf("Max = %v", got)
	}
	want := math.Log(math.E + math.Exp(4) + math.Exp(-2) + math.Exp(3))
	if got := tp.LogSumExp(x).Scalar(); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogSumExp = %v, want %v", got, want)
	}
	big := Const(tensor.MustFromSlice(1, 2, []float64{1000, 1000}))
	if got := tp.LogSumExp(big).Scalar(); math.Abs(got-(1000+math.Ln2)) > 1e-9 {
		t.Errorf("LogSumExp overflowed: %v", got)
	}
	if got := tp.MeanRows(x).Data.Data; got[0] != 2.5 || got[1] != 0.5 {
		t.Errorf("MeanRows = %v", got)
	}
}

func TestSegmentSoftmaxValues(t *testing.T) {
	tp := NewEvalTape()
	e := Const(tensor.MustFromSlice(3, 1, []float64{0, math.Log(3), 5}))
	out := tp.SegmentSoftmax(e, []int{0, 2, 3}).Data.Data
	want := []float64{0.25, 0.75, 1}
	for i := range want {
		if math.Abs(out[i]-want[i]) > 1e-12 {
			t.Fatalf("segment softmax = %v, want %v", out, want)
		}
	}
}

// SegmentSoftmax gives, to the bit, each segment's exp(e_k − m_s) by
// math.Exp divided by the segment's sum in order, whatever the segments'
// lengths: empty ones, one longer than an exponentiation block
// (softmaxBlock), and many short ones whose blocks end mid-way, on one
// core and on two.
func TestSegmentSoftmaxIsMathExpPerSegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	lengths := []int{0, 3, 0, 0, softmaxBlock + 188, 1, 2}
	for range 3000 {
		lengths = append(lengths, rng.IntN(9))
	}
	ptr := []int{0}
	for _, n := range lengths {
		ptr = append(ptr, ptr[len(ptr)-1]+n)
	}
	e := tensor.New(ptr[len(ptr)-1], 1)
	for k := range e.Data {
		e.Data[k] = 40 * (rng.Float64() - 0.5)
	}
	want := make([]float64, len(e.Data))
	for s := 0; s+1 < len(ptr); s++ {
		a, b := ptr[s], ptr[s+1]
		m := math.Inf(-1)
		for _, v := range e.Data[a:b] {
			m = math.Max(m, v)
		}
		sum := 0.0
		for k := a; k < b; k++ {
			want[k] = math.Exp(e.Data[k] - m)
			sum += want[k]
		}
		for k := a; k < b; k++ {
			want[k] /= sum
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		got := NewEvalTape().SegmentSoftmax(Const(e), ptr).Data.Data
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("%d cores, entry %d: %v, want %v", procs, k, got[k], want[k])
			}
		}
	}
}

func TestRepeatedUseAccumulates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randParam(rng, "x", 3, 3, 0.5, 2)
	// x appears four times: f = Σ x·x + Σ exp(x) ⊙ x
	checkGrad(t, "reuse", []*Value{x}, func(tp *Tape) *Value {
		return tp.Add(tp.Sum(tp.Mul(x, x)), tp.Sum(tp.Mul(tp.Exp(x), x)))
	})
	// closed form check: f = Σ x² has gradient 2x
	x.ZeroGrad()
	tp := NewTape()
	if err := tp.Backward(tp.Sum(tp.Mul(x, x))); err != nil {
		t.Fatal(err)
	}
	for i, v := range x.Data.Data {
		if math.Abs(x.Grad.Data[i]-2*v) > 1e-12 {
			t.Fatalf("grad of Σx² = %v, want 2x", x.Grad.Data[i])
		}
	}
}

func TestDropoutGradientAndStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x := randParam(rng, "x", 4, 5, -1, 1)
	checkGrad(t, "Dropout", []*Value{x}, func(tp *Tape) *Value {
		return weighted(tp, tp.Dropout(x, 0.5, rand.New(rand.NewPCG(1, 1))), 1)
	})
	ones := Const(tensor.New(200, 100))
	ones.Data.Fill(1)
	tp := NewTape()
	out := tp.Dropout(ones, 0.3, rand.New(rand.NewPCG(2, 2))).Data
	zeros, mean := 0, out.Sum()/float64(len(out.Data))
	for _, v := range out.Data {
		if v == 0 {
			zeros++
		} else if math.Abs(v-1/0.7) > 1e-12 {
			t.Fatalf("kept element %v, want 1/0.7", v)
		}
	}
	if frac := float64(zeros) / float64(len(out.Data)); math.Abs(frac-0.3) > 0.01 {
		t.Errorf("dropped fraction %.4f, want 0.3", frac)
	}
	if math.Abs(mean-1) > 0.02 {
		t.Errorf("mean after inverted dropout %.4f, want 1", mean)
	}
	if NewEvalTape().Dropout(ones, 0.3, nil) != ones {
		t.Error("evaluation dropout must be the identity")
	}
}

func TestStableScalarFunctions(t *testing.T) {
	if got := Softplus(0); math.Abs(got-math.Ln2) > 1e-15 {
		t.Errorf("softplus(0) = %v", got)
	}
	if got := Softplus(800); got != 800 {
		t.Errorf("softplus(800) = %v, want 800 without overflow", got)
	}
	if got := Sigmoid(-800); got != 0 {
		t.Errorf("sigmoid(-800) = %v", got)
	}
}

func TestTapeReleasesOps(t *testing.T) {
	x := Param("x", tensor.MustFromSlice(1, 2, []float64{1, 2}))
	tp := NewTape()
	y := tp.Exp(x)
	loss := tp.Sum(y)
	if tp.Len() != 2 {
		t.Fatalf("tape recorded %d ops, want 2", tp.Len())
	}
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	if tp.Len() != 0 || y.Grad != nil || y.back != nil {
		t.Error("Backward must release recorded ops and intermediate gradients")
	}
	if x.Grad == nil || math.Abs(x.Grad.Data[1]-math.Exp(2)) > 1e-12 {
		t.Errorf("parameter gradient %v lost", x.Grad)
	}
}

func TestErrorsAndPanics(t *testing.T) {
	tp := NewTape()
	x := Param("x", tensor.New(2, 3))
	if err := tp.Backward(x); err == nil || !strings.Contains(err.Error(), "2x3") {
		t.Errorf("Backward on a non-scalar: err = %v", err)
	}
	if err := tp.Backward(Const(tensor.Scalar(1))); err == nil {
		t.Error("Backward on a constant should fail")
	}
	if err := NewEvalTape().Backward(tp.Sum(x)); err == nil {
		t.Error("Backward on an evaluation tape should fail")
	}
	expectPanic := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), want) {
				t.Errorf("%s: panic %v, want one mentioning %q", name, r, want)
			}
		}()
		f()
	}
	y := Param("y", tensor.New(4, 5))
	expectPanic("MatMul", "ad.MatMul: shapes 2x3 and 4x5", func() { tp.MatMul(x, y) })
	expectPanic("Add", "ad.Add: shapes 2x3 and 4x5", func() { tp.Add(x, y) })
	expectPanic("GatherRows", "index 7", func() { tp.GatherRows(x, []int{0, 7}) })
	expectPanic("Pick", "column 3", func() { tp.Pick(x, []int{0, 3}) })
	expectPanic("LeftMul", "ad.LeftMul: constant 2x2 times 4x5", func() { tp.LeftMul(tensor.New(2, 2), y) })
	expectPanic("Affine", "ad.Affine: shapes 2x3 · 4x5 + 2x3 do not fit", func() { tp.Affine(x, y, x) })
	expectPanic("LeftMulAddRow", "ad.LeftMulAddRow: constant 2x2 times 4x5 plus 4x5", func() { tp.LeftMulAddRow(tensor.New(2, 2), y, y) })
	expectPanic("SliceCols", "ad.SliceCols: columns [2, 4) out of range for 2x3", func() { tp.SliceCols(x, 2, 4) })
	expectPanic("ConcatCols", "ad.ConcatCols: shapes 2x3 and 4x5", func() { tp.ConcatCols(x, y) })
	expectPanic("ConcatCols", "ad.ConcatCols: no inputs", func() { tp.ConcatCols() })
}

// BenchmarkOps times the forward and backward passes of the hot
// elementwise and index ops on a hidden layer the size of Cora's: 2708
// nodes, 64 features, 10556 edges.
func BenchmarkOps(b *testing.B) {
	const nodes, features, edges = 2708, 64, 10556
	rng := rand.New(rand.NewPCG(1, 2))
	x := randParam(rng, "x", nodes, features, -2, 2)
	e := randParam(rng, "e", edges, features, -2, 2)
	idx := make([]int, edges)
	for k := range idx {
		idx[k] = rng.IntN(nodes)
	}
	cases := []struct {
		name string
		op   func(tp *Tape) *Value
	}{
		{"ReLU", func(tp *Tape) *Value { return tp.ReLU(x) }},
		{"ELU", func(tp *Tape) *Value { return tp.ELU(x) }},
		{"Tanh", func(tp *Tape) *Value { return tp.Tanh(x) }},
		{"GatherRows", func(tp *Tape) *Value { return tp.GatherRows(x, idx) }},
		{"ScatterAddRows", func(tp *Tape) *Value { return tp.ScatterAddRows(e, idx, nodes) }},
		{"Dropout", func(tp *Tape) *Value { return tp.Dropout(x, 0.5, rng) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tp := NewTape()
			y := c.op(tp)
			g := tensor.New(y.Data.Rows, y.Data.Cols)
			g.Fill(1)
			for b.Loop() {
				c.op(tp).back(g)
				tp.Reset()
			}
		})
	}
}

// maxFloat agrees with math.Max bit for bit, on the special values too.
func TestMaxFloatIsMathMax(t *testing.T) {
	vals := []float64{math.Inf(-1), -2.5, math.Copysign(0, -1), 0, 1, 3, math.Inf(1), math.NaN()}
	for _, x := range vals {
		for _, y := range vals {
			if got, want := maxFloat(x, y), math.Max(x, y); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("maxFloat(%v, %v) = %v, math.Max %v", x, y, got, want)
			}
		}
	}
}

// customDouble records y = 2x + 1 as a CustomUnary op whose backward
// overwrites dst with 2g.
func customDouble(tp *Tape, x *Value) *Value {
	out := tp.AllocUninit(x.Data.Rows, x.Data.Cols)
	for i, v := range x.Data.Data {
		out.Data[i] = 2*v + 1
	}
	return tp.CustomUnary(out, x, func(dst, g *tensor.Dense) {
		for i, v := range g.Data {
			dst.Data[i] = 2 * v
		}
	})
}

// A CustomUnary op's gradient is checked against finite differences where
// it is the first gradient of its input (written straight into the
// accumulator) and where another op's gradient is already there (added),
// on a pooled tape whose matrices hold the numbers of a released step.
func TestCustomUnaryGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := randParam(rng, "x", 4, 3, -1, 1)
	pool := NewPool()
	for _, c := range []struct {
		name  string
		build func(tp *Tape) *Value
	}{
		{"only use", func(tp *Tape) *Value { return weighted(tp, tp.Exp(customDouble(tp, x)), 1) }},
		{"second use", func(tp *Tape) *Value {
			return tp.Add(weighted(tp, tp.Exp(customDouble(tp, x)), 2), weighted(tp, tp.Mul(x, x), 3))
		}},
	} {
		tp := NewTape().WithPool(pool)
		if err := tp.Backward(c.build(tp)); err != nil {
			t.Fatal(err)
		}
		tp.Release()
		x.ZeroGrad()
		checkGrad(t, c.name, []*Value{x}, func(tp *Tape) *Value { return c.build(tp.WithPool(pool)) })
	}
}

// TestGELUValues checks GELU against values of x·Φ(x) computed from the
// normal distribution function's tabulated values: Φ(1) = 0.8413447460685429,
// Φ(−2) = 0.022750131948179195.
func TestGELUValues(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0, 0},
		{1, 0.8413447460685429},
		{-2, -2 * 0.022750131948179195},
		{-40, 0}, // x·Φ(x) underflows to −0
	} {
		if got := GELU(c.x); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("GELU(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

// LeftMulPick has the value and the gradient of Pick(LeftMul(m, x), cols),
// bit for bit, and the gradient of finite differences. Its memo gives back
// the kept product while the output gradient stays the same, to the bit,
// and computes it afresh when the gradient, the columns or the matrix
// change; the shapes it refuses are named.
func TestLeftMulPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	s, err := tensor.FromCOO(6, 5, []int{0, 0, 2, 3, 5, 5, 1, 4}, []int{1, 4, 2, 0, 3, 4, 1, 1}, []float64{0.5, -1, 2, 3, 0.25, 1, -2, 0.75})
	if err != nil {
		t.Fatal(err)
	}
	other, err := tensor.FromCOO(6, 5, []int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 4, 0}, []float64{1, 2, 3, 4, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	x := randParam(rng, "x", 5, 3, -1, 1)
	cols := []int{2, 0, 1, 1, 0, 2}
	checkGrad(t, "LeftMulPick", []*Value{x}, func(tp *Tape) *Value { return weighted(tp, tp.LeftMulPick(s, x, cols, nil), 3) })

	// gradient of the loss Σᵢ wᵢ·outᵢ, the weights scaled by scale
	grad := func(m *tensor.CSR, cols []int, scale float64, memo *ProductMemo) (value, gx *tensor.Dense) {
		x.ZeroGrad()
		tp := NewTape()
		var out *Value
		if memo == nil {
			out = tp.Pick(tp.LeftMul(m, x), cols)
		} else {
			out = tp.LeftMulPick(m, x, cols, memo)
		}
		if err := tp.Backward(tp.Scale(weighted(tp, out, 4), scale)); err != nil {
			t.Fatal(err)
		}
		return out.Data.Clone(), x.Grad.Clone()
	}
	var memo ProductMemo
	steps := []struct {
		m     *tensor.CSR
		cols  []int
		scale float64
	}{
		{s, cols, 1}, {s, cols, 1}, {s, cols, 0.3}, {s, cols, 0.3},
		{s, []int{0, 0, 0, 1, 1, 1}, 0.3}, {other, []int{0, 0, 0, 1, 1, 1}, 0.3}, {s, cols, 1},
	}
	for k, step := range steps {
		wantValue, want := grad(step.m, step.cols, step.scale, nil)
		gotValue, got := grad(step.m, step.cols, step.scale, &memo)
		assertSame(t, fmt.Sprintf("step %d: value", k), gotValue, wantValue)
		assertSame(t, fmt.Sprintf("step %d: ∂x", k), got, want)
	}
	for _, c := range []struct {
		pick func()
		want string
	}{
		{func() { NewTape().LeftMulPick(s, randParam(rng, "y", 4, 3, -1, 1), cols, nil) }, "ad.LeftMulPick: constant 6x5 times 4x3 picked by 6 columns"},
		{func() { NewTape().LeftMulPick(s, x, cols[:5], nil) }, "picked by 5 columns: shapes do not fit"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("panic %v, want %q", r, c.want)
				}
			}()
			c.pick()
		}()
	}
}
