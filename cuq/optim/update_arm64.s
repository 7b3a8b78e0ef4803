//go:build arm64 && !purego

#include "textflag.h"

// updateNEON does updateGo's operations in its order, two elements per
// 128-bit register: g' = g + λp; m = β₁m + (1−β₁)g'; v = β₂v +
// ((1−β₂)g')g'; p = p − (step·m)/(√v/bc2 + ε). n is even. Go's assembler
// has no vector FADD, FSUB, FMUL, FDIV or FSQRT, so those are written as
// their encodings (WORD), each with the instruction it encodes beside it.
//
// Registers: p in V0, g and then g' in V1, m in V2, v in V3, scratch in V4
// and V5; the coefficients wd, b1, c1, b2, c2, step, bc2, eps in V16–V23.

// func updateNEON(p, grad, m, v *float64, n int, c *coefficients)
TEXT ·updateNEON(SB), NOSPLIT, $0-48
	MOVD	p+0(FP), R0
	MOVD	grad+8(FP), R1
	MOVD	m+16(FP), R2
	MOVD	v+24(FP), R3
	MOVD	n+32(FP), R4
	MOVD	c+40(FP), R5
	VLD1R.P	8(R5), [V16.D2]
	VLD1R.P	8(R5), [V17.D2]
	VLD1R.P	8(R5), [V18.D2]
	VLD1R.P	8(R5), [V19.D2]
	VLD1R.P	8(R5), [V20.D2]
	VLD1R.P	8(R5), [V21.D2]
	VLD1R.P	8(R5), [V22.D2]
	VLD1R	(R5), [V23.D2]

loop:
	CBZ	R4, done
	VLD1	(R0), [V0.D2]
	VLD1.P	16(R1), [V1.D2]
	VLD1	(R2), [V2.D2]
	VLD1	(R3), [V3.D2]
	WORD	$0x6e70dc04	// FMUL V4.2D, V0.2D, V16.2D: λp
	WORD	$0x4e64d421	// FADD V1.2D, V1.2D, V4.2D: g' = g + λp
	WORD	$0x6e71dc42	// FMUL V2.2D, V2.2D, V17.2D: β₁m
	WORD	$0x6e72dc24	// FMUL V4.2D, V1.2D, V18.2D: (1−β₁)g'
	WORD	$0x4e64d442	// FADD V2.2D, V2.2D, V4.2D: m
	WORD	$0x6e73dc63	// FMUL V3.2D, V3.2D, V19.2D: β₂v
	WORD	$0x6e74dc24	// FMUL V4.2D, V1.2D, V20.2D: (1−β₂)g'
	WORD	$0x6e61dc84	// FMUL V4.2D, V4.2D, V1.2D: ((1−β₂)g')g'
	WORD	$0x4e64d463	// FADD V3.2D, V3.2D, V4.2D: v
	WORD	$0x6ee1f865	// FSQRT V5.2D, V3.2D: √v
	WORD	$0x6e76fca5	// FDIV V5.2D, V5.2D, V22.2D: √v/bc2
	WORD	$0x4e77d4a5	// FADD V5.2D, V5.2D, V23.2D: + ε
	WORD	$0x6e75dc44	// FMUL V4.2D, V2.2D, V21.2D: step·m
	WORD	$0x6e65fc84	// FDIV V4.2D, V4.2D, V5.2D: (step·m)/(√v/bc2 + ε)
	WORD	$0x4ee4d400	// FSUB V0.2D, V0.2D, V4.2D: p
	VST1.P	[V0.D2], 16(R0)
	VST1.P	[V2.D2], 16(R2)
	VST1.P	[V3.D2], 16(R3)
	SUB	$2, R4
	B	loop

done:
	RET
