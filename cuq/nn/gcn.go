package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/ad"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// GCN is a graph convolution (Kipf and Welling) y = Â·(x·W) + b with Â the
// symmetric normalisation D^−½(A+I)D^−½ of the graph it runs on; W is
// Glorot-initialised, b zero.
type GCN struct {
	Lin *Linear // bias applied after propagation
}

// Forward returns Â(xW) + b for the normalised adjacency adj = Â.
func (c *GCN) Forward(t *ad.Tape, adj *tensor.CSR, x *ad.Value) *ad.Value {
	return t.LeftMulAddRow(adj, t.MatMul(x, c.Lin.W), c.Lin.B)
}

// ForwardProjected returns l(Â(xW) + b), the convolution followed by the
// linear layer l with weight V and bias c, computed as
//
//	Â·(x·(W·V)) + (b·V + c)
//
// so that the sparse product carries l.Out columns instead of the
// convolution's width and x·W is never formed. It agrees with
// l.Forward(t, c.Forward(t, adj, x)) up to rounding.
func (c *GCN) ForwardProjected(t *ad.Tape, adj *tensor.CSR, x *ad.Value, l *Linear) *ad.Value {
	bias := l.B
	if c.Lin.B != nil {
		bias = t.Affine(c.Lin.B, l.W, l.B)
	}
	return t.LeftMulAddRow(adj, t.MatMul(x, t.MatMul(c.Lin.W, l.W)), bias)
}

// Params returns W and b.
func (c *GCN) Params() []*ad.Value { return c.Lin.Params() }

// Activation is the nonlinearity after a hidden GCN layer.
type Activation int

// The activations.
const (
	// ReLU is max(x, 0), Kipf and Welling's and the reference's.
	ReLU Activation = iota
	// GELU is x·Φ(x), Φ the standard normal distribution function (the
	// structural-shift benchmark's GCN).
	GELU
)

// String returns "ReLU" or "GELU".
func (a Activation) String() string {
	switch a {
	case ReLU:
		return "ReLU"
	case GELU:
		return "GELU"
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// Apply returns a(x) on t.
func (a Activation) Apply(t *ad.Tape, x *ad.Value) *ad.Value {
	if a == GELU {
		return t.GELU(x)
	}
	return t.ReLU(x)
}

// GCNConfig configures a GCNStack. Its options change it in place and
// return it, for chaining.
type GCNConfig struct {
	hidden, layers int
	dropout        float64
	act            Activation
	batchNorm      bool
}

// NewGCNConfig returns two GCN layers of the given width with ReLU and
// dropout 0.5 between them (CUQ-GCN's convolution).
func NewGCNConfig(hidden int) *GCNConfig {
	return &GCNConfig{hidden: hidden, layers: 2, dropout: 0.5}
}

// Layers sets the number of layers.
func (c *GCNConfig) Layers(n int) *GCNConfig { c.layers = n; return c }

// Dropout sets the dropout probability between layers.
func (c *GCNConfig) Dropout(p float64) *GCNConfig { c.dropout = p; return c }

// Activation sets the nonlinearity after each hidden layer (ReLU by
// default).
func (c *GCNConfig) Activation(a Activation) *GCNConfig { c.act = a; return c }

// BatchNorm sets whether a BatchNorm follows the activation of each hidden
// layer, before dropout (off by default).
func (c *GCNConfig) BatchNorm(on bool) *GCNConfig { c.batchNorm = on; return c }

// Act returns the activation after each hidden layer.
func (c *GCNConfig) Act() Activation { return c.act }

// Normalized reports whether a BatchNorm follows each hidden layer's
// activation.
func (c *GCNConfig) Normalized() bool { return c.batchNorm }

// New checks the configuration (at least one layer, a positive width,
// dropout in [0, 1)) and returns the stack, its weights drawn layer by
// layer from rng.
func (c *GCNConfig) New(in int, rng *rand.Rand) (Conv, error) {
	if c.layers < 1 || c.hidden < 1 {
		return nil, fmt.Errorf("%d convolution layers of width %d", c.layers, c.hidden)
	}
	if c.dropout < 0 || c.dropout >= 1 {
		return nil, fmt.Errorf("convolution dropout %v not in [0, 1)", c.dropout)
	}
	if c.act != ReLU && c.act != GELU {
		return nil, fmt.Errorf("unknown activation %v", c.act)
	}
	s := &GCNStack{Dropout: c.dropout, Act: c.act}
	for l := 0; l < c.layers; l++ {
		s.Layers = append(s.Layers, &GCN{Lin: NewGlorotLinear(fmt.Sprintf("gcn%d", l), in, c.hidden, true, rng)})
		if c.batchNorm && l < c.layers-1 {
			s.Norms = append(s.Norms, NewBatchNorm(fmt.Sprintf("gcn%d.bn", l), c.hidden))
		}
		in = c.hidden
	}
	return s, nil
}

// GCNStack is a stack of GCN layers with an activation σ (ReLU by
// default), an optional BatchNorm and dropout between them and none after
// the last:
//
//	h⁽ˡ⁺¹⁾ = Dropout(BN(σ(Â h⁽ˡ⁾ W⁽ˡ⁾ + b⁽ˡ⁾)))   for all but the last layer.
type GCNStack struct {
	Layers  []*GCN
	Dropout float64
	Act     Activation
	// Norms holds the BatchNorm after each layer but the last, nil
	// without batch normalisation.
	Norms []*BatchNorm
}

// Operator returns the symmetric normalisation D^−½(A+I)D^−½ of adj, a
// *tensor.CSR.
func (s *GCNStack) Operator(adj *tensor.CSR) (Operator, error) { return graph.SymNorm(adj), nil }

// ForwardProjected returns l(y) for the stack's output y; the last layer
// is projected before its propagation (GCN.ForwardProjected).
func (s *GCNStack) ForwardProjected(t *ad.Tape, op Operator, x *ad.Value, l *Linear, rng rand.Source) *ad.Value {
	adj := op.(*tensor.CSR)
	last := len(s.Layers) - 1
	for k, layer := range s.Layers[:last] {
		x = s.Act.Apply(t, layer.Forward(t, adj, x))
		if s.Norms != nil {
			x = s.Norms[k].Forward(t, x)
		}
		x = t.Dropout(x, s.Dropout, rng)
	}
	return s.Layers[last].ForwardProjected(t, adj, x, l)
}

// Width returns the width of the last layer.
func (s *GCNStack) Width() int { return s.Layers[len(s.Layers)-1].Lin.Out }

// Params returns the weights and biases of every layer, then the
// BatchNorms' γ and β.
func (s *GCNStack) Params() []*ad.Value {
	return append(ParamsOf(s.Layers...), ParamsOf(s.Norms...)...)
}

// Buffers returns the BatchNorms' running estimates, none without batch
// normalisation.
func (s *GCNStack) Buffers() []*ad.Value { return BuffersOf(s.Norms...) }
