package reftables

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/eval"
)

func TestCellFormats(t *testing.T) {
	for v, want := range map[float64]string{
		1.0:       "100.0",
		0.8435:    "84.35",
		0.12345:   "12.35",  // v·100·100 = 1234.5 exactly: half up
		-0.12345:  "-12.34", // Java's Math.round: ties towards +∞
		-0.5:      "-50.00",
		-1.0:      "-100.0",
		0:         "0.00",
		-0.00001:  "0.00",
		0.05:      "5.00",
		0.99995:   "100.0",
		0.0000499: "0.00",
		0.123449:  "12.34",
	} {
		if got := percentCell(v); got != want {
			t.Errorf("percentCell(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{
		0.123456:  "+12.346",
		1.5:       "+150.00",
		-0.5:      "-50.00",
		0:         "0.000",
		-1.234567: "-123.4",
		0.0000001: "0.000",
	} {
		if got := changeCell(v); got != want {
			t.Errorf("changeCell(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{
		0: "0.0", 0.01: "0.01", 1: "1.0", 0.07: "0.07", 0.001: "0.001", 1e-4: "1.0E-4",
		1.2345e-5: "1.2345E-5", 1.5e7: "1.5E7", 123: "123.0", -2.5e-4: "-2.5E-4",
		0.8435294117647059: "0.8435294117647059", 9999999: "9999999.0", 1e21: "1.0E21",
		math.Copysign(0, -1): "-0.0",
	} {
		if got := javaDouble(v); got != want {
			t.Errorf("javaDouble(%v) = %q, want %q", v, got, want)
		}
	}
	if javaDouble(math.NaN()) != "NaN" || javaDouble(math.Inf(-1)) != "-Infinity" {
		t.Errorf("javaDouble of NaN or -Inf wrong")
	}
	if javaRound(0.49999999999999994) != 0 || javaRound(-2.5) != -2 || javaRound(2.5) != 3 || javaRound(math.NaN()) != 0 || javaRound(1e300) != math.MaxInt64 {
		t.Errorf("javaRound differs from Java's Math.round")
	}
}

func TestWriteAccRej(t *testing.T) {
	mean := make([]float64, eval.ARCPoints)
	for i := range mean {
		mean[i] = 0.8 + 0.002*float64(i)
	}
	mean[3] = math.NaN()
	mean[100] = 1
	variance := make([]float64, eval.ARCPoints)
	variance[0] = 1e-4
	curves := map[string]eval.CurveStat{
		"gpn":    {Mean: mean, Var: variance, SE: make([]float64, eval.ARCPoints)},
		"appnp":  {Mean: mean}, // no Var or SE
		"ignore": {Mean: mean[:5]},
	}
	var buf bytes.Buffer
	if err := WriteAccRej(&buf, AccRejColumns, curves); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	if len(lines) != 102 || strings.HasSuffix(out, "\n") {
		t.Fatalf("%d lines (trailing newline %v), want 102 without", len(lines), strings.HasSuffix(out, "\n"))
	}
	if lines[0] != "p,appnpMean,appnpVar,appnpSE,gpnMean,gpnVar,gpnSE" {
		t.Errorf("header %q", lines[0])
	}
	if want := "0.0,0.8,0,0,0.8,1.0E-4,0.0"; lines[1] != want {
		t.Errorf("first row %q, want %q", lines[1], want)
	}
	if want := "0.03,,0,0,,0.0,0.0"; lines[4] != want {
		t.Errorf("row p=0.03 %q, want %q", lines[4], want)
	}
	if want := "1.0,1.0,0,0,1.0,0.0,0.0"; lines[101] != want {
		t.Errorf("last row %q, want %q", lines[101], want)
	}
	for i, l := range lines[1:] {
		if n := strings.Count(l, ","); n != 6 {
			t.Fatalf("row %d has %d commas", i, n)
		}
	}
	if err := WriteAccRej(&buf, []string{"cuqGAT"}, curves); err == nil || !strings.Contains(err.Error(), "none of the columns") {
		t.Errorf("no curve error: %v", err)
	}
	bad := map[string]eval.CurveStat{"a": {Mean: mean}, "b": {Mean: mean, Var: mean[:10]}}
	if err := WriteAccRej(&buf, []string{"a", "b"}, bad); err == nil || !strings.Contains(err.Error(), "bVar has 10 points, want 101") {
		t.Errorf("length error: %v", err)
	}
	if err := WriteAccRej(&buf, []string{"a,b"}, map[string]eval.CurveStat{"a,b": {Mean: mean}}); err == nil {
		t.Errorf("comma in column name: no error")
	}
}

// sampleRows builds two datasets × two models with hand-picked values.
func sampleRows() []IDOODRow {
	rows := []IDOODRow{
		{Dataset: "CoraML", Model: "APPNP", Acc: Metric{Some(0.8435), Some(0.0012)}},
		{Dataset: "CoraML", Model: "GPN", Acc: Metric{Some(0.8034), Some(0.001)}},
		{Dataset: `Amazon\\Photos`, Model: "APPNP", Acc: Metric{Some(1.0), Opt{}}},
		{Dataset: `Amazon\\Photos`, Model: "GPN", Acc: Metric{Opt{}, Opt{}}},
	}
	rows[0].Settings[OODLoc].Metrics[IDAcc] = Metric{Some(0.9044), Some(0.0031)}
	rows[1].Settings[OODLoc].Metrics[IDAcc] = Metric{Some(0.8936), Some(0.0025)}
	rows[0].Settings[OODLoc].Metrics[OODTotalEntropy] = Metric{Some(0.8745), Some(0.0101)}
	rows[1].Settings[OODLoc].Metrics[OODTotalEntropy] = Metric{Some(0.8745), Some(0.02)} // tie: both best
	rows[1].Settings[OODLoc].Metrics[OODEpistemic] = Metric{Some(0.8711), Some(0.004)}
	rows[1].Settings[OODNormal].Metrics[OODEpistemicEntropyDiff] = Metric{Some(0.7089), Some(0.0123)}
	rows[0].Settings[OODLoc].Changes[TotalEntropyChange] = Some(0.12345)
	rows[1].Settings[OODLoc].Changes[EpistemicEntropyChange] = Some(-0.5)
	rows[3].Settings[OODBer].Metrics[OODAcc] = Metric{Some(-0.25), Opt{}}
	return rows
}

func TestIDOODHeader(t *testing.T) {
	h := IDOODHeader()
	if len(h) != 99 || IDOODColumns != 99 {
		t.Fatalf("%d columns (IDOODColumns %d), want 99", len(h), IDOODColumns)
	}
	want := map[int]string{0: "id", 1: "dataset", 2: "model", 3: "acc", 4: "accSE", 5: "accBest",
		6: "oodLocIdAcc", 7: "oodLocIdAccSE", 8: "oodLocIdAccBest", 9: "oodLocOodAcc",
		32: "oodLocOodEpistemicEntropyDiffBest", 33: "oodLocTotalEntropyChange", 36: "oodLocEpistemicEntropyDiffChange",
		37: "oodNormalIdAcc", 68: "oodBerIdAcc", 98: "oodBerEpistemicEntropyDiffChange"}
	for j, name := range want {
		if h[j] != name {
			t.Errorf("column %d = %q, want %q", j, h[j], name)
		}
	}
	seen := map[string]bool{}
	for _, c := range h {
		if seen[c] {
			t.Errorf("duplicate column %q", c)
		}
		seen[c] = true
	}
}

func TestWriteIDOOD(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteIDOOD(&buf, sampleRows()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.HasSuffix(out, "\n") {
		t.Errorf("trailing newline")
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5", len(lines))
	}
	header := strings.Split(lines[0], ",")
	col := func(row int, name string) string {
		cells := strings.Split(lines[row+1], ",")
		if len(cells) != 99 {
			t.Fatalf("row %d has %d cells", row, len(cells))
		}
		return cells[slices.Index(header, name)]
	}
	checks := []struct {
		row        int
		name, want string
	}{
		{0, "id", "0"}, {3, "id", "3"}, {2, "dataset", `Amazon\\Photos`}, {1, "model", "GPN"},
		{0, "acc", "84.35"}, {0, "accSE", "0.12"}, {0, "accBest", "1"},
		{1, "acc", "80.34"}, {1, "accSE", "0.10"}, {1, "accBest", "0"},
		{2, "acc", "100.0"}, {2, "accSE", "0.00"}, {2, "accBest", "1"}, // SE missing → 0.00
		{3, "acc", ""}, {3, "accSE", "0.00"}, {3, "accBest", "0"}, // value missing
		{0, "oodLocIdAccBest", "1"}, {1, "oodLocIdAccBest", "0"},
		{0, "oodLocOodTotalEntropy", "87.45"}, {0, "oodLocOodTotalEntropyBest", "1"}, {1, "oodLocOodTotalEntropyBest", "1"},
		{0, "oodLocOodEpistemic", ""}, {0, "oodLocOodEpistemicBest", "0"}, {1, "oodLocOodEpistemicBest", "1"},
		{1, "oodNormalOodEpistemicEntropyDiff", "70.89"}, {1, "oodNormalOodEpistemicEntropyDiffSE", "1.23"},
		{0, "oodLocTotalEntropyChange", "+12.345"}, {1, "oodLocEpistemicEntropyChange", "-50.00"},
		{0, "oodLocAleatoricEntropyChange", ""},
		{3, "oodBerOodAcc", "-25.00"}, {3, "oodBerOodAccBest", "1"}, {2, "oodBerOodAccBest", "0"},
	}
	for _, c := range checks {
		if got := col(c.row, c.name); got != c.want {
			t.Errorf("row %d %s = %q, want %q", c.row, c.name, got, c.want)
		}
	}
	bad := sampleRows()
	bad[0].Model = "APP,NP"
	if err := WriteIDOOD(&buf, bad); err == nil || !strings.Contains(err.Error(), `"APP,NP"`) {
		t.Errorf("comma in name: %v", err)
	}
}

func TestIDOODRoundTrip(t *testing.T) {
	rows := sampleRows()
	var first bytes.Buffer
	if err := WriteIDOOD(&first, rows); err != nil {
		t.Fatal(err)
	}
	read, err := ReadIDOOD(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != len(rows) {
		t.Fatalf("read %d rows, want %d", len(read), len(rows))
	}
	var second bytes.Buffer
	if err := WriteIDOOD(&second, read); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Errorf("write(read(write(rows))) differs:\n%s\n%s", first.String(), second.String())
	}
	same := func(a, b Opt, tol float64) bool {
		return a.Valid == b.Valid && (!a.Valid || math.Abs(a.Value-b.Value) <= tol)
	}
	for i, r := range rows {
		g := read[i]
		if g.Dataset != r.Dataset || g.Model != r.Model || !same(g.Acc.Value, r.Acc.Value, 5e-5) {
			t.Errorf("row %d: read %+v, want %+v", i, g, r)
		}
		for s := range r.Settings {
			for m, want := range r.Settings[s].Metrics {
				if !same(g.Settings[s].Metrics[m].Value, want.Value, 5e-5) {
					t.Errorf("row %d setting %d metric %d: %+v, want %+v", i, s, m, g.Settings[s].Metrics[m], want)
				}
			}
			for c, want := range r.Settings[s].Changes {
				if !same(g.Settings[s].Changes[c], want, 5e-6) {
					t.Errorf("row %d setting %d change %d: %+v, want %+v", i, s, c, g.Settings[s].Changes[c], want)
				}
			}
		}
	}
}

func TestReadIDOODErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteIDOOD(&buf, sampleRows()[:1]); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	header, row, _ := strings.Cut(good, "\n")
	cells := strings.Split(row, ",")
	edit := func(j int, v string) string {
		c := slices.Clone(cells)
		c[j] = v
		return header + "\n" + strings.Join(c, ",")
	}
	for _, c := range []struct{ in, want string }{
		{"", "header"},
		{strings.Replace(good, "accSE", "accSe", 1), `header column 5 is "accSe", want "accSE"`},
		{header + "\n" + strings.Join(cells[:98], ","), "wrong number of fields"},
		{edit(0, "1"), `line 2: id "1", want 0`},
		{edit(3, "abc"), `line 2: column acc: "abc" is not a number`},
		{edit(5, "2"), `line 2: column accBest: "2", want 0 or 1`},
		{edit(33, "NaN"), `column oodLocTotalEntropyChange: "NaN" is not a number`},
	} {
		if _, err := ReadIDOOD(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

func TestWriteIDOODMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteIDOODMarkdown(&buf, sampleRows()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"### CoraML\n\n| Model | Acc | loc ID acc | loc LC | loc TU | loc AU | loc EU | loc EU_PC | loc EU_SO | gaussian ID acc |",
		"| APPNP | 84.35 ± 0.12 | 90.44 ± 0.31 | – | 87.45 ± 1.01 | – | – | – | – | – |",
		"| GPN | 80.34 ± 0.10 | 89.36 ± 0.25 | – | 87.45 ± 2.00 | – | – | 87.11 ± 0.40 | – |",
		"### Amazon Photos\n\n| Model | Acc | bernoulli ID acc |",
		"| APPNP | 100.00 | – |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Amazon Photos\n\n| Model | Acc | LOC") {
		t.Errorf("empty LOC block shown for Amazon Photos")
	}
}
