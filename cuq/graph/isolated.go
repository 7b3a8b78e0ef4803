package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// IsolatedNodes is the number of test nodes the GPN code perturbs one at a
// time in its isolated setting (NUM_NODES_ISOLATED).
const IsolatedNodes = 100

// Isolated is an isolated feature perturbation, the GPN code's
// ood_dataset_type "isolated" (evasion): each of Nodes is perturbed on its
// own copy of the graph, where it is the only perturbed node, so no OOD node
// sees another one and every other node keeps its features.
type Isolated struct {
	// Clean is the unperturbed graph.
	Clean *Graph
	// Split is the split the nodes were chosen from.
	Split Split
	// Nodes are the perturbed test nodes, sorted.
	Nodes []int
	// Noise and Severity describe the perturbation.
	Noise    Noise
	Severity float64

	rows map[int][]float64
}

// PerturbFeaturesIsolated builds the isolated perturbation of the GPN code:
// it draws count test nodes of s without replacement (PCG stream seeded
// with (f.Seed, a hash of s), as PerturbFeaturesWith) and gives node
// Nodes[k] the k-th noise row of f (drawn as in PerturbFeaturesWith, from
// a stream seeded by f.Seed alone). f.Budget is not used. The GPN code
// takes count = IsolatedNodes = 100. Asking for more nodes than s has test
// nodes, or for none, is an error.
func PerturbFeaturesIsolated(g *Graph, s Split, f FeatureShift, count int) (*Isolated, error) {
	fail := func(format string, args ...any) (*Isolated, error) {
		return nil, fmt.Errorf("graph.PerturbFeaturesIsolated: "+format, args...)
	}
	if err := g.Validate(); err != nil {
		return fail("%v", err)
	}
	if err := s.Validate(g.N); err != nil {
		return fail("%v", err)
	}
	f.Budget = 0
	if err := f.check(); err != nil {
		return fail("%v", err)
	}
	if count < 1 || count > len(s.Test) {
		return fail("cannot perturb %d of %d test nodes (want 1 ≤ count ≤ %d)", count, len(s.Test), len(s.Test))
	}
	pick := rand.New(rand.NewPCG(f.Seed, splitHash(s)))
	nodes := slices.Clone(s.Test)
	for p := 0; p < count; p++ {
		q := p + pick.IntN(len(nodes)-p)
		nodes[p], nodes[q] = nodes[q], nodes[p]
	}
	nodes = nodes[:count]
	slices.Sort(nodes)
	rows, err := drawRows(g, f, nodes)
	if err != nil {
		return fail("%v", err)
	}
	return &Isolated{Clean: g, Split: s, Nodes: nodes, Noise: f.Noise, Severity: f.Severity, rows: rows}, nil
}

// Graph returns the graph in which only Nodes[k] is perturbed; it shares
// the adjacency, labels and class names with Clean and holds a new feature
// matrix, built on each call.
func (p *Isolated) Graph(k int) (*Graph, error) {
	if k < 0 || k >= len(p.Nodes) {
		return nil, fmt.Errorf("graph.Isolated.Graph: node %d of %d", k, len(p.Nodes))
	}
	i := p.Nodes[k]
	h := withRows(p.Clean, map[int][]float64{i: p.rows[i]})
	h.Name = derivedName(p.Clean, fmt.Sprintf("%s noise at node %d", settingName(p.Noise), i))
	return h, nil
}

// Row returns the replacement feature row of node Nodes[k].
func (p *Isolated) Row(k int) []float64 { return slices.Clone(p.rows[p.Nodes[k]]) }

// Shifted returns the setting as an experiment runs it, as the GPN code
// evaluates it (target_as_id): the first view is the clean graph with every
// test node of the split as ID (the perturbed nodes too, in their clean
// form); view k+1 is Graph(k) with Nodes[k] as its only OOD node.
func (p *Isolated) Shifted(name string) *Shifted {
	out := &Shifted{Setting: name, Train: p.Clean, Split: p.Split, Labels: p.Clean.Labels,
		IDTest: p.Split.Test, OODTest: p.Nodes,
		Views: []View{sharedView(p.Clean, p.Split.Test, nil)}}
	for k, i := range p.Nodes {
		out.Views = append(out.Views, View{OOD: []int{i}, build: func() *Graph {
			g, _ := p.Graph(k)
			return g
		}})
	}
	return out
}
