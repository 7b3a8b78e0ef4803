//go:build arm64 && !purego

#include "textflag.h"

// The NEON kernels of the radial flows for 16-dimensional latents:
// forwardBlock (flow.go) for the eight lanes of a block and backwardBlock
// for four of them, two lanes per 128-bit register, in the lane layout (component j of lane k at
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

// func radialBackward4NEON(rec, zt, gi, x0, b, sigA, sigB *float64, layers, classes int, gz, accX0, accA, accB *float64)
//
// Four lanes of backwardBlock, from the last layer to the first, two
// lanes per register: the arguments are those of the AVX2 kernel
// radialBackward4 (flow_amd64.s), the pointers into the eight-lane layout
// offset to the first of the four lanes, so that a component's four lanes
// are 32 bytes at a stride of 64. The accumulators of lanes whose gi is
// zero keep their values (BIF with the mask gi = 0).
//
// Registers: V0–V1 gi; V2–V3 the mask gi = 0; V4 ones; V5 fifteen (D−1);
// per layer V6–V7 r, V8–V9 h, V10–V11 u = b·h, V12 b, V13–V14 the even
// sums and then g_u, V15–V16 the odd sums and then g_q, V17–V18 q and then
// g_b, V26–V27 g_r/r; V19–V25 and V28–V31 scratch. R0 the layer's record,
// R3 its centre, R4–R6 its b, σ(a′), σ(b′), R7 layers left, R8 the scalar
// stride, R9 gz, R10 accX0, R11 accA, R12 accB; R13–R15 and R19
// walk a loop's operands, R21 counts its iterations.
TEXT ·radialBackward4NEON(SB), NOSPLIT, $0-104
	MOVD	rec+0(FP), R0
	MOVD	zt+8(FP), R1
	MOVD	gi+16(FP), R2
	MOVD	x0+24(FP), R3
	MOVD	b+32(FP), R4
	MOVD	sigA+40(FP), R5
	MOVD	sigB+48(FP), R6
	MOVD	layers+56(FP), R7
	MOVD	classes+64(FP), R8
	LSL	$3, R8	// scalar stride in bytes: classes·8
	MOVD	gz+72(FP), R9
	MOVD	accX0+80(FP), R10
	MOVD	accA+88(FP), R11
	MOVD	accB+96(FP), R12
	VLD1	(R2), [V0.D2, V1.D2]
	WORD	$0x4ee0d802	// FCMEQ V2.2D, V0.2D, #0.0
	WORD	$0x4ee0d823	// FCMEQ V3.2D, V1.2D, #0.0
	FMOVD	$1.0, F4
	VDUP	V4.D[0], V4.D2
	FMOVD	$15.0, F5
	VDUP	V5.D[0], V5.D2
	// gz = z_L·(0 − gi)
	VEOR	V19.B16, V19.B16, V19.B16
	WORD	$0x4ee0d674	// FSUB V20.2D, V19.2D, V0.2D
	WORD	$0x4ee1d675	// FSUB V21.2D, V19.2D, V1.2D
	MOVD	R1, R13
	MOVD	R9, R14
	MOVD	$16, R21

b4ngz:
	VLD1	(R13), [V22.D2, V23.D2]
	WORD	$0x6e74ded6	// FMUL V22.2D, V22.2D, V20.2D
	WORD	$0x6e75def7	// FMUL V23.2D, V23.2D, V21.2D
	VST1	[V22.D2, V23.D2], (R14)
	ADD	$64, R13
	ADD	$64, R14
	SUB	$1, R21
	CBNZ	R21, b4ngz

