package tensor

import "math/bits"

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

// scatterRows is the number of rows of b that one pass of scatterBlock
// adds: bit r of a mask selects row r.
const scatterRows = 32

// scatterBlockGo adds the rows of b that masks select to the rows of o:
// o[j·ldo + c] += scale[r]·b[r·ldb + c] for every j < len(masks), every set
// bit r of masks[j], lowest first, and c < cols, one fused multiply-add
// (madd) per term. Each row of o is loaded and stored once per eight
// columns, whatever the number of its bits.
func scatterBlockGo(o []float64, ldo int, masks []uint32, b []float64, ldb, cols int, scale []float64) {
	for j, mask := range masks {
		if mask == 0 {
			continue
		}
		row := o[j*ldo : j*ldo+cols]
		c := 0
		for ; c+8 <= cols; c += 8 {
			r := row[c : c+8]
			s0, s1, s2, s3, s4, s5, s6, s7 := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
			for m := mask; m != 0; m &= m - 1 {
				k := bits.TrailingZeros32(m)
				v, e := scale[k], b[k*ldb+c:k*ldb+c+8]
				s0, s1, s2, s3 = madd(v, e[0], s0), madd(v, e[1], s1), madd(v, e[2], s2), madd(v, e[3], s3)
				s4, s5, s6, s7 = madd(v, e[4], s4), madd(v, e[5], s5), madd(v, e[6], s6), madd(v, e[7], s7)
			}
			r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
		for ; c < cols; c++ {
			acc := row[c]
			for m := mask; m != 0; m &= m - 1 {
				k := bits.TrailingZeros32(m)
				acc = madd(scale[k], b[k*ldb+c], acc)
			}
			row[c] = acc
		}
	}
}
