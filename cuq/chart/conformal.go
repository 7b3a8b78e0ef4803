package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/conformal"
)

// SetSizesChart builds the distribution of conformal prediction-set sizes
// of one prediction. Start it with SetSizesOf, set options, then call Done.
type SetSizesChart struct {
	pred  Conformable
	nodes []int
	opts  conformal.Options
	title string
	// given are the distributions of SetSizesOfCounts, which sets
	// counted.
	given   []SetSizeCounts
	counted bool
	// runs are the runs of SetSizesOfRuns.
	runs []Run
}

// SetSizeCounts is a distribution of conformal set sizes computed
// elsewhere: Counts[k] sets of k classes, with the empirical coverage and
// the mean set size they achieved, under a label (a score, a model).
type SetSizeCounts struct {
	Label              string
	Counts             []int
	Coverage, MeanSize float64
}

// SetSizesOfCounts starts the set-size chart of distributions computed
// elsewhere, such as the counts of several runs added up, one bar series
// per distribution, at miscoverage level alpha (for the subtitle). Its
// options other than Title have no effect.
func SetSizesOfCounts(alpha float64, dists ...SetSizeCounts) *SetSizesChart {
	return &SetSizesChart{opts: conformal.Options{Alpha: alpha}, given: dists, counted: true}
}

// SetSizesOf starts the set-size chart of p on nodes (usually the test
// nodes): split conformal prediction (see cuq.Prediction.Conformal) splits
// the nodes at random into calibration and evaluation nodes, and for each
// score a bar per set size 0, 1, …, k shows the fraction of evaluation
// nodes whose set has that many classes. The legend gives each score's
// empirical coverage and mean set size, the subtitle α, the node counts
// and each score's q̂; the tooltip the counts. At equal coverage, bars
// further left mean a more useful model or score.
func SetSizesOf(p Conformable, nodes []int) *SetSizesChart {
	return &SetSizesChart{pred: p, nodes: nodes}
}

// Alpha sets the miscoverage level α, by default conformal.DefaultAlpha
// (0.1).
func (s *SetSizesChart) Alpha(alpha float64) *SetSizesChart { s.opts.Alpha = alpha; return s }

// Scores chooses the scores; none means conformal.DefaultScores (APS,
// RAPS and DAPS), the default.
func (s *SetSizesChart) Scores(scores ...conformal.Score) *SetSizesChart {
	s.opts.Scores = scores
	return s
}

// CalibrationFraction sets the fraction of the nodes that calibrates, by
// default conformal.DefaultCalibrationFraction (½).
func (s *SetSizesChart) CalibrationFraction(f float64) *SetSizesChart {
	s.opts.CalibrationFraction = f
	return s
}

// Seed sets the seed of the split and of the randomised scores, 0 by
// default.
func (s *SetSizesChart) Seed(seed uint64) *SetSizesChart { s.opts.Seed = seed; return s }

// Title sets the title, by default "<model>: conformal set sizes".
func (s *SetSizesChart) Title(t string) *SetSizesChart { s.title = t; return s }

// setSizesTooltip lists the node counts of one set size.
const setSizesTooltip = `function (ps) {
var s = 'set size ' + ps[0].axisValue;
ps.forEach(function (p) { s += '<br/>' + p.marker + p.seriesName.split(':')[0] + ': ' + p.data.count +
(p.data.count === 1 ? ' node' : ' nodes') + ' (' + (100 * p.data.value).toFixed(1) + '%)'; });
return s;
}`

// Done returns the chart, or an error for a nil prediction or the errors
// of cuq.Prediction.Conformal.
func (s *SetSizesChart) Done() (*Chart, error) {
	dists, sub, err := s.distributions()
	if err != nil {
		return nil, err
	}
	var colors []string
	if s.runs != nil {
		if dists, colors, sub, err = s.runDistributions(); err != nil {
			return nil, err
		}
		if s.title == "" {
			s.title = "Conformal set sizes by model"
		}
	}
	title := titleOf(s.title, nameOf(s.pred), "conformal set sizes")
	classes := 0
	for _, d := range dists {
		classes = max(classes, len(d.Counts)-1)
	}
	categories := make([]string, classes+1)
	for k := range categories {
		categories[k] = strconv.Itoa(k)
	}
	series, names, top := setSizeSeries(dists, colors, classes)
	grid := map[string]any{"lineStyle": map[string]any{"color": "#eee"}}
	// The plot starts below the legend, one line per distribution.
	gridTop := max(72+22*len(dists), 62+legendHeight(len(dists))+8)
	opt := rawOption{
		"animation": false,
		"title": map[string]any{"text": title, "subtext": sub, "textStyle": map[string]any{"fontSize": 15},
			"subtextStyle": map[string]any{"lineHeight": 16}},
		"tooltip": map[string]any{"trigger": "axis", "axisPointer": map[string]any{"type": "shadow"},
			"formatter": jsFunc(setSizesTooltip)},
		"legend": map[string]any{"data": names, "orient": "vertical", "top": 62, "left": 60},
		"grid":   map[string]any{"top": gridTop, "left": 60, "right": 30, "bottom": 50},
		"xAxis": map[string]any{"type": "category", "data": categories, "name": "set size (classes)",
			"nameLocation": "middle", "nameGap": 28},
		"yAxis": map[string]any{"type": "value", "min": 0, "max": math.Ceil(float64(10*top)-1e-9) / 10,
			"name": "fraction of evaluation nodes", "nameLocation": "middle", "nameGap": 40, "splitLine": grid},
		"series": series,
	}
	return newChart(title, 680, 380+22*len(dists)+gridTop-(72+22*len(dists)), opt), nil
}

