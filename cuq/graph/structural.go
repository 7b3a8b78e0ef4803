package graph

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/internal/enum"
)

// Structural is a structural distribution shift in the sense of Bazhenov et
// al. (2023), "Evaluating robustness and uncertainty of graph models under
// structural distributional shifts": the nodes are ordered by a node
// property and the far end of the order is out of distribution.
type Structural int

// The structural shifts. Score gives each property; the nodes with the
// largest scores are ID, those with the smallest OOD.
const (
	// Popularity orders by PageRank: the least popular nodes are OOD.
	Popularity Structural = iota + 1
	// Locality orders by personalised PageRank from the node of largest
	// PageRank: the nodes farthest from that centre are OOD.
	Locality
	// Density orders by the local clustering coefficient: the nodes in
	// the sparsest neighbourhoods are OOD.
	Density
	// Homophily orders by node homophily: the nodes whose neighbourhoods
	// disagree most with their labels are OOD (cuqgnn's addition, not in
	// the paper).
	Homophily
	numStructurals
)

// AllStructurals lists the structural shifts.
var AllStructurals = []Structural{Popularity, Locality, Density, Homophily}

var structuralNames = [numStructurals]string{"none", "pagerank", "ppr_locality", "clustering", "homophily_shift"}

// structuralTitles are the shifts' names in prose.
var structuralTitles = [numStructurals]string{"none", "popularity (PageRank)", "locality (personalised PageRank)",
	"density (clustering coefficient)", "homophily"}

// String returns the shift's setting name: "pagerank", "ppr_locality",
// "clustering" or "homophily_shift".
func (k Structural) String() string { return enum.String(k, structuralNames[:]) }

// PageRankDamping is the damping factor of the structural shifts' PageRank
// (networkx's default, which the paper's code uses).
const PageRankDamping = 0.85

// pageRankTol is the L1 change between iterates at which the power
// iteration stops; networkx stops at N·10⁻⁶, cuqgnn iterates further.
const pageRankTol = 1e-13

// pageRankMaxIter bounds the power iteration; at damping 0.85 the error
// falls below 1e-13 in under 200 steps.
const pageRankMaxIter = 10000

// neighbourSets returns, for each node, its neighbours in the undirected
// simple graph of g's adjacency pattern: j ≠ i with a stored (i, j) or
// (j, i), each once, ascending.
func neighbourSets(g *Graph) [][]int {
	u := ToUndirected(g.Adj)
	out := make([][]int, g.N)
	for i := range out {
		for k := u.Ptr[i]; k < u.Ptr[i+1]; k++ {
			if j := u.Ind[k]; j != i {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// PageRank returns the PageRank of every node on the graph the paper's code
// uses: g's adjacency made undirected, every edge weight 1, and one self loop
// on every node. With N(i) the neighbours of i (without i) and d_i = |N(i)|,
// it is the fixed point of
//
//	x_i = (1 − a)/N + a · Σ_{j ∈ N(i) ∪ {i}} x_j / (d_j + 1),
//
// with damping a ∈ (0, 1), by power iteration from the uniform vector until
// the L1 change is below 1e-13. The scores sum to 1.
func PageRank(g *Graph, damping float64) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.PageRank: %v", err)
	}
	p := make([]float64, g.N)
	for i := range p {
		p[i] = 1 / float64(g.N)
	}
	x, err := pageRank(neighbourSets(g), damping, p)
	if err != nil {
		return nil, fmt.Errorf("graph.PageRank: %v", err)
	}
	return x, nil
}

// PersonalizedPageRank is PageRank with the teleport going to center:
//
//	x_i = (1 − a)·[i = center] + a · Σ_{j ∈ N(i) ∪ {i}} x_j / (d_j + 1).
func PersonalizedPageRank(g *Graph, damping float64, center int) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.PersonalizedPageRank: %v", err)
	}
	if center < 0 || center >= g.N {
		return nil, fmt.Errorf("graph.PersonalizedPageRank: centre %d outside [0, %d)", center, g.N)
	}
	p := make([]float64, g.N)
	p[center] = 1
	x, err := pageRank(neighbourSets(g), damping, p)
	if err != nil {
		return nil, fmt.Errorf("graph.PersonalizedPageRank: %v", err)
	}
	return x, nil
}

