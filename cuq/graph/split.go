package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Split partitions the nodes of a graph into training, validation and test
// nodes; Unused holds the rest (unlabelled nodes and the labelled nodes no
// set drew). Each slice is sorted and the four are disjoint.
type Split struct {
	Train, Val, Test, Unused []int
}

// Validate checks that the four sets are sorted, duplicate free, within
// [0, n) and disjoint, and that together they cover every node.
func (s Split) Validate(n int) error {
	seen := make([]string, n)
	total := 0
	for _, set := range []struct {
		name string
		idx  []int
	}{{"train", s.Train}, {"val", s.Val}, {"test", s.Test}, {"unused", s.Unused}} {
		for k, i := range set.idx {
			if i < 0 || i >= n {
				return fmt.Errorf("graph.Split: %s node %d outside [0, %d)", set.name, i, n)
			}
			if k > 0 && i <= set.idx[k-1] {
				return fmt.Errorf("graph.Split: %s nodes not sorted or repeated at %d", set.name, i)
			}
			if seen[i] != "" {
				return fmt.Errorf("graph.Split: node %d is in both %s and %s", i, seen[i], set.name)
			}
			seen[i] = set.name
		}
		total += len(set.idx)
	}
	if total != n {
		return fmt.Errorf("graph.Split: the sets hold %d of %d nodes", total, n)
	}
	return nil
}

// Mask returns the indicator of idx over n nodes. Indices outside [0, n) are
// ignored.
func Mask(n int, idx []int) []bool {
	m := make([]bool, n)
	for _, i := range idx {
		if i >= 0 && i < n {
			m[i] = true
		}
	}
	return m
}

// FixedSplit builds a split from given train, validation and test node sets
// (for example OGBN Arxiv's official split); every other node is Unused. The
// inputs are copied and sorted; an index outside [0, n) or a node in two sets
// (or twice in one) is an error.
func FixedSplit(train, val, test []int, n int) (Split, error) {
	if n < 0 {
		return Split{}, fmt.Errorf("graph.FixedSplit: negative node count %d", n)
	}
	owner := make([]int8, n)
	names := []string{"", "train", "val", "test"}
	sets := [][]int{train, val, test}
	out := make([][]int, 3)
	for s, idx := range sets {
		out[s] = make([]int, 0, len(idx))
		for _, i := range idx {
			if i < 0 || i >= n {
				return Split{}, fmt.Errorf("graph.FixedSplit: %s node %d outside [0, %d)", names[s+1], i, n)
			}
			if owner[i] != 0 {
				return Split{}, fmt.Errorf("graph.FixedSplit: node %d is in %s and in %s", i, names[owner[i]], names[s+1])
			}
			owner[i] = int8(s + 1)
			out[s] = append(out[s], i)
		}
		slices.Sort(out[s])
	}
	var unused []int
	for i, o := range owner {
		if o == 0 {
			unused = append(unused, i)
		}
	}
	return Split{Train: out[0], Val: out[1], Test: out[2], Unused: unused}, nil
}

// SplitSpec describes a class-stratified random split: the three fractions
// and the seed. Build one with Stratified and Seed. The zero SplitSpec is the
// paper's: fractions 0.05 / 0.15 / 0.80, seed 42.
type SplitSpec struct {
	train, val, test float64
	seed             uint64
	fracSet, seedSet bool
}

// DefaultSeed is the seed of the reference experiments.
const DefaultSeed = 42

// Stratified returns a spec with the given fractions and seed 42. The
// fractions apply to what remains of each class (see Graph.SplitK), so they
// need not sum to 1; each must lie in [0, 1].
func Stratified(train, val, test float64) SplitSpec {
	return SplitSpec{train: train, val: val, test: test, fracSet: true}
}

// Seed returns the spec with the given seed.
func (s SplitSpec) Seed(seed uint64) SplitSpec {
	s.seed, s.seedSet = seed, true
	return s
}

// Fractions returns the train, validation and test fractions.
func (s SplitSpec) Fractions() (train, val, test float64) {
	if !s.fracSet {
		return 0.05, 0.15, 0.80
	}
	return s.train, s.val, s.test
}

// SeedValue returns the seed.
func (s SplitSpec) SeedValue() uint64 {
	if !s.seedSet {
		return DefaultSeed
	}
	return s.seed
}

