//go:build amd64 && !purego

#include "textflag.h"

// Both kernels do updateGo's operations in its order, one element per
// lane: g' = g + λp; m = β₁m + (1−β₁)g'; v = β₂v + ((1−β₂)g')g';
// p = p − (step·m)/(√v/bc2 + ε). n is a multiple of the lane count.
//
// Registers: coefficients wd, b1, c1, b2, c2, step, bc2, eps in 8–15;
// p in 0, g and then g' in 1, m in 2, v in 3, scratch in 4 and 5.

// func updateAVX4(p, grad, m, v *float64, n int, c *coefficients)
TEXT ·updateAVX4(SB), NOSPLIT, $0-48
	MOVQ	p+0(FP), DI
	MOVQ	grad+8(FP), SI
	MOVQ	m+16(FP), R8
	MOVQ	v+24(FP), R9
	MOVQ	n+32(FP), CX
	MOVQ	c+40(FP), AX
	VBROADCASTSD	0(AX), Y8
	VBROADCASTSD	8(AX), Y9
	VBROADCASTSD	16(AX), Y10
	VBROADCASTSD	24(AX), Y11
	VBROADCASTSD	32(AX), Y12
	VBROADCASTSD	40(AX), Y13
	VBROADCASTSD	48(AX), Y14
	VBROADCASTSD	56(AX), Y15
	XORQ	BX, BX

avx4:
	CMPQ	BX, CX
	JGE	avx4done
	VMOVUPD	(DI)(BX*8), Y0
	VMOVUPD	(SI)(BX*8), Y1
	VMULPD	Y8, Y0, Y4
	VADDPD	Y4, Y1, Y1
	VMOVUPD	(R8)(BX*8), Y2
	VMULPD	Y9, Y2, Y2
	VMULPD	Y10, Y1, Y4
	VADDPD	Y4, Y2, Y2
	VMOVUPD	Y2, (R8)(BX*8)
	VMOVUPD	(R9)(BX*8), Y3
	VMULPD	Y11, Y3, Y3
	VMULPD	Y12, Y1, Y4
	VMULPD	Y1, Y4, Y4
	VADDPD	Y4, Y3, Y3
	VMOVUPD	Y3, (R9)(BX*8)
	VSQRTPD	Y3, Y5
	VDIVPD	Y14, Y5, Y5
	VADDPD	Y15, Y5, Y5
	VMULPD	Y13, Y2, Y4
	VDIVPD	Y5, Y4, Y4
	VSUBPD	Y4, Y0, Y0
	VMOVUPD	Y0, (DI)(BX*8)
	ADDQ	$4, BX
	JMP	avx4

avx4done:
	VZEROUPPER
	RET

// func updateAVX8(p, grad, m, v *float64, n int, c *coefficients)
TEXT ·updateAVX8(SB), NOSPLIT, $0-48
	MOVQ	p+0(FP), DI
	MOVQ	grad+8(FP), SI
	MOVQ	m+16(FP), R8
	MOVQ	v+24(FP), R9
	MOVQ	n+32(FP), CX
	MOVQ	c+40(FP), AX
	VBROADCASTSD	0(AX), Z8
	VBROADCASTSD	8(AX), Z9
	VBROADCASTSD	16(AX), Z10
	VBROADCASTSD	24(AX), Z11
	VBROADCASTSD	32(AX), Z12
	VBROADCASTSD	40(AX), Z13
	VBROADCASTSD	48(AX), Z14
	VBROADCASTSD	56(AX), Z15
	XORQ	BX, BX

avx8:
	CMPQ	BX, CX
	JGE	avx8done
	VMOVUPD	(DI)(BX*8), Z0
	VMOVUPD	(SI)(BX*8), Z1
	VMULPD	Z8, Z0, Z4
	VADDPD	Z4, Z1, Z1
	VMOVUPD	(R8)(BX*8), Z2
	VMULPD	Z9, Z2, Z2
	VMULPD	Z10, Z1, Z4
	VADDPD	Z4, Z2, Z2
	VMOVUPD	Z2, (R8)(BX*8)
	VMOVUPD	(R9)(BX*8), Z3
	VMULPD	Z11, Z3, Z3
	VMULPD	Z12, Z1, Z4
	VMULPD	Z1, Z4, Z4
	VADDPD	Z4, Z3, Z3
	VMOVUPD	Z3, (R9)(BX*8)
	VSQRTPD	Z3, Z5
	VDIVPD	Z14, Z5, Z5
	VADDPD	Z15, Z5, Z5
	VMULPD	Z13, Z2, Z4
	VDIVPD	Z5, Z4, Z4
	VSUBPD	Z4, Z0, Z0
	VMOVUPD	Z0, (DI)(BX*8)
	ADDQ	$8, BX
	JMP	avx8

avx8done:
	VZEROUPPER
	RET
