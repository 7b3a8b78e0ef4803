package reftables

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Opt is a number that may be absent (the reference's nil / JSON null). A
// NaN Value is treated as absent too.
type Opt struct {
	Value float64
	Valid bool
}

// Some returns a present value.
func Some(v float64) Opt { return Opt{Value: v, Valid: true} }

// ok reports whether o holds a usable number.
func (o Opt) ok() bool { return o.Valid && !math.IsNaN(o.Value) }

// Metric is a metric's mean over runs and its standard error, as fractions
// (0.8435 for 84.35%).
type Metric struct {
	Value, SE Opt
}

// OODSetting is one OOD setting of id_ood.csv.
type OODSetting int

// The OOD settings, in the column order of id_ood.csv.
const (
	OODLoc    OODSetting = iota // leave-out classes
	OODNormal                   // Gaussian feature noise
	OODBer                      // Bernoulli(0.5) feature noise
)

// NumOODSettings is the number of OOD settings.
const NumOODSettings = int(OODBer) + 1

// SettingColumns are the column prefixes of the OOD settings.
var SettingColumns = [NumOODSettings]string{"oodLoc", "oodNormal", "oodBer"}

// SettingMetric is one metric of an OOD setting in id_ood.csv. The OOD*
// metrics other than OODAcc are the AUROCs of the reference's confidence
// keys: Total and Aleatoric are max-prob (uq.LC; identical), TotalEntropy
// uq.TU, AleatoricEntropy uq.AU, Epistemic α0 (uq.EUPC), EpistemicEntropy
// uq.EUSO, EpistemicEntropyDiff uq.EU.
type SettingMetric int

// The metrics of one OOD setting, in the column order of id_ood.csv.
const (
	IDAcc  SettingMetric = iota // accuracy on the ID test nodes
	OODAcc                      // accuracy on the OOD test nodes
	OODTotal
	OODTotalEntropy
	OODAleatoric
	OODAleatoricEntropy
	OODEpistemic
	OODEpistemicEntropy
	OODEpistemicEntropyDiff
)

// NumSettingMetrics is the number of metrics of one OOD setting.
const NumSettingMetrics = int(OODEpistemicEntropyDiff) + 1

// SettingMetricNames are the column suffixes of the setting metrics, as the
// reference names them.
var SettingMetricNames = [NumSettingMetrics]string{"IdAcc", "OodAcc", "OodTotal", "OodTotalEntropy", "OodAleatoric",
	"OodAleatoricEntropy", "OodEpistemic", "OodEpistemicEntropy", "OodEpistemicEntropyDiff"}

// ChangeColumn is one Change column of an OOD setting: the relative change
// (see Change) of a mean uncertainty of OOD against ID test nodes.
type ChangeColumn int

// The Change columns of a setting (mean TU, AU, EU_SO and EU), in the
// column order of id_ood.csv.
const (
	TotalEntropyChange ChangeColumn = iota
	AleatoricEntropyChange
	EpistemicEntropyChange
	EpistemicEntropyDiffChange
)

// NumChanges is the number of Change columns of one OOD setting.
const NumChanges = int(EpistemicEntropyDiffChange) + 1

// ChangeNames are the column suffixes of the Change columns.
var ChangeNames = [NumChanges]string{"TotalEntropyChange", "AleatoricEntropyChange", "EpistemicEntropyChange", "EpistemicEntropyDiffChange"}

// SettingResult holds one model's results in one OOD setting.
type SettingResult struct {
	Metrics [NumSettingMetrics]Metric
	Changes [NumChanges]Opt // raw ratios from Change (0.12 for +12%)
}

// IDOODRow is one row of id_ood.csv: one model on one dataset.
type IDOODRow struct {
	Dataset  string // inline name: CoraML, Amazon\\Photos, ... (the backslashes are literal LaTeX line breaks)
	Model    string // the paper's name: APPNP, GKDE, GPN, LOP-GPN, CUQ-PPR, CUQ-GCN or CUQ-GAT
	Acc      Metric // test accuracy in the classification setting
	Settings [NumOODSettings]SettingResult
}

// IDOODColumns is the number of columns of id_ood.csv.
const IDOODColumns = 6 + NumOODSettings*(3*NumSettingMetrics+NumChanges)

// IDOODHeader returns the IDOODColumns column names of id_ood.csv: id,
// dataset, model, acc, accSE, accBest, then per setting S and metric M the
// triple S+M, S+M+"SE", S+M+"Best", then S's four Change columns.
func IDOODHeader() []string {
	cols := []string{"id", "dataset", "model", "acc", "accSE", "accBest"}
	for _, s := range SettingColumns {
		for _, m := range SettingMetricNames {
			cols = append(cols, s+m, s+m+"SE", s+m+"Best")
		}
		for _, c := range ChangeNames {
			cols = append(cols, s+c)
		}
	}
	return cols
}

// metric returns the i-th metric of r in table order: 0 is acc, then the
// settings' metrics.
func (r *IDOODRow) metric(i int) Metric {
	if i == 0 {
		return r.Acc
	}
	i--
	return r.Settings[i/NumSettingMetrics].Metrics[i%NumSettingMetrics]
}

const numRowMetrics = 1 + NumOODSettings*NumSettingMetrics

// WriteIDOOD writes rows in the reference's id_ood.csv format (header of
// IDOODHeader, rows in the given order with 0-based ids, joined with "\n",
// no newline after the last line). Cells:
//
//   - values and SEs: round-half-up of v·100 to 2 decimals, printed "%.2f"
//     and cut to 5 characters, 6 when ≤ 0 (1.0 → "100.0", 0.8435 → "84.35",
//     0.12345 → "12.35", −0.5 → "-50.00"); an absent value is an empty cell,
//     an absent SE "0.00";
//   - Best: "1" if the value is present and ≥ the maximum of that metric over
//     the rows of the same dataset, else "0";
//   - Change: v·100 rounded half up to 3 decimals, cut to 6 characters, with
//     "+" prepended when positive; absent → empty.
//
// It returns an error if a dataset or model name contains a comma, quote or
// newline.
func WriteIDOOD(w io.Writer, rows []IDOODRow) error {
	best := make(map[string]*[numRowMetrics]float64)
	for i := range rows {
		r := &rows[i]
		for _, name := range []string{r.Dataset, r.Model} {
			if strings.ContainsAny(name, ",\"\n\r") {
				return fmt.Errorf("reftables: WriteIDOOD: row %d: name %q contains a comma, quote or newline", i, name)
			}
		}
		b, ok := best[r.Dataset]
		if !ok {
			b = new([numRowMetrics]float64)
			for j := range b {
				b[j] = math.Inf(-1)
			}
			best[r.Dataset] = b
		}
		for j := range b {
			if m := r.metric(j); m.Value.ok() {
				b[j] = math.Max(b[j], m.Value.Value)
			}
		}
	}
	var sb strings.Builder
	sb.WriteString(strings.Join(IDOODHeader(), ","))
	cells := make([]string, 0, IDOODColumns)
	for i := range rows {
		r := &rows[i]
		cells = append(cells[:0], strconv.Itoa(i), r.Dataset, r.Model)
		b := best[r.Dataset]
		for j := 0; j < numRowMetrics; j++ {
			m := r.metric(j)
			val, se, isBest := "", "0.00", "0"
			if m.Value.ok() {
				val = percentCell(m.Value.Value)
				if m.Value.Value >= b[j] {
					isBest = "1"
				}
			}
			if m.SE.ok() {
				se = percentCell(m.SE.Value)
			}
			cells = append(cells, val, se, isBest)
			if j > 0 && j%NumSettingMetrics == 0 {
				for _, c := range r.Settings[j/NumSettingMetrics-1].Changes {
					if c.ok() {
						cells = append(cells, changeCell(c.Value))
					} else {
						cells = append(cells, "")
					}
				}
			}
		}
		sb.WriteByte('\n')
		sb.WriteString(strings.Join(cells, ","))
	}
	if _, err := io.WriteString(w, sb.String()); err != nil {
		return fmt.Errorf("reftables: WriteIDOOD: %w", err)
	}
	return nil
}

// ReadIDOOD reads a table written by WriteIDOOD (or the reference). Values,
// SEs and changes are returned as fractions (the printed percentage / 100),
// so they carry the table's rounding; an SE cell is always present (the
// writer prints a missing SE as "0.00"). Best cells must be "0" or "1" and
// are not returned: WriteIDOOD derives them. It returns an error naming the
// line and column on a wrong header, a wrong number of cells, an id out of
// sequence or an unparsable cell.
func ReadIDOOD(r io.Reader) ([]IDOODRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = IDOODColumns
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reftables: ReadIDOOD: header: %w", err)
	}
	for j, want := range IDOODHeader() {
		if header[j] != want {
			return nil, fmt.Errorf("reftables: ReadIDOOD: header column %d is %q, want %q", j+1, header[j], want)
		}
	}
	var rows []IDOODRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reftables: ReadIDOOD: %w", err)
		}
		row, err := parseIDOODRecord(rec, len(rows))
		if err != nil {
			return nil, fmt.Errorf("reftables: ReadIDOOD: line %d: %w", line, err)
		}
		rows = append(rows, row)
	}
}

