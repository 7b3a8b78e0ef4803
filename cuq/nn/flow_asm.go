//go:build (amd64 || arm64) && !purego

package nn

// recordStart checks that rec holds the records of every layer, which a
// forward kernel writes without bounds checks, and returns its first
// element: nil when the forward pass records nothing (rec nil).
func (f *RadialFlows) recordStart(rec []float64) *float64 {
	if rec == nil {
		return nil
	}
	_ = rec[f.Layers*f.recordSize()-1]
	return &rec[0]
}

// set stores a forward kernel's output: Π(1+u) of each lane, then Π(1+q),
// then ‖z_L‖².
func (r *blockResult) set(out *[3 * lanes]float64) {
	copy(r.produ[:], out[:lanes])
	copy(r.prodq[:], out[lanes:2*lanes])
	copy(r.sq[:], out[2*lanes:])
}

// backwardArgs are the arguments that every assembly kernel of the
// backward pass (D = 16) shares for one block and class: where the last
// layer's record and accumulators start, and the last layer's centre and
// scalars. A kernel walks from there to the first layer.
type backwardArgs struct {
	lastRec, last     int
	x0, b, sigA, sigB *float64
}

// backwardArgsOf checks the slices a backward kernel reads and writes for
// every layer, which it does without bounds checks, and returns its
// arguments.
func (f *RadialFlows) backwardArgsOf(rec, zL []float64, c int, s layerScalars, gz []float64, acc laneGrads) backwardArgs {
	L, C := f.Layers, f.Classes
	_, _, _ = rec[L*f.recordSize()-1], zL[16*lanes-1], gz[16*lanes-1]
	last := (L-1)*C + c
	_, _, _ = acc.x0[(last+1)*16*lanes-1], acc.a[(last+1)*lanes-1], acc.b[(last+1)*lanes-1]
	return backwardArgs{lastRec: (L - 1) * f.recordSize(), last: last,
		x0: &f.X0.Data.Data[last*16], b: &s.b[last], sigA: &s.sigA[last], sigB: &s.sigB[last]}
}

// noGradient4 reports whether the four lanes h … h+3 have no gradient, so
// that a four-lane kernel can skip them.
func noGradient4(gi *[lanes]float64, h int) bool {
	return gi[h] == 0 && gi[h+1] == 0 && gi[h+2] == 0 && gi[h+3] == 0
}
