//go:build amd64 && !purego

#include "textflag.h"

DATA one<>+0(SB)/8, $1.0
GLOBL one<>(SB), RODATA|NOPTR, $8

// func radialChain16(z, x0, a, b *float64, layers, classes int) (produ, prodq float64)
//
// Pushes the 16-dim latent z (overwritten with z_L) through the radial
// layers of one class. x0 points at the class's centre in layer 0, a and b
// at its layer-0 scalars; the next layer's values are classes·16 (centres)
// or classes (scalars) elements further. Per layer, with d = z − x0,
// r = ‖d‖, h = 1/(a+r), u = b·h:
//	z ← z + u·d,  produ ← produ·(1+u),  prodq ← prodq·(1 + u − b·h²·r).
TEXT ·radialChain16(SB), NOSPLIT, $0-64
	MOVQ z+0(FP), DI
	MOVQ x0+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ layers+32(FP), CX
	MOVQ classes+40(FP), DX
	MOVQ DX, R10
	SHLQ $7, R10          // centre stride in bytes: classes·16·8
	SHLQ $3, DX           // scalar stride in bytes: classes·8
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVSD one<>(SB), X15 // 1.0
	VMOVAPD X15, X13      // produ
	VMOVAPD X15, X14      // prodq

layer:
	TESTQ CX, CX
	JZ    done
	VSUBPD (SI), Y0, Y4
	VSUBPD 32(SI), Y1, Y5
	VSUBPD 64(SI), Y2, Y6
	VSUBPD 96(SI), Y3, Y7
	VMULPD Y4, Y4, Y8
	VFMADD231PD Y5, Y5, Y8
	VFMADD231PD Y6, Y6, Y8
	VFMADD231PD Y7, Y7, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VHADDPD X8, X8, X8
	VSQRTSD X8, X8, X8    // r
	VMOVSD (R8), X9       // a
	VADDSD X8, X9, X9     // a + r
	VDIVSD X9, X15, X9    // h = 1/(a+r)
	VMOVSD (R9), X10      // b
	VMULSD X9, X10, X11   // u = b·h
	VADDSD X15, X11, X12  // 1 + u
	VMULSD X12, X13, X13  // produ *= 1+u
	VMULSD X9, X11, X10   // u·h = b·h²
	VMULSD X8, X10, X10   // b·h²·r
	VSUBSD X10, X12, X12  // 1 + u − b·h²·r
	VMULSD X12, X14, X14  // prodq *= ...
	VBROADCASTSD X11, Y11
	VFMADD231PD Y4, Y11, Y0
	VFMADD231PD Y5, Y11, Y1
	VFMADD231PD Y6, Y11, Y2
	VFMADD231PD Y7, Y11, Y3
	ADDQ R10, SI
	ADDQ DX, R8
	ADDQ DX, R9
	DECQ CX
	JMP  layer

done:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVSD X13, produ+48(FP)
	VMOVSD X14, prodq+56(FP)
	VZEROUPPER
	RET

// func radialChain16x4(zt, x0, a, b *float64, layers, classes int, out, rec *float64)
//
// Four chains of one class at once, one per vector lane: zt holds four
// 16-dim latents transposed (zt[4j+k] = component j of chain k) and is
// overwritten with z_L. Writes out[0:4] = Π(1+u), out[4:8] = Π(1+q) and
// out[8:12] = ‖z_L‖² per lane. Independent lanes hide the latency of the
// square root and the division that serialise a single chain. When rec is
// not nil, layer l stores its input zt at rec[72l:72l+64], r at
// rec[72l+64:72l+68] and h at rec[72l+68:72l+72] for the backward pass.
TEXT ·radialChain16x4(SB), NOSPLIT, $0-64
	MOVQ zt+0(FP), DI
	MOVQ x0+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ layers+32(FP), CX
	MOVQ classes+40(FP), DX
	MOVQ out+48(FP), R11
	MOVQ rec+56(FP), R12
	MOVQ DX, R10
	SHLQ $7, R10          // centre stride in bytes: classes·16·8
	SHLQ $3, DX           // scalar stride in bytes: classes·8
	VBROADCASTSD one<>(SB), Y15
	VMOVAPD Y15, Y13      // Π(1+u)
	VMOVAPD Y15, Y14      // Π(1+q)

xlayer:
	TESTQ CX, CX
	JZ    xdone
	TESTQ R12, R12
	JZ    xsqinit
	XORQ  AX, AX

xcopy:
	MOVQ  AX, BX
	SHLQ  $5, BX
	VMOVUPD (DI)(BX*1), Y2
	VMOVUPD Y2, (R12)(BX*1)
	INCQ  AX
	CMPQ  AX, $16
	JL    xcopy

xsqinit:
	// r² = Σ_j (z_j − x0_j)²
	VXORPD Y0, Y0, Y0
	XORQ  AX, AX

xsq:
	VBROADCASTSD (SI)(AX*8), Y1
	MOVQ  AX, BX
	SHLQ  $5, BX
	VMOVUPD (DI)(BX*1), Y2
	VSUBPD Y1, Y2, Y2
	VFMADD231PD Y2, Y2, Y0
	INCQ  AX
	CMPQ  AX, $16
	JL    xsq
	VSQRTPD Y0, Y3        // r
	VBROADCASTSD (R8), Y4 // a
	VBROADCASTSD (R9), Y5 // b
	VADDPD Y3, Y4, Y6
	VDIVPD Y6, Y15, Y6    // h = 1/(a+r)
	TESTQ R12, R12
	JZ    xstates
	VMOVUPD Y3, 512(R12)
	VMOVUPD Y6, 544(R12)
	ADDQ  $576, R12

xstates:
	VMULPD Y6, Y5, Y7     // u = b·h
	VADDPD Y7, Y15, Y8    // 1 + u
	VMULPD Y8, Y13, Y13
	VMULPD Y6, Y7, Y9     // u·h = b·h²
	VMULPD Y3, Y9, Y9     // b·h²·r
	VSUBPD Y9, Y8, Y9     // 1 + u − b·h²·r
	VMULPD Y9, Y14, Y14
	// z_j += u·(z_j − x0_j)
	XORQ AX, AX

xupd:
	VBROADCASTSD (SI)(AX*8), Y1
	MOVQ  AX, BX
	SHLQ  $5, BX
	VMOVUPD (DI)(BX*1), Y2
	VSUBPD Y1, Y2, Y10
	VFMADD231PD Y10, Y7, Y2
	VMOVUPD Y2, (DI)(BX*1)
	INCQ  AX
	CMPQ  AX, $16
	JL    xupd
	ADDQ R10, SI
	ADDQ DX, R8
	ADDQ DX, R9
	DECQ CX
	JMP  xlayer

xdone:
	VXORPD Y0, Y0, Y0
	XORQ AX, AX

xnorm:
	MOVQ  AX, BX
	SHLQ  $5, BX
	VMOVUPD (DI)(BX*1), Y2
	VFMADD231PD Y2, Y2, Y0
	INCQ  AX
	CMPQ  AX, $16
	JL    xnorm
	VMOVUPD Y13, (R11)
	VMOVUPD Y14, 32(R11)
	VMOVUPD Y0, 64(R11)
	VZEROUPPER
	RET
