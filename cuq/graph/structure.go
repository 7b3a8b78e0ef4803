package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Structure is a kind of structure perturbation: a change of the edges,
// with the nodes, features and labels kept. The zero Structure means no
// structure perturbation (a Perturbed of feature noise carries it).
type Structure int

// The structure perturbations of the GPN paper's edge experiments.
const (
	// RandomEdges inserts edges between uniformly drawn pairs of
	// non-adjacent nodes.
	RandomEdges Structure = iota + 1
	// DICE ("delete internally, connect externally", Waniek et al. 2018)
	// deletes edges within classes and inserts edges between classes.
	DICE
	numStructures
)

// AllStructures lists the structure perturbations.
var AllStructures = []Structure{RandomEdges, DICE}

// structureNames are the names String returns, indexed by Structure.
var structureNames = [numStructures]string{"none", "random_edges", "dice"}

// String returns "random_edges", "dice", or "none" for the zero Structure.
func (k Structure) String() string { return enum.String(k, structureNames[:]) }

// structureStream is the second PCG seed word of the structure draws
// ("struct").
const structureStream = 0x737472756374

// PerturbStructure perturbs a fraction of the edges of g: with |E| the
// number of undirected edges {i, j}, i ≠ j, it changes m = ⌊fraction·|E|⌋
// of them, then returns the graph with the new adjacency.
//
//   - RandomEdges inserts m undirected edges, each between a node pair
//     {i, j}, i ≠ j, drawn uniformly from the pairs not yet adjacent (by
//     rejection: i and j uniform in [0, N), drawn again while i = j or the
//     pair is adjacent). It fails when fewer than m pairs are not adjacent.
//   - DICE makes m steps; each flips a fair coin and either deletes an edge
//     drawn uniformly from the remaining edges between two nodes of the same
//     class, or inserts an edge between a pair of nodes of different classes
//     drawn uniformly from the non-adjacent ones (by rejection, as above,
//     over the labelled nodes). When one kind of step has no candidate left,
//     the step takes the other kind. The labels of all nodes are used
//     (training, validation, test and the rest), as in the GPN code: the
//     attacker knows every label. Unlabelled nodes (label −1) belong to no
//     class and take part in no step. DICE fails when the graph has neither
//     an intra-class edge nor a non-adjacent inter-class pair, or fewer such
//     candidates than m.
//
// Inserted edges get weight 1 in both directions; kept edges keep their
// values; self loops of g are kept and not counted in |E|; no self loop is
// added. The adjacency of g must be symmetric in its pattern (every stored
// (i, j) has a stored (j, i)), and so is the result.
//
// OOD nodes: Perturbed.Nodes are the nodes incident to at least one
// inserted or deleted edge, OODTest the test nodes among them and IDTest
// the other test nodes. A node whose neighbours all kept their edges still
// sees perturbed nodes two hops away; it counts as ID, so the sets measure
// how well a model flags the nodes whose own neighbourhood changed.
//
// Randomness: all draws come from one PCG stream seeded with seed, so the
// result depends on g, kind, fraction and seed, not on s (which only splits
// the test nodes). The numbers are not numpy's or torch's.
//
// The perturbed graph is named after g and kind: "CoraML, dice",
// "CoraML, random edges".
//
// The errors name a fraction outside [0, 1], an unknown kind, a graph
// without edges, an asymmetric adjacency and the shortfalls above.
func PerturbStructure(g *Graph, s Split, kind Structure, fraction float64, seed uint64) (*Perturbed, error) {
	fail := func(format string, args ...any) (*Perturbed, error) {
		return nil, fmt.Errorf("graph.PerturbStructure: "+format, args...)
	}
	if err := g.Validate(); err != nil {
		return fail("%v", err)
	}
	if err := s.Validate(g.N); err != nil {
		return fail("%v", err)
	}
	if kind != RandomEdges && kind != DICE {
		return fail("unknown structure perturbation %v (want %v or %v)", kind, RandomEdges, DICE)
	}
	if !(fraction >= 0 && fraction <= 1) {
		return fail("fraction %v outside [0, 1]", fraction)
	}
	edges, err := undirectedEdges(g.Adj)
	if err != nil {
		return fail("graph %q: %v", g.Name, err)
	}
	if len(edges) == 0 {
		return fail("graph %q has no edges to perturb", g.Name)
	}
	m := int(fraction * float64(len(edges)))
	e := &editor{adj: g.Adj, rng: rand.New(rand.NewPCG(seed, structureStream)), added: map[[2]int]bool{}}
	switch kind {
	case RandomEdges:
		err = e.insertRandom(g.N, len(edges), m)
	case DICE:
		err = e.dice(g.Labels, edges, m)
	}
	if err != nil {
		return fail("graph %q: %v", g.Name, err)
	}

	out := *g
	out.Name = derivedName(g, settingName(kind))
	out.Adj = e.rewired()
	nodes := make([]int, 0, 2*(len(e.insertions)+len(e.deletions)))
	for _, set := range [][][2]int{e.insertions, e.deletions} {
		for _, ij := range set {
			nodes = append(nodes, ij[0], ij[1])
		}
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	p := &Perturbed{Graph: &out, Split: s, Nodes: nodes, Budget: fraction,
		Structure: kind, Added: e.insertions, Removed: e.deletions}
	p.IDTest, p.OODTest = splitTest(s, nodes, g.N)
	return p, nil
}

// undirectedEdges returns the edges {i, j}, i < j, of a pattern-symmetric
// adjacency in row order, or an error naming an entry without its mirror.
func undirectedEdges(adj *tensor.CSR) ([][2]int, error) {
	var edges [][2]int
	for i := 0; i < adj.Rows; i++ {
		for _, j := range adj.Ind[adj.Ptr[i]:adj.Ptr[i+1]] {
			if !stored(adj, j, i) {
				return nil, fmt.Errorf("adjacency is not symmetric: entry (%d, %d) has no (%d, %d)", i, j, j, i)
			}
			if i < j {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	return edges, nil
}

// stored reports whether adj stores an entry (i, j); the column indices of
// a well-formed CSR row are increasing.
func stored(adj *tensor.CSR, i, j int) bool {
	_, ok := slices.BinarySearch(adj.Ind[adj.Ptr[i]:adj.Ptr[i+1]], j)
	return ok
}

// editor records the edges inserted into and deleted from adj.
type editor struct {
	adj                   *tensor.CSR
	rng                   *rand.Rand
	insertions, deletions [][2]int
	added                 map[[2]int]bool
}

// free reports whether {i, j} is neither an edge of adj nor inserted, and
// returns it ordered i < j. Pairs with i = j are never free.
func (e *editor) free(i, j int) ([2]int, bool) {
	if i > j {
		i, j = j, i
	}
	ij := [2]int{i, j}
	return ij, i != j && !stored(e.adj, i, j) && !e.added[ij]
}

// insert records the insertion of the free pair ij.
func (e *editor) insert(ij [2]int) {
	e.added[ij] = true
	e.insertions = append(e.insertions, ij)
}

// insertRandom inserts m edges between uniform non-adjacent pairs of the n
// nodes of a graph with the given number of edges.
func (e *editor) insertRandom(n, edges, m int) error {
	if pairs := n*(n-1)/2 - edges; m > pairs {
		return fmt.Errorf("cannot insert %d edges: only %d node pairs are not adjacent", m, pairs)
	}
	for len(e.insertions) < m {
		if ij, ok := e.free(e.rng.IntN(n), e.rng.IntN(n)); ok {
			e.insert(ij)
		}
	}
	return nil
}

// dice makes m DICE steps on the given edges of a graph with the given
// labels.
func (e *editor) dice(labels []int, edges [][2]int, m int) error {
	var intra [][2]int
	interEdges := 0
	for _, ij := range edges {
		yi, yj := labels[ij[0]], labels[ij[1]]
		switch {
		case yi < 0 || yj < 0:
		case yi == yj:
			intra = append(intra, ij)
		default:
			interEdges++
		}
	}
	var labelled []int
	classSize := map[int]int{}
	for i, y := range labels {
		if y >= 0 {
			labelled = append(labelled, i)
			classSize[y]++
		}
	}
	// Pairs of labelled nodes of different classes: (L² − Σ_c n_c²)/2.
	interPairs := len(labelled) * len(labelled)
	for _, nc := range classSize {
		interPairs -= nc * nc
	}
	interFree := interPairs/2 - interEdges
	if len(intra)+interFree == 0 {
		return fmt.Errorf("DICE has nothing to perturb: no edge joins two nodes of one class and every pair of nodes of different classes is adjacent")
	}
	if m > len(intra)+interFree {
		return fmt.Errorf("DICE cannot perturb %d edges: %d edges join nodes of one class and %d pairs of nodes of different classes are not adjacent", m, len(intra), interFree)
	}
	for step := 0; step < m; step++ {
		remove := e.rng.IntN(2) == 0
		if len(intra) == 0 || len(e.insertions) == interFree {
			remove = len(intra) > 0
		}
		if remove {
			k := e.rng.IntN(len(intra))
			last := len(intra) - 1
			intra[k], intra[last] = intra[last], intra[k]
			e.deletions = append(e.deletions, intra[last])
			intra = intra[:last]
			continue
		}
		for {
			i, j := labelled[e.rng.IntN(len(labelled))], labelled[e.rng.IntN(len(labelled))]
			if labels[i] == labels[j] {
				continue
			}
			if ij, ok := e.free(i, j); ok {
				e.insert(ij)
				break
			}
		}
	}
	return nil
}

// rewired returns adj without the deleted edges and with the inserted ones
// (weight 1), both directions of each.
func (e *editor) rewired() *tensor.CSR {
	deleted := make(map[[2]int]bool, len(e.deletions))
	for _, ij := range e.deletions {
		deleted[ij] = true
	}
	nnz := e.adj.NNZ() + 2*(len(e.insertions)-len(e.deletions))
	ri, ci, val := make([]int, 0, nnz), make([]int, 0, nnz), make([]float64, 0, nnz)
	for i := 0; i < e.adj.Rows; i++ {
		for k := e.adj.Ptr[i]; k < e.adj.Ptr[i+1]; k++ {
			j := e.adj.Ind[k]
			if deleted[[2]int{min(i, j), max(i, j)}] {
				continue
			}
			ri, ci, val = append(ri, i), append(ci, j), append(val, e.adj.Val[k])
		}
	}
	for _, ij := range e.insertions {
		ri, ci, val = append(ri, ij[0], ij[1]), append(ci, ij[1], ij[0]), append(val, 1, 1)
	}
	// The entries are in range and distinct: no error.
	out, _ := tensor.FromCOO(e.adj.Rows, e.adj.Cols, ri, ci, val)
	return out
}