// setSizeSeries returns a bar series per distribution, of the fraction
// of its sets of each size from 0 to classes, in the colour of colors or
// else of the Palette by position; the series' names, which give the
// coverage and mean size; and the largest fraction.
func setSizeSeries(dists []SetSizeCounts, colors []string, classes int) (series []any, names []string, top float64) {
	names = make([]string, len(dists))
	for k, d := range dists {
		names[k] = fmt.Sprintf("%s: coverage %.1f%%, mean size %.2f", d.Label, 100*d.Coverage, d.MeanSize)
		n := 0
		for _, c := range d.Counts {
			n += c
		}
		data := make([]any, classes+1)
		for size, count := range d.Counts {
			f := float64(count) / float64(n)
			data[size] = map[string]any{"value": f, "count": count}
			top = max(top, f)
		}
		color := Palette[k%len(Palette)]
		if colors != nil {
			color = colors[k]
		}
		series = append(series, map[string]any{"type": "bar", "name": names[k], "data": data,
			"itemStyle": map[string]any{"color": color}})
	}
	return series, names, top
}

// titleOf returns title, or when it is empty the default what, after the
// model's name when the chart is of a prediction.
func titleOf(title, model, what string) string {
	switch {
	case title != "":
		return title
	case model != "":
		return model + ": " + what
	}
	return what
}

// nameOf returns the name of p, "" for nil.
func nameOf(p interface{ Name() string }) string {
	if isNil(p) {
		return ""
	}
	return p.Name()
}

// distributions returns the distributions to draw and the subtitle: the
// prediction's conformal sets per score, or the given counts.
func (s *SetSizesChart) distributions() ([]SetSizeCounts, string, error) {
	if s.runs != nil {
		return nil, "", nil // runDistributions draws them
	}
	if s.counted {
		if len(s.given) == 0 {
			return nil, "", fmt.Errorf("chart.SetSizesOfCounts: no distributions")
		}
		n := 0
		for _, d := range s.given {
			total := 0
			for _, c := range d.Counts {
				if c < 0 {
					return nil, "", fmt.Errorf("chart.SetSizesOfCounts: %s: negative count %d", d.Label, c)
				}
				total += c
			}
			if total == 0 {
				return nil, "", fmt.Errorf("chart.SetSizesOfCounts: %s: no sets", d.Label)
			}
			n = max(n, total)
		}
		return s.given, fmt.Sprintf("α = %g: each set holds the label with probability ≥ %g%% · up to %d evaluated nodes per series",
			s.opts.Alpha, 100*(1-s.opts.Alpha), n), nil
	}
	if isNil(s.pred) {
		return nil, "", fmt.Errorf("chart.SetSizesOf: nil prediction")
	}
	res, err := s.pred.Conformal(s.nodes, s.opts)
	if err != nil {
		return nil, "", fmt.Errorf("chart.SetSizesOf: %w", err)
	}
	dists := make([]SetSizeCounts, len(res))
	quantiles := make([]string, len(res))
	for k, r := range res {
		dists[k] = SetSizeCounts{Label: r.Score, Counts: r.SizeCounts(), Coverage: r.Coverage, MeanSize: r.MeanSize}
		quantiles[k] = r.Score + " " + strconv.FormatFloat(r.Quantile, 'g', 4, 64)
	}
	sub := fmt.Sprintf("α = %g: each set holds the label with probability ≥ %g%% · %d calibration, %d evaluation nodes\nq̂: %s",
		res[0].Alpha, 100*(1-res[0].Alpha), len(res[0].Calibration), len(res[0].Nodes), strings.Join(quantiles, " · "))
	return dists, sub, nil
}