func parseIDOODRecord(rec []string, id int) (IDOODRow, error) {
	if rec[0] != strconv.Itoa(id) {
		return IDOODRow{}, fmt.Errorf("id %q, want %d", rec[0], id)
	}
	row := IDOODRow{Dataset: rec[1], Model: rec[2]}
	header := IDOODHeader()
	col := 3
	num := func() (Opt, error) {
		cell := rec[col]
		col++
		if cell == "" {
			return Opt{}, nil
		}
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Opt{}, fmt.Errorf("column %s: %q is not a number", header[col-1], cell)
		}
		return Some(v / 100), nil
	}
	for j := 0; j < numRowMetrics; j++ {
		var m Metric
		var err error
		if m.Value, err = num(); err != nil {
			return IDOODRow{}, err
		}
		if m.SE, err = num(); err != nil {
			return IDOODRow{}, err
		}
		if b := rec[col]; b != "0" && b != "1" {
			return IDOODRow{}, fmt.Errorf("column %s: %q, want 0 or 1", header[col], b)
		}
		col++
		if j == 0 {
			row.Acc = m
			continue
		}
		s := (j - 1) / NumSettingMetrics
		row.Settings[s].Metrics[(j-1)%NumSettingMetrics] = m
		if j%NumSettingMetrics == 0 {
			for c := range row.Settings[s].Changes {
				if row.Settings[s].Changes[c], err = num(); err != nil {
					return IDOODRow{}, err
				}
			}
		}
	}
	return row, nil
}
