package reftables

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
)

// AccRejColumns are the column prefixes of the reference's acc_rej tables in
// the paper's model order: APPNP, GKDE, GPN, LOP-GPN, CUQ-PPR, CUQ-GCN,
// CUQ-GAT.
var AccRejColumns = []string{"appnp", "gdk", "gpn", "gpnLOP", "cuqPPR", "cuqGCN", "cuqGAT"}

// WriteAccRej writes an accuracy-rejection table in the reference's
// acc_rej_<type>_<dataset>.csv format: the header
//
//	p,<col>Mean,<col>Var,<col>SE,...
//
// for each column of columns that has a curve in curves (others are skipped,
// as the reference skips models without results), then one row per curve
// point with p = i/(n−1). Numbers are printed as the reference's Clojure
// printer prints doubles (Java's Double.toString: "0.0", "0.01", "1.0E-4"); a
// nil Var or SE is written "0", a NaN element (JSON null in the reference) as
// an empty cell. Lines are joined with "\n" and, like the reference's file,
// the last line has no newline: 101 points give 102 lines. It returns an
// error if no column has a curve, the curves differ in length, or a column
// name contains a comma, quote or newline.
func WriteAccRej(w io.Writer, columns []string, curves map[string]eval.CurveStat) error {
	var present []string
	n := -1
	for _, col := range columns {
		c, ok := curves[col]
		if !ok || c.Mean == nil {
			continue
		}
		if strings.ContainsAny(col, ",\"\n\r") {
			return fmt.Errorf("reftables: WriteAccRej: column name %q contains a comma, quote or newline", col)
		}
		if n < 0 {
			n = len(c.Mean)
		}
		for name, s := range map[string][]float64{"Mean": c.Mean, "Var": c.Var, "SE": c.SE} {
			if s != nil && len(s) != n {
				return fmt.Errorf("reftables: WriteAccRej: %s%s has %d points, want %d", col, name, len(s), n)
			}
		}
		present = append(present, col)
	}
	if len(present) == 0 {
		return fmt.Errorf("reftables: WriteAccRej: none of the columns %v has a curve", columns)
	}
	var b strings.Builder
	b.WriteString("p")
	for _, col := range present {
		fmt.Fprintf(&b, ",%sMean,%sVar,%sSE", col, col, col)
	}
	for i := 0; i < n; i++ {
		b.WriteByte('\n')
		p := float64(i)
		if n > 1 {
			p /= float64(n - 1)
		}
		b.WriteString(javaDouble(p))
		for _, col := range present {
			c := curves[col]
			for _, s := range [][]float64{c.Mean, c.Var, c.SE} {
				b.WriteByte(',')
				b.WriteString(curveCell(s, i))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("reftables: WriteAccRej: %w", err)
	}
	return nil
}

func curveCell(s []float64, i int) string {
	switch {
	case s == nil:
		return "0"
	case math.IsNaN(s[i]):
		return ""
	}
	return javaDouble(s[i])
}
