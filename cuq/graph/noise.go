package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// commonWords is how many of the most (and, less one, of the least) common
// words the GPN code's word-based Bernoulli noises draw from.
const commonWords = 100

// wordDraws are the numbers of words the word-based Bernoulli noises set,
// one drawn uniformly per row as in the GPN code.
var wordDraws = [3]int{5, 10, 20}

// drawRows returns the replacement rows of the nodes chosen, the r-th
// chosen node getting the r-th row drawn from the PCG stream seeded with
// (f.Seed, noiseStream). f must have passed check.
func drawRows(g *Graph, f FeatureShift, chosen []int) (map[int][]float64, error) {
	width := g.NumFeatures()
	var words []int
	switch f.Noise {
	case BernoulliMostCommon, BernoulliLeastCommon:
		ranked := wordRanking(g.Features)
		if f.Noise == BernoulliMostCommon {
			words = ranked[:min(commonWords, len(ranked))]
		} else {
			words = ranked[max(len(ranked)-commonWords, 0):max(len(ranked)-1, 0)]
		}
		if len(words) < wordDraws[len(wordDraws)-1] {
			return nil, fmt.Errorf("%v noise draws up to %d words from %d candidate words (%d feature columns)",
				f.Noise, wordDraws[len(wordDraws)-1], len(words), width)
		}
	}
	rows := make(map[int][]float64, len(chosen))
	draw := rand.New(rand.NewPCG(f.Seed, noiseStream))
	for _, i := range chosen {
		rows[i] = drawRow(draw, f, g.Features, i, words)
	}
	return rows, nil
}

// drawRow draws node i's replacement row of perturbation f; x holds the
// original features and words the candidate words of the word-based
// Bernoulli noises.
//
//   - Gaussian: σ·z_j, z_j ~ N(0, 1).
//   - Bernoulli: b_j/(Σ b + 1e-10), b_j ~ Bernoulli(p); at p = ½ each b_j is
//     one bit of a 64-bit draw, otherwise a uniform draw compared with p.
//   - Uniform: s·u_j; Dense: s·u_j/(Σ u + 1e-10); u_j ~ U[0, 1).
//   - BernoulliMostCommon, BernoulliLeastCommon: m = wordDraws[k], k
//     uniform, then m distinct words by a partial Fisher–Yates shuffle of
//     words; row s·1/(m + 1e-10) at those words.
//   - NotNormalized: s·1[x_ij ≠ 0]; Scaled and Reference: s·x_ij.
func drawRow(rng *rand.Rand, f FeatureShift, x tensor.Matrix, i int, words []int) []float64 {
	_, width := x.Dims()
	row := make([]float64, width)
	sev := f.Severity
	switch f.Noise {
	case Gaussian:
		for j := range row {
			row[j] = sev * rng.NormFloat64()
		}
	case Bernoulli:
		sum := 0.0
		var bits uint64
		for j := range row {
			one := false
			if sev == 0.5 {
				if j%64 == 0 {
					bits = rng.Uint64()
				}
				one = bits&1 == 1
				bits >>= 1
			} else {
				one = rng.Float64() < sev
			}
			if one {
				row[j] = 1
				sum++
			}
		}
		scaleRow(row, 1/(sum+bernoulliEps))
	case Uniform, Dense:
		sum := 0.0
		for j := range row {
			row[j] = rng.Float64()
			sum += float64(row[j])
		}
		if f.Noise == Dense {
			scaleRow(row, 1/(sum+bernoulliEps))
		}
		scaleRow(row, sev)
	case BernoulliMostCommon, BernoulliLeastCommon:
		m := wordDraws[rng.IntN(len(wordDraws))]
		pool := slices.Clone(words)
		for p := 0; p < m; p++ {
			q := p + rng.IntN(len(pool)-p)
			pool[p], pool[q] = pool[q], pool[p]
			row[pool[p]] = 1
		}
		scaleRow(row, sev/(float64(m)+bernoulliEps))
	case NotNormalized, Scaled, Reference:
		copyRow(row, x, i)
		for j, v := range row {
			if f.Noise == NotNormalized && v != 0 {
				row[j] = 1
			}
		}
		scaleRow(row, sev)
	}
	return row
}

// copyRow copies row i of x into dst (len = the number of columns).
func copyRow(dst []float64, x tensor.Matrix, i int) {
	switch m := x.(type) {
	case *tensor.Dense:
		copy(dst, m.Row(i))
	case *tensor.CSR:
		for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
			dst[m.Ind[k]] = m.Val[k]
		}
	}
}

// wordRanking returns the feature columns by decreasing count of nodes
// with a non-zero entry in them, ties in column order (Python's
// Counter.most_common, which sorts stably).
func wordRanking(x tensor.Matrix) []int {
	_, width := x.Dims()
	counts := make([]int, width)
	switch m := x.(type) {
	case *tensor.Dense:
		for i := 0; i < m.Rows; i++ {
			for j, v := range m.Row(i) {
				if v != 0 {
					counts[j]++
				}
			}
		}
	case *tensor.CSR:
		for k, j := range m.Ind {
			if m.Val[k] != 0 {
				counts[j]++
			}
		}
	}
	ranked := make([]int, width)
	for j := range ranked {
		ranked[j] = j
	}
	slices.SortStableFunc(ranked, func(a, b int) int { return counts[b] - counts[a] })
	return ranked
}

// withRows returns g with the given feature rows replaced: a dense feature
// matrix stays dense, a CSR one stays CSR with the non-zero entries of the
// new rows stored. The adjacency, labels and class names are shared.
func withRows(g *Graph, rows map[int][]float64) *Graph {
	out := *g
	switch x := g.Features.(type) {
	case *tensor.Dense:
		d := x.Clone()
		for i, row := range rows {
			copy(d.Row(i), row)
		}
		out.Features = d
	case *tensor.CSR:
		out.Features = replaceRows(x, rows)
	}
	return &out
}