b4nlayer:
	CBZ	R7, b4ndone
	ADD	$1024, R0, R13
	VLD1	(R13), [V6.D2, V7.D2]	// r
	ADD	$1088, R0, R13
	VLD1	(R13), [V8.D2, V9.D2]	// h
	VLD1R	(R4), [V12.D2]	// b
	WORD	$0x6e6cdd0a	// FMUL V10.2D, V8.2D, V12.2D
	WORD	$0x6e6cdd2b	// FMUL V11.2D, V9.2D, V12.2D
	WORD	$0x6e68dd51	// FMUL V17.2D, V10.2D, V8.2D
	WORD	$0x6e69dd72	// FMUL V18.2D, V11.2D, V9.2D
	WORD	$0x6e66de31	// FMUL V17.2D, V17.2D, V6.2D
	WORD	$0x6e67de52	// FMUL V18.2D, V18.2D, V7.2D
	WORD	$0x4ef1d551	// FSUB V17.2D, V10.2D, V17.2D
	WORD	$0x4ef2d572	// FSUB V18.2D, V11.2D, V18.2D
	// Σ_{j even} d_j·gz_j and Σ_{j odd} d_j·gz_j
	VEOR	V13.B16, V13.B16, V13.B16
	VEOR	V14.B16, V14.B16, V14.B16
	VEOR	V15.B16, V15.B16, V15.B16
	VEOR	V16.B16, V16.B16, V16.B16
	MOVD	R0, R13
	MOVD	R3, R14
	MOVD	R9, R15
	MOVD	$8, R21

