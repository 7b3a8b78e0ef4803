//go:build arm64 && !purego

#include "textflag.h"

// The NEON kernels: two float64 lanes per 128-bit register, each lane a
// chain of fused multiply-adds (FMLA rounds once, as math.FMA) in the
// order of the portable kernels, so that they give the same bits.

// func axpy4NEON(o, b0, b1, b2, b3 *float64, n int, v0, v1, v2, v3 float64)
// o[j] = fma(v3, b3[j], fma(v2, b2[j], fma(v1, b1[j], fma(v0, b0[j], o[j]))))
// for j < n, n even.
TEXT ·axpy4NEON(SB), NOSPLIT, $0-80
	MOVD	o+0(FP), R0
	MOVD	b0+8(FP), R1
	MOVD	b1+16(FP), R2
	MOVD	b2+24(FP), R3
	MOVD	b3+32(FP), R4
	MOVD	n+40(FP), R5
	FMOVD	v0+48(FP), F16
	FMOVD	v1+56(FP), F17
	FMOVD	v2+64(FP), F18
	FMOVD	v3+72(FP), F19
	VDUP	V16.D[0], V16.D2
	VDUP	V17.D[0], V17.D2
	VDUP	V18.D[0], V18.D2
	VDUP	V19.D[0], V19.D2

loop4:
	CMP	$4, R5
	BLT	loop2
	VLD1	(R0), [V0.D2, V1.D2]
	VLD1.P	32(R1), [V2.D2, V3.D2]
	VLD1.P	32(R2), [V4.D2, V5.D2]
	VLD1.P	32(R3), [V6.D2, V7.D2]
	VLD1.P	32(R4), [V20.D2, V21.D2]
	VFMLA	V16.D2, V2.D2, V0.D2
	VFMLA	V16.D2, V3.D2, V1.D2
	VFMLA	V17.D2, V4.D2, V0.D2
	VFMLA	V17.D2, V5.D2, V1.D2
	VFMLA	V18.D2, V6.D2, V0.D2
	VFMLA	V18.D2, V7.D2, V1.D2
	VFMLA	V19.D2, V20.D2, V0.D2
	VFMLA	V19.D2, V21.D2, V1.D2
	VST1.P	[V0.D2, V1.D2], 32(R0)
	SUB	$4, R5
	B	loop4

loop2:
	CBZ	R5, done
	VLD1	(R0), [V0.D2]
	VLD1.P	16(R1), [V2.D2]
	VLD1.P	16(R2), [V4.D2]
	VLD1.P	16(R3), [V6.D2]
	VLD1.P	16(R4), [V20.D2]
	VFMLA	V16.D2, V2.D2, V0.D2
	VFMLA	V17.D2, V4.D2, V0.D2
	VFMLA	V18.D2, V6.D2, V0.D2
	VFMLA	V19.D2, V20.D2, V0.D2
	VST1.P	[V0.D2], 16(R0)

done:
	RET

// func spmmRow8NEON(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool
// o[0:8] = the chains over q < nnz of fma(val[q], b[ind[q]·ldb + j], ·)
// for j < 8, from zero; b points to the block's first column in row 0.
// False (o unwritten) when an index is not below nb.
TEXT ·spmmRow8NEON(SB), NOSPLIT, $0-57
	MOVD	o+0(FP), R0
	MOVD	val+8(FP), R1
	MOVD	ind+16(FP), R2
	MOVD	nnz+24(FP), R3
	MOVD	b+32(FP), R4
	MOVD	ldb+40(FP), R5
	LSL	$3, R5, R5
	MOVD	nb+48(FP), R7
	VEOR	V0.B16, V0.B16, V0.B16
	VEOR	V1.B16, V1.B16, V1.B16
	VEOR	V2.B16, V2.B16, V2.B16
	VEOR	V3.B16, V3.B16, V3.B16

