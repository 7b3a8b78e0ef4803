package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/scripts/replica"
)

// collapsed tells whether r ended with a validation accuracy near chance
// (eval.Collapsed, the rule the grid's records follow).
func collapsed(r *Run) bool { return eval.Collapsed(r.ValAccuracy, r.Chance) }

// earlyEpochs are the main epochs at which summarise asks whether the
// validation loss so far predicts a collapse.
var earlyEpochs = []int{20, 40, 60, 80, 100}

// group is the runs of one setting on one side.
type group struct{ setting, side string }

// summarise writes, per setting and side, the collapse rate with its 95%
// Wilson interval, the accuracies with and without the collapsed runs,
// the comparison of the sides' rates (Fisher's exact test), the agreement
// of cuqgnn's runs with the replica's on the same masks, and how well the
// validation loss of the first epochs predicts a collapse (AUROC).
func summarise(w io.Writer, runs []*Run) error {
	groups := map[group][]*Run{}
	for _, r := range runs {
		g := group{r.Setting, r.Side}
		groups[g] = append(groups[g], r)
	}
	keys := slices.Collect(maps.Keys(groups))
	order := func(v string, list []string) int { return slices.Index(list, v) }
	slices.SortFunc(keys, func(a, b group) int {
		return cmp.Or(cmp.Compare(order(a.setting, settings), order(b.setting, settings)), cmp.Compare(order(a.side, sides), order(b.side, sides)))
	})
	if err := rates(w, groups, keys); err != nil {
		return err
	}
	if err := compareSides(w, groups); err != nil {
		return err
	}
	predictability(w, groups, keys)
	return nil
}

