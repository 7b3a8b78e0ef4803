package graph

import "testing"

// A graph derived from another is named after it and what was done to it;
// the original keeps its name.
func TestDerivedNames(t *testing.T) {
	g, s := ringGraph(t)
	g.Name = "CiteSeer"
	g6 := featureGraph(t, []int{20, 20, 20, 20, 20, 20, 20}, 0, 4)
	g6.Name = "CiteSeer"
	s6, err := g6.Split(SplitSpec{})
	if err != nil {
		t.Fatal(err)
	}
	name := func(l *LOC, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return l.Graph.Name
	}
	for _, c := range []struct{ got, want string }{
		{name(LeaveOutClasses(g6, s6, 2)), "CiteSeer, leave-out classes 5–6"},
		{name(LeaveOutClasses(g6, s6, 1)), "CiteSeer, leave-out class 6"},
		{name(LeaveOutClassList(g6, s6, []int{6, 1, 3})), "CiteSeer, leave-out classes 1, 3, 6"},
		{name(LeaveOutClassList(g6, s6, []int{2, 3, 4})), "CiteSeer, leave-out classes 2–4"},
	} {
		if c.got != c.want {
			t.Errorf("name %q, want %q", c.got, c.want)
		}
	}
	p, err := PerturbStructure(g, s, DICE, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Graph.Name != "CiteSeer, dice" {
		t.Errorf("DICE graph named %q", p.Graph.Name)
	}
	p, err = PerturbFeatures(g, s, Bernoulli, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Graph.Name != "CiteSeer, bernoulli noise" {
		t.Errorf("noisy graph named %q", p.Graph.Name)
	}
	sh, err := ShiftStructure(g, Popularity, PaperStructuralFractions, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Train.Name != "CiteSeer, pagerank inductive" {
		t.Errorf("inductive training graph named %q", sh.Train.Name)
	}
	if g.Name != "CiteSeer" || g6.Name != "CiteSeer" {
		t.Errorf("the originals renamed: %q, %q", g.Name, g6.Name)
	}
}
