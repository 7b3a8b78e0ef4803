package experiment

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
	"github.com/cuqgnn/cuqgnn/experiment/reftables"
)

// idoodMeasures maps the AUROC columns of id_ood.csv to measures: Total
// and Aleatoric are max-prob (LC), TotalEntropy TU, AleatoricEntropy AU,
// Epistemic α0 (EU_PC), EpistemicEntropy EU_SO, EpistemicEntropyDiff EU.
var idoodMeasures = map[reftables.SettingMetric]uq.Measure{
	reftables.OODTotal: uq.LC, reftables.OODTotalEntropy: uq.TU, reftables.OODAleatoric: uq.LC,
	reftables.OODAleatoricEntropy: uq.AU, reftables.OODEpistemic: uq.EUPC,
	reftables.OODEpistemicEntropy: uq.EUSO, reftables.OODEpistemicEntropyDiff: uq.EU,
}

// changeMeasures are the measures of the Change columns, in order.
var changeMeasures = [reftables.NumChanges]uq.Measure{uq.TU, uq.AU, uq.EUSO, uq.EU}

// oodSettings are the settings of id_ood.csv's column groups.
var oodSettings = [reftables.NumOODSettings]Setting{LeaveOutClasses, GaussianNoise, BernoulliNoise}

// metric aggregates one number over results; results where get reports
// false (a measure the model lacks) are left out.
func metric(rs []*Result, get func(*Result) (float64, bool)) reftables.Metric {
	var v []float64
	for _, r := range rs {
		if x, ok := get(r); ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return reftables.Metric{}
	}
	st := eval.Aggregate(v, 0)
	return reftables.Metric{Value: reftables.Some(st.Mean), SE: reftables.Opt{Value: st.SE, Valid: !math.IsNaN(st.SE)}}
}

// settingResult aggregates the results of one OOD setting into its
// id_ood.csv columns.
func settingResult(rs []*Result) reftables.SettingResult {
	var sr reftables.SettingResult
	sr.Metrics[reftables.IDAcc] = metric(rs, func(r *Result) (float64, bool) { return deref(r.IDAccuracy) })
	sr.Metrics[reftables.OODAcc] = metric(rs, func(r *Result) (float64, bool) { return deref(r.OODAccuracy) })
	for col, m := range idoodMeasures {
		sr.Metrics[col] = metric(rs, func(r *Result) (float64, bool) {
			v, ok := r.AUROC[m.String()]
			return v, ok
		})
	}
	for k, m := range changeMeasures {
		id := metric(rs, func(r *Result) (float64, bool) { v, ok := r.IDMean[m.String()]; return v, ok })
		ood := metric(rs, func(r *Result) (float64, bool) { v, ok := r.OODMean[m.String()]; return v, ok })
		if id.Value.Valid && ood.Value.Valid {
			if c, ok := eval.Change(id.Value.Value, ood.Value.Value); ok {
				sr.Changes[k] = reftables.Some(c)
			}
		}
	}
	return sr
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// accRejTypes are the reference's acc_rej table types with the curves they
// use, the first one a model has. The reference's
// "prediction" type asks for a total measure that never exists and falls
// back to α_ŷ, then to max-prob. For a first-order model the reference's
// aleatoric entropy is the entropy of the softmax, its TU.
var accRejTypes = []struct {
	name string
	keys []string
}{
	{"sample", []string{"EU_PC", "LC"}},
	{"prediction", []string{PredictedAlpha, "LC"}},
	{"sample_total", []string{"LC"}},
	{"sample_total_entropy", []string{"TU"}},
	{"sample_aleatoric", []string{"LC"}},
	{"sample_aleatoric_entropy", []string{"AU", "TU"}},
	{"sample_epistemic", []string{"EU_PC"}},
	{"sample_epistemic_entropy", []string{"EU_SO"}},
	{"sample_epistemic_entropy_diff", []string{"EU"}},
	{"prediction_aleatoric", []string{"LC"}},
	{"prediction_epistemic", []string{PredictedAlpha}},
}

// WriteTables writes, under dir/tables:
//
//   - id_ood.csv: the reference's table of accuracies, OOD AUROCs and
//     uncertainty changes (reftables.WriteIDOOD), one row per dataset and
//     model;
//   - id_ood.md: the same numbers as Markdown
//     (reftables.WriteIDOODMarkdown);
//   - acc_rej_<type>_<dataset>.csv: the mean, variance and SE of each
//     model's accuracy-rejection curve for each reference type (sample,
//     prediction, sample_total, sample_total_entropy, sample_aleatoric,
//     sample_aleatoric_entropy, sample_epistemic, sample_epistemic_entropy,
//     sample_epistemic_entropy_diff, prediction_aleatoric,
//     prediction_epistemic) with at least one curve, as reftables.WriteAccRej;
//   - extended.csv and extended.md: the metrics beyond the paper, of every
//     model including the committees and of every setting including the
//     extended ones, when the records carry them (WriteExtendedTables).
//
// The reference's tables hold the paper's models and settings only. Files
// are written atomically.
func (res *Results) WriteTables(dir string) error {
	tables := filepath.Join(dir, "tables")
	var b bytes.Buffer
	if err := reftables.WriteIDOOD(&b, res.Rows); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(tables, "id_ood.csv"), b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	if err := reftables.WriteIDOODMarkdown(&b, res.Rows); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(tables, "id_ood.md"), b.Bytes()); err != nil {
		return err
	}
	for _, ds := range res.Datasets {
		for _, t := range accRejTypes {
			curves := map[string]eval.CurveStat{}
			for _, m := range res.Models {
				for _, k := range t.keys {
					if c, ok := res.Curves[ds][k][m]; ok {
						curves[reftables.AccRejColumns[m]] = c
						break
					}
				}
			}
			if len(curves) == 0 {
				continue
			}
			b.Reset()
			if err := reftables.WriteAccRej(&b, reftables.AccRejColumns, curves); err != nil {
				return err
			}
			name := fmt.Sprintf("acc_rej_%s_%s.csv", t.name, shortName(ds))
			if err := writeFileAtomic(filepath.Join(tables, name), b.Bytes()); err != nil {
				return err
			}
		}
	}
	return res.WriteExtendedTables(dir)
}

// tableOrder orders dataset names as the tables list them: the paper's
// datasets in the paper's order (Spec.PaperRank), then the others in the
// given order.
func tableOrder(names []string) []string {
	rank := func(name string) int {
		if spec, ok := record(name); ok && spec.PaperRank > 0 {
			return spec.PaperRank
		}
		return math.MaxInt
	}
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(rank(a), rank(b)) })
	return out
}

// tableName is the dataset's name in id_ood.csv: its Spec.TableName, or
// the name itself when the registry gives none.
func tableName(ds string) string {
	if spec, ok := record(ds); ok && spec.TableName != "" {
		return spec.TableName
	}
	return ds
}

// shortName is the dataset's name in acc_rej_<type>_<dataset>.csv: its
// Spec.ShortName, or the name itself when the registry gives none.
func shortName(ds string) string {
	if spec, ok := record(ds); ok && spec.ShortName != "" {
		return spec.ShortName
	}
	return ds
}
