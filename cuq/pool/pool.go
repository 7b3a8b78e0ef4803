// Package pool combines the opinions of a node's neighbourhood into one
// second-order prediction, the three ways the graph posterior networks of
// the CUQ-GNN paper do. Every node j has a representation z_j, and a
// PostNet head turns a representation into Dirichlet parameters
// α(z) = 1 + β(z) (GaussianHead is a head written down rather than
// trained). A committee operator Π, personalised PageRank over the graph
// (package graph), weighs node i's neighbourhood, and node i predicts
//
//	alone        Dir(α(z_i))                     PostNet, no network effects
//	log-linear   Dir(1 + Σ_j Π_ij β(z_j))        GPN: pseudo-counts are added
//	linear       Σ_j w_ij Dir(α(z_j))            LOP-GPN: a mixture, w_ij = Π_ij / Σ_j Π_ij
//	behavioural  Dir(α(Σ_j Π_ij z_j))            CUQ-GNN: the committee forms one
//	                                             representation before the head
//
// How a pooling treats neighbours in conflict decides GPN's axiom A3
// ("conflicting neighbours raise the aleatoric uncertainty"): the
// log-linear pool adds the conflicting evidence into one confident coin
// flip (high AU), the linear pool keeps the opinions apart as components
// (the conflict shows as EU), and the behavioural pool lands between the
// classes, where the head has little evidence (EU rises).
//
// Everything here is exact arithmetic on small inputs, with no training, so
// it runs anywhere the Go toolchain compiles to, WebAssembly included.
package pool

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Pooling names a way to form a node's prediction from its neighbourhood.
type Pooling int

// The poolings, in the order of the package documentation.
const (
	Alone       Pooling = iota // the node's own PostNet prediction
	LogLinear                  // GPN: pseudo-counts added along Π
	Linear                     // LOP-GPN: mixture of the neighbours' Dirichlets
	Behavioural                // CUQ-GNN: one committee representation, then the head
)

// Poolings lists every pooling in order.
var Poolings = []Pooling{Alone, LogLinear, Linear, Behavioural}

var poolingNames = [...]string{"PostNet alone", "log-linear (GPN)", "linear (LOP-GPN)", "behavioural (CUQ)"}

// String returns the pooling's name with the model that uses it, such as
// "log-linear (GPN)".
func (p Pooling) String() string { return enum.String(p, poolingNames[:]) }

// Builder configures the pooling of a graph's nodes; start it with On and
// finish it with Done.
type Builder struct {
	g        *graph.Graph
	head     *GaussianHead
	z        [][]float64
	norm     func(*tensor.CSR) *tensor.CSR
	teleport float64
	steps    int
}

// On starts pooling the nodes of g. Defaults: ToyHead, the representations
// are g's features (a dense N×d matrix, d the head's dimension), Π is
// personalised PageRank with teleport 0.1 and 10 steps over the
// random-walk normalised adjacency with self loops (graph.RWNorm), so every
// row of Π sums to 1.
func On(g *graph.Graph) *Builder {
	return &Builder{g: g, head: ToyHead(), norm: graph.RWNorm, teleport: 0.1, steps: 10}
}

// Head sets the PostNet head.
func (b *Builder) Head(h *GaussianHead) *Builder { b.head = h; return b }

// Representations sets z_j, one vector of the head's dimension per node,
// instead of the graph's features.
func (b *Builder) Representations(z [][]float64) *Builder { b.z = z; return b }

// Norm sets the normalisation of the adjacency Π propagates over, such as
// graph.SymNorm (GPN's and CUQ-GNN's choice, rows of Π then need not sum to
// 1) or graph.RWNorm (LOP-GPN's, the default).
func (b *Builder) Norm(norm func(*tensor.CSR) *tensor.CSR) *Builder { b.norm = norm; return b }

// PPR sets the teleport probability t and the number of steps K of the
// personalised PageRank Π (graph.NewPPR).
func (b *Builder) PPR(teleport float64, steps int) *Builder {
	b.teleport, b.steps = teleport, steps
	return b
}

