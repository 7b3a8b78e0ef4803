//go:build amd64 && !purego

#include "textflag.h"

// ARGS loads the arguments of the kernels: dst in DI, src in SI, n in CX,
// the table in R8, and the index of the next block, 0, in AX.
#define ARGS \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ n+16(FP), CX \
	MOVQ table+24(FP), R8 \
	XORQ AX, AX

// LOAD loads the block at AX into Y0, with the index after it in DX, and
// jumps to done when there is no whole block left.
#define LOAD(done) \
	LEAQ 4(AX), DX \
	CMPQ DX, CX \
	JGT  done \
	VMOVUPD (SI)(AX*8), Y0

// NEXT is LOAD that also jumps to done when a lane lies outside
// [table[0], table[1]] (NaN included, the comparisons are ordered).
#define NEXT(done) \
	LOAD(done) \
	VCMPPD  $0x1D, (R8), Y0, Y1 \
	VCMPPD  $0x12, 32(R8), Y0, Y2 \
	VANDPD  Y1, Y2, Y1 \
	VMOVMSKPD Y1, BX \
	CMPQ    BX, $15 \
	JNE     done

// func expAVX(dst, src *float64, n int, table *[20][4]float64) int
// dst[i] = exp(src[i]) for the blocks of four elements i < n, four lanes at
// a time, in the operations of expScalar (see exp.go); table is expTable.
// It stops at the first block with a lane outside [table[0], table[1]]
// (NaN included, the comparisons are ordered) and returns the number of
// elements done.
TEXT ·expAVX(SB), NOSPLIT, $0-40
	ARGS

loop:
	NEXT(done)
	VMULPD   64(R8), Y0, Y1       // x·log₂e
	VROUNDPD $0, Y1, Y1           // n, to nearest even
	VFNMADD231PD 96(R8), Y1, Y0   // r = x − n·ln2Hi
	VFNMADD231PD 128(R8), Y1, Y0  // r = r − n·ln2Lo
	VMOVUPD 160(R8), Y2           // p = 1/13!
	VFMADD213PD 192(R8), Y0, Y2   // p = p·r + 1/12!
	VFMADD213PD 224(R8), Y0, Y2
	VFMADD213PD 256(R8), Y0, Y2
	VFMADD213PD 288(R8), Y0, Y2
	VFMADD213PD 320(R8), Y0, Y2
	VFMADD213PD 352(R8), Y0, Y2
	VFMADD213PD 384(R8), Y0, Y2
	VFMADD213PD 416(R8), Y0, Y2
	VFMADD213PD 448(R8), Y0, Y2
	VFMADD213PD 480(R8), Y0, Y2
	VFMADD213PD 512(R8), Y0, Y2
	VFMADD213PD 544(R8), Y0, Y2
	VFMADD213PD 576(R8), Y0, Y2   // p = p·r + 1
	VADDPD  608(R8), Y1, Y1       // n + 1023 in the low bits
	VPSLLQ  $52, Y1, Y1           // 2ⁿ
	VMULPD  Y1, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     loop

done:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func mathExpAVX(dst, src *float64, n int, table *[17][4]float64) int
// dst[i] = math.Exp(src[i]) for the blocks of four elements i < n, four
// lanes at a time, in the operations of math.Exp's fused multiply-add
// branch on amd64 (math/exp_amd64.s), whose constants table
// (mathExpTable) repeats; it stops as expAVX does, at the first block with
// a lane outside [table[0], table[1]] or NaN.
TEXT ·mathExpAVX(SB), NOSPLIT, $0-40
	ARGS

