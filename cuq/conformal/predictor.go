package conformal

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// DefaultCalibrationFraction is the fraction of the given nodes that
// calibrate when none is set: one half, as Zargarbashi et al. (2023).
const DefaultCalibrationFraction = 0.5

// The streams of a seed: the split and the uniform numbers of the
// randomised scores draw from their own PCG streams, so that changing the
// score does not change the split.
const (
	splitStream   = 1
	uniformStream = 2
)

// RandomSplit splits nodes at random into calibration nodes, a fraction
// of them rounded to the nearest count, and evaluation nodes, the rest,
// each returned sorted. The same nodes, fraction and seed give the same
// split. It returns an error for a fraction outside (0, 1) or one that
// leaves either part empty.
func RandomSplit(nodes []int, fraction float64, seed uint64) (calibration, evaluation []int, err error) {
	if !(fraction > 0 && fraction < 1) {
		return nil, nil, fmt.Errorf("conformal: calibration fraction %v, need 0 < fraction < 1", fraction)
	}
	n := int(math.Round(fraction * float64(len(nodes))))
	if n < 1 || n >= len(nodes) {
		return nil, nil, fmt.Errorf("conformal: a calibration fraction %v of %d nodes leaves %d to calibrate and %d to evaluate",
			fraction, len(nodes), n, len(nodes)-n)
	}
	shuffled := slices.Clone(nodes)
	rng := rand.New(rand.NewPCG(seed, splitStream))
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	calibration, evaluation = shuffled[:n:n], shuffled[n:]
	slices.Sort(calibration)
	slices.Sort(evaluation)
	return calibration, evaluation, nil
}

// Uniforms returns the n uniform numbers U_i ∈ [0, 1) of the randomised
// scores that New draws for a seed.
func Uniforms(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, uniformStream))
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.Float64()
	}
	return u
}

// Predictor configures split conformal prediction with one score. Start
// it with New, set options, then call Done.
type Predictor struct {
	in          Input
	labels      []int
	score       Score
	alpha       float64
	nodes       []int
	fraction    float64
	seed        uint64
	calibration []int
	evaluation  []int
}

// New starts split conformal prediction from the class probabilities of n
// nodes, row-major in prob (node i's in prob[i·classes:(i+1)·classes], as
// cuq.Prediction.Prob.Data), and their labels (len n, −1 for unlabelled
// nodes, which only DAPS's diffusion uses). By default it uses APS{} at
// α = DefaultAlpha, calibrating on half the nodes given by Nodes.
func New(prob []float64, classes int, labels []int) *Predictor {
	return &Predictor{in: Input{Prob: prob, Classes: classes}, labels: labels,
		score: APS{}, alpha: DefaultAlpha, fraction: DefaultCalibrationFraction}
}

// Score sets the non-conformity score, APS{} by default.
func (p *Predictor) Score(s Score) *Predictor { p.score = s; return p }

// Alpha sets the miscoverage level α ∈ (0, 1): the sets hold the label
// with probability at least 1−α.
func (p *Predictor) Alpha(alpha float64) *Predictor { p.alpha = alpha; return p }

// Graph sets the n×n adjacency that DAPS and SNAPS average over and NAPS
// takes its neighbourhoods from.
func (p *Predictor) Graph(adj *tensor.CSR) *Predictor { p.in.Adj = adj; return p }

// Nodes sets the labelled nodes to split at random into calibration and
// evaluation nodes (usually a model's test nodes).
func (p *Predictor) Nodes(nodes []int) *Predictor { p.nodes = nodes; return p }

// CalibrationFraction sets the fraction of Nodes that calibrates, by
// default DefaultCalibrationFraction (see RandomSplit).
func (p *Predictor) CalibrationFraction(f float64) *Predictor { p.fraction = f; return p }

// Seed sets the seed of the random split and of the uniform numbers U_i
// of the randomised scores (see RandomSplit and Uniforms), 0 by default.
func (p *Predictor) Seed(seed uint64) *Predictor { p.seed = seed; return p }

// Split sets the calibration and evaluation nodes instead of a random
// split of Nodes.
func (p *Predictor) Split(calibration, evaluation []int) *Predictor {
	p.calibration, p.evaluation = calibration, evaluation
	return p
}