// rates writes the collapse rate and the accuracies of every group.
func rates(w io.Writer, groups map[group][]*Run, keys []group) error {
	fmt.Fprintf(w, "A run collapsed: validation accuracy below chance + %g·(1 − chance).\n\n", eval.CollapseMargin)
	fmt.Fprintln(w, "| setting | side | runs | collapsed | rate (95% CI) | test acc, all | test acc, not collapsed | test acc, collapsed | chance |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, g := range keys {
		rs := groups[g]
		var all, kept, lost []float64
		for _, r := range rs {
			all = append(all, r.TestAccuracy)
			if collapsed(r) {
				lost = append(lost, r.TestAccuracy)
			} else {
				kept = append(kept, r.TestAccuracy)
			}
		}
		lo, hi, err := replica.Wilson(len(lost), len(rs), 0.05)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.1f%% (%.1f–%.1f) | %s | %s | %s | %.1f |\n", g.setting, g.side, len(rs), len(lost),
			100*float64(len(lost))/float64(len(rs)), 100*lo, 100*hi, meanSE(all), meanSE(kept), meanSE(lost), 100*rs[0].Chance)
	}
	fmt.Fprintln(w)
	// The lowest runs show where the boundary falls among them.
	for _, g := range keys {
		var acc []float64
		for _, r := range groups[g] {
			acc = append(acc, r.ValAccuracy)
		}
		slices.Sort(acc)
		fmt.Fprintf(w, "%s, %s: lowest validation accuracies", g.setting, g.side)
		for _, a := range acc[:min(lowest, len(acc))] {
			fmt.Fprintf(w, " %.1f", 100*a)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	return nil
}

// lowest is how many of a group's lowest validation accuracies rates
// lists.
const lowest = 8

// compareSides writes, per setting, Fisher's exact test of cuqgnn's
// collapse rate against the replica's with torch's masks, and how the
// replica ends on cuqgnn's masks.
func compareSides(w io.Writer, groups map[group][]*Run) error {
	for _, setting := range settings {
		a, b := groups[group{setting, "cuqgnn"}], groups[group{setting, "torch"}]
		if len(a) > 0 && len(b) > 0 {
			ka, kb := count(a), count(b)
			p, err := replica.FisherExact(ka, len(a)-ka, kb, len(b)-kb)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s: cuqgnn %d of %d collapsed, the replica with torch's masks %d of %d; Fisher's exact test p = %.3g.\n",
				setting, ka, len(a), kb, len(b), p)
		}
		if line := sameMasks(a, groups[group{setting, "masks"}]); line != "" {
			fmt.Fprintf(w, "%s: %s\n", setting, line)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// predictability writes, per group, the AUROC with which the validation
// loss of the first epochs tells the collapsed runs from the others.
func predictability(w io.Writer, groups map[group][]*Run, keys []group) {
	fmt.Fprintln(w, "Does the validation cross entropy of the first main epochs predict a collapse? AUROC of the collapsed runs against the others,")
	fmt.Fprintln(w, "scored by the loss at epoch E (level) and by its rise above the lowest loss up to E (rise); runs that ended before E keep their last loss.")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| setting | side | collapsed / runs |")
	for _, e := range earlyEpochs {
		fmt.Fprintf(w, " level at %d | rise at %d |", e, e)
	}
	fmt.Fprint(w, "\n|---|---|---|")
	for range earlyEpochs {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w)
	for _, g := range keys {
		rs := groups[g]
		fmt.Fprintf(w, "| %s | %s | %d / %d |", g.setting, g.side, count(rs), len(rs))
		for _, e := range earlyEpochs {
			for _, score := range []func(*Run, int) float64{levelAt, riseAt} {
				var healthy, bad []float64
				for _, r := range rs {
					if collapsed(r) {
						bad = append(bad, score(r, e))
					} else {
						healthy = append(healthy, score(r, e))
					}
				}
				if auc, err := eval.AUROC(healthy, bad); err == nil {
					fmt.Fprintf(w, " %.2f |", auc)
				} else {
					fmt.Fprint(w, " – |")
				}
			}
		}
		fmt.Fprintln(w)
	}
}

// count returns the number of collapsed runs.
func count(rs []*Run) int {
	k := 0
	for _, r := range rs {
		if collapsed(r) {
			k++
		}
	}
	return k
}

// sameMasks compares cuqgnn's runs with the replica's trained on the same
// dropout masks: how many end alike (same collapse verdict, same best
// epoch), among them how many of cuqgnn's collapses.
func sameMasks(ours, theirs []*Run) string {
	byRun := map[int]*Run{}
	for _, r := range ours {
		byRun[r.Run] = r
	}
	var pairs, sameVerdict, sameBest, collapses, collapsesAlike int
	for _, t := range theirs {
		o := byRun[t.Run]
		if o == nil {
			continue
		}
		pairs++
		if collapsed(o) == collapsed(t) {
			sameVerdict++
		}
		if o.BestEpoch == t.BestEpoch {
			sameBest++
		}
		if collapsed(o) {
			collapses++
			if collapsed(t) {
				collapsesAlike++
			}
		}
	}
	if pairs == 0 {
		return ""
	}
	return fmt.Sprintf("on cuqgnn's masks the replica (float32) reaches the same verdict in %d of %d runs and the same best epoch in %d; of cuqgnn's %d collapses it repeats %d.",
		sameVerdict, pairs, sameBest, collapses, collapsesAlike)
}

// levelAt returns the validation loss at main epoch e (the last one when
// the run ended before e).
func levelAt(r *Run, e int) float64 {
	ce := finite(r.ValCE[:min(e, len(r.ValCE))])
	if len(ce) == 0 {
		return math.Inf(1)
	}
	return ce[len(ce)-1]
}

// riseAt returns how far the validation loss at main epoch e lies above
// its lowest value up to e.
func riseAt(r *Run, e int) float64 {
	ce := finite(r.ValCE[:min(e, len(r.ValCE))])
	if len(ce) == 0 {
		return math.Inf(1)
	}
	return ce[len(ce)-1] - slices.Min(ce)
}

// finite returns the finite values, in order.
func finite(v []*float64) []float64 {
	var out []float64
	for _, x := range v {
		if x != nil {
			out = append(out, *x)
		}
	}
	return out
}

// meanSE formats the mean and standard error of v in percent.
func meanSE(v []float64) string {
	switch len(v) {
	case 0:
		return "–"
	case 1:
		return fmt.Sprintf("%.1f", 100*v[0])
	}
	m, s := stat.MeanStdDev(v, nil)
	return fmt.Sprintf("%.1f ± %.1f", 100*m, 100*stat.StdErr(s, float64(len(v))))
}