mloop:
	NEXT(mdone)
	VMULPD   64(R8), Y0, Y1       // x·log₂e
	VROUNDPD $0, Y1, Y1           // k, to nearest even (CVTSD2SL)
	VFNMADD231PD 96(R8), Y1, Y0   // x − k·ln2 (upper part)
	VFNMADD231PD 128(R8), Y1, Y0  // − k·ln2 (lower part)
	VMULPD  160(R8), Y0, Y0       // r = that/16
	VMOVUPD 192(R8), Y2           // p = 1/8!
	VFMADD213PD 224(R8), Y0, Y2   // p = p·r + 1/7!
	VFMADD213PD 256(R8), Y0, Y2
	VFMADD213PD 288(R8), Y0, Y2
	VFMADD213PD 320(R8), Y0, Y2
	VFMADD213PD 352(R8), Y0, Y2
	VFMADD213PD 384(R8), Y0, Y2   // p = p·r + 1/2
	VFMADD213PD 416(R8), Y0, Y2   // p = p·r + 1
	VMULPD  Y2, Y0, Y0            // y = r·p = e^r − 1
	VADDPD  448(R8), Y0, Y2       // y = y·(y + 2), three times: e^{2r} − 1, …
	VMULPD  Y2, Y0, Y0
	VADDPD  448(R8), Y0, Y2
	VMULPD  Y2, Y0, Y0
	VADDPD  448(R8), Y0, Y2
	VMULPD  Y2, Y0, Y0
	VADDPD  448(R8), Y0, Y2
	VFMADD213PD 480(R8), Y2, Y0   // y·(y + 2) + 1 = e^{16r}
	VADDPD  512(R8), Y1, Y1       // k + 1023 in the low bits
	VPSLLQ  $52, Y1, Y1           // 2ᵏ
	VMULPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     mloop

mdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func eluAVX(dst, src *float64, n int, table *[19][4]float64) int
// dst[i] = src[i] for src[i] > 0 and math.Expm1(src[i]) otherwise, for
// the blocks of four elements i < n, four lanes at a time, in the
// operations eluTable's comment lists. It stops at the first block with a
// lane at or below table[0] (−56·ln 2) or NaN and returns the number of
// elements done.
TEXT ·eluAVX(SB), NOSPLIT, $0-40
	ARGS

