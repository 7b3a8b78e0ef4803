package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// featureKind selects the class-conditional feature model of a synthetic
// graph.
type featureKind int

const (
	gaussianFeatures featureKind = iota
	bagOfWords
)

// featureModel holds the feature settings shared by the synthetic
// generators.
type featureModel struct {
	kind   featureKind
	dim    int
	signal float64
	words  int
}

func (f featureModel) validate() error {
	if f.dim < 1 {
		return fmt.Errorf("%d features, want at least 1", f.dim)
	}
	if math.IsNaN(f.signal) || f.signal < 0 || math.IsInf(f.signal, 0) {
		return fmt.Errorf("feature signal %v, want a finite value ≥ 0", f.signal)
	}
	if f.kind == bagOfWords {
		if f.signal > 1 {
			return fmt.Errorf("bag-of-words feature signal %v, want a probability in [0, 1]", f.signal)
		}
		if f.words < 1 {
			return fmt.Errorf("%d words per node, want at least 1", f.words)
		}
	}
	return nil
}

// generate draws the N×dim features of nodes with the given labels.
//
// Gaussian: class means μ_c ~ N(0, I/dim) (so ‖μ_c‖ ≈ 1) and
// x_i = s·μ_{y_i} + ε_i with ε_i ~ N(0, I): the class means lie about s·√2
// noise standard deviations apart whatever the dimension. Stored dense.
//
// Bag of words: the vocabulary of dim words is cut into numClasses equal
// topic blocks. Each node draws `words` tokens; a token comes from its
// class's block with probability s and from the whole vocabulary otherwise
// (uniformly in either case). x_ij = 1 when word j occurs. Stored as CSR.
func (f featureModel) generate(r *rand.Rand, labels []int, numClasses int) tensor.Matrix {
	x, _ := f.generateWithMeans(r, labels, numClasses)
	return x
}

// generateWithMeans is generate that also returns, for Gaussian features,
// the numClasses×dim matrix of the class means s·μ_c of x (nil for bag of
// words). The random draws are those of generate.
func (f featureModel) generateWithMeans(r *rand.Rand, labels []int, numClasses int) (tensor.Matrix, *tensor.Dense) {
	n := len(labels)
	if f.kind == gaussianFeatures {
		mu := make([]float64, numClasses*f.dim)
		scale := 1 / math.Sqrt(float64(f.dim))
		for k := range mu {
			mu[k] = r.NormFloat64() * scale
		}
		x := tensor.New(n, f.dim)
		for i, y := range labels {
			row, m := x.Row(i), mu[y*f.dim:(y+1)*f.dim]
			for j := range row {
				row[j] = float64(f.signal*m[j]) + r.NormFloat64()
			}
		}
		means := tensor.New(numClasses, f.dim)
		for k, m := range mu {
			means.Data[k] = f.signal * m
		}
		return x, means
	}
	ri := make([]int, 0, n*f.words)
	ci := make([]int, 0, n*f.words)
	for i, y := range labels {
		for range f.words {
			var w int
			if r.Float64() < f.signal {
				lo, block := f.topic(y, numClasses)
				w = lo + r.IntN(block)
			} else {
				w = r.IntN(f.dim)
			}
			ri, ci = append(ri, i), append(ci, w)
		}
	}
	// Indices are in range by construction, so FromCOO cannot fail.
	x, _ := tensor.FromCOO(n, f.dim, ri, ci, nil)
	for k := range x.Val {
		x.Val[k] = 1
	}
	return x, nil
}

// topic returns the first word and the size of class y's topic block of
// bag-of-words features: block = max(⌊dim/C⌋, 1) words from
// lo = min(y·block, dim − block).
func (f featureModel) topic(y, numClasses int) (lo, block int) {
	block = max(f.dim/numClasses, 1)
	return min(y*block, f.dim-block), block
}
