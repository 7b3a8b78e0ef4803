package tensor

// axpy4Go computes o[j] += v0·b0[j] + v1·b1[j] + v2·b2[j] + v3·b3[j]; all
// slices have len(o) elements. Each element is four fused multiply-adds in
// order (madd), the chain the assembly kernels compute, so that every path
// gives the same bits. Accumulating four rows per pass loads and stores the
// output row once per four multiply-adds.
func axpy4Go(o, b0, b1, b2, b3 []float64, v0, v1, v2, v3 float64) {
	b0, b1, b2, b3 = b0[:len(o)], b1[:len(o)], b2[:len(o)], b3[:len(o)]
	for j := range o {
		o[j] = madd(v3, b3[j], madd(v2, b2[j], madd(v1, b1[j], madd(v0, b0[j], o[j]))))
	}
}

// axpyGo computes o[j] += v·b[j], one fused multiply-add (madd) per element.
func axpyGo(o, b []float64, v float64) {
	b = b[:len(o)]
	for j := range o {
		o[j] = madd(v, b[j], o[j])
	}
}

// scatterGo adds v·b to the rows js of o, whose rows are ldo apart:
// o[j·ldo + c] += v·b[c] for every j of js and c < len(b), one fused
// multiply-add (madd) per element.
func scatterGo(o []float64, ldo int, js []int32, b []float64, v float64) {
	for _, j := range js {
		row := o[int(j)*ldo:][:len(b)]
		for c, x := range b {
			row[c] = madd(v, x, row[c])
		}
	}
}