entry:
	CBZ	R3, store
	FMOVD.P	8(R1), F16
	MOVD.P	8(R2), R6
	CMP	R7, R6
	BHS	bad
	MUL	R5, R6, R6
	ADD	R4, R6, R6
	VDUP	V16.D[0], V16.D2
	VLD1	(R6), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA	V16.D2, V4.D2, V0.D2
	VFMLA	V16.D2, V5.D2, V1.D2
	VFMLA	V16.D2, V6.D2, V2.D2
	VFMLA	V16.D2, V7.D2, V3.D2
	SUB	$1, R3
	B	entry

store:
	VST1	[V0.D2, V1.D2, V2.D2, V3.D2], (R0)
	MOVD	$1, R8
	MOVB	R8, ret+56(FP)
	RET

bad:
	MOVB	ZR, ret+56(FP)
	RET

// func gemm4x8NEON(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)
// o[r·ldo + j] = the chain over s < k of fma(a[r·lda + s·astep], b[s·ldb + j], ·)
// from o[r·ldo + j], for r < 4 and j < 8: the 32 sums stay in V0–V15.
TEXT ·gemm4x8NEON(SB), NOSPLIT, $0-64
	MOVD	o+0(FP), R0
	MOVD	ldo+8(FP), R1
	MOVD	a+16(FP), R2
	MOVD	lda+24(FP), R3
	MOVD	astep+32(FP), R4
	MOVD	b+40(FP), R5
	MOVD	ldb+48(FP), R6
	MOVD	k+56(FP), R7
	LSL	$3, R1, R1
	LSL	$3, R3, R3
	LSL	$3, R4, R4
	LSL	$3, R6, R6
	ADD	R1, R0, R8
	ADD	R1, R8, R9
	ADD	R1, R9, R10
	ADD	R3, R2, R11
	ADD	R3, R11, R12
	ADD	R3, R12, R13
	VLD1	(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1	(R8), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1	(R9), [V8.D2, V9.D2, V10.D2, V11.D2]
	VLD1	(R10), [V12.D2, V13.D2, V14.D2, V15.D2]

gemmloop:
	CBZ	R7, gemmstore
	VLD1	(R5), [V16.D2, V17.D2, V18.D2, V19.D2]
	ADD	R6, R5, R5
	VLD1R	(R2), [V20.D2]
	VLD1R	(R11), [V21.D2]
	VLD1R	(R12), [V22.D2]
	VLD1R	(R13), [V23.D2]
	ADD	R4, R2, R2
	ADD	R4, R11, R11
	ADD	R4, R12, R12
	ADD	R4, R13, R13
	VFMLA	V20.D2, V16.D2, V0.D2
	VFMLA	V20.D2, V17.D2, V1.D2
	VFMLA	V20.D2, V18.D2, V2.D2
	VFMLA	V20.D2, V19.D2, V3.D2
	VFMLA	V21.D2, V16.D2, V4.D2
	VFMLA	V21.D2, V17.D2, V5.D2
	VFMLA	V21.D2, V18.D2, V6.D2
	VFMLA	V21.D2, V19.D2, V7.D2
	VFMLA	V22.D2, V16.D2, V8.D2
	VFMLA	V22.D2, V17.D2, V9.D2
	VFMLA	V22.D2, V18.D2, V10.D2
	VFMLA	V22.D2, V19.D2, V11.D2
	VFMLA	V23.D2, V16.D2, V12.D2
	VFMLA	V23.D2, V17.D2, V13.D2
	VFMLA	V23.D2, V18.D2, V14.D2
	VFMLA	V23.D2, V19.D2, V15.D2
	SUB	$1, R7
	B	gemmloop

gemmstore:
	VST1	[V0.D2, V1.D2, V2.D2, V3.D2], (R0)
	VST1	[V4.D2, V5.D2, V6.D2, V7.D2], (R8)
	VST1	[V8.D2, V9.D2, V10.D2, V11.D2], (R9)
	VST1	[V12.D2, V13.D2, V14.D2, V15.D2], (R10)
	RET

// func scatterBlockNEON(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64)
// For each j < nj with masks[j] ≠ 0 and each 8-column block of the first
// cols (a multiple of 8): the block of row j of o in V0–V3, then for every
// set bit r of masks[j], lowest first, o = fma(scale[r], b[r·ldb + …], o),
// then stored.
TEXT ·scatterBlockNEON(SB), NOSPLIT, $0-64
	MOVD	o+0(FP), R0
	MOVD	ldo+8(FP), R1
	MOVD	masks+16(FP), R2
	MOVD	nj+24(FP), R3
	MOVD	b+32(FP), R4
	MOVD	ldb+40(FP), R5
	MOVD	cols+48(FP), R6
	MOVD	scale+56(FP), R7
	LSL	$3, R1, R1
	LSL	$3, R5, R5

blockrow:
	CBZ	R3, blockdone
	MOVWU	(R2), R8
	CBZ	R8, blocknext
	MOVD	$0, R9

blockcols:
	ADD	R9<<3, R0, R10
	VLD1	(R10), [V0.D2, V1.D2, V2.D2, V3.D2]
	MOVWU	(R2), R8

blockbit:
	RBIT	R8, R11
	CLZ	R11, R11
	MOVD	$1, R12
	LSL	R11, R12, R12
	BIC	R12, R8, R8
	ADD	R11<<3, R7, R12
	VLD1R	(R12), [V16.D2]
	MUL	R5, R11, R12
	ADD	R4, R12, R12
	ADD	R9<<3, R12, R12
	VLD1	(R12), [V4.D2, V5.D2, V6.D2, V7.D2]
	VFMLA	V16.D2, V4.D2, V0.D2
	VFMLA	V16.D2, V5.D2, V1.D2
	VFMLA	V16.D2, V6.D2, V2.D2
	VFMLA	V16.D2, V7.D2, V3.D2
	CBNZ	R8, blockbit
	VST1	[V0.D2, V1.D2, V2.D2, V3.D2], (R10)
	ADD	$8, R9
	CMP	R6, R9
	BLT	blockcols

blocknext:
	ADD	R1, R0
	ADD	$4, R2
	SUB	$1, R3
	B	blockrow

blockdone:
	RET

// func binarySumNEON(o *float64, ldo int, entries *uint32, start *int, tables, scale, bias *float64, rows int)
// For each of the rows i: the 32 sums Σ_q tables[entries[q] + j] for q
// from start[i] to start[i+1], in order, from zero (each addition a + e
// computed as fma(1, e, a), which rounds as a + e), then o[j] =
// fma(scale, sum_j, bias[j]). The sums stay in V0–V15; V31 holds the ones.
TEXT ·binarySumNEON(SB), NOSPLIT, $0-64
	MOVD	o+0(FP), R0
	MOVD	ldo+8(FP), R1
	MOVD	entries+16(FP), R2
	MOVD	start+24(FP), R3
	MOVD	tables+32(FP), R4
	MOVD	scale+40(FP), R5
	MOVD	bias+48(FP), R6
	MOVD	rows+56(FP), R7
	LSL	$3, R1, R1
	FMOVD	$1.0, F31
	VDUP	V31.D[0], V31.D2

sumrow:
	CBZ	R7, sumdone
	VEOR	V0.B16, V0.B16, V0.B16
	VEOR	V1.B16, V1.B16, V1.B16
	VEOR	V2.B16, V2.B16, V2.B16
	VEOR	V3.B16, V3.B16, V3.B16
	VEOR	V4.B16, V4.B16, V4.B16
	VEOR	V5.B16, V5.B16, V5.B16
	VEOR	V6.B16, V6.B16, V6.B16
	VEOR	V7.B16, V7.B16, V7.B16
	VEOR	V8.B16, V8.B16, V8.B16
	VEOR	V9.B16, V9.B16, V9.B16
	VEOR	V10.B16, V10.B16, V10.B16
	VEOR	V11.B16, V11.B16, V11.B16
	VEOR	V12.B16, V12.B16, V12.B16
	VEOR	V13.B16, V13.B16, V13.B16
	VEOR	V14.B16, V14.B16, V14.B16
	VEOR	V15.B16, V15.B16, V15.B16
	MOVD	(R3), R9
	MOVD	8(R3), R10
	ADD	$8, R3

sumchunk:
	CMP	R10, R9
	BGE	sumstore
	MOVWU	(R2)(R9<<2), R11
	ADD	R11<<3, R4, R11
	VLD1.P	64(R11), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P	64(R11), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P	64(R11), [V24.D2, V25.D2, V26.D2, V27.D2]
	VFMLA	V31.D2, V16.D2, V0.D2
	VFMLA	V31.D2, V17.D2, V1.D2
	VFMLA	V31.D2, V18.D2, V2.D2
	VFMLA	V31.D2, V19.D2, V3.D2
	VLD1	(R11), [V16.D2, V17.D2, V18.D2, V19.D2]
	VFMLA	V31.D2, V20.D2, V4.D2
	VFMLA	V31.D2, V21.D2, V5.D2
	VFMLA	V31.D2, V22.D2, V6.D2
	VFMLA	V31.D2, V23.D2, V7.D2
	VFMLA	V31.D2, V24.D2, V8.D2
	VFMLA	V31.D2, V25.D2, V9.D2
	VFMLA	V31.D2, V26.D2, V10.D2
	VFMLA	V31.D2, V27.D2, V11.D2
	VFMLA	V31.D2, V16.D2, V12.D2
	VFMLA	V31.D2, V17.D2, V13.D2
	VFMLA	V31.D2, V18.D2, V14.D2
	VFMLA	V31.D2, V19.D2, V15.D2
	ADD	$1, R9
	B	sumchunk

sumstore:
	FMOVD.P	8(R5), F30
	VDUP	V30.D[0], V30.D2
	MOVD	R6, R12
	MOVD	R0, R13
	VLD1.P	64(R12), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P	64(R12), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P	64(R12), [V24.D2, V25.D2, V26.D2, V27.D2]
	VFMLA	V30.D2, V0.D2, V16.D2
	VFMLA	V30.D2, V1.D2, V17.D2
	VFMLA	V30.D2, V2.D2, V18.D2
	VFMLA	V30.D2, V3.D2, V19.D2
	VFMLA	V30.D2, V4.D2, V20.D2
	VFMLA	V30.D2, V5.D2, V21.D2
	VFMLA	V30.D2, V6.D2, V22.D2
	VFMLA	V30.D2, V7.D2, V23.D2
	VFMLA	V30.D2, V8.D2, V24.D2
	VFMLA	V30.D2, V9.D2, V25.D2
	VFMLA	V30.D2, V10.D2, V26.D2
	VFMLA	V30.D2, V11.D2, V27.D2
	VST1.P	[V16.D2, V17.D2, V18.D2, V19.D2], 64(R13)
	VST1.P	[V20.D2, V21.D2, V22.D2, V23.D2], 64(R13)
	VST1.P	[V24.D2, V25.D2, V26.D2, V27.D2], 64(R13)
	VLD1	(R12), [V16.D2, V17.D2, V18.D2, V19.D2]
	VFMLA	V30.D2, V12.D2, V16.D2
	VFMLA	V30.D2, V13.D2, V17.D2
	VFMLA	V30.D2, V14.D2, V18.D2
	VFMLA	V30.D2, V15.D2, V19.D2
	VST1	[V16.D2, V17.D2, V18.D2, V19.D2], (R13)
	ADD	R1, R0
	SUB	$1, R7
	B	sumrow

sumdone:
	RET
