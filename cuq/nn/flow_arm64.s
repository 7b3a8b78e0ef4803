//go:build arm64 && !purego

#include "textflag.h"

// The NEON kernel of the radial flows' forward chains for 16-dimensional
// latents: forwardBlock (flow.go) for the eight lanes of a block, two
// lanes per 128-bit register, in the lane layout (component j of lane k at
// [8j + k]; a layer's record is its 16×8 inputs, then r, then h, 1152
// bytes). Per lane it follows the portable code operation by operation,
// so that it gives the same bits. Go's assembler has no vector FADD,
// FSUB, FMUL, FDIV or FSQRT, so those are written as their encodings
// (WORD), each with the instruction it encodes beside it.

// func radialForward8NEON(zt, x0, a, b *float64, layers, classes int, out, rec *float64)
//
// x0 points at the class's centre in layer 0, a and b at its layer-0
// scalars; the next layer's values are classes·16 (centres) or classes
// (scalars) elements further. out receives Π(1+u) at out[0:8], Π(1+q) at
// out[8:16] and ‖z_L‖² at out[16:24]; rec, if not nil, the layers'
// records. zt is overwritten with z_L.
//
// Registers: V0–V15 the partial sums s_m of lane pair g in V(4m+g), then
// r, h, u and 1+u of pair g in V(g), V(4+g), V(8+g), V(12+g); V16 a
// centre component; V17–V20 a component of z; V21 ones; V22 a; V23 b;
// V24–V27 Π(1+u); V28–V31 Π(1+q); R13 counts a loop's iterations.
TEXT ·radialForward8NEON(SB), NOSPLIT, $0-64
	MOVD	zt+0(FP), R0
	MOVD	x0+8(FP), R1
	MOVD	a+16(FP), R2
	MOVD	b+24(FP), R3
	MOVD	layers+32(FP), R4
	MOVD	classes+40(FP), R5
	MOVD	out+48(FP), R8
	MOVD	rec+56(FP), R9
	LSL	$7, R5, R6	// centre stride in bytes: classes·16·8
	LSL	$3, R5, R7	// scalar stride in bytes: classes·8
	FMOVD	$1.0, F21
	VDUP	V21.D[0], V21.D2
	VMOV	V21.B16, V24.B16
	VMOV	V21.B16, V25.B16
	VMOV	V21.B16, V26.B16
	VMOV	V21.B16, V27.B16
	VMOV	V21.B16, V28.B16
	VMOV	V21.B16, V29.B16
	VMOV	V21.B16, V30.B16
	VMOV	V21.B16, V31.B16

f8layer:
	CBZ	R4, f8done
	CBZ	R9, f8sq
	MOVD	R0, R10
	MOVD	R9, R11
	MOVD	$16, R13

f8rec:
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	VST1.P	[V17.D2, V18.D2, V19.D2, V20.D2], 64(R11)
	SUB	$1, R13
	CBNZ	R13, f8rec

f8sq:
	// r² = (s0 + s1) + (s2 + s3), s_m the fused sum over j ≡ m mod 4
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
	MOVD	R0, R10
	MOVD	R1, R12
	MOVD	$4, R13

