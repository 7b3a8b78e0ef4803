package ad

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// pcg is the state of a math/rand/v2 PCG generator, copied out of it so
// that a loop draws from registers instead of calling the generator through
// an interface, and so that a draw far ahead is reached without drawing
// everything before it. The generator is a 128-bit linear congruential one,
// s ← a·s + c (mod 2¹²⁸), whose output is the DXSM permutation of the new
// state; a and c are the constants of Go's implementation (and of the
// reference PCG code it cites). Its values are the generator's, to the bit
// (TestPCGMatchesMathRand).
type pcg struct{ hi, lo uint64 }

// The multiplier a and increment c of the generator, high and low halves.
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

// loadPCG returns the state of src.
func loadPCG(src *rand.PCG) pcg {
	var buf [20]byte
	b, _ := src.AppendBinary(buf[:0]) // "pcg:", then hi and lo big-endian
	return pcg{binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:])}
}

// store sets the state of dst to s.
func (s pcg) store(dst *rand.PCG) {
	b := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte("pcg:"), s.hi), s.lo)
	if err := dst.UnmarshalBinary(b); err != nil {
		panic("ad: " + err.Error()) // cannot happen: the encoding is the one AppendBinary writes
	}
}

// uint64 advances the state one step and returns the generator's next
// value, as (*rand.PCG).Uint64 does.
func (s *pcg) uint64() uint64 {
	s.step()
	return dxsm(s.hi, s.lo)
}

// step advances the state one step: s ← a·s + c.
func (s *pcg) step() {
	hi, lo := bits.Mul64(s.lo, pcgMulLo)
	hi += s.hi*pcgMulLo + s.lo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	s.hi, s.lo = hi+pcgIncHi+c, lo
}

// dxsm is the generator's output for the state hi, lo: the DXSM ("double
// xorshift multiply") permutation.
func dxsm(hi, lo uint64) uint64 {
	hi ^= hi >> 32
	hi *= 0xda942042e4dd58b5
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// fill sets halves to the low and high 32 bits of the generator's next
// len(halves)/2 values, in turn; len(halves) is even.
func (s *pcg) fill(halves []uint32) {
	w := *s // in registers for the loop
	for k := 0; k+1 < len(halves); k += 2 {
		v := w.uint64()
		halves[k], halves[k+1] = uint32(v), uint32(v>>32)
	}
	*s = w
}

// advance moves the state n steps ahead, as n calls of uint64 would, in
// O(log n) steps: n steps of s ← a·s + c are s ← Aₙ·s + Cₙ, and A, C of 2n
// steps follow from those of n by squaring (A₂ₙ = Aₙ², C₂ₙ = (Aₙ + 1)·Cₙ).
func (s *pcg) advance(n uint64) {
	accMulHi, accMulLo, accIncHi, accIncLo := uint64(0), uint64(1), uint64(0), uint64(0)
	mulHi, mulLo, incHi, incLo := uint64(pcgMulHi), uint64(pcgMulLo), uint64(pcgIncHi), uint64(pcgIncLo)
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			accMulHi, accMulLo = mul128(accMulHi, accMulLo, mulHi, mulLo)
			accIncHi, accIncLo = mul128(accIncHi, accIncLo, mulHi, mulLo)
			accIncHi, accIncLo = add128(accIncHi, accIncLo, incHi, incLo)
		}
		h, l := add128(mulHi, mulLo, 0, 1)
		incHi, incLo = mul128(h, l, incHi, incLo)
		mulHi, mulLo = mul128(mulHi, mulLo, mulHi, mulLo)
	}
	s.hi, s.lo = mul128(s.hi, s.lo, accMulHi, accMulLo)
	s.hi, s.lo = add128(s.hi, s.lo, accIncHi, accIncLo)
}

// mul128 returns x·y mod 2¹²⁸.
func mul128(xHi, xLo, yHi, yLo uint64) (hi, lo uint64) {
	hi, lo = bits.Mul64(xLo, yLo)
	return hi + xHi*yLo + xLo*yHi, lo
}

// add128 returns x + y mod 2¹²⁸.
func add128(xHi, xLo, yHi, yLo uint64) (hi, lo uint64) {
	lo, c := bits.Add64(xLo, yLo, 0)
	hi, _ = bits.Add64(xHi, yHi, c)
	return hi, lo
}