// Done computes the scores of every node, calibrates q̂ and returns the
// sets of the evaluation nodes with their coverage and sizes (see
// Calibrate, and NAPS.Calibrate for NAPS). It returns an error for a nil score, neither Nodes nor
// Split set, labels not one per node, and the errors of RandomSplit,
// Input.Check, the score (DAPS without Graph, say) and Calibrate.
func (p *Predictor) Done() (Result, error) {
	if p.score == nil {
		return Result{}, fmt.Errorf("conformal: nil score")
	}
	in := p.in
	if err := in.Check(); err != nil {
		return Result{}, err
	}
	if n := in.Nodes(); len(p.labels) != n {
		return Result{}, fmt.Errorf("conformal: %d labels for %d nodes", len(p.labels), n)
	}
	calibration, evaluation := p.calibration, p.evaluation
	if calibration == nil && evaluation == nil {
		if p.nodes == nil {
			return Result{}, fmt.Errorf("conformal: no nodes: set Nodes or Split")
		}
		if err := checkNodes(p.labels, p.in.Classes, p.nodes); err != nil {
			return Result{}, err
		}
		var err error
		if calibration, evaluation, err = RandomSplit(p.nodes, p.fraction, p.seed); err != nil {
			return Result{}, err
		}
	}
	in.U = Uniforms(in.Nodes(), p.seed)
	scores, err := p.score.Scores(in)
	if err != nil {
		return Result{}, err
	}
	var r Result
	if naps, ok := p.score.(NAPS); ok {
		r, err = naps.Calibrate(scores, in.Classes, p.labels, in.Adj, calibration, evaluation, p.alpha)
	} else {
		r, err = Calibrate(scores, in.Classes, p.labels, calibration, evaluation, p.alpha)
	}
	if err != nil {
		return Result{}, fmt.Errorf("%w (%v)", err, p.score)
	}
	r.Score = p.score.String()
	return r, nil
}

// DefaultScores returns the scores that Evaluate compares by default:
// APS{}, DefaultRAPS and DAPS{}.
func DefaultScores() []Score { return []Score{APS{}, DefaultRAPS, DAPS{}} }

// Options configures Evaluate; the zero value is the defaults.
type Options struct {
	// Scores are the scores to run, none for DefaultScores.
	Scores []Score
	// Alpha is the miscoverage level α, 0 for DefaultAlpha.
	Alpha float64
	// CalibrationFraction is the fraction of the nodes that calibrates, 0
	// for DefaultCalibrationFraction.
	CalibrationFraction float64
	// Seed seeds the split and the uniform numbers of the scores.
	Seed uint64
	// Diagnostics, when not nil, has every Result carry its
	// conditional-coverage diagnostics computed with these options (see
	// Diagnose, Result.Diagnostics).
	Diagnostics *DiagnosticOptions
}

// Evaluate runs split conformal prediction with each of opts.Scores on the
// same random split of nodes and the same uniform numbers, and returns
// one Result per score, in order, with its Diagnostics when
// opts.Diagnostics is set. adj may be nil when no score uses the graph
// (DAPS, SNAPS, NAPS). The errors are those of Predictor.Done and
// Diagnose.
func Evaluate(prob []float64, classes int, labels []int, adj *tensor.CSR, nodes []int, opts Options) ([]Result, error) {
	scores := opts.Scores
	if len(scores) == 0 {
		scores = DefaultScores()
	}
	alpha, fraction := opts.Alpha, opts.CalibrationFraction
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if fraction == 0 {
		fraction = DefaultCalibrationFraction
	}
	out := make([]Result, len(scores))
	for k, s := range scores {
		r, err := New(prob, classes, labels).Graph(adj).Score(s).Alpha(alpha).
			Nodes(nodes).CalibrationFraction(fraction).Seed(opts.Seed).Done()
		if err != nil {
			return nil, err
		}
		if opts.Diagnostics != nil {
			d, err := Diagnose(r, prob, labels, adj, *opts.Diagnostics)
			if err != nil {
				return nil, fmt.Errorf("%w (%v)", err, s)
			}
			r.Diagnostics = &d
		}
		out[k] = r
	}
	return out, nil
}