// pageRank iterates x ← (1 − a)·p + a·Σ_{j ∈ N(i) ∪ {i}} x_j/(d_j + 1)
// from p.
func pageRank(nbrs [][]int, a float64, p []float64) ([]float64, error) {
	if !(a > 0 && a < 1) {
		return nil, fmt.Errorf("damping %v outside (0, 1)", a)
	}
	n := len(nbrs)
	if n == 0 {
		return nil, fmt.Errorf("graph without nodes")
	}
	x := slices.Clone(p)
	next := make([]float64, n)
	share := make([]float64, n)
	for range pageRankMaxIter {
		for j, nb := range nbrs {
			share[j] = x[j] / float64(len(nb)+1)
		}
		change := 0.0
		for i, nb := range nbrs {
			s := share[i]
			for _, j := range nb {
				s += share[j]
			}
			next[i] = float64((1-a)*p[i]) + float64(a*s)
			change += math.Abs(next[i] - x[i])
		}
		x, next = next, x
		if change < pageRankTol {
			break
		}
	}
	return x, nil
}

// ClusteringCoefficients returns the local clustering coefficient of every
// node of the undirected simple graph of g (self loops ignored, as
// networkx's clustering does): with d_i = |N(i)| and T_i the number of
// edges among the neighbours of i,
//
//	c_i = 2·T_i / (d_i·(d_i − 1)),  and 0 when d_i < 2.
func ClusteringCoefficients(g *Graph) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.ClusteringCoefficients: %v", err)
	}
	nbrs := neighbourSets(g)
	mark := make([]bool, g.N)
	c := make([]float64, g.N)
	for i, nb := range nbrs {
		d := len(nb)
		if d < 2 {
			continue
		}
		for _, j := range nb {
			mark[j] = true
		}
		links := 0 // each edge among the neighbours counted twice
		for _, j := range nb {
			for _, k := range nbrs[j] {
				if mark[k] {
					links++
				}
			}
		}
		for _, j := range nb {
			mark[j] = false
		}
		c[i] = float64(links) / float64(d*(d-1))
	}
	return c, nil
}

// NodeHomophily returns, for every labelled node i, the fraction of the
// labelled nodes of its closed neighbourhood N(i) ∪ {i} that share its
// label:
//
//	h_i = |{j ∈ N(i) ∪ {i} : y_j = y_i}| / |{j ∈ N(i) ∪ {i} : y_j ≥ 0}|,
//
// in (0, 1] (1 for a node without labelled neighbours), on the undirected
// simple graph of g. Unlabelled nodes get NaN. It uses every label of g,
// test labels included: the shift is defined by an oracle, as DICE is.
func NodeHomophily(g *Graph) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.NodeHomophily: %v", err)
	}
	h := make([]float64, g.N)
	for i, nb := range neighbourSets(g) {
		y := g.Labels[i]
		if y < 0 {
			h[i] = math.NaN()
			continue
		}
		// The closed neighbourhood: i itself counts once in both.
		same, labelled := labelledNeighbours(g.Labels, i, nb)
		h[i] = float64(same+1) / float64(labelled+1)
	}
	return h, nil
}

// Score returns the node property that orders the nodes for shift k:
// PageRank (Popularity), personalised PageRank from the first node of
// largest PageRank (Locality; the paper's code takes numpy's argmax),
// ClusteringCoefficients (Density) or NodeHomophily (Homophily). Larger is
// more in-distribution.
func (k Structural) Score(g *Graph) ([]float64, error) {
	switch k {
	case Popularity:
		return PageRank(g, PageRankDamping)
	case Locality:
		pr, err := PageRank(g, PageRankDamping)
		if err != nil {
			return nil, err
		}
		center := 0
		for i, v := range pr {
			if v > pr[center] {
				center = i
			}
		}
		return PersonalizedPageRank(g, PageRankDamping, center)
	case Density:
		return ClusteringCoefficients(g)
	case Homophily:
		return NodeHomophily(g)
	}
	return nil, fmt.Errorf("graph: unknown structural shift %v", k)
}

// StructuralFractions are the shares of the labelled nodes in the five
// parts of a structural split, in the order of the score: ID training,
// validation and test nodes (the highest scores, shuffled among
// themselves), then OOD validation and OOD test nodes (the lowest scores
// last). They sum to 1.
type StructuralFractions struct {
	InTrain, InVal, InTest, OutVal, OutTest float64
}

// PaperStructuralFractions are the paper's parts: 30% ID train, 10% ID
// validation, 10% ID test, 10% OOD validation, 40% OOD test.
var PaperStructuralFractions = StructuralFractions{0.3, 0.1, 0.1, 0.1, 0.4}

// structuralStream is the second PCG seed word of the structural splits
// ("shift").
const structuralStream = 0x7368696674

