package chart

import (
	"bytes"
	"fmt"
	"testing"

	"gonum.org/v1/plot/vg"
)

// benchCurves returns the paper's ARC grid (101 fractions) with 4 measures.
func benchCurves() ([]float64, []Curve) {
	p := make([]float64, 101)
	for i := range p {
		p[i] = float64(i) / 100
	}
	curves := make([]Curve, 4)
	for k := range curves {
		c := Curve{Name: []string{"TU", "AU", "EU", "EU_PC"}[k], Mean: make([]float64, len(p)), SE: make([]float64, len(p))}
		for i, x := range p {
			c.Mean[i] = 0.8 + 0.2*x*x
			c.SE[i] = 0.01
		}
		curves[k] = c
	}
	return p, curves
}

func BenchmarkARCFragment(b *testing.B) {
	p, curves := benchCurves()
	for b.Loop() {
		c, err := ARC("ARC", p, curves...)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Fragment()
	}
}

func BenchmarkSimplexDensity60(b *testing.B) {
	d, _ := NewDirichlet(2, 5, 9)
	for b.Loop() {
		c, err := Simplexes([3]string{"a", "b", "c"}, SimplexPanel{"Dir", d.Density3}).Done()
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Fragment()
	}
}

// benchGraph returns a ring of n nodes with chords, valued by layers
// measures.
func benchGraph(n, layers int) GraphView {
	v := GraphView{Values: make([]float64, n)}
	for k := 1; k < layers; k++ {
		v.More = append(v.More, GraphLayer{Measure: fmt.Sprint("M", k), Values: make([]float64, n)})
	}
	for i := range n {
		v.Values[i] = float64(i%10) / 10
		for k := range v.More {
			v.More[k].Values[i] = float64(i%(7+k)) / 7
		}
		v.Edges = append(v.Edges, [2]int{i, (i + 1) % n}, [2]int{i, (i + 13) % n})
	}
	return v
}

func benchmarkGraphChart(b *testing.B, v GraphView) {
	for b.Loop() {
		c, err := GraphChart(v)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Fragment()
	}
}

// BenchmarkGraphChart3000: a large view, laid out by the browser.
func BenchmarkGraphChart3000(b *testing.B) { benchmarkGraphChart(b, benchGraph(3000, 1)) }

// BenchmarkGraphChart300 is the notebooks' neighbourhood view: 300 nodes,
// laid out in Go, with two measures.
func BenchmarkGraphChart300(b *testing.B) { benchmarkGraphChart(b, benchGraph(300, 2)) }

func BenchmarkARCPlotPNG(b *testing.B) {
	p, curves := benchCurves()
	var buf bytes.Buffer
	for b.Loop() {
		pl, err := ARCPlot("ARC", p, curves...)
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		if err := WritePlot(&buf, pl, "png", 16*vg.Centimeter, 10*vg.Centimeter); err != nil {
			b.Fatal(err)
		}
	}
}
