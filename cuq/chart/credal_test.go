package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// seriesNamed returns the data points (x, y) and item names of the series
// of the given name in a credal chart's option.
func seriesNamed(t *testing.T, c *Chart, name string) (pts [][2]float64, names []string) {
	t.Helper()
	for _, s := range c.opt.(rawOption)["series"].([]any) {
		m := s.(map[string]any)
		if m["name"] != name {
			continue
		}
		for _, d := range m["data"].([]any) {
			item := d.(map[string]any)
			v := item["value"].([]float64)
			pts = append(pts, [2]float64{v[0], v[1]})
			names = append(names, item["name"].(string))
		}
		return pts, names
	}
	return nil, nil
}

func plane(t0, t1, t2 float64) [2]float64 {
	x, y := toPlane([3]float64{t0, t1, t2})
	return [2]float64{x, y}
}

func near(a, b [2]float64) bool { return math.Abs(a[0]-b[0]) < 1e-12 && math.Abs(a[1]-b[1]) < 1e-12 }

// signedArea is positive for a counter-clockwise polygon.
func signedArea(p [][2]float64) float64 {
	var a float64
	for i := range p {
		j := (i + 1) % len(p)
		a += p[i][0]*p[j][1] - p[j][0]*p[i][1]
	}
	return a / 2
}

func TestCredalChartOfHull(t *testing.T) {
	hull, err := uq.NewHull([]float64{0.6, 0.2, 0.2}, []float64{0.2, 0.6, 0.2}, []float64{0.2, 0.2, 0.6}, []float64{0.4, 0.3, 0.3})
	if err != nil {
		t.Fatal(err)
	}
	c, err := CredalSimplex(hull).Pooled([]float64{0.35, 0.35, 0.3}).Classes("a", "b", "c").Title("hull").Done()
	if err != nil {
		t.Fatal(err)
	}
	// The inner member is not a corner of the region: the triangle of the
	// other three, counter-clockwise (area ½ · 0.4 · 0.4√3/2 in the plane).
	region, names := seriesNamed(t, c, "credal set")
	want := [][2]float64{plane(0.6, 0.2, 0.2), plane(0.2, 0.6, 0.2), plane(0.2, 0.2, 0.6)}
	if len(region) != 3 || !near(region[0], want[0]) || !near(region[1], want[1]) || !near(region[2], want[2]) {
		t.Errorf("region %v, want %v", region, want)
	}
	if a := signedArea(region); math.Abs(a-0.5*0.4*0.4*math.Sqrt(3)/2) > 1e-12 {
		t.Errorf("region area %v", a)
	}
	if !strings.Contains(names[0], "a [0.200, 0.600]") {
		t.Errorf("region tooltip %q lacks the bounds of class a", names[0])
	}
	members, mnames := seriesNamed(t, c, "members")
	if len(members) != 4 || !near(members[3], plane(0.4, 0.3, 0.3)) || mnames[3] != "member: θ = (0.400, 0.300, 0.300)" {
		t.Errorf("members %v %v", members, mnames)
	}
	if pooled, _ := seriesNamed(t, c, "pooled"); len(pooled) != 1 || !near(pooled[0], plane(0.35, 0.35, 0.3)) {
		t.Errorf("pooled %v", pooled)
	}
	if corners, cn := seriesNamed(t, c, "classes"); len(corners) != 3 || cn[2] != "c" || !near(corners[1], [2]float64{1, 0}) {
		t.Errorf("corners %v %v", corners, cn)
	}
	if opt := c.Option(); !strings.Contains(opt, "api.value(0, i)") || strings.Contains(opt, "__f__") {
		t.Errorf("renderItem not embedded as code")
	}
}