eloop:
	LOAD(edone)                     // x
	VCMPPD  $0x1E, (R8), Y0, Y1     // x > −56·ln 2, false for NaN
	VMOVMSKPD Y1, BX
	CMPQ    BX, $15
	JNE     edone
	VANDPD  576(R8), Y0, Y1         // |x|

	// k
	VMULPD   96(R8), Y0, Y2         // x/ln 2
	VSUBPD   128(R8), Y2, Y2        // − ½
	VROUNDPD $3, Y2, Y2             // truncated
	VCMPPD   $0x11, 64(R8), Y1, Y3  // |x| < 1½·ln 2
	VBLENDVPD Y3, 512(R8), Y2, Y2   // k = −1 there
	VCMPPD   $0x12, 32(R8), Y1, Y4  // |x| ≤ ½·ln 2
	VXORPD   Y5, Y5, Y5
	VBLENDVPD Y4, Y5, Y2, Y2        // k = 0 there

	// reduction
	VMULPD  160(R8), Y2, Y5         // k·ln2Hi
	VSUBPD  Y5, Y0, Y5              // hi = x − k·ln2Hi
	VMULPD  192(R8), Y2, Y6         // lo = k·ln2Lo
	VSUBPD  Y6, Y5, Y7              // r = hi − lo
	VSUBPD  Y7, Y5, Y5              // hi − r
	VSUBPD  Y6, Y5, Y5              // c = (hi − r) − lo

	// the rational approximation
	VMULPD  128(R8), Y7, Y6         // h = ½·r
	VMULPD  Y6, Y7, Y8              // s = r·h
	VMULPD  256(R8), Y8, Y9         // s·Q5
	VADDPD  288(R8), Y9, Y9         // Q4 + s·Q5
	VMULPD  Y9, Y8, Y9
	VADDPD  320(R8), Y9, Y9         // Q3 + …
	VMULPD  Y9, Y8, Y9
	VADDPD  352(R8), Y9, Y9         // Q2 + …
	VMULPD  Y9, Y8, Y9
	VADDPD  384(R8), Y9, Y9         // Q1 + …
	VMULPD  Y9, Y8, Y9
	VADDPD  416(R8), Y9, Y9         // r₁ = 1 + …
	VMULPD  Y6, Y9, Y10             // r₁·h
	VMOVUPD 448(R8), Y11
	VSUBPD  Y10, Y11, Y10           // t = 3 − r₁·h
	VSUBPD  Y10, Y9, Y9             // r₁ − t
	VMULPD  Y10, Y7, Y10            // r·t
	VMOVUPD 480(R8), Y11
	VSUBPD  Y10, Y11, Y10           // 6 − r·t
	VDIVPD  Y10, Y9, Y9             // (r₁ − t)/(6 − r·t)
	VMULPD  Y9, Y8, Y9              // e = s·…

	// k = 0
	VMULPD  Y9, Y7, Y10             // r·e
	VSUBPD  Y8, Y10, Y10            // r·e − s
	VSUBPD  Y10, Y7, Y10            // r − (r·e − s)

	// e′ = (r·(e − c) − c) − s
	VSUBPD  Y5, Y9, Y9
	VMULPD  Y9, Y7, Y9
	VSUBPD  Y5, Y9, Y9
	VSUBPD  Y8, Y9, Y9

	// k = −1: ½·(r − e′) − ½
	VSUBPD  Y9, Y7, Y11
	VMULPD  128(R8), Y11, Y11
	VSUBPD  128(R8), Y11, Y11

	// k ≤ −2: 2ᵏ·(1 − (e′ − r)) − 1
	VSUBPD  Y7, Y9, Y12             // e′ − r
	VMOVUPD 416(R8), Y13
	VSUBPD  Y12, Y13, Y12           // y = 1 − (e′ − r)
	VADDPD  544(R8), Y2, Y13        // k in the low bits
	VPSLLQ  $52, Y13, Y13           // k in the exponent's place
	VPADDQ  Y13, Y12, Y12           // k added to y's exponent
	VSUBPD  416(R8), Y12, Y12       // − 1

	// choose by k, then x itself for x > 0 or |x| < 2⁻⁵⁴
	VCMPPD  $0x00, 512(R8), Y2, Y13 // k = −1
	VBLENDVPD Y13, Y11, Y12, Y12
	VBLENDVPD Y4, Y10, Y12, Y12     // k = 0
	VCMPPD  $0x11, 224(R8), Y1, Y13 // |x| < 2⁻⁵⁴
	VXORPD  Y14, Y14, Y14
	VCMPPD  $0x1E, Y14, Y0, Y14     // x > 0
	VORPD   Y14, Y13, Y13
	VBLENDVPD Y13, Y0, Y12, Y12
	VMOVUPD Y12, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     eloop

edone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func logAVX(dst, src *float64, n int, table *[18][4]float64) int
// dst[i] = math.Log(src[i]) for the blocks of four elements i < n, four
// lanes at a time, in the operations of math/log_amd64.s (see MathLog),
// whose constants logTable repeats; it stops at the first block with a
// lane that is not a positive normal number (NaN included) and returns
// the number of elements done.
TEXT ·logAVX(SB), NOSPLIT, $0-40
	ARGS

