//go:build arm64 && !purego

#include "textflag.h"

// updateNEON does updateGo's operations in its order, two elements per
// 128-bit register and four per iteration: g' = g + λp; m = β₁m +
// (1−β₁)g'; v = β₂v + ((1−β₂)g')g'; p = p − (step·m)/(√v/bc2 + ε). n is a
// multiple of four. Go's assembler has no vector FADD, FSUB, FMUL, FDIV
// or FSQRT, so those are written as their encodings (WORD), each with the
// instruction it encodes beside it.
//
// Registers: p in V0–V1, g and then g' in V2–V3, m in V4–V5, v in V6–V7;
// the coefficients wd, b1, c1, b2, c2, step, bc2, eps in V16–V23; scratch
// in V24–V27.

// func updateNEON(p, grad, m, v *float64, n int, c *coefficients)
TEXT ·updateNEON(SB), NOSPLIT, $0-48
	MOVD	p+0(FP), R0
	MOVD	grad+8(FP), R1
	MOVD	m+16(FP), R2
	MOVD	v+24(FP), R3
	MOVD	n+32(FP), R4
	MOVD	c+40(FP), R5
	FMOVD	0(R5), F16
	FMOVD	8(R5), F17
	FMOVD	16(R5), F18
	FMOVD	24(R5), F19
	FMOVD	32(R5), F20
	FMOVD	40(R5), F21
	FMOVD	48(R5), F22
	FMOVD	56(R5), F23
	VDUP	V16.D[0], V16.D2
	VDUP	V17.D[0], V17.D2
	VDUP	V18.D[0], V18.D2
	VDUP	V19.D[0], V19.D2
	VDUP	V20.D[0], V20.D2
	VDUP	V21.D[0], V21.D2
	VDUP	V22.D[0], V22.D2
	VDUP	V23.D[0], V23.D2

loop:
	CBZ	R4, done
	VLD1	(R0), [V0.D2, V1.D2]
	VLD1.P	32(R1), [V2.D2, V3.D2]
	VLD1	(R2), [V4.D2, V5.D2]
	VLD1	(R3), [V6.D2, V7.D2]
	// elements 0 and 1
	WORD	$0x6e70dc18	// FMUL V24.2D, V0.2D, V16.2D
	WORD	$0x4e78d442	// FADD V2.2D, V2.2D, V24.2D
	WORD	$0x6e71dc84	// FMUL V4.2D, V4.2D, V17.2D
	WORD	$0x6e72dc58	// FMUL V24.2D, V2.2D, V18.2D
	WORD	$0x4e78d484	// FADD V4.2D, V4.2D, V24.2D
	WORD	$0x6e73dcc6	// FMUL V6.2D, V6.2D, V19.2D
	WORD	$0x6e74dc58	// FMUL V24.2D, V2.2D, V20.2D
	WORD	$0x6e62df18	// FMUL V24.2D, V24.2D, V2.2D
	WORD	$0x4e78d4c6	// FADD V6.2D, V6.2D, V24.2D
	WORD	$0x6ee1f8da	// FSQRT V26.2D, V6.2D
	WORD	$0x6e76ff5a	// FDIV V26.2D, V26.2D, V22.2D
	WORD	$0x4e77d75a	// FADD V26.2D, V26.2D, V23.2D
	WORD	$0x6e75dc98	// FMUL V24.2D, V4.2D, V21.2D
	WORD	$0x6e7aff18	// FDIV V24.2D, V24.2D, V26.2D
	WORD	$0x4ef8d400	// FSUB V0.2D, V0.2D, V24.2D
	// elements 2 and 3
	WORD	$0x6e70dc39	// FMUL V25.2D, V1.2D, V16.2D
	WORD	$0x4e79d463	// FADD V3.2D, V3.2D, V25.2D
	WORD	$0x6e71dca5	// FMUL V5.2D, V5.2D, V17.2D
	WORD	$0x6e72dc79	// FMUL V25.2D, V3.2D, V18.2D
	WORD	$0x4e79d4a5	// FADD V5.2D, V5.2D, V25.2D
	WORD	$0x6e73dce7	// FMUL V7.2D, V7.2D, V19.2D
	WORD	$0x6e74dc79	// FMUL V25.2D, V3.2D, V20.2D
	WORD	$0x6e63df39	// FMUL V25.2D, V25.2D, V3.2D
	WORD	$0x4e79d4e7	// FADD V7.2D, V7.2D, V25.2D
	WORD	$0x6ee1f8fb	// FSQRT V27.2D, V7.2D
	WORD	$0x6e76ff7b	// FDIV V27.2D, V27.2D, V22.2D
	WORD	$0x4e77d77b	// FADD V27.2D, V27.2D, V23.2D
	WORD	$0x6e75dcb9	// FMUL V25.2D, V5.2D, V21.2D
	WORD	$0x6e7bff39	// FDIV V25.2D, V25.2D, V27.2D
	WORD	$0x4ef9d421	// FSUB V1.2D, V1.2D, V25.2D
	VST1.P	[V0.D2, V1.D2], 32(R0)
	VST1.P	[V4.D2, V5.D2], 32(R2)
	VST1.P	[V6.D2, V7.D2], 32(R3)
	SUB	$4, R4
	B	loop

done:
	RET