// TestCredalChartOfIDMTopThree checks an IDM of four classes drawn on its
// top three by upper bound: β = (6, 3, 1, 0), s = 4, so l = (6, 3, 1, 0)/14
// and ε = 4/14; the region is the triangle of the images of l + ε e_j for
// the three classes drawn, ((6, 3, 1) + 4 e_j)/14, the fourth vertex l
// falling inside it.
func TestCredalChartOfIDMTopThree(t *testing.T) {
	m, err := uq.NewIDM([]float64{6, 3, 1, 0}, 4)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CredalSimplex(m).Done()
	if err != nil {
		t.Fatal(err)
	}
	region, _ := seriesNamed(t, c, "credal set")
	want := [][2]float64{plane(10.0/14, 3.0/14, 1.0/14), plane(6.0/14, 7.0/14, 1.0/14), plane(6.0/14, 3.0/14, 5.0/14)}
	if len(region) != 3 {
		t.Fatalf("region %v, want the triangle %v", region, want)
	}
	for _, w := range want {
		found := false
		for _, p := range region {
			found = found || near(p, w)
		}
		if !found {
			t.Errorf("region %v lacks %v", region, w)
		}
	}
	if members, _ := seriesNamed(t, c, "members"); members != nil {
		t.Errorf("an IDM has no members, got %v", members)
	}
	sub := c.opt.(rawOption)["title"].(map[string]any)["subtext"].(string)
	if !strings.Contains(sub, "top 3 of 4 classes") || !strings.Contains(sub, "class 2 [0.071, 0.357]") {
		t.Errorf("subtitle %q", sub)
	}
	// With a pooled prediction the top three follow it.
	c, err = CredalSimplex(m).Pooled([]float64{0.1, 0.2, 0.3, 0.4}).Done()
	if err != nil {
		t.Fatal(err)
	}
	if _, cn := seriesNamed(t, c, "classes"); strings.Join(cn, ",") != "class 3,class 2,class 1" {
		t.Errorf("classes drawn %v, want 3, 2, 1", cn)
	}
}

func TestCredalOfPrediction(t *testing.T) {
	alpha, _ := tensor.FromSlice(2, 3, []float64{4, 2, 1, 1, 1, 1})
	prob, _ := tensor.FromSlice(2, 3, []float64{4.0 / 7, 2.0 / 7, 1.0 / 7, 1.0 / 3, 1.0 / 3, 1.0 / 3})
	p := &cuq.Prediction{Model: "GPN", Classes: 3, Alpha: alpha, Prob: prob}
	c, err := CredalOf(p, 0, 0).Done()
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "GPN: credal set of node 0" {
		t.Errorf("title %q", c.Title)
	}
	// β = (3, 1, 0), s = 3: l = (3, 1, 0)/7, ε = 3/7.
	region, _ := seriesNamed(t, c, "credal set")
	if len(region) != 3 || !near(region[0], plane(6.0/7, 1.0/7, 0)) {
		t.Errorf("region %v", region)
	}
	if pooled, _ := seriesNamed(t, c, "pooled"); len(pooled) != 1 || !near(pooled[0], plane(4.0/7, 2.0/7, 1.0/7)) {
		t.Errorf("pooled %v", pooled)
	}
	first := &cuq.Prediction{Model: "APPNP", Classes: 3, Prob: prob}
	two, _ := uq.NewHull([]float64{0.5, 0.5})
	for _, tc := range []struct {
		b    *CredalChart
		want string
	}{
		{CredalOf(nil, 0, 0), "nil prediction"},
		{CredalOf(first, 0, 0), "APPNP has no credal sets"},
		{CredalOf(p, 2, 0), "node 2 outside the 2 nodes"},
		{CredalSimplex(nil), "nil credal set"},
		{CredalSimplex(two), "2 classes, the simplex needs 3"},
		{CredalOf(p, 1, 0).Pooled([]float64{1}), "pooled prediction of 1 classes for a set of 3"},
		{CredalOf(p, 1, 0).Classes("x"), "1 class names for 3 classes"},
	} {
		if _, err := tc.b.Done(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestConvexHull(t *testing.T) {
	pts := [][2]float64{{0, 0}, {1, 0}, {0.5, 0}, {1, 1}, {0, 1}, {0.5, 0.5}, {1, 0}}
	got := convexHull(pts)
	want := [][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
	if len(got) != len(want) {
		t.Fatalf("hull %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("hull %v, want %v", got, want)
		}
	}
	if got := convexHull([][2]float64{{0.2, 0.1}, {0.2, 0.1}}); len(got) != 1 {
		t.Errorf("hull of a repeated point %v", got)
	}
}