lloop:
	NEXT(ldone)
	VANDPD  64(R8), Y0, Y1          // the fraction's bits
	VORPD   96(R8), Y1, Y1          // f₁ ∈ [½, 1)
	VPSRLQ  $52, Y0, Y2             // the exponent field e (x > 0)
	VORPD   128(R8), Y2, Y2         // 2⁵² + e
	VSUBPD  160(R8), Y2, Y2         // k = e − 1022
	VCMPPD  $0x12, 192(R8), Y1, Y3  // f₁ ≤ √2/2
	VANDPD  224(R8), Y3, Y3         // 1 there, else 0
	VSUBPD  Y3, Y2, Y2              // k
	VADDPD  224(R8), Y3, Y3         // 2 there, else 1
	VMULPD  Y3, Y1, Y1              // f₁
	VSUBPD  224(R8), Y1, Y1         // f = f₁ − 1
	VADDPD  256(R8), Y1, Y3         // 2 + f
	VDIVPD  Y3, Y1, Y3              // s = f/(2 + f)
	VMULPD  Y3, Y3, Y4              // z = s²
	VMULPD  Y4, Y4, Y5              // w = z²
	VMULPD  288(R8), Y5, Y6         // w·L7
	VADDPD  320(R8), Y6, Y6         // + L5
	VMULPD  Y5, Y6, Y6
	VADDPD  352(R8), Y6, Y6         // + L3
	VMULPD  Y5, Y6, Y6
	VADDPD  384(R8), Y6, Y6         // + L1
	VMULPD  Y6, Y4, Y4              // t₁ = z·(…)
	VMULPD  416(R8), Y5, Y6         // w·L6
	VADDPD  448(R8), Y6, Y6         // + L4
	VMULPD  Y5, Y6, Y6
	VADDPD  480(R8), Y6, Y6         // + L2
	VMULPD  Y6, Y5, Y5              // t₂ = w·(…)
	VADDPD  Y5, Y4, Y4              // R = t₁ + t₂
	VMULPD  96(R8), Y1, Y6          // ½·f
	VMULPD  Y1, Y6, Y6              // ½f² = (½·f)·f
	VADDPD  Y6, Y4, Y4              // ½f² + R
	VMULPD  Y4, Y3, Y3              // s·(½f² + R)
	VMULPD  512(R8), Y2, Y4         // k·ln2Lo
	VADDPD  Y4, Y3, Y3              // s·(½f² + R) + k·ln2Lo
	VSUBPD  Y3, Y6, Y6              // ½f² − that
	VSUBPD  Y1, Y6, Y6              // − f
	VMULPD  544(R8), Y2, Y2         // k·ln2Hi
	VSUBPD  Y6, Y2, Y2              // log x
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     lloop

ldone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// LOAD8 loads the block of eight at AX into Z0, with the index after it in
// DX, and jumps to done when there is no whole block left.
#define LOAD8(done) \
	LEAQ 8(AX), DX \
	CMPQ DX, CX \
	JGT  done \
	VMOVUPD (SI)(AX*8), Z0

// ALL8 jumps to done unless all eight lanes of the mask register k are set.
#define ALL8(k, done) \
	KMOVW k, BX \
	CMPQ  BX, $0xFF \
	JNE   done

// func eluAVX512(dst, src *float64, n int, table *[19][4]float64) int
// eluAVX eight lanes at a time, each constant of eluTable broadcast from
// its first lane, the vector masks of comparisons in mask registers:
// every lane the same operations, so the same bits. It stops at the first
// block of eight with a lane at or below −56·ln 2 or NaN.
TEXT ·eluAVX512(SB), NOSPLIT, $0-40
	ARGS

