package explore

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func TestSpecRoundTrip(t *testing.T) {
	for _, e := range []Explorer{
		Dirichlet().Alpha(2, 0.5, 9.04).Max(30),
		Pooling().Node(0, 1, -1).Node(2, 2.6, -1.5).Weights(0.5, 0),
		Degree().Side(7).MaxSide(20).EdgesPerNode(3).Spread(0.25).Seed(9).RandomWalk(),
	} {
		if err := e.Err(); err != nil {
			t.Fatal(err)
		}
		s, err := Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		if d.Kind() != e.Kind() {
			t.Errorf("%s came back as %s", e.Kind(), d.Kind())
		}
		want, got := e.Controls(), d.Controls()
		for i := range want {
			if want[i].Value != got[i].Value || want[i].Max != got[i].Max || want[i].Key != got[i].Key {
				t.Errorf("%s control %d: %+v after the round trip, want %+v", e.Kind(), i, got[i], want[i])
			}
		}
	}
	// The settings made: α rounded to 0.1, seed and m kept.
	d, _ := Decode(must(Encode(Dirichlet().Alpha(2, 0.5, 9.04))))
	if v := Start(d); v[2] != 9 {
		t.Errorf("α2 = 9.04 starts at %v, want 9 (rounded to the step)", v[2])
	}
	g, _ := Decode(must(Encode(Degree().EdgesPerNode(3).Seed(9))))
	if c := g.(*DegreeExplorer).cfg; c.M != 3 || c.Seed != 9 {
		t.Errorf("degree config after the round trip: %+v", c)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

func TestSettingErrors(t *testing.T) {
	for _, c := range []struct {
		e    Explorer
		want string
	}{
		{Dirichlet().Alpha(0, 1, 1), "α[0] = 0"},
		{Dirichlet().Max(0.5), "slider maximum 0.5"},
		{Dirichlet().Alpha(25, 1, 1), "α[0] = 25"},
		{Pooling().Node(3, 0, 0), "node 3"},
		{Pooling().Node(1, 6.5, 0), "node 1 coordinate 0 = 6.5"},
		{Pooling().Weights(1, -1), "weight of edge i–2 = -1"},
		{Degree().Side(3), "side 3"},
		{Degree().MaxSide(41), "largest side 41"},
		{Degree().EdgesPerNode(0), "0 Barabási–Albert edges"},
		{Degree().Spread(math.NaN()), "σ = NaN"},
	} {
		err := c.e.Err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.e.Kind(), err, c.want)
		}
		if _, err := Encode(c.e); err == nil {
			t.Errorf("%s: Encode accepted an invalid explorer", c.e.Kind())
		}
		if _, err := Fallback(c.e); err == nil {
			t.Errorf("%s: Fallback accepted an invalid explorer", c.e.Kind())
		}
	}
	for _, c := range []struct{ spec, want string }{
		{`{`, "unexpected end"},
		{`{"kind":"sankey"}`, `unknown explorer kind "sankey"`},
		{`{"kind":"degree","config":{"side":12,"sides":3}}`, `unknown field "sides"`},
		{`{"kind":"degree","config":{"side":99}}`, "side 99"},
		{`{"kind":"pooling","config":{"w":[1,4]}}`, "weight of edge i–2 = 4"},
	} {
		if _, err := Decode(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%s): error %v, want %q", c.spec, err, c.want)
		}
	}
	if _, err := Encode(nil); err == nil {
		t.Error("Encode(nil) gave no error")
	}
}

func TestViewRejectsValues(t *testing.T) {
	for _, c := range []struct {
		e      Explorer
		values []float64
		want   string
	}{
		{Dirichlet(), []float64{1, 1}, "2 values for 3 controls"},
		{Dirichlet(), []float64{1, 1, 0}, "alpha2 = 0, want a value in [0.1, 20]"},
		{Dirichlet(), []float64{1, math.NaN(), 1}, "alpha1 = NaN"},
		{Pooling(), []float64{0, 0, 0, 0, 0, 0, 1, 3.5}, "w2 = 3.5"},
		{Degree(), []float64{12.5, 0}, "side = 12.5, want a whole number"},
		{Degree(), []float64{12, 2}, "norm = 2, want the index of one of 2 choices"},
		{Degree(), []float64{12, 0.5}, "norm = 0.5"},
	} {
		if _, err := c.e.View(c.values); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s.View(%v): error %v, want %q", c.e.Kind(), c.values, err, c.want)
		}
	}
}

