package tensor

// The portable kernels: the register blocks of the products in Go, which
// the build tag purego and every architecture but amd64 run (arm64 with
// NEON kernels for most of the products), and which fill in where the
// assembly kernels do not reach. Every element
// is the chain of fused multiply-adds over the inner index in order (madd),
// as in the assembly kernels, so that all paths give the same bits, but
// for WebAssembly (see madd_wasm.go). Holding a block of the output in
// registers over the whole inner loop saves the load and store of the
// output per multiply-add that a row-at-a-time loop costs.

// gemmRows4Go adds the leading 4-column blocks of a four-row block of a
// product to o, with the strides of gemmRows4: o[r·ldo + j] += Σ_{s<k}
// a[r·lda + s·astep]·b[s·ldb + j] for r < 4 and j < cols rounded down to a
// multiple of 4, which it returns; the caller computes the rest. It takes
// only a read row-wise (astep = 1, a·b) and returns 0 otherwise: for aᵀ·b
// the row-at-a-time loop of mulTN, which reads a and b as they lie in
// memory, is faster in Go than a block that gathers a column-wise. Each
// pass holds two rows by four columns in registers: eight sums, four
// terms of b and two of a fit amd64's sixteen, where four rows' sixteen
// sums would spill to the stack on every step.
func gemmRows4Go(o []float64, ldo int, a []float64, lda, astep int, b []float64, ldb, k, cols int) int {
	c4 := cols &^ 3
	if c4 == 0 || k == 0 || astep != 1 {
		return 0
	}
	for r := 0; r < 4; r += 2 {
		a0, a1 := a[r*lda:r*lda+k], a[(r+1)*lda:(r+1)*lda+k]
		for c := 0; c < c4; c += 4 {
			block2x4(o[r*ldo+c:r*ldo+c+4], o[(r+1)*ldo+c:(r+1)*ldo+c+4], a0, a1, b[c:], ldb)
		}
	}
	return c4
}

// block2x4 adds Σ_s a0[s]·b[s·ldb + j] to o0[j] and the same with a1 to
// o1[j], j < 4, holding the eight sums in registers: a function of its
// own, so that the compiler keeps the loop's index and offset in
// registers too (inside gemmRows4Go it kept the index on the stack, and
// every step waited for its store and load).
func block2x4(o0, o1, a0, a1, b []float64, ldb int) {
	o0, o1, a1 = o0[:4], o1[:4], a1[:len(a0)]
	s00, s01, s02, s03 := o0[0], o0[1], o0[2], o0[3]
	s10, s11, s12, s13 := o1[0], o1[1], o1[2], o1[3]
	for s, v0 := range a0 {
		br := b[s*ldb : s*ldb+4]
		b0, b1, b2, b3 := br[0], br[1], br[2], br[3]
		v1 := a1[s]
		s00, s01, s02, s03 = madd(v0, b0, s00), madd(v0, b1, s01), madd(v0, b2, s02), madd(v0, b3, s03)
		s10, s11, s12, s13 = madd(v1, b0, s10), madd(v1, b1, s11), madd(v1, b2, s12), madd(v1, b3, s13)
	}
	o0[0], o0[1], o0[2], o0[3] = s00, s01, s02, s03
	o1[0], o1[1], o1[2], o1[3] = s10, s11, s12, s13
}

// spmmRowGo sets o = Σ_q val[q]·b[ind[q]·ldb + c : …], a sparse row times
// b from column c on, in blocks of six and four columns held in registers
// over all of the row's entries, then column by column. Six, not eight:
// the compiler loads a block's terms of b before its multiply-adds, and
// eight sums, eight terms and the entry's value are one more than amd64's
// sixteen registers, which put one chain of sums through the stack, so
// that every step waited for a store and a load. Ten steps of PPR on 64
// columns of a graph of Amazon Computers' size took a quarter less with
// six (docs/records/performance.md).
func spmmRowGo(o, val []float64, ind []int, b []float64, c, ldb int) {
	ind = ind[:len(val)]
	j := 0
	for ; j+6 <= len(o); j += 6 {
		var s0, s1, s2, s3, s4, s5 float64
		for q, v := range val {
			r := b[ind[q]*ldb+c+j : ind[q]*ldb+c+j+6]
			s0, s1, s2 = madd(v, r[0], s0), madd(v, r[1], s1), madd(v, r[2], s2)
			s3, s4, s5 = madd(v, r[3], s3), madd(v, r[4], s4), madd(v, r[5], s5)
		}
		o[j], o[j+1], o[j+2], o[j+3], o[j+4], o[j+5] = s0, s1, s2, s3, s4, s5
	}
	if j+4 <= len(o) {
		var s0, s1, s2, s3 float64
		for q, v := range val {
			r := b[ind[q]*ldb+c+j : ind[q]*ldb+c+j+4]
			s0, s1, s2, s3 = madd(v, r[0], s0), madd(v, r[1], s1), madd(v, r[2], s2), madd(v, r[3], s3)
		}
		o[j], o[j+1], o[j+2], o[j+3] = s0, s1, s2, s3
		j += 4
	}
	// The last one to three columns in one pass over the entries.
	switch len(o) - j {
	case 3:
		var s0, s1, s2 float64
		for q, v := range val {
			r := b[ind[q]*ldb+c+j : ind[q]*ldb+c+j+3]
			s0, s1, s2 = madd(v, r[0], s0), madd(v, r[1], s1), madd(v, r[2], s2)
		}
		o[j], o[j+1], o[j+2] = s0, s1, s2
	case 2:
		var s0, s1 float64
		for q, v := range val {
			r := b[ind[q]*ldb+c+j : ind[q]*ldb+c+j+2]
			s0, s1 = madd(v, r[0], s0), madd(v, r[1], s1)
		}
		o[j], o[j+1] = s0, s1
	case 1:
		var s0 float64
		for q, v := range val {
			s0 = madd(v, b[ind[q]*ldb+c+j], s0)
		}
		o[j] = s0
	}
}

// spmmRowUnfused sets o = Σ_q val[q]·b[ind[q]·ldb + c : …] for the one to
// three trailing columns of spmmRow's unfusedTail, rounding each product
// before adding it: acc = acc + (val[q]·b_j).
func spmmRowUnfused(o, val []float64, ind []int, b []float64, c, ldb int) {
	ind = ind[:len(val)]
	for j := range o {
		var s float64
		for q, v := range val {
			s += float64(v * b[ind[q]*ldb+c+j])
		}
		o[j] = s
	}
}