zeloop:
	LOAD8(zedone)                        // x
	VCMPPD.BCST $0x1E, (R8), Z0, K1      // x > −56·ln 2, false for NaN
	ALL8(K1, zedone)
	VPANDQ.BCST 576(R8), Z0, Z1          // |x|

	// k
	VMULPD.BCST  96(R8), Z0, Z2          // x/ln 2
	VSUBPD.BCST  128(R8), Z2, Z2         // − ½
	VRNDSCALEPD  $3, Z2, Z2              // truncated
	VCMPPD.BCST  $0x11, 64(R8), Z1, K2   // |x| < 1½·ln 2
	VBROADCASTSD 512(R8), K2, Z2         // k = −1 there
	VCMPPD.BCST  $0x12, 32(R8), Z1, K3   // |x| ≤ ½·ln 2
	VPXORQ       Z5, Z5, Z5
	VMOVAPD      Z5, K3, Z2              // k = 0 there

	// reduction
	VMULPD.BCST 160(R8), Z2, Z5          // k·ln2Hi
	VSUBPD  Z5, Z0, Z5                   // hi = x − k·ln2Hi
	VMULPD.BCST 192(R8), Z2, Z6          // lo = k·ln2Lo
	VSUBPD  Z6, Z5, Z7                   // r = hi − lo
	VSUBPD  Z7, Z5, Z5                   // hi − r
	VSUBPD  Z6, Z5, Z5                   // c = (hi − r) − lo

	// the rational approximation
	VMULPD.BCST 128(R8), Z7, Z6          // h = ½·r
	VMULPD  Z6, Z7, Z8                   // s = r·h
	VMULPD.BCST 256(R8), Z8, Z9          // s·Q5
	VADDPD.BCST 288(R8), Z9, Z9          // Q4 + s·Q5
	VMULPD  Z9, Z8, Z9
	VADDPD.BCST 320(R8), Z9, Z9          // Q3 + …
	VMULPD  Z9, Z8, Z9
	VADDPD.BCST 352(R8), Z9, Z9          // Q2 + …
	VMULPD  Z9, Z8, Z9
	VADDPD.BCST 384(R8), Z9, Z9          // Q1 + …
	VMULPD  Z9, Z8, Z9
	VADDPD.BCST 416(R8), Z9, Z9          // r₁ = 1 + …
	VMULPD  Z6, Z9, Z10                  // r₁·h
	VBROADCASTSD 448(R8), Z11
	VSUBPD  Z10, Z11, Z10                // t = 3 − r₁·h
	VSUBPD  Z10, Z9, Z9                  // r₁ − t
	VMULPD  Z10, Z7, Z10                 // r·t
	VBROADCASTSD 480(R8), Z11
	VSUBPD  Z10, Z11, Z10                // 6 − r·t
	VDIVPD  Z10, Z9, Z9                  // (r₁ − t)/(6 − r·t)
	VMULPD  Z9, Z8, Z9                   // e = s·…

	// k = 0
	VMULPD  Z9, Z7, Z10                  // r·e
	VSUBPD  Z8, Z10, Z10                 // r·e − s
	VSUBPD  Z10, Z7, Z10                 // r − (r·e − s)

	// e′ = (r·(e − c) − c) − s
	VSUBPD  Z5, Z9, Z9
	VMULPD  Z9, Z7, Z9
	VSUBPD  Z5, Z9, Z9
	VSUBPD  Z8, Z9, Z9

	// k = −1: ½·(r − e′) − ½
	VSUBPD  Z9, Z7, Z11
	VMULPD.BCST 128(R8), Z11, Z11
	VSUBPD.BCST 128(R8), Z11, Z11

	// k ≤ −2: 2ᵏ·(1 − (e′ − r)) − 1
	VSUBPD  Z7, Z9, Z12                  // e′ − r
	VBROADCASTSD 416(R8), Z13
	VSUBPD  Z12, Z13, Z12                // y = 1 − (e′ − r)
	VADDPD.BCST 544(R8), Z2, Z13         // k in the low bits
	VPSLLQ  $52, Z13, Z13                // k in the exponent's place
	VPADDQ  Z13, Z12, Z12                // k added to y's exponent
	VSUBPD.BCST 416(R8), Z12, Z12        // − 1

	// choose by k, then x itself for x > 0 or |x| < 2⁻⁵⁴
	VCMPPD.BCST $0x00, 512(R8), Z2, K4   // k = −1
	VMOVAPD Z11, K4, Z12
	VMOVAPD Z10, K3, Z12                 // k = 0
	VCMPPD.BCST $0x11, 224(R8), Z1, K5   // |x| < 2⁻⁵⁴
	VPXORQ  Z14, Z14, Z14
	VCMPPD  $0x1E, Z14, Z0, K6           // x > 0
	KORW    K5, K6, K5
	VMOVAPD Z0, K5, Z12
	VMOVUPD Z12, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     zeloop

zedone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func logAVX512(dst, src *float64, n int, table *[18][4]float64) int
// logAVX eight lanes at a time, each constant of logTable broadcast from
// its first lane: the same operations, so the same bits. It stops at the
// first block of eight with a lane that is not a positive normal number.
TEXT ·logAVX512(SB), NOSPLIT, $0-40
	ARGS