// ShiftStructure splits the labelled nodes of g by shift k as the paper's
// code does, with n labelled nodes:
//
//  1. the part sizes are round(n·f) for the five fractions (round half to
//     even, as numpy), the last one corrected so that they sum to n;
//  2. the nodes are shuffled, then ordered by decreasing Score, stably, so
//     that ties fall in random order;
//  3. the first InTrain+InVal+InTest nodes of the order are the ID nodes;
//     they are shuffled again and cut into train, validation and test;
//  4. the rest are cut, in order, into OOD validation and OOD test nodes,
//     so the OOD test nodes have the lowest scores.
//
// The paper's code uses graphs in which every node is labelled; here
// unlabelled nodes are in no part and stay Unused. The shuffles come from
// the PCG stream seeded with (seed, "shift").
//
// Transductive (inductive false): the graph is unchanged and the OOD nodes
// are unlabelled in training (Unused in Split), as in the paper's
// experiments. Inductive: the training graph has no edge at an OOD node
// (validation or test) and those nodes unlabelled, so during training no
// message reaches an ID node from an OOD node; the model then predicts on
// the full graph. A node without edges changes nothing for the other nodes
// of a message-passing model, so this equals training on the subgraph of
// the other nodes while keeping the node numbering, which cuq.Model needs. The
// inductive training graph is named after g and the setting:
// "CoraML, pagerank inductive".
//
// Errors: fractions that are negative, not finite or do not sum to 1;
// parts that leave no ID training node or no OOD test node; in the
// inductive setting, a class with labelled nodes but no training node.
func ShiftStructure(g *Graph, k Structural, fr StructuralFractions, inductive bool, seed uint64) (*Shifted, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.ShiftStructure: %v", err)
	}
	score, err := k.Score(g)
	if err != nil {
		return nil, fmt.Errorf("graph.ShiftStructure: %v", err)
	}
	sh, err := shiftByScore(g, k.String(), score, fr, inductive, seed)
	if err != nil {
		return nil, fmt.Errorf("graph.ShiftStructure: %v", err)
	}
	return sh, nil
}

// ShiftByScore is ShiftStructure with any node property: score holds one
// value per node of g, larger meaning more in-distribution, and name is
// the setting's name (the inductive one gets "_inductive" appended). A
// score NaN at a labelled node is an error. A new structural shift is
// a score function and a Setting that calls ShiftByScore with it.
func ShiftByScore(g *Graph, name string, score []float64, fr StructuralFractions, inductive bool, seed uint64) (*Shifted, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("graph.ShiftByScore: %v", err)
	}
	sh, err := shiftByScore(g, name, score, fr, inductive, seed)
	if err != nil {
		return nil, fmt.Errorf("graph.ShiftByScore: %v", err)
	}
	return sh, nil
}

// shiftByScore is ShiftByScore on a valid graph, its errors without the
// function's name.
func shiftByScore(g *Graph, name string, score []float64, fr StructuralFractions, inductive bool, seed uint64) (*Shifted, error) {
	fail := func(format string, args ...any) (*Shifted, error) {
		return nil, fmt.Errorf(format, args...)
	}
	if len(score) != g.N {
		return fail("%d scores for %d nodes", len(score), g.N)
	}
	parts := []float64{fr.InTrain, fr.InVal, fr.InTest, fr.OutVal, fr.OutTest}
	if err := checkFractions(parts); err != nil {
		return fail("%v", err)
	}
	var nodes []int
	for i, y := range g.Labels {
		if y >= 0 {
			if math.IsNaN(score[i]) {
				return fail("score of labelled node %d is NaN", i)
			}
			nodes = append(nodes, i)
		}
	}
	n := len(nodes)
	sizes := partSizes(n, parts)
	if sizes[0] < 1 {
		return fail("%d labelled nodes and fractions %v leave no ID training node", n, parts)
	}
	if sizes[len(sizes)-1] < 1 {
		return fail("%d labelled nodes and fractions %v leave no OOD test node", n, parts)
	}
	cut := cutByScore(nodes, score, sizes, seed)
	split := Split{Train: cut[0], Val: cut[1], Test: cut[2]}
	split.Unused = complement(g.N, split.Train, split.Val, split.Test)
	out := &Shifted{Setting: name, Train: g, Split: split, Labels: g.Labels,
		IDTest: cut[2], OODVal: cut[3], OODTest: cut[4],
		Views: []View{sharedView(g, cut[2], cut[4])}}
	if !inductive {
		return out, nil
	}
	counts := g.ClassCounts(nil)
	trainCounts := g.ClassCounts(split.Train)
	for c := range counts {
		if counts[c] > 0 && trainCounts[c] == 0 {
			return fail("inductive %s split leaves class %d (%d labelled nodes) without training nodes", name, c, counts[c])
		}
	}
	ood := slices.Concat(cut[3], cut[4])
	out.Setting = name + "_inductive"
	out.Train = cutOff(g, ood)
	out.Train.Name = derivedName(g, strings.ReplaceAll(out.Setting, "_", " "))
	return out, nil
}

