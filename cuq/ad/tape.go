// Package ad is cuqgnn's reverse-mode automatic differentiation engine over
// dense matrices (tensor.Dense), with constant sparse operands (tensor.CSR).
//
// A Tape records the operations of one forward pass. Every op returns a
// *Value holding its result; Backward on a 1×1 loss walks the recorded ops in
// reverse and accumulates ∂loss/∂v into v.Grad for every value that depends
// on a parameter. A value used by several ops receives the sum of their
// gradients. After Backward the tape forgets its ops, so nothing of the
// forward pass stays reachable and repeated epochs do not grow memory;
// parameter gradients persist until ZeroGrad.
//
// An evaluation tape (NewEvalTape) records nothing: ops only compute values
// and dropout is the identity.
//
// Shape errors are programming errors made while building a model: ops panic
// at graph-building time with a message that names the op and the shapes
// involved, before any value is computed.
//
// Custom ops with hand-written gradients (fused kernels such as the radial
// flows of cuq/nn) are recorded with Tape.Custom.
package ad

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Value is a node of the computation: its data and, after Backward, the
// gradient of the loss with respect to it.
type Value struct {
	Data *tensor.Dense
	Grad *tensor.Dense
	// Name labels parameters in optimizers and error messages.
	Name string

	requiresGrad bool
	back         func(g *tensor.Dense)
	tape         *Tape // the tape of the op that computed it; nil for leaves
	// spare is a leaf's storage for a contribution to a gradient it has
	// already accumulated (addInto), kept from one backward pass to the
	// next so that a training step allocates none.
	spare *tensor.Dense
}

// Param returns a trainable leaf value (requires gradients) holding d.
func Param(name string, d *tensor.Dense) *Value {
	return &Value{Data: d, Name: name, requiresGrad: true}
}

// Const returns a leaf value that needs no gradient.
func Const(d *tensor.Dense) *Value { return &Value{Data: d} }

// RequiresGrad reports whether gradients flow to v.
func (v *Value) RequiresGrad() bool { return v.requiresGrad }

// ZeroGrad clears the accumulated gradient of a parameter.
func (v *Value) ZeroGrad() {
	if v.Grad != nil {
		v.Grad.Zero()
	}
}

// Shape formats the dimensions of v for error messages.
func (v *Value) Shape() string { return v.Data.Shape() }

// Scalar returns the single element of a 1×1 value.
func (v *Value) Scalar() float64 {
	if v.Data.Rows != 1 || v.Data.Cols != 1 {
		panic(fmt.Sprintf("ad.Value.Scalar: value is %s, not 1x1", v.Shape()))
	}
	return v.Data.Data[0]
}

// Tape records operations for one forward and backward pass.
type Tape struct {
	recording bool
	sampling  bool // records for dropout's sake, but is not training
	ops       []*Value
	pool      *Pool
	owned     []*tensor.Dense // allocated from pool, returned by Release
	masks     [][]uint8       // dropout decisions from pool, returned by Release
}

// NewTape returns a recording tape, for training.
func NewTape() *Tape { return &Tape{recording: true} }

// NewEvalTape returns a tape that records nothing, for inference.
func NewEvalTape() *Tape { return &Tape{} }

// NewSamplingTape returns a tape for predictions drawn with dropout on (MC
// dropout): it records, so dropout is active, but Training reports false,
// so that layers which behave otherwise in training (BatchNorm's batch
// statistics) act as in prediction.
func NewSamplingTape() *Tape { return &Tape{recording: true, sampling: true} }

// WithPool makes t take the storage of its ops' values and of the
// gradients of intermediate values from p, and returns t. Release gives
// it back: after Release no value or gradient the tape computed may be
// used, except those kept. Parameters' gradients never come from the
// pool.
func (t *Tape) WithPool(p *Pool) *Tape {
	t.pool = p
	return t
}

// Alloc returns a zero rows×cols matrix, from the tape's pool when it has
// one (then it lives until Release): for the values of custom ops.
func (t *Tape) Alloc(rows, cols int) *tensor.Dense {
	if t.pool == nil {
		return tensor.New(rows, cols)
	}
	d := t.AllocUninit(rows, cols)
	d.Zero()
	return d
}

// AllocUninit is Alloc for a value that the caller overwrites entirely: a
// matrix from the tape's pool keeps what it last held.
func (t *Tape) AllocUninit(rows, cols int) *tensor.Dense {
	if t.pool == nil {
		return tensor.New(rows, cols)
	}
	d := t.pool.get(rows, cols)
	t.owned = append(t.owned, d)
	return d
}

// Release returns the storage of every matrix the tape took from its pool
// to the pool, except the matrices keep (such as an output that the caller
// goes on using), and forgets the recorded ops. It does nothing without a
// pool but forget the ops.
func (t *Tape) Release(keep ...*tensor.Dense) {
	t.Reset()
	if t.pool == nil {
		return
	}
	back := t.owned[:0]
	for _, d := range t.owned {
		kept := false
		for _, k := range keep {
			kept = kept || k == d
		}
		if !kept {
			back = append(back, d)
		}
	}
	t.pool.put(back, t.masks)
	clear(t.owned)
	t.owned = t.owned[:0]
	clear(t.masks)
	t.masks = t.masks[:0]
}

// allocMask returns n bytes for the decisions of a Dropout, from the
// tape's pool when it has one; recycled bytes keep what they last held.
func (t *Tape) allocMask(n int) []uint8 {
	if t.pool == nil {
		return make([]uint8, n)
	}
	m := t.pool.getMask(n)
	t.masks = append(t.masks, m)
	return m
}