// Done computes every node's own, log-linear and behavioural Dirichlet. It
// returns an error on a nil or invalid graph, a nil head or normalisation,
// representations of the wrong count or dimension or not finite, or an
// invalid t or K.
func (b *Builder) Done() (*Pooled, error) {
	fail := func(format string, args ...any) (*Pooled, error) {
		return nil, fmt.Errorf("pool.On: "+format, args...)
	}
	if b.g == nil {
		return fail("nil graph")
	}
	if err := b.g.Validate(); err != nil {
		return fail("%v", err)
	}
	if b.head == nil || b.norm == nil {
		return fail("nil head or normalisation")
	}
	n, d, k := b.g.N, b.head.Dim(), b.head.Classes()
	z, err := b.representations()
	if err != nil {
		return fail("%v", err)
	}
	if len(z) != n {
		return fail("%d representations for %d nodes", len(z), n)
	}
	ppr, err := graph.NewPPR(b.norm(b.g.Adj), b.teleport, b.steps)
	if err != nil {
		return fail("%v", err)
	}
	p := &Pooled{ppr: ppr, head: b.head, k: k, d: d,
		z:    tensor.New(n, d),
		own:  make([]float64, n*k),
		beta: tensor.New(n, k),
	}
	for i, zi := range z {
		if err := b.head.check(zi); err != nil {
			return fail("node %d: %v", i, err)
		}
		copy(p.z.Row(i), zi)
		b.head.evidence(zi, p.beta.Row(i))
		for c, v := range p.beta.Row(i) {
			p.own[i*k+c] = 1 + v
		}
	}
	p.propagate()
	return p, nil
}

// representations returns the representations set, or else the rows of
// the graph's features, which must be dense with the head's dimension.
func (b *Builder) representations() ([][]float64, error) {
	if b.z != nil {
		return b.z, nil
	}
	n, d := b.g.N, b.head.Dim()
	x, ok := b.g.Features.(*tensor.Dense)
	if !ok || x.Cols != d {
		r, c := b.g.Features.Dims()
		return nil, fmt.Errorf("graph %q has %dx%d features, not the dense %dx%d representations of the head: set Representations", b.g.Name, r, c, n, d)
	}
	z := make([][]float64, n)
	for i := range z {
		z[i] = x.Row(i)
	}
	return z, nil
}

// propagate computes the log-linear pseudo-counts 1 + Πβ and the
// behavioural Dirichlets from the committee representations Πz.
func (p *Pooled) propagate() {
	n, k := p.ppr.N(), p.k
	// Shapes match by construction, so Apply cannot fail.
	pb := tensor.New(n, k)
	_ = p.ppr.Apply(pb, p.beta)
	p.logLinear = pb.Data
	for i := range p.logLinear {
		p.logLinear[i]++
	}
	p.committee = tensor.New(n, p.d)
	_ = p.ppr.Apply(p.committee, p.z)
	p.behavioural = make([]float64, n*k)
	for i := range n {
		a := p.behavioural[i*k : (i+1)*k]
		p.head.evidence(p.committee.Row(i), a)
		for c := range a {
			a[c]++
		}
	}
}

// Pooled holds every node's prediction under each pooling. It is immutable.
type Pooled struct {
	ppr       *graph.PPR
	head      *GaussianHead
	k, d      int
	z         *tensor.Dense // N×d representations
	beta      *tensor.Dense // N×K evidence β(z_j)
	own       []float64     // N×K α(z_j)
	logLinear []float64     // N×K 1 + Π β
	committee *tensor.Dense // N×d Π z
	// behavioural is N×K α(Π z).
	behavioural []float64
}

// N returns the number of nodes.
func (p *Pooled) N() int { return p.ppr.N() }

// Head returns the PostNet head.
func (p *Pooled) Head() *GaussianHead { return p.head }

// PPR returns the committee operator Π.
func (p *Pooled) PPR() *graph.PPR { return p.ppr }

