//go:build amd64 && !purego

#include "textflag.h"

// Both kernels do updateGo's operations in its order, one element per
// lane: g' = g + λp; m = β₁m + (1−β₁)g'; v = β₂v + ((1−β₂)g')g';
// p = p − (step·m)/(√v/bc2 + ε). n is a multiple of the lane count.
//
// Registers: coefficients wd, b1, c1, b2, c2, step, bc2, eps in 8–15
// and the others as UPDATE names them, in 0–5 of one width.

// UPDATE updates the elements at BX of the arrays at DI (p), SI (g), R8 (m)
// and R9 (v) in the registers of one width (Y or Z): the coefficients in
// c0–c7, p in x0, g and then g' in x1, m in x2, v in x3, scratch in x4 and
// x5.
#define UPDATE(x0, x1, x2, x3, x4, x5, c0, c1, c2, c3, c4, c5, c6, c7) \
	VMOVUPD	(DI)(BX*8), x0 \
	VMOVUPD	(SI)(BX*8), x1 \
	VMULPD	c0, x0, x4 \
	VADDPD	x4, x1, x1 \
	VMOVUPD	(R8)(BX*8), x2 \
	VMULPD	c1, x2, x2 \
	VMULPD	c2, x1, x4 \
	VADDPD	x4, x2, x2 \
	VMOVUPD	x2, (R8)(BX*8) \
	VMOVUPD	(R9)(BX*8), x3 \
	VMULPD	c3, x3, x3 \
	VMULPD	c4, x1, x4 \
	VMULPD	x1, x4, x4 \
	VADDPD	x4, x3, x3 \
	VMOVUPD	x3, (R9)(BX*8) \
	VSQRTPD	x3, x5 \
	VDIVPD	c6, x5, x5 \
	VADDPD	c7, x5, x5 \
	VMULPD	c5, x2, x4 \
	VDIVPD	x5, x4, x4 \
	VSUBPD	x4, x0, x0 \
	VMOVUPD	x0, (DI)(BX*8)

// ARGS loads the arguments and broadcasts the coefficients into c0–c7.
#define ARGS(c0, c1, c2, c3, c4, c5, c6, c7) \
	MOVQ	p+0(FP), DI \
	MOVQ	grad+8(FP), SI \
	MOVQ	m+16(FP), R8 \
	MOVQ	v+24(FP), R9 \
	MOVQ	n+32(FP), CX \
	MOVQ	c+40(FP), AX \
	VBROADCASTSD	0(AX), c0 \
	VBROADCASTSD	8(AX), c1 \
	VBROADCASTSD	16(AX), c2 \
	VBROADCASTSD	24(AX), c3 \
	VBROADCASTSD	32(AX), c4 \
	VBROADCASTSD	40(AX), c5 \
	VBROADCASTSD	48(AX), c6 \
	VBROADCASTSD	56(AX), c7 \
	XORQ	BX, BX

// func updateAVX4(p, grad, m, v *float64, n int, c *coefficients)
TEXT ·updateAVX4(SB), NOSPLIT, $0-48
	ARGS(Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)

updateAVX4loop:
	CMPQ	BX, CX
	JGE	updateAVX4done
	UPDATE(Y0, Y1, Y2, Y3, Y4, Y5, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	ADDQ	$4, BX
	JMP	updateAVX4loop

updateAVX4done:
	VZEROUPPER
	RET

// func updateAVX8(p, grad, m, v *float64, n int, c *coefficients)
TEXT ·updateAVX8(SB), NOSPLIT, $0-48
	ARGS(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

updateAVX8loop:
	CMPQ	BX, CX
	JGE	updateAVX8done
	UPDATE(Z0, Z1, Z2, Z3, Z4, Z5, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ	$8, BX
	JMP	updateAVX8loop

updateAVX8done:
	VZEROUPPER
	RET