f8dist:	// components j … j+3
	VLD1R.P	8(R12), [V16.D2]
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	WORD	$0x4ef0d631	// FSUB V17.2D, V17.2D, V16.2D
	WORD	$0x4ef0d652	// FSUB V18.2D, V18.2D, V16.2D
	WORD	$0x4ef0d673	// FSUB V19.2D, V19.2D, V16.2D
	WORD	$0x4ef0d694	// FSUB V20.2D, V20.2D, V16.2D
	VFMLA	V17.D2, V17.D2, V0.D2
	VFMLA	V18.D2, V18.D2, V1.D2
	VFMLA	V19.D2, V19.D2, V2.D2
	VFMLA	V20.D2, V20.D2, V3.D2
	VLD1R.P	8(R12), [V16.D2]
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	WORD	$0x4ef0d631	// FSUB V17.2D, V17.2D, V16.2D
	WORD	$0x4ef0d652	// FSUB V18.2D, V18.2D, V16.2D
	WORD	$0x4ef0d673	// FSUB V19.2D, V19.2D, V16.2D
	WORD	$0x4ef0d694	// FSUB V20.2D, V20.2D, V16.2D
	VFMLA	V17.D2, V17.D2, V4.D2
	VFMLA	V18.D2, V18.D2, V5.D2
	VFMLA	V19.D2, V19.D2, V6.D2
	VFMLA	V20.D2, V20.D2, V7.D2
	VLD1R.P	8(R12), [V16.D2]
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	WORD	$0x4ef0d631	// FSUB V17.2D, V17.2D, V16.2D
	WORD	$0x4ef0d652	// FSUB V18.2D, V18.2D, V16.2D
	WORD	$0x4ef0d673	// FSUB V19.2D, V19.2D, V16.2D
	WORD	$0x4ef0d694	// FSUB V20.2D, V20.2D, V16.2D
	VFMLA	V17.D2, V17.D2, V8.D2
	VFMLA	V18.D2, V18.D2, V9.D2
	VFMLA	V19.D2, V19.D2, V10.D2
	VFMLA	V20.D2, V20.D2, V11.D2
	VLD1R.P	8(R12), [V16.D2]
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	WORD	$0x4ef0d631	// FSUB V17.2D, V17.2D, V16.2D
	WORD	$0x4ef0d652	// FSUB V18.2D, V18.2D, V16.2D
	WORD	$0x4ef0d673	// FSUB V19.2D, V19.2D, V16.2D
	WORD	$0x4ef0d694	// FSUB V20.2D, V20.2D, V16.2D
	VFMLA	V17.D2, V17.D2, V12.D2
	VFMLA	V18.D2, V18.D2, V13.D2
	VFMLA	V19.D2, V19.D2, V14.D2
	VFMLA	V20.D2, V20.D2, V15.D2
	SUB	$1, R13
	CBNZ	R13, f8dist
	WORD	$0x4e64d400	// FADD V0.2D, V0.2D, V4.2D
	WORD	$0x4e6cd508	// FADD V8.2D, V8.2D, V12.2D
	WORD	$0x4e68d400	// FADD V0.2D, V0.2D, V8.2D
	WORD	$0x6ee1f800	// FSQRT V0.2D, V0.2D
	WORD	$0x4e65d421	// FADD V1.2D, V1.2D, V5.2D
	WORD	$0x4e6dd529	// FADD V9.2D, V9.2D, V13.2D
	WORD	$0x4e69d421	// FADD V1.2D, V1.2D, V9.2D
	WORD	$0x6ee1f821	// FSQRT V1.2D, V1.2D
	WORD	$0x4e66d442	// FADD V2.2D, V2.2D, V6.2D
	WORD	$0x4e6ed54a	// FADD V10.2D, V10.2D, V14.2D
	WORD	$0x4e6ad442	// FADD V2.2D, V2.2D, V10.2D
	WORD	$0x6ee1f842	// FSQRT V2.2D, V2.2D
	WORD	$0x4e67d463	// FADD V3.2D, V3.2D, V7.2D
	WORD	$0x4e6fd56b	// FADD V11.2D, V11.2D, V15.2D
	WORD	$0x4e6bd463	// FADD V3.2D, V3.2D, V11.2D
	WORD	$0x6ee1f863	// FSQRT V3.2D, V3.2D
	FMOVD	(R2), F22
	VDUP	V22.D[0], V22.D2
	FMOVD	(R3), F23
	VDUP	V23.D[0], V23.D2
	WORD	$0x4e60d6c4	// FADD V4.2D, V22.2D, V0.2D
	WORD	$0x4e61d6c5	// FADD V5.2D, V22.2D, V1.2D
	WORD	$0x4e62d6c6	// FADD V6.2D, V22.2D, V2.2D
	WORD	$0x4e63d6c7	// FADD V7.2D, V22.2D, V3.2D
	WORD	$0x6e64fea4	// FDIV V4.2D, V21.2D, V4.2D
	WORD	$0x6e65fea5	// FDIV V5.2D, V21.2D, V5.2D
	WORD	$0x6e66fea6	// FDIV V6.2D, V21.2D, V6.2D
	WORD	$0x6e67fea7	// FDIV V7.2D, V21.2D, V7.2D
	CBZ	R9, f8states
	ADD	$1024, R9, R11
	VST1	[V0.D2, V1.D2, V2.D2, V3.D2], (R11)
	ADD	$1088, R9, R11
	VST1	[V4.D2, V5.D2, V6.D2, V7.D2], (R11)
	ADD	$1152, R9