func (p *Pooled) checkNode(op string, i int) error {
	if i < 0 || i >= p.N() {
		return fmt.Errorf("pool.Pooled.%s: node %d outside [0, %d)", op, i, p.N())
	}
	return nil
}

// Weights returns row i of Π: Π_ij for every node j, the weight of j in
// node i's committee. It is computed as Πᵀ e_i, K sparse steps.
func (p *Pooled) Weights(i int) ([]float64, error) {
	if err := p.checkNode("Weights", i); err != nil {
		return nil, err
	}
	return p.row(i), nil
}

func (p *Pooled) row(i int) []float64 {
	e := tensor.New(p.N(), 1)
	e.Data[i] = 1
	// Shapes match by construction.
	_ = p.ppr.ApplyT(e, e)
	return e.Data
}

// Committee returns node i's committee representation Σ_j Π_ij z_j, where
// the behavioural pool evaluates the head.
func (p *Pooled) Committee(i int) ([]float64, error) {
	if err := p.checkNode("Committee", i); err != nil {
		return nil, err
	}
	return append([]float64(nil), p.committee.Row(i)...), nil
}

// Alpha returns node i's Dirichlet parameters under a pooling that yields
// a single Dirichlet (Alone, LogLinear, Behavioural).
func (p *Pooled) Alpha(pooling Pooling, i int) ([]float64, error) {
	if err := p.checkNode("Alpha", i); err != nil {
		return nil, err
	}
	a, err := p.alphas(pooling)
	if err != nil {
		return nil, err
	}
	return append([]float64(nil), a[i*p.k:(i+1)*p.k]...), nil
}

func (p *Pooled) alphas(pooling Pooling) ([]float64, error) {
	switch pooling {
	case Alone:
		return p.own, nil
	case LogLinear:
		return p.logLinear, nil
	case Behavioural:
		return p.behavioural, nil
	case Linear:
		return nil, fmt.Errorf("pool: the linear pool is a mixture, not one Dirichlet: use Opinion")
	}
	return nil, fmt.Errorf("pool: unknown pooling %v", pooling)
}

// Opinion returns node i's prediction under pooling. The linear pool's
// components are the nodes j with Π_ij > 0, weighted by Π_ij normalised to
// sum to 1 (with RWNorm the row sums to 1 already).
func (p *Pooled) Opinion(i int, pooling Pooling) (*Opinion, error) {
	if err := p.checkNode("Opinion", i); err != nil {
		return nil, err
	}
	if pooling == Linear {
		var w []float64
		var alphas [][]float64
		for j, v := range p.row(i) {
			if v > 0 {
				w = append(w, v)
				alphas = append(alphas, p.own[j*p.k:(j+1)*p.k])
			}
		}
		return Mixture(w, alphas)
	}
	a, err := p.alphas(pooling)
	if err != nil {
		return nil, err
	}
	return Dirichlet(a[i*p.k : (i+1)*p.k]...)
}

// Measures returns the uncertainty measures of every node under pooling
// (uq.Dirichlet, or uq.Mixture for the linear pool).
func (p *Pooled) Measures(pooling Pooling) (uq.Measures, error) {
	if pooling != Linear {
		a, err := p.alphas(pooling)
		if err != nil {
			return uq.Measures{}, err
		}
		return uq.Dirichlet(a, p.k)
	}
	n := p.N()
	ptr := make([]int, 1, n+1)
	var ind []int
	var w []float64
	for i := range n {
		row := p.row(i)
		var s float64
		for _, v := range row {
			if v > 0 {
				s += v
			}
		}
		if !(s > 0) || math.IsInf(s, 1) {
			return uq.Measures{}, fmt.Errorf("pool: node %d has committee weights summing to %v", i, s)
		}
		for j, v := range row {
			if v > 0 {
				ind, w = append(ind, j), append(w, v/s)
			}
		}
		ptr = append(ptr, len(ind))
	}
	return uq.Mixture(ptr, ind, w, p.own, p.k)
}
