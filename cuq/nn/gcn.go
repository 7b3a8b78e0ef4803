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

// GCNConfig configures a GCNStack. Its options change it in place and
// return it, for chaining.
type GCNConfig struct {
	hidden, layers int
	dropout        float64
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
	s := &GCNStack{Dropout: c.dropout}
	for l := 0; l < c.layers; l++ {
		s.Layers = append(s.Layers, &GCN{Lin: NewGlorotLinear(fmt.Sprintf("gcn%d", l), in, c.hidden, true, rng)})
		in = c.hidden
	}
	return s, nil
}

// GCNStack is a stack of GCN layers with ReLU and dropout between them and
// none after the last:
//
//	h⁽ˡ⁺¹⁾ = Dropout(ReLU(Â h⁽ˡ⁾ W⁽ˡ⁾ + b⁽ˡ⁾))   for all but the last layer.
type GCNStack struct {
	Layers  []*GCN
	Dropout float64
}

// Operator returns the symmetric normalisation D^−½(A+I)D^−½ of adj, a
// *tensor.CSR.
func (s *GCNStack) Operator(adj *tensor.CSR) (Operator, error) { return graph.SymNorm(adj), nil }

// ForwardProjected returns l(y) for the stack's output y; the last layer
// is projected before its propagation (GCN.ForwardProjected).
func (s *GCNStack) ForwardProjected(t *ad.Tape, op Operator, x *ad.Value, l *Linear, rng *rand.Rand) *ad.Value {
	adj := op.(*tensor.CSR)
	last := len(s.Layers) - 1
	for _, layer := range s.Layers[:last] {
		x = t.Dropout(t.ReLU(layer.Forward(t, adj, x)), s.Dropout, rng)
	}
	return s.Layers[last].ForwardProjected(t, adj, x, l)
}

// Width returns the width of the last layer.
func (s *GCNStack) Width() int { return s.Layers[len(s.Layers)-1].Lin.Out }

// Params returns the weights and biases of every layer.
func (s *GCNStack) Params() []*ad.Value { return ParamsOf(s.Layers...) }
