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

// func spmmRow8NEON(o, val *float64, ind *int, nnz int, b *float64, ldb int)
// o[0:8] = the chains over q < nnz of fma(val[q], b[ind[q]·ldb + j], ·)
// for j < 8, from zero; b points to the block's first column in row 0.
TEXT ·spmmRow8NEON(SB), NOSPLIT, $0-48
	MOVD	o+0(FP), R0
	MOVD	val+8(FP), R1
	MOVD	ind+16(FP), R2
	MOVD	nnz+24(FP), R3
	MOVD	b+32(FP), R4
	MOVD	ldb+40(FP), R5
	LSL	$3, R5, R5
	VEOR	V0.B16, V0.B16, V0.B16
	VEOR	V1.B16, V1.B16, V1.B16
	VEOR	V2.B16, V2.B16, V2.B16
	VEOR	V3.B16, V3.B16, V3.B16

entry:
	CBZ	R3, store
	FMOVD.P	8(R1), F16
	MOVD.P	8(R2), R6
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
	RET