b4ndot:
	VLD1R.P	8(R14), [V19.D2]
	VLD1	(R13), [V20.D2, V21.D2]
	WORD	$0x4ef3d694	// FSUB V20.2D, V20.2D, V19.2D
	WORD	$0x4ef3d6b5	// FSUB V21.2D, V21.2D, V19.2D
	VLD1	(R15), [V22.D2, V23.D2]
	VFMLA	V22.D2, V20.D2, V13.D2
	VFMLA	V23.D2, V21.D2, V14.D2
	ADD	$64, R13
	ADD	$64, R15
	VLD1R.P	8(R14), [V19.D2]
	VLD1	(R13), [V20.D2, V21.D2]
	WORD	$0x4ef3d694	// FSUB V20.2D, V20.2D, V19.2D
	WORD	$0x4ef3d6b5	// FSUB V21.2D, V21.2D, V19.2D
	VLD1	(R15), [V22.D2, V23.D2]
	VFMLA	V22.D2, V20.D2, V15.D2
	VFMLA	V23.D2, V21.D2, V16.D2
	ADD	$64, R13
	ADD	$64, R15
	SUB	$1, R21
	CBNZ	R21, b4ndot
	WORD	$0x4e6fd5ad	// FADD V13.2D, V13.2D, V15.2D
	WORD	$0x4e70d5ce	// FADD V14.2D, V14.2D, V16.2D
	WORD	$0x6e65dc13	// FMUL V19.2D, V0.2D, V5.2D
	WORD	$0x6e65dc34	// FMUL V20.2D, V1.2D, V5.2D
	WORD	$0x4e6ad495	// FADD V21.2D, V4.2D, V10.2D
	WORD	$0x4e6bd496	// FADD V22.2D, V4.2D, V11.2D
	WORD	$0x6e75fe73	// FDIV V19.2D, V19.2D, V21.2D
	WORD	$0x6e76fe94	// FDIV V20.2D, V20.2D, V22.2D
	WORD	$0x4e73d5ad	// FADD V13.2D, V13.2D, V19.2D
	WORD	$0x4e74d5ce	// FADD V14.2D, V14.2D, V20.2D
	WORD	$0x4e71d491	// FADD V17.2D, V4.2D, V17.2D
	WORD	$0x4e72d492	// FADD V18.2D, V4.2D, V18.2D
	WORD	$0x6e71fc0f	// FDIV V15.2D, V0.2D, V17.2D
	WORD	$0x6e72fc30	// FDIV V16.2D, V1.2D, V18.2D
	WORD	$0x6e68dd13	// FMUL V19.2D, V8.2D, V8.2D
	WORD	$0x6e69dd34	// FMUL V20.2D, V9.2D, V9.2D
	WORD	$0x6e66de73	// FMUL V19.2D, V19.2D, V6.2D
	WORD	$0x6e67de94	// FMUL V20.2D, V20.2D, V7.2D
	WORD	$0x4ef3d513	// FSUB V19.2D, V8.2D, V19.2D
	WORD	$0x4ef4d534	// FSUB V20.2D, V9.2D, V20.2D
	WORD	$0x6e73ddf3	// FMUL V19.2D, V15.2D, V19.2D
	WORD	$0x6e74de14	// FMUL V20.2D, V16.2D, V20.2D
	WORD	$0x6e68ddb5	// FMUL V21.2D, V13.2D, V8.2D
	WORD	$0x6e69ddd6	// FMUL V22.2D, V14.2D, V9.2D
	WORD	$0x4e73d6b1	// FADD V17.2D, V21.2D, V19.2D
	WORD	$0x4e74d6d2	// FADD V18.2D, V22.2D, V20.2D
	WORD	$0x4e6cd597	// FADD V23.2D, V12.2D, V12.2D
	WORD	$0x6e68def8	// FMUL V24.2D, V23.2D, V8.2D
	WORD	$0x6e69def9	// FMUL V25.2D, V23.2D, V9.2D
	WORD	$0x6e66df18	// FMUL V24.2D, V24.2D, V6.2D
	WORD	$0x6e67df39	// FMUL V25.2D, V25.2D, V7.2D
	WORD	$0x4ef8d598	// FSUB V24.2D, V12.2D, V24.2D
	WORD	$0x4ef9d599	// FSUB V25.2D, V12.2D, V25.2D
	WORD	$0x6e78ddf8	// FMUL V24.2D, V15.2D, V24.2D
	WORD	$0x6e79de19	// FMUL V25.2D, V16.2D, V25.2D
	WORD	$0x6e6cddb5	// FMUL V21.2D, V13.2D, V12.2D
	WORD	$0x6e6cddd6	// FMUL V22.2D, V14.2D, V12.2D
	WORD	$0x4e78d6b5	// FADD V21.2D, V21.2D, V24.2D
	WORD	$0x4e79d6d6	// FADD V22.2D, V22.2D, V25.2D
	WORD	$0x6e6cddf3	// FMUL V19.2D, V15.2D, V12.2D
	WORD	$0x6e6cde14	// FMUL V20.2D, V16.2D, V12.2D
	WORD	$0x6e68de73	// FMUL V19.2D, V19.2D, V8.2D
	WORD	$0x6e69de94	// FMUL V20.2D, V20.2D, V9.2D
	WORD	$0x6e68de73	// FMUL V19.2D, V19.2D, V8.2D
	WORD	$0x6e69de94	// FMUL V20.2D, V20.2D, V9.2D
	WORD	$0x6e68deb5	// FMUL V21.2D, V21.2D, V8.2D
	WORD	$0x6e69ded6	// FMUL V22.2D, V22.2D, V9.2D
	WORD	$0x6e68deb5	// FMUL V21.2D, V21.2D, V8.2D
	WORD	$0x6e69ded6	// FMUL V22.2D, V22.2D, V9.2D
	VEOR	V23.B16, V23.B16, V23.B16
	WORD	$0x4ef3d6f3	// FSUB V19.2D, V23.2D, V19.2D
	WORD	$0x4ef4d6f4	// FSUB V20.2D, V23.2D, V20.2D
	WORD	$0x4ef5d673	// FSUB V19.2D, V19.2D, V21.2D
	WORD	$0x4ef6d694	// FSUB V20.2D, V20.2D, V22.2D
	WORD	$0x4ef5d6f5	// FSUB V21.2D, V23.2D, V21.2D
	WORD	$0x4ef6d6f6	// FSUB V22.2D, V23.2D, V22.2D
	WORD	$0x4ef1d6b5	// FSUB V21.2D, V21.2D, V17.2D
	WORD	$0x4ef2d6d6	// FSUB V22.2D, V22.2D, V18.2D
	VLD1R	(R5), [V24.D2]	// σ(a′)
	WORD	$0x6e78deb5	// FMUL V21.2D, V21.2D, V24.2D
	WORD	$0x6e78ded6	// FMUL V22.2D, V22.2D, V24.2D
	VLD1	(R11), [V28.D2, V29.D2]
	WORD	$0x4e7cd6b5	// FADD V21.2D, V21.2D, V28.2D
	WORD	$0x4e7dd6d6	// FADD V22.2D, V22.2D, V29.2D
	VBIF	V2.B16, V21.B16, V28.B16
	VBIF	V3.B16, V22.B16, V29.B16
	VST1	[V28.D2, V29.D2], (R11)
	VLD1R	(R6), [V24.D2]	// σ(b′)
	WORD	$0x6e78de31	// FMUL V17.2D, V17.2D, V24.2D
	WORD	$0x6e78de52	// FMUL V18.2D, V18.2D, V24.2D
	VLD1	(R12), [V28.D2, V29.D2]
	WORD	$0x4e7cd631	// FADD V17.2D, V17.2D, V28.2D
	WORD	$0x4e7dd652	// FADD V18.2D, V18.2D, V29.2D
	VBIF	V2.B16, V17.B16, V28.B16
	VBIF	V3.B16, V18.B16, V29.B16
	VST1	[V28.D2, V29.D2], (R12)
	WORD	$0x6e66fe7a	// FDIV V26.2D, V19.2D, V6.2D
	WORD	$0x6e67fe9b	// FDIV V27.2D, V20.2D, V7.2D
	WORD	$0x4ee0c8d8	// FCMGT V24.2D, V6.2D, #0.0
	WORD	$0x4ee0c8f9	// FCMGT V25.2D, V7.2D, #0.0
	VAND	V24.B16, V26.B16, V26.B16
	VAND	V25.B16, V27.B16, V27.B16
	// gd_j = fma(d_j, g_r/r, u·gz_j); gz_j += gd_j; accX0_j −= gd_j
	MOVD	R0, R13
	MOVD	R3, R14
	MOVD	R9, R15
	MOVD	R10, R19
	MOVD	$16, R21