f8states:
	WORD	$0x6e64dee8	// FMUL V8.2D, V23.2D, V4.2D
	WORD	$0x6e65dee9	// FMUL V9.2D, V23.2D, V5.2D
	WORD	$0x6e66deea	// FMUL V10.2D, V23.2D, V6.2D
	WORD	$0x6e67deeb	// FMUL V11.2D, V23.2D, V7.2D
	WORD	$0x4e68d6ac	// FADD V12.2D, V21.2D, V8.2D
	WORD	$0x4e69d6ad	// FADD V13.2D, V21.2D, V9.2D
	WORD	$0x4e6ad6ae	// FADD V14.2D, V21.2D, V10.2D
	WORD	$0x4e6bd6af	// FADD V15.2D, V21.2D, V11.2D
	WORD	$0x6e6cdf18	// FMUL V24.2D, V24.2D, V12.2D
	WORD	$0x6e6ddf39	// FMUL V25.2D, V25.2D, V13.2D
	WORD	$0x6e6edf5a	// FMUL V26.2D, V26.2D, V14.2D
	WORD	$0x6e6fdf7b	// FMUL V27.2D, V27.2D, V15.2D
	WORD	$0x6e64dd11	// FMUL V17.2D, V8.2D, V4.2D
	WORD	$0x6e65dd32	// FMUL V18.2D, V9.2D, V5.2D
	WORD	$0x6e66dd53	// FMUL V19.2D, V10.2D, V6.2D
	WORD	$0x6e67dd74	// FMUL V20.2D, V11.2D, V7.2D
	WORD	$0x6e60de31	// FMUL V17.2D, V17.2D, V0.2D
	WORD	$0x6e61de52	// FMUL V18.2D, V18.2D, V1.2D
	WORD	$0x6e62de73	// FMUL V19.2D, V19.2D, V2.2D
	WORD	$0x6e63de94	// FMUL V20.2D, V20.2D, V3.2D
	WORD	$0x4ef1d58c	// FSUB V12.2D, V12.2D, V17.2D
	WORD	$0x4ef2d5ad	// FSUB V13.2D, V13.2D, V18.2D
	WORD	$0x4ef3d5ce	// FSUB V14.2D, V14.2D, V19.2D
	WORD	$0x4ef4d5ef	// FSUB V15.2D, V15.2D, V20.2D
	WORD	$0x6e6cdf9c	// FMUL V28.2D, V28.2D, V12.2D
	WORD	$0x6e6ddfbd	// FMUL V29.2D, V29.2D, V13.2D
	WORD	$0x6e6edfde	// FMUL V30.2D, V30.2D, V14.2D
	WORD	$0x6e6fdfff	// FMUL V31.2D, V31.2D, V15.2D
	// z_j ← fma(z_j − x0_j, u, z_j)
	MOVD	R0, R10
	MOVD	R0, R11
	MOVD	R1, R12
	MOVD	$16, R13

f8update:
	VLD1R.P	8(R12), [V16.D2]
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	WORD	$0x4ef0d620	// FSUB V0.2D, V17.2D, V16.2D
	WORD	$0x4ef0d641	// FSUB V1.2D, V18.2D, V16.2D
	WORD	$0x4ef0d662	// FSUB V2.2D, V19.2D, V16.2D
	WORD	$0x4ef0d683	// FSUB V3.2D, V20.2D, V16.2D
	VFMLA	V8.D2, V0.D2, V17.D2
	VFMLA	V9.D2, V1.D2, V18.D2
	VFMLA	V10.D2, V2.D2, V19.D2
	VFMLA	V11.D2, V3.D2, V20.D2
	VST1.P	[V17.D2, V18.D2, V19.D2, V20.D2], 64(R11)
	SUB	$1, R13
	CBNZ	R13, f8update
	ADD	R6, R1
	ADD	R7, R2
	ADD	R7, R3
	SUB	$1, R4
	B	f8layer

f8done:
	VEOR	V0.B16, V0.B16, V0.B16
	VEOR	V1.B16, V1.B16, V1.B16
	VEOR	V2.B16, V2.B16, V2.B16
	VEOR	V3.B16, V3.B16, V3.B16
	MOVD	R0, R10
	MOVD	$16, R13

f8norm:
	VLD1.P	64(R10), [V17.D2, V18.D2, V19.D2, V20.D2]
	VFMLA	V17.D2, V17.D2, V0.D2
	VFMLA	V18.D2, V18.D2, V1.D2
	VFMLA	V19.D2, V19.D2, V2.D2
	VFMLA	V20.D2, V20.D2, V3.D2
	SUB	$1, R13
	CBNZ	R13, f8norm
	VST1	[V24.D2, V25.D2, V26.D2, V27.D2], (R8)
	ADD	$64, R8, R10
	VST1	[V28.D2, V29.D2, V30.D2, V31.D2], (R10)
	ADD	$128, R8, R10
	VST1	[V0.D2, V1.D2, V2.D2, V3.D2], (R10)
	RET