zlloop:
	LOAD8(zldone)
	VCMPPD.BCST $0x1D, (R8), Z0, K1      // x ≥ the smallest normal
	VCMPPD.BCST $0x12, 32(R8), Z0, K2    // x ≤ the largest finite
	KANDW   K1, K2, K1
	ALL8(K1, zldone)
	VPANDQ.BCST 64(R8), Z0, Z1           // the fraction's bits
	VPORQ.BCST  96(R8), Z1, Z1           // f₁ ∈ [½, 1)
	VPSRLQ  $52, Z0, Z2                  // the exponent field e
	VPORQ.BCST  128(R8), Z2, Z2          // 2⁵² + e
	VSUBPD.BCST 160(R8), Z2, Z2          // k = e − 1022
	VCMPPD.BCST $0x12, 192(R8), Z1, K3   // f₁ ≤ √2/2
	VBROADCASTSD.Z 224(R8), K3, Z3       // 1 there, else 0
	VSUBPD  Z3, Z2, Z2                   // k
	VADDPD.BCST 224(R8), Z3, Z3          // 2 there, else 1
	VMULPD  Z3, Z1, Z1                   // f₁
	VSUBPD.BCST 224(R8), Z1, Z1          // f = f₁ − 1
	VADDPD.BCST 256(R8), Z1, Z3          // 2 + f
	VDIVPD  Z3, Z1, Z3                   // s = f/(2 + f)
	VMULPD  Z3, Z3, Z4                   // z = s²
	VMULPD  Z4, Z4, Z5                   // w = z²
	VMULPD.BCST 288(R8), Z5, Z6          // w·L7
	VADDPD.BCST 320(R8), Z6, Z6          // + L5
	VMULPD  Z5, Z6, Z6
	VADDPD.BCST 352(R8), Z6, Z6          // + L3
	VMULPD  Z5, Z6, Z6
	VADDPD.BCST 384(R8), Z6, Z6          // + L1
	VMULPD  Z6, Z4, Z4                   // t₁ = z·(…)
	VMULPD.BCST 416(R8), Z5, Z6          // w·L6
	VADDPD.BCST 448(R8), Z6, Z6          // + L4
	VMULPD  Z5, Z6, Z6
	VADDPD.BCST 480(R8), Z6, Z6          // + L2
	VMULPD  Z6, Z5, Z5                   // t₂ = w·(…)
	VADDPD  Z5, Z4, Z4                   // R = t₁ + t₂
	VMULPD.BCST 96(R8), Z1, Z6           // ½·f
	VMULPD  Z1, Z6, Z6                   // ½f² = (½·f)·f
	VADDPD  Z6, Z4, Z4                   // ½f² + R
	VMULPD  Z4, Z3, Z3                   // s·(½f² + R)
	VMULPD.BCST 512(R8), Z2, Z4          // k·ln2Lo
	VADDPD  Z4, Z3, Z3                   // s·(½f² + R) + k·ln2Lo
	VSUBPD  Z3, Z6, Z6                   // ½f² − that
	VSUBPD  Z1, Z6, Z6                   // − f
	VMULPD.BCST 544(R8), Z2, Z2          // k·ln2Hi
	VSUBPD  Z6, Z2, Z2                   // log x
	VMOVUPD Z2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     zlloop

zldone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// NEXT8 is LOAD8 that also jumps to done when a lane lies outside
// [table[0], table[1]] (NaN included, the comparisons are ordered).
#define NEXT8(done) \
	LOAD8(done) \
	VCMPPD.BCST $0x1D, (R8), Z0, K1 \
	VCMPPD.BCST $0x12, 32(R8), Z0, K2 \
	KANDW K1, K2, K1 \
	ALL8(K1, done)

// func expAVX512(dst, src *float64, n int, table *[20][4]float64) int
// expAVX eight lanes at a time, each constant of expTable broadcast from
// its first lane: the same operations, so the same bits.
TEXT ·expAVX512(SB), NOSPLIT, $0-40
	ARGS

