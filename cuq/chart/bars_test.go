package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestBars checks labels, values, shares and the total, and bars named by
// their index.
func TestBars(t *testing.T) {
	c, opt := optionOf(t, Bars("classes", []string{"a", "b", "c"}, []int{1, 3, 0}).XName("class").YName("nodes"))
	s := series(t, opt)
	if len(s) != 1 || s[0]["type"] != "bar" {
		t.Fatalf("series %v", s)
	}
	want := []map[string]any{{"name": "a", "value": 1.0, "share": 0.25}, {"name": "b", "value": 3.0, "share": 0.75},
		{"name": "c", "value": 0.0, "share": 0.0}}
	if got := s[0]["data"].([]any); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("bars %v, want %v", got, want)
	}
	x, y := opt["xAxis"].(map[string]any), opt["yAxis"].(map[string]any)
	if fmt.Sprint(x["data"]) != "[a b c]" || x["name"] != "class" || y["name"] != "nodes" {
		t.Errorf("axes %v %v", x, y)
	}
	if sub := subtitle(opt); sub != "total 4" {
		t.Errorf("subtitle %q", sub)
	}
	if !strings.Contains(c.Option(), `"formatter":function (p)`) {
		t.Errorf("tooltip not embedded as code")
	}
	// Without labels the bars are numbered; a negative value drops shares
	// and the total.
	_, opt = optionOf(t, Bars("signed", nil, []float64{2, -1}))
	if got := series(t, opt)[0]["data"].([]any); fmt.Sprint(got) != "[map[name:0 value:2] map[name:1 value:-1]]" {
		t.Errorf("signed bars %v", got)
	}
	if sub := subtitle(opt); sub != "" {
		t.Errorf("signed subtitle %q", sub)
	}
}

func TestBarsErrors(t *testing.T) {
	for _, c := range []struct {
		b    *BarsChart
		want string
	}{
		{Bars("e", nil, []int{}), `chart.Bars "e": no values`},
		{Bars("e", []string{"a"}, []int{1, 2}), `chart.Bars "e": 1 labels for 2 values`},
		{Bars("e", []string{"a", "b"}, []float64{1, math.NaN()}), `chart.Bars "e": value 1 (b) is NaN`},
		{nil, `chart.Bars: nil builder`},
	} {
		if _, err := c.b.Done(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