// String formats the spec, e.g. "stratified 0.05/0.15/0.8 seed 42".
func (s SplitSpec) String() string {
	tr, va, te := s.Fractions()
	return fmt.Sprintf("stratified %g/%g/%g seed %d", tr, va, te, s.SeedValue())
}

func (s SplitSpec) validate() error {
	tr, va, te := s.Fractions()
	for _, f := range []struct {
		name string
		v    float64
	}{{"train", tr}, {"val", va}, {"test", te}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("%s fraction %v outside [0, 1]", f.name, f.v)
		}
	}
	return nil
}

// Split returns split number 1 of spec; see SplitK.
func (g *Graph) Split(spec SplitSpec) (Split, error) { return g.SplitK(spec, 1) }

// SplitK draws split number k ≥ 1 of spec, as the reference does for each
// class c = 0, …, C−1 in turn with n_c labelled nodes:
//
//	train_c = ⌊f_train · n_c⌋ nodes drawn without replacement from class c,
//	val_c   = ⌊f_val · (n_c − train_c)⌋ drawn from the remaining ones,
//	test_c  = ⌊f_test · (n_c − train_c − val_c)⌋ drawn from what is left,
//
// and the rest of the class is Unused, as are unlabelled nodes. With the
// default 0.05 / 0.15 / 0.80 about 64.6% of the nodes are test nodes and
// 15–16% are unused. With these fractions a class of fewer than 20 nodes gets
// no training node; this is allowed (its prior is then 0, as in the
// reference).
//
// The reference seeds numpy once and uses the k-th of the splits drawn in
// sequence. Here split k is drawn from its own PCG stream seeded with
// (seed, k) (math/rand/v2), so SplitK(spec, k) needs no earlier draws and
// equals the k-th element of Splits. The draws follow numpy's structure but
// not its random stream: the per-class set sizes match the reference, the
// node sets do not.
func (g *Graph) SplitK(spec SplitSpec, k int) (Split, error) {
	if err := spec.validate(); err != nil {
		return Split{}, fmt.Errorf("graph %q: split: %v", g.Name, err)
	}
	if k < 1 {
		return Split{}, fmt.Errorf("graph %q: split number %d, want ≥ 1", g.Name, k)
	}
	if err := g.Validate(); err != nil {
		return Split{}, fmt.Errorf("split: %v", err)
	}
	byClass := make([][]int, g.NumClasses)
	for i, y := range g.Labels {
		if y >= 0 {
			byClass[y] = append(byClass[y], i)
		}
	}
	ftr, fva, fte := spec.Fractions()
	rng := rand.New(rand.NewPCG(spec.SeedValue(), uint64(k)))
	var s Split
	for _, nodes := range byClass {
		n := len(nodes)
		tr := int(ftr * float64(n))
		va := int(fva * float64(n-tr))
		te := int(fte * float64(n-tr-va))
		// Partial Fisher–Yates: the first tr+va+te positions become a
		// uniform draw without replacement, in draw order.
		for p := 0; p < tr+va+te; p++ {
			q := p + rng.IntN(n-p)
			nodes[p], nodes[q] = nodes[q], nodes[p]
		}
		s.Train = append(s.Train, nodes[:tr]...)
		s.Val = append(s.Val, nodes[tr:tr+va]...)
		s.Test = append(s.Test, nodes[tr+va:tr+va+te]...)
	}
	slices.Sort(s.Train)
	slices.Sort(s.Val)
	slices.Sort(s.Test)
	s.Unused = complement(g.N, s.Train, s.Val, s.Test)
	return s, nil
}

// Splits returns splits 1, …, count of spec.
func (g *Graph) Splits(spec SplitSpec, count int) ([]Split, error) {
	if count < 0 {
		return nil, fmt.Errorf("graph %q: negative split count %d", g.Name, count)
	}
	out := make([]Split, count)
	for k := range out {
		var err error
		if out[k], err = g.SplitK(spec, k+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// complement returns the sorted nodes of [0, n) in none of the sets.
func complement(n int, sets ...[]int) []int {
	in := make([]bool, n)
	for _, set := range sets {
		for _, i := range set {
			in[i] = true
		}
	}
	var out []int
	for i, b := range in {
		if !b {
			out = append(out, i)
		}
	}
	return out
}
