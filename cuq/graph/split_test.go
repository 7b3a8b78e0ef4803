package graph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// labelledGraph returns an edgeless graph whose class c has sizes[c] nodes,
// plus `unlabelled` nodes with label −1, in a shuffled order.
func labelledGraph(t testing.TB, sizes []int, unlabelled int) *Graph {
	var labels []int
	for c, n := range sizes {
		for range n {
			labels = append(labels, c)
		}
	}
	for range unlabelled {
		labels = append(labels, -1)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	rng.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	n := len(labels)
	adj, err := tensor.NewCSR(n, n, make([]int, n+1), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New("synthetic", adj, tensor.New(n, 1), labels, len(sizes), nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSplitSizesFollowTheFormula(t *testing.T) {
	sizes := []int{0, 1, 19, 20, 21, 100, 333}
	// Hand-computed: train ⌊0.05 n⌋, val ⌊0.15 (n−train)⌋, test ⌊0.8 (n−train−val)⌋.
	wantTrain := []int{0, 0, 0, 1, 1, 5, 16}
	wantVal := []int{0, 0, 2, 2, 3, 14, 47}
	wantTest := []int{0, 0, 13, 13, 13, 64, 216}
	g := labelledGraph(t, sizes, 7)
	for _, spec := range []SplitSpec{{}, Stratified(0.05, 0.15, 0.80).Seed(3)} {
		for k := 1; k <= 3; k++ {
			s, err := g.SplitK(spec, k)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(g.N); err != nil {
				t.Fatal(err)
			}
			for c := range sizes {
				tr, va, te := g.ClassCounts(s.Train)[c], g.ClassCounts(s.Val)[c], g.ClassCounts(s.Test)[c]
				if tr != wantTrain[c] || va != wantVal[c] || te != wantTest[c] {
					t.Errorf("%v split %d class %d (n=%d): %d/%d/%d, want %d/%d/%d",
						spec, k, c, sizes[c], tr, va, te, wantTrain[c], wantVal[c], wantTest[c])
				}
			}
			for _, i := range append(append(slices.Clone(s.Train), s.Val...), s.Test...) {
				if g.Labels[i] < 0 {
					t.Fatalf("unlabelled node %d was drawn", i)
				}
			}
		}
	}
}

func TestSplitDeterminism(t *testing.T) {
	g := labelledGraph(t, []int{60, 80, 40}, 10)
	spec := Stratified(0.1, 0.2, 0.5).Seed(7)
	all, err := g.Splits(spec, 4)
	if err != nil {
		t.Fatal(err)
	}
	third, err := g.SplitK(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !equalSplits(third, all[2]) {
		t.Error("SplitK(3) differs from the third of Splits(4)")
	}
	first, err := g.Split(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !equalSplits(first, all[0]) {
		t.Error("Split differs from SplitK(1)")
	}
	if equalSplits(all[0], all[1]) {
		t.Error("splits 1 and 2 are equal")
	}
	other, err := g.Split(spec.Seed(8))
	if err != nil {
		t.Fatal(err)
	}
	if equalSplits(first, other) {
		t.Error("seeds 7 and 8 give the same split")
	}
}

func TestSplitCoversEveryNode(t *testing.T) {
	// With one training node per class of 20, every node should be drawn for
	// training in some of 200 splits (a constant draw would fail).
	g := labelledGraph(t, []int{20}, 0)
	trained := make([]int, g.N)
	splits, err := g.Splits(SplitSpec{}, 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range splits {
		trained[s.Train[0]]++
	}
	for i, c := range trained {
		if c == 0 {
			t.Errorf("node %d never drawn for training in 200 splits", i)
		}
	}
}

func equalSplits(a, b Split) bool {
	return slices.Equal(a.Train, b.Train) && slices.Equal(a.Val, b.Val) &&
		slices.Equal(a.Test, b.Test) && slices.Equal(a.Unused, b.Unused)
}

func TestSplitSpec(t *testing.T) {
	var zero SplitSpec
	tr, va, te := zero.Fractions()
	if tr != 0.05 || va != 0.15 || te != 0.80 || zero.SeedValue() != 42 {
		t.Errorf("zero spec = %v", zero)
	}
	s := Stratified(0.1, 0.2, 0.3)
	if s.SeedValue() != 42 {
		t.Errorf("default seed %d, want 42", s.SeedValue())
	}
	if got := s.Seed(0).String(); got != "stratified 0.1/0.2/0.3 seed 0" {
		t.Errorf("String = %q", got)
	}
	g := labelledGraph(t, []int{5}, 0)
	_, err := g.Split(Stratified(0.1, 1.5, 0.3))
	assertErr(t, err, "val fraction 1.5 outside [0, 1]")
	_, err = g.SplitK(zero, 0)
	assertErr(t, err, "split number 0")
	_, err = g.Splits(zero, -1)
	assertErr(t, err, "negative split count")
}

func TestFixedSplit(t *testing.T) {
	s, err := FixedSplit([]int{4, 0}, []int{2}, []int{5, 1}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !equalSplits(s, Split{Train: []int{0, 4}, Val: []int{2}, Test: []int{1, 5}, Unused: []int{3, 6}}) {
		t.Errorf("FixedSplit = %+v", s)
	}
	if err := s.Validate(7); err != nil {
		t.Error(err)
	}
	_, err = FixedSplit([]int{0}, []int{7}, nil, 7)
	assertErr(t, err, "val node 7 outside [0, 7)")
	_, err = FixedSplit([]int{0, 3}, nil, []int{3}, 7)
	assertErr(t, err, "node 3 is in train and in test")
	_, err = FixedSplit([]int{1, 1}, nil, nil, 7)
	assertErr(t, err, "node 1 is in train and in train")
}

func TestSplitValidate(t *testing.T) {
	assertErr(t, Split{Train: []int{0}, Test: []int{0}, Unused: []int{1}}.Validate(2), "node 0 is in both train and test")
	assertErr(t, Split{Train: []int{1, 0}}.Validate(2), "train nodes not sorted")
	assertErr(t, Split{Val: []int{2}}.Validate(2), "val node 2 outside [0, 2)")
	assertErr(t, Split{Train: []int{0}}.Validate(2), "the sets hold 1 of 2 nodes")
	m := Mask(4, []int{1, 3, 9})
	if !slices.Equal(m, []bool{false, true, false, true}) {
		t.Errorf("Mask = %v", m)
	}
}

func TestSplitRejectsInvalidGraph(t *testing.T) {
	g := labelledGraph(t, []int{5}, 0)
	g.Labels[2] = 3
	_, err := g.Split(SplitSpec{})
	assertErr(t, err, "label 3 of node 2 out of range [-1, 1)")
}
