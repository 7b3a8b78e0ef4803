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
	// r² = Σ_j (z_j − x0_j)², in four partial sums (j mod 4) that
	// shorten the chain of dependent additions
	VXORPD Y0, Y0, Y0
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	XORQ  AX, AX

xsq:
	MOVQ  AX, BX
	SHLQ  $5, BX
	VBROADCASTSD (SI)(AX*8), Y1
	VMOVUPD (DI)(BX*1), Y2
	VSUBPD Y1, Y2, Y2
	VFMADD231PD Y2, Y2, Y0
	VBROADCASTSD 8(SI)(AX*8), Y7
	VMOVUPD 32(DI)(BX*1), Y8
	VSUBPD Y7, Y8, Y8
	VFMADD231PD Y8, Y8, Y4
	VBROADCASTSD 16(SI)(AX*8), Y9
	VMOVUPD 64(DI)(BX*1), Y10
	VSUBPD Y9, Y10, Y10
	VFMADD231PD Y10, Y10, Y5
	VBROADCASTSD 24(SI)(AX*8), Y11
	VMOVUPD 96(DI)(BX*1), Y12
	VSUBPD Y11, Y12, Y12
	VFMADD231PD Y12, Y12, Y6
	ADDQ  $4, AX
	CMPQ  AX, $16
	JL    xsq
	VADDPD Y4, Y0, Y0
	VADDPD Y6, Y5, Y5
	VADDPD Y5, Y0, Y0
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

DATA fifteen<>+0(SB)/8, $15.0
GLOBL fifteen<>(SB), RODATA|NOPTR, $8

// func radialBack16x4(rec, zt, gi, x0, b, sigA, sigB *float64, layers, classes int, gz, accX0, accA, accB *float64)
//
// Back-propagates four chains of one class recorded by radialChain16x4,
// one per vector lane, from the last layer to the first. rec points at the
// record of the last layer (72 values per layer, see radialChain16x4), zt
// at the transposed outputs z_L and gi at the four output gradients. x0,
// b, sigA and sigB point at the last layer's centre, b, σ(a′) and σ(b′) of
// the class; accX0 (64 values per layer, transposed), accA and accB (4 per
// layer) at the last layer's per-lane gradient accumulators. Per-layer
// strides are those of radialChain16x4 (classes·16 or classes values)
// and classes·64 or classes·4 for the accumulators. gz receives the
// transposed gradient with respect to the chain inputs. Per lane, with
// d = in − x0, u = b·h, q = u − b·h²·r:
//	g_u = ⟨gz, d⟩ + gi·15/(1+u),  g_q = gi/(1+q)
//	g_b = g_u·h + g_q·(h − h²r),  g_h = g_u·b + g_q·(b − 2bhr)
//	g_r = −g_q·b·h² − g_h·h²,     g_a = −g_h·h²
//	gd = u·gz + (g_r/r)·d  (0 for r = 0),  gz += gd,  accX0 −= gd
//	accA += (g_a − g_b)·σ(a′),  accB += g_b·σ(b′)
TEXT ·radialBack16x4(SB), NOSPLIT, $0-104
	MOVQ rec+0(FP), DI
	MOVQ zt+8(FP), SI
	MOVQ gi+16(FP), AX
	VMOVUPD (AX), Y14     // gi
	MOVQ x0+24(FP), R8
	MOVQ b+32(FP), R9
	MOVQ sigA+40(FP), R10
	MOVQ sigB+48(FP), R11
	MOVQ layers+56(FP), CX
	MOVQ classes+64(FP), DX
	SHLQ $3, DX           // scalar stride in bytes: classes·8
	MOVQ gz+72(FP), R12
	MOVQ accX0+80(FP), R13
	MOVQ accA+88(FP), R14
	VBROADCASTSD one<>(SB), Y15

	// gz = −gi·z_L
	VXORPD Y0, Y0, Y0
	VSUBPD Y14, Y0, Y13
	XORQ AX, AX

binit:
	MOVQ AX, BX
	SHLQ $5, BX
	VMULPD (SI)(BX*1), Y13, Y0
	VMOVUPD Y0, (R12)(BX*1)
	INCQ AX
	CMPQ AX, $16
	JL   binit
	MOVQ accB+96(FP), SI