b4ngrad:
	VLD1R.P	8(R14), [V28.D2]
	VLD1	(R13), [V20.D2, V21.D2]
	WORD	$0x4efcd694	// FSUB V20.2D, V20.2D, V28.2D
	WORD	$0x4efcd6b5	// FSUB V21.2D, V21.2D, V28.2D
	VLD1	(R15), [V22.D2, V23.D2]
	WORD	$0x6e76dd58	// FMUL V24.2D, V10.2D, V22.2D
	WORD	$0x6e77dd79	// FMUL V25.2D, V11.2D, V23.2D
	VFMLA	V26.D2, V20.D2, V24.D2
	VFMLA	V27.D2, V21.D2, V25.D2
	WORD	$0x4e78d6d6	// FADD V22.2D, V22.2D, V24.2D
	WORD	$0x4e79d6f7	// FADD V23.2D, V23.2D, V25.2D
	VST1	[V22.D2, V23.D2], (R15)
	VLD1	(R19), [V29.D2, V30.D2]
	WORD	$0x4ef8d7b4	// FSUB V20.2D, V29.2D, V24.2D
	WORD	$0x4ef9d7d5	// FSUB V21.2D, V30.2D, V25.2D
	VBIF	V2.B16, V20.B16, V29.B16
	VBIF	V3.B16, V21.B16, V30.B16
	VST1	[V29.D2, V30.D2], (R19)
	ADD	$64, R13
	ADD	$64, R15
	ADD	$64, R19
	SUB	$1, R21
	CBNZ	R21, b4ngrad
	SUB	$1152, R0
	SUB	R8, R4
	SUB	R8, R5
	SUB	R8, R6
	LSL	$3, R8, R13	// classes·64: the lanes of accA, accB
	SUB	R13, R11
	SUB	R13, R12
	LSL	$4, R8, R13	// classes·128: the centres
	SUB	R13, R3
	LSL	$7, R8, R13	// classes·1024: the lanes of accX0
	SUB	R13, R10
	SUB	$1, R7
	B	b4nlayer

b4ndone:
	RET
