package reftables

import (
	"math"
	"strconv"
	"strings"
)

// javaRound rounds x to the nearest integer with ties towards +∞, as Java's
// Math.round(double): NaN gives 0 and values beyond the int64 range clamp.
func javaRound(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return int64(r)
}

// roundCell formats v as eval.clj's round does: x = Math.round(v·10^d·factor)
// / 10^d (multiplied in that order), printed with d decimals and cut to
// places+1 characters, or places+2 when x ≤ 0 or a sign is requested; with
// sign, a "+" is prepended to positive values.
func roundCell(v float64, places, decimals int, factor float64, withSign bool) string {
	scale := math.Pow(10, float64(decimals))
	x := float64(javaRound(float64(v*scale*factor))) / scale
	res := strconv.FormatFloat(x, 'f', decimals, 64)
	l := places + 1
	if withSign || !(x > 0) {
		l++
	}
	res = res[:min(len(res), l)]
	if withSign && x > 0 {
		res = "+" + res
	}
	return res
}

// percentCell formats a metric or SE value of id_ood.csv: round-half-up of
// v·100 to 2 decimals, cut to 5 characters (6 if ≤ 0): 1.0 → "100.0",
// 0.8435 → "84.35".
func percentCell(v float64) string { return roundCell(v, 4, 2, 100, false) }

// changeCell formats a Change value of id_ood.csv: v·100 rounded to 3
// decimals, cut to 6 characters, "+" prepended when positive.
func changeCell(v float64) string { return roundCell(v, 4, 3, 100, true) }

// javaDouble formats x as Java's Double.toString (JDK 19 and later): the
// shortest decimal that reads back as x, in plain notation with at least one
// fractional digit when 1e-3 ≤ |x| < 1e7 ("0.0", "0.01", "84.35") and in
// computerized scientific notation otherwise ("1.0E-4", "1.2345E7").
func javaDouble(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(x); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(x, 'e', -1, 64) // d[.ddd]e±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