blayer:
	TESTQ CX, CX
	JZ    bdone
	VMOVUPD 512(DI), Y12  // r
	VMOVUPD 544(DI), Y13  // h
	VBROADCASTSD (R9), Y11 // b
	VMULPD Y13, Y11, Y10  // u = b·h
	VMULPD Y13, Y10, Y9   // b·h²
	VMULPD Y12, Y9, Y9    // b·h²·r
	VSUBPD Y9, Y10, Y9    // q = u − b·h²·r

	// ⟨gz, d⟩ in two partial sums
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ AX, AX

bdot:
	MOVQ AX, BX
	SHLQ $5, BX
	VBROADCASTSD (R8)(AX*8), Y2
	VMOVUPD (DI)(BX*1), Y3
	VSUBPD Y2, Y3, Y3
	VFMADD231PD (R12)(BX*1), Y3, Y0
	VBROADCASTSD 8(R8)(AX*8), Y4
	VMOVUPD 32(DI)(BX*1), Y5
	VSUBPD Y4, Y5, Y5
	VFMADD231PD 32(R12)(BX*1), Y5, Y1
	ADDQ $2, AX
	CMPQ AX, $16
	JL   bdot
	VADDPD Y1, Y0, Y0
	VADDPD Y10, Y15, Y2   // 1 + u
	VBROADCASTSD fifteen<>(SB), Y3
	VMULPD Y3, Y14, Y3
	VDIVPD Y2, Y3, Y3     // gi·15/(1+u)
	VADDPD Y3, Y0, Y0     // g_u
	VADDPD Y9, Y15, Y2    // 1 + q
	VDIVPD Y2, Y14, Y1    // g_q

	VMULPD Y13, Y13, Y2   // h²
	VMULPD Y12, Y2, Y3    // h²r
	VSUBPD Y3, Y13, Y3    // h − h²r
	VMULPD Y3, Y1, Y3
	VMULPD Y13, Y0, Y4
	VADDPD Y3, Y4, Y4     // g_b
	VADDPD Y11, Y11, Y5   // 2b
	VMULPD Y13, Y5, Y5
	VMULPD Y12, Y5, Y5    // 2bhr
	VSUBPD Y5, Y11, Y5    // b − 2bhr
	VMULPD Y5, Y1, Y5
	VMULPD Y11, Y0, Y6
	VADDPD Y5, Y6, Y6     // g_h
	VMULPD Y11, Y1, Y7
	VMULPD Y13, Y7, Y7
	VMULPD Y13, Y7, Y7    // g_q·b·h²
	VMULPD Y13, Y6, Y8
	VMULPD Y13, Y8, Y8    // g_h·h²
	VXORPD Y3, Y3, Y3
	VSUBPD Y7, Y3, Y7
	VSUBPD Y8, Y7, Y7     // g_r
	VSUBPD Y8, Y3, Y8     // g_a
	VSUBPD Y4, Y8, Y8     // g_a − g_b
	VBROADCASTSD (R10), Y5
	VMULPD Y5, Y8, Y8
	VADDPD (R14), Y8, Y8
	VMOVUPD Y8, (R14)
	VBROADCASTSD (R11), Y5
	VMULPD Y5, Y4, Y4
	VADDPD (SI), Y4, Y4
	VMOVUPD Y4, (SI)
	VDIVPD Y12, Y7, Y7    // g_r / r
	VCMPPD $0x1e, Y3, Y12, Y5 // r > 0
	VANDPD Y5, Y7, Y7

	XORQ AX, AX

bupd:
	MOVQ AX, BX
	SHLQ $5, BX
	VBROADCASTSD (R8)(AX*8), Y2
	VMOVUPD (DI)(BX*1), Y3
	VSUBPD Y2, Y3, Y3     // d
	VMOVUPD (R12)(BX*1), Y4
	VMULPD Y4, Y10, Y5
	VFMADD231PD Y3, Y7, Y5 // gd
	VADDPD Y5, Y4, Y4
	VMOVUPD Y4, (R12)(BX*1)
	VMOVUPD (R13)(BX*1), Y6
	VSUBPD Y5, Y6, Y6
	VMOVUPD Y6, (R13)(BX*1)
	INCQ AX
	CMPQ AX, $16
	JL   bupd

	SUBQ $576, DI
	MOVQ DX, AX
	SUBQ AX, R9
	SUBQ AX, R10
	SUBQ AX, R11
	SHLQ $2, AX           // classes·32
	SUBQ AX, R14
	SUBQ AX, SI
	SHLQ $2, AX           // classes·128
	SUBQ AX, R8
	SHLQ $2, AX           // classes·512
	SUBQ AX, R13
	DECQ CX
	JMP  blayer

bdone:
	VZEROUPPER
	RET
