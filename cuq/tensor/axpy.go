package tensor

// axpy4Go computes o[j] += v0·b0[j] + v1·b1[j] + v2·b2[j] + v3·b3[j]; all
// slices have len(o) elements. Accumulating four rows per pass loads and
// stores the output row once per four multiply-adds.
func axpy4Go(o, b0, b1, b2, b3 []float64, v0, v1, v2, v3 float64) {
	b0, b1, b2, b3 = b0[:len(o)], b1[:len(o)], b2[:len(o)], b3[:len(o)]
	for j := range o {
		o[j] += float64(v0*b0[j]) + float64(v1*b1[j]) + float64(v2*b2[j]) + float64(v3*b3[j])
	}
}

// axpyGo computes o[j] += v·b[j].
func axpyGo(o, b []float64, v float64) {
	b = b[:len(o)]
	for j := range o {
		o[j] += float64(v * b[j])
	}
}