// checkFractions checks that the fractions are finite, non-negative and
// sum to 1.
func checkFractions(parts []float64) error {
	sum := 0.0
	for _, f := range parts {
		if !(f >= 0) || math.IsInf(f, 0) {
			return fmt.Errorf("fractions %v: each must be finite and ≥ 0", parts)
		}
		sum += f
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("fractions %v sum to %v, want 1", parts, sum)
	}
	return nil
}

// partSizes returns round(n·f) for each fraction f (round half to even),
// the last corrected so that they sum to n.
func partSizes(n int, parts []float64) []int {
	sizes := make([]int, len(parts))
	total := 0
	for p, f := range parts {
		sizes[p] = int(math.RoundToEven(float64(n) * f))
		total += sizes[p]
	}
	sizes[len(sizes)-1] -= total - n
	return sizes
}

// cutByScore orders the nodes by decreasing score, ties in random order,
// shuffles the first three parts' nodes (the ID nodes) together, and cuts
// the order into parts of the given sizes, each sorted.
func cutByScore(nodes []int, score []float64, sizes []int, seed uint64) [][]int {
	n := len(nodes)
	rng := rand.New(rand.NewPCG(seed, structuralStream))
	rng.Shuffle(n, func(a, b int) { nodes[a], nodes[b] = nodes[b], nodes[a] })
	slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	inSize := sizes[0] + sizes[1] + sizes[2]
	rng.Shuffle(inSize, func(a, b int) { nodes[a], nodes[b] = nodes[b], nodes[a] })
	cut := make([][]int, len(sizes))
	at := 0
	for p, m := range sizes {
		cut[p] = slices.Sorted(slices.Values(nodes[at : at+m]))
		at += m
	}
	return cut
}

// cutOff returns g without the edges at the given nodes and with those
// nodes unlabelled; features and class names are shared.
func cutOff(g *Graph, nodes []int) *Graph {
	drop := Mask(g.N, nodes)
	a := g.Adj
	ptr := make([]int, g.N+1)
	ind := make([]int, 0, a.NNZ())
	val := make([]float64, 0, a.NNZ())
	for i := 0; i < g.N; i++ {
		if !drop[i] {
			for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
				if !drop[a.Ind[k]] {
					ind = append(ind, a.Ind[k])
					val = append(val, a.Val[k])
				}
			}
		}
		ptr[i+1] = len(ind)
	}
	out := *g
	out.Adj = &tensor.CSR{Rows: g.N, Cols: g.N, Ptr: ptr, Ind: ind, Val: val}
	out.Labels = slices.Clone(g.Labels)
	for _, i := range nodes {
		out.Labels[i] = -1
	}
	return &out
}

// structuralSettings returns the registry records of the structural shifts
// at the paper's fractions, transductive and inductive.
func structuralSettings() []Setting {
	var out []Setting
	for _, inductive := range []bool{false, true} {
		for _, k := range AllStructurals {
			name, title, mode := k.String(), structuralTitles[k], "transductive"
			if inductive {
				name, title, mode = name+"_inductive", title+", inductive", "inductive"
			}
			out = append(out, Setting{Name: name, Title: title, Poisoning: true,
				Doc: fmt.Sprintf("structural shift by %v, 30/10/10%% ID, 10/40%% OOD, %s", k, mode),
				Apply: func(g *Graph, _ Split, o ShiftOptions) (*Shifted, error) {
					return ShiftStructure(g, k, PaperStructuralFractions, inductive, o.Seed)
				}})
		}
	}
	return out
}

// locSettings returns the registry records of leave-out classes: the last
// classes (the GPN code's configurations) and random classes (its
// default).
func locSettings() []Setting {
	build := func(name string, random bool) Setting {
		title, doc := "leave-out classes", "leave out the last classes (GPN configurations), poisoning"
		if random {
			title, doc = "leave-out random classes", "leave out random classes (GPN code's default), poisoning"
		}
		return Setting{Name: name, Title: title, Doc: doc, Poisoning: true, Apply: func(g *Graph, s Split, o ShiftOptions) (*Shifted, error) {
			k := o.LeftOut
			if k == 0 {
				k = max(int(math.Floor(0.45*float64(g.NumClasses))), 1)
			}
			var l *LOC
			var err error
			if random {
				l, err = LeaveOutRandomClasses(g, s, k, o.Seed)
			} else {
				l, err = LeaveOutClasses(g, s, k)
			}
			if err != nil {
				return nil, err
			}
			return &Shifted{Setting: name, Train: l.Graph, Split: l.Split, Labels: l.Labels,
				IDTest: l.IDTest, OODTest: l.OODTest,
				Views: []View{sharedView(l.Graph, l.IDTest, l.OODTest)}}, nil
		}}
	}
	return []Setting{build("loc", false), build("loc_random", true)}
}