zxloop:
	NEXT8(zxdone)
	VMULPD.BCST  64(R8), Z0, Z1          // x·log₂e
	VRNDSCALEPD  $0, Z1, Z1              // n, to nearest even
	VFNMADD231PD.BCST 96(R8), Z1, Z0     // r = x − n·ln2Hi
	VFNMADD231PD.BCST 128(R8), Z1, Z0    // r = r − n·ln2Lo
	VBROADCASTSD 160(R8), Z2             // p = 1/13!
	VFMADD213PD.BCST 192(R8), Z0, Z2     // p = p·r + 1/12!
	VFMADD213PD.BCST 224(R8), Z0, Z2
	VFMADD213PD.BCST 256(R8), Z0, Z2
	VFMADD213PD.BCST 288(R8), Z0, Z2
	VFMADD213PD.BCST 320(R8), Z0, Z2
	VFMADD213PD.BCST 352(R8), Z0, Z2
	VFMADD213PD.BCST 384(R8), Z0, Z2
	VFMADD213PD.BCST 416(R8), Z0, Z2
	VFMADD213PD.BCST 448(R8), Z0, Z2
	VFMADD213PD.BCST 480(R8), Z0, Z2
	VFMADD213PD.BCST 512(R8), Z0, Z2
	VFMADD213PD.BCST 544(R8), Z0, Z2
	VFMADD213PD.BCST 576(R8), Z0, Z2     // p = p·r + 1
	VADDPD.BCST  608(R8), Z1, Z1         // n + 1023 in the low bits
	VPSLLQ  $52, Z1, Z1                  // 2ⁿ
	VMULPD  Z1, Z2, Z2
	VMOVUPD Z2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     zxloop

zxdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func mathExpAVX512(dst, src *float64, n int, table *[17][4]float64) int
// mathExpAVX eight lanes at a time, each constant of mathExpTable
// broadcast from its first lane: the same operations, so the same bits.
TEXT ·mathExpAVX512(SB), NOSPLIT, $0-40
	ARGS

zmloop:
	NEXT8(zmdone)
	VMULPD.BCST  64(R8), Z0, Z1          // x·log₂e
	VRNDSCALEPD  $0, Z1, Z1              // k, to nearest even
	VFNMADD231PD.BCST 96(R8), Z1, Z0     // x − k·ln2 (upper part)
	VFNMADD231PD.BCST 128(R8), Z1, Z0    // − k·ln2 (lower part)
	VMULPD.BCST  160(R8), Z0, Z0         // r = that/16
	VBROADCASTSD 192(R8), Z2             // p = 1/8!
	VFMADD213PD.BCST 224(R8), Z0, Z2     // p = p·r + 1/7!
	VFMADD213PD.BCST 256(R8), Z0, Z2
	VFMADD213PD.BCST 288(R8), Z0, Z2
	VFMADD213PD.BCST 320(R8), Z0, Z2
	VFMADD213PD.BCST 352(R8), Z0, Z2
	VFMADD213PD.BCST 384(R8), Z0, Z2     // p = p·r + 1/2
	VFMADD213PD.BCST 416(R8), Z0, Z2     // p = p·r + 1
	VMULPD  Z2, Z0, Z0                   // y = r·p = e^r − 1
	VADDPD.BCST 448(R8), Z0, Z2          // y = y·(y + 2), three times
	VMULPD  Z2, Z0, Z0
	VADDPD.BCST 448(R8), Z0, Z2
	VMULPD  Z2, Z0, Z0
	VADDPD.BCST 448(R8), Z0, Z2
	VMULPD  Z2, Z0, Z0
	VADDPD.BCST 448(R8), Z0, Z2
	VFMADD213PD.BCST 480(R8), Z2, Z0     // y·(y + 2) + 1 = e^{16r}
	VADDPD.BCST 512(R8), Z1, Z1          // k + 1023 in the low bits
	VPSLLQ  $52, Z1, Z1                  // 2ᵏ
	VMULPD  Z1, Z0, Z0
	VMOVUPD Z0, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     zmloop

zmdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