func TestDirichletView(t *testing.T) {
	alpha := []float64{0.5, 7.3, 12}
	v, err := Dirichlet().View(alpha)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := uq.Dirichlet(alpha, 3)
	cells := v.Cells()
	for key, want := range map[string]float64{"alpha0": 19.8, "TU": ms.TU[0], "AU": ms.AU[0], "EU": ms.EU[0],
		"EU_PC": -19.8, "EU_SO": uq.DirichletEntropy(alpha), "LC": 1 - 12/19.8} {
		if got := cells[key].Value; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if want := fmt.Sprintf("%.4f", ms.TU[0]); cells["TU"].Text != want {
		t.Errorf("TU shows %q, want %q", cells["TU"].Text, want)
	}
	if got := cells["mean"].Text; got != "(0.025, 0.369, 0.606)" {
		t.Errorf("mean shows %q, want (0.025, 0.369, 0.606)", got)
	}
	if b := v.Picture.Bounds(); b.Dx() != 300 || b.Dy() != 326 {
		t.Errorf("picture %v, want 300×326", b)
	}
}

// TestPoolingView checks the starting view against the numbers the
// teaching notebook states for its conflict node, and the axioms' verdicts
// in settings where they are known.
func TestPoolingView(t *testing.T) {
	e := Pooling()
	v, err := e.View(Start(e))
	if err != nil {
		t.Fatal(err)
	}
	cells := v.Cells()
	for key, want := range map[string]string{
		"alone.EU": "0.2331", "loglinear.AU": "0.8613", "loglinear.EU": "0.0782",
		"linear.AU": "0.6049", "linear.EU": "0.4404", "behavioural.EU": "0.2160", "behavioural.EU_PC": "-3.85",
		// Weights: PPR over D⁻¹(A+I) of the star, the two neighbours alike.
		"pi1": "0.2609", "pi2": "0.2609",
		// Neighbour 1 leans to class 0, 2 to class 1: a conflict. Node i
		// at the centre of the triangle leans nowhere.
		"n1.class": "0", "n2.class": "1", "n0.class": "none (tie)",
		// A2: the confident neighbours lower EU for GPN and CUQ; the
		// mixture raises it.
		"loglinear.A2": "holds", "linear.A2": "breaks", "behavioural.A2": "holds",
		// A3: GPN's AU rises with the conflict; the mixture's AU is the
		// same whether the neighbours agree or not (symmetric components).
		"loglinear.A3": "holds", "linear.A3": "breaks", "behavioural.A3": "holds",
		"alone.A2": "—",
	} {
		if got := cells[key].Text; got != want {
			t.Errorf("%s shows %q, want %q", key, got, want)
		}
	}
	if math.Abs(cells["pi0"].Value+2*cells["pi1"].Value-1) > 1e-12 {
		t.Errorf("Π's row sums to %v, want 1", cells["pi0"].Value+2*cells["pi1"].Value)
	}
	if len(cells) != 3*4+4*8 {
		t.Errorf("%d cells, want 44", len(cells))
	}

	// Neighbour 2 moved onto class 0 (no conflict: A3 does not apply);
	// edge i–1 cut (neighbour 1 drops out of the committee).
	m := e.cfg.Z[1]
	vals := Start(e)
	vals[4], vals[5], vals[6] = m[0], m[1], 0
	v, err = e.View(vals)
	if err != nil {
		t.Fatal(err)
	}
	cells = v.Cells()
	if cells["pi1"].Value != 0 || cells["loglinear.A3"].Text != "n/a" || cells["loglinear.A2"].Text != "holds" {
		t.Errorf("edge i–1 cut, neighbours agreeing: Π_i1 = %v, A3 %q (want n/a), A2 %q (want holds)",
			cells["pi1"].Value, cells["loglinear.A3"].Text, cells["loglinear.A2"].Text)
	}
	// Node i confident at class 2's mean, neighbours far away: no
	// neighbour has a lower EU, so A2 does not apply.
	vals = []float64{2.6, -1.5, -6, 6, 6, 6, 1, 1}
	v, _ = e.View(vals)
	if got := v.Cells()["loglinear.A2"].Text; got != "n/a" {
		t.Errorf("A2 with only vaguer neighbours: %q, want n/a", got)
	}
}

// TestDegreeViewEverySetting draws the degree explorer at every slider
// position under both normalisations: none fails, the lattice's degrees
// stay at most 4, the Barabási–Albert graph's largest degree grows.
func TestDegreeViewEverySetting(t *testing.T) {
	e := Degree()
	if testing.Short() {
		e.MaxSide(12)
	}
	var prevMax float64
	for s := minSide; s <= e.cfg.MaxSide; s++ {
		for norm := range norms {
			v, err := e.View([]float64{float64(s), float64(norm)})
			if err != nil {
				t.Fatalf("side %d, norm %d: %v", s, norm, err)
			}
			c := v.Cells()
			if c["lattice.nodes"].Value != float64(s*s) || c["ba.nodes"].Value != float64(s*s) {
				t.Errorf("side %d: %v and %v nodes, want %d", s, c["lattice.nodes"].Value, c["ba.nodes"].Value, s*s)
			}
			if d := c["lattice.maxdeg"].Value; d != 4 {
				t.Errorf("side %d: lattice max degree %v, want 4", s, d)
			}
			if s == minSide && norm == 0 {
				prevMax = c["ba.maxdeg"].Value
			}
			// Hub degrees grow like √N: ask for half of that growth.
			if grow := 0.5 * float64(s) / float64(minSide); s == e.cfg.MaxSide && norm == 0 && c["ba.maxdeg"].Value < grow*prevMax {
				t.Errorf("Barabási–Albert max degree %v at %d nodes, %v at %d: want at least %.1f times", c["ba.maxdeg"].Value, s*s, prevMax, minSide*minSide, grow)
			}
			for _, k := range []string{"lattice", "ba"} {
				for _, m := range []string{"gpn.AU", "gpn.EU", "cuq.AU", "cuq.EU"} {
					x := c[k+"."+m]
					if !math.IsNaN(x.Value) && !(x.Value >= 0 && x.Value <= math.Log(3)) {
						t.Errorf("side %d: %s.%s = %v outside [0, ln 3]", s, k, m, x.Value)
					}
				}
			}
		}
	}
}

func TestFallback(t *testing.T) {
	for _, e := range []Explorer{Dirichlet(), Pooling(), Degree()} {
		img, err := Fallback(e)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := e.View(Start(e))
		lines := 0
		for _, tb := range v.Tables {
			lines += 2 + len(tb.Rows) + 1 // blank, caption, header, rows
		}
		pic := v.Picture.Bounds()
		if b := img.Bounds(); b.Dx() < pic.Dx() || b.Dy() != lineHeight+8+pic.Dy()+lines*lineHeight+6 {
			t.Errorf("%s: fallback %v for a %v picture and %d lines of tables", e.Kind(), b, pic, lines)
		}
		// The view's picture is copied below the title unchanged.
		for _, p := range [][2]int{{pic.Dx() / 2, pic.Dy() / 2}, {10, 20}} {
			if got, want := img.RGBAAt(p[0], p[1]+lineHeight+8), v.Picture.RGBAAt(p[0], p[1]); got != want {
				t.Errorf("%s: fallback pixel %v = %v, the view's %v", e.Kind(), p, got, want)
			}
		}
	}
	if _, err := Fallback(nil); err == nil {
		t.Error("Fallback(nil) gave no error")
	}
}

func TestTableText(t *testing.T) {
	tb := Table{Caption: "Π and α, θ̄ ≈ ∞", Columns: []string{"", "a", "long column"},
		Rows: []Row{{Label: "Barabási–Albert", Cells: []Cell{num("x", "%.1f", 2.25), text("y", "—")}}}}
	got := tableLines(tb)
	want := []string{"Pi and a, theta ~ ?", strings.Repeat(" ", 19) + "a  long column", "Barabasi-Albert  2.2            -"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tableLines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h := TablesHTML(&View{Tables: []Table{tb}})
	for _, s := range []string{`<caption>Π and α, θ̄ ≈ ∞</caption>`, `<td data-key="x" data-value="2.25">2.2</td>`, `<td data-key="y">—</td>`} {
		if !strings.Contains(h, s) {
			t.Errorf("TablesHTML lacks %s:\n%s", s, h)
		}
	}
	if got := TablesHTML(&View{Tables: []Table{{Caption: "<b>&"}}}); !strings.Contains(got, "&lt;b&gt;&amp;") {
		t.Errorf("caption not escaped: %s", got)
	}
}