// Training reports whether the tape is for training: it records gradients
// (dropout is active only then) and is not a sampling tape.
func (t *Tape) Training() bool { return t.recording && !t.sampling }

// Evaluation reports whether t is an evaluation tape (NewEvalTape), which
// records nothing.
func (t *Tape) Evaluation() bool { return !t.recording }

// record creates the output value of an op. back receives the output
// gradient; it is only kept when some input requires gradients.
func (t *Tape) record(out *tensor.Dense, back func(g *tensor.Dense), inputs ...*Value) *Value {
	v := &Value{Data: out, tape: t}
	if !t.recording {
		return v
	}
	for _, in := range inputs {
		if in.requiresGrad {
			v.requiresGrad = true
			v.back = back
			t.ops = append(t.ops, v)
			break
		}
	}
	return v
}

// gradOf returns the gradient accumulator of v, allocating it, or nil when
// v needs no gradient.
func gradOf(v *Value) *tensor.Dense {
	if !v.requiresGrad {
		return nil
	}
	if v.Grad == nil {
		if v.tape != nil {
			v.Grad = v.tape.Alloc(v.Data.Rows, v.Data.Cols)
		} else {
			v.Grad = tensor.New(v.Data.Rows, v.Data.Cols)
		}
	}
	return v.Grad
}

// newGrad returns an uninitialised matrix of v's shape for a gradient that
// the caller overwrites: from v's tape (and its pool) for intermediate
// values, new for leaves.
func newGrad(v *Value) *tensor.Dense {
	if v.tape != nil {
		return v.tape.AllocUninit(v.Data.Rows, v.Data.Cols)
	}
	return tensor.New(v.Data.Rows, v.Data.Cols)
}

// addInto adds the result of compute (which overwrites its argument) to
// the gradient of v. A gradient not yet allocated receives the result
// directly, saving a temporary and a pass over it; otherwise the result
// goes to a temporary from v's tape or, for a leaf (a parameter, whose
// gradient persists across steps), to the leaf's spare.
func addInto(v *Value, compute func(dst *tensor.Dense)) {
	if !v.requiresGrad {
		return
	}
	if v.Grad == nil {
		v.Grad = newGrad(v)
		compute(v.Grad)
		return
	}
	var tmp *tensor.Dense
	if v.tape != nil {
		tmp = newGrad(v)
	} else {
		if v.spare == nil || v.spare.Rows != v.Data.Rows || v.spare.Cols != v.Data.Cols {
			v.spare = tensor.New(v.Data.Rows, v.Data.Cols)
		}
		tmp, v.spare = v.spare, nil // a nested addInto of v would not share it
		defer func() { v.spare = tmp }()
	}
	compute(tmp)
	v.Grad.AddScaled(1, tmp)
}

// Custom records an op whose value out was computed by the caller from
// inputs. backward receives the output gradient g and, for each input, its
// gradient accumulator (nil when that input needs no gradient); it must add
// ∂loss/∂input = (∂out/∂input)ᵀ g into each non-nil accumulator.
func (t *Tape) Custom(out *tensor.Dense, backward func(g *tensor.Dense, grads []*tensor.Dense), inputs ...*Value) *Value {
	return t.record(out, func(g *tensor.Dense) {
		grads := make([]*tensor.Dense, len(inputs))
		for i, in := range inputs {
			grads[i] = gradOf(in)
		}
		backward(g, grads)
	}, inputs...)
}

// CustomUnary records an op of the one input x whose value out the caller
// computed. backward receives the output gradient g and must overwrite dst
// (x's shape) with ∂loss/∂x = (∂out/∂x)ᵀ g; the tape adds dst to x's
// gradient, or makes it the gradient when x has none yet, so that the op
// needs neither a zeroed accumulator nor a temporary of its own.
func (t *Tape) CustomUnary(out *tensor.Dense, x *Value, backward func(dst, g *tensor.Dense)) *Value {
	return t.record(out, func(g *tensor.Dense) {
		addInto(x, func(dst *tensor.Dense) { backward(dst, g) })
	}, x)
}

// Backward computes the gradients of the 1×1 value loss with respect to
// every recorded value and parameter, then clears the tape. Gradients of
// parameters are accumulated (call ZeroGrad between steps).
func (t *Tape) Backward(loss *Value) error {
	if loss.Data.Rows != 1 || loss.Data.Cols != 1 {
		return fmt.Errorf("ad.Backward: loss is %s, want a 1x1 scalar", loss.Shape())
	}
	if !t.recording {
		return fmt.Errorf("ad.Backward: the tape does not record (evaluation tape)")
	}
	if !loss.requiresGrad {
		t.Reset()
		return fmt.Errorf("ad.Backward: the loss does not depend on any parameter")
	}
	gradOf(loss).Data[0] += 1
	for i := len(t.ops) - 1; i >= 0; i-- {
		v := t.ops[i]
		if v.Grad != nil {
			v.back(v.Grad)
		}
	}
	t.Reset()
	return nil
}

// Reset forgets all recorded ops and the gradients of intermediate values,
// releasing the memory of the forward pass.
func (t *Tape) Reset() {
	for i, v := range t.ops {
		v.back = nil
		v.Grad = nil
		t.ops[i] = nil
	}
	t.ops = t.ops[:0]
}

// Len returns the number of recorded ops.
func (t *Tape) Len() int { return len(t.ops) }
