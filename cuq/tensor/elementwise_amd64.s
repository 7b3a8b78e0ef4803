//go:build amd64 && !purego

#include "textflag.h"

// signMask clears the sign bit of each lane: all bits but the top one.
DATA signMask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL signMask<>(SB), RODATA|NOPTR, $8

// func reluAVX(dst, src *float64, n int)
// dst[i] = max(src[i], 0) for i < n, n a multiple of four, with the bits
// of Go's max on amd64: MAXPD(0, x) returns x when 0 > x is false (x
// positive, ±0 or NaN, a NaN passed on unchanged) and 0 otherwise, and
// clearing the sign bit then turns −0 into +0 and gives a NaN the
// cleared sign that Go's max gives it.
TEXT ·reluAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VXORPD Y15, Y15, Y15
	VBROADCASTSD signMask<>(SB), Y14
	XORQ AX, AX

loop16:
	LEAQ 16(AX), DX
	CMPQ DX, CX
	JGT  loop4
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMOVUPD 64(SI)(AX*8), Y2
	VMOVUPD 96(SI)(AX*8), Y3
	VMAXPD  Y0, Y15, Y0
	VMAXPD  Y1, Y15, Y1
	VMAXPD  Y2, Y15, Y2
	VMAXPD  Y3, Y15, Y3
	VANDPD  Y14, Y0, Y0
	VANDPD  Y14, Y1, Y1
	VANDPD  Y14, Y2, Y2
	VANDPD  Y14, Y3, Y3
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	MOVQ    DX, AX
	JMP     loop16

loop4:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*8), Y0
	VMAXPD  Y0, Y15, Y0
	VANDPD  Y14, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     loop4

done:
	VZEROUPPER
	RET

// func reluGradAVX(dst, grad, x *float64, n int)
// dst[i] += (x[i] > 0 ? grad[i] : +0) for i < n, n a multiple of four: the
// ordered compare is false for NaN, and its mask keeps grad's bits or none;
// dst is the first operand of the addition, as in the Go loop, which
// decides whose NaN comes out when both are NaN.
TEXT ·reluGradAVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ x+16(FP), R8
	MOVQ n+24(FP), CX
	VXORPD Y15, Y15, Y15
	XORQ AX, AX

grad8:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JGT  grad4
	VMOVUPD (R8)(AX*8), Y0
	VMOVUPD 32(R8)(AX*8), Y1
	VCMPPD  $0x1E, Y15, Y0, Y0 // x > 0, ordered
	VCMPPD  $0x1E, Y15, Y1, Y1
	VANDPD  (SI)(AX*8), Y0, Y0
	VANDPD  32(SI)(AX*8), Y1, Y1
	VMOVUPD (DI)(AX*8), Y2
	VMOVUPD 32(DI)(AX*8), Y3
	VADDPD  Y0, Y2, Y2
	VADDPD  Y1, Y3, Y3
	VMOVUPD Y2, (DI)(AX*8)
	VMOVUPD Y3, 32(DI)(AX*8)
	MOVQ    DX, AX
	JMP     grad8

grad4:
	CMPQ AX, CX
	JGE  gdone
	VMOVUPD (R8)(AX*8), Y0
	VCMPPD  $0x1E, Y15, Y0, Y0
	VANDPD  (SI)(AX*8), Y0, Y0
	VMOVUPD (DI)(AX*8), Y2
	VADDPD  Y0, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     grad4

gdone:
	VZEROUPPER
	RET

// keepBytes[m] holds, in its byte k, bit k of m: the decisions of four
// elements as bytes 0 or 1 from the 4-bit mask VMOVMSKPS takes of their
// compare.
DATA keepBytes<>+0(SB)/4, $0x00000000
DATA keepBytes<>+4(SB)/4, $0x00000001
DATA keepBytes<>+8(SB)/4, $0x00000100
DATA keepBytes<>+12(SB)/4, $0x00000101
DATA keepBytes<>+16(SB)/4, $0x00010000
DATA keepBytes<>+20(SB)/4, $0x00010001
DATA keepBytes<>+24(SB)/4, $0x00010100
DATA keepBytes<>+28(SB)/4, $0x00010101
DATA keepBytes<>+32(SB)/4, $0x01000000
DATA keepBytes<>+36(SB)/4, $0x01000001
DATA keepBytes<>+40(SB)/4, $0x01000100
DATA keepBytes<>+44(SB)/4, $0x01000101
DATA keepBytes<>+48(SB)/4, $0x01010000
DATA keepBytes<>+52(SB)/4, $0x01010001
DATA keepBytes<>+56(SB)/4, $0x01010100
DATA keepBytes<>+60(SB)/4, $0x01010101
GLOBL keepBytes<>(SB), RODATA|NOPTR, $64

// func dropoutAVX(dst, x *float64, keep *uint8, draws *uint32, n int, threshold uint32, scale float64)
// keep[i] = draws[i] ≥ threshold, dst[i] = keep[i] ? x[i]·scale : +0 for
// i < n, n a multiple of four. AVX2 has no unsigned compare of 32-bit
// integers: r ≥ t is max(r, t) = r.
TEXT ·dropoutAVX(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ keep+16(FP), R10
	MOVQ draws+24(FP), R9
	MOVQ n+32(FP), CX
	MOVL threshold+40(FP), DX
	VMOVD DX, X15
	VPBROADCASTD X15, X15
	VBROADCASTSD scale+48(FP), Y14
	LEAQ keepBytes<>(SB), R11
	XORQ AX, AX

drop4:
	CMPQ AX, CX
	JGE  ddone
	VMOVDQU   (R9)(AX*4), X1
	VPMAXUD   X15, X1, X2
	VPCMPEQD  X1, X2, X2          // draws ≥ threshold
	VPMOVSXDQ X2, Y3              // the four decisions as 64-bit masks
	VMULPD    (SI)(AX*8), Y14, Y0 // x·scale
	VANDPD    Y3, Y0, Y0
	VMOVUPD   Y0, (DI)(AX*8)
	VMOVMSKPS X2, BX
	MOVL      (R11)(BX*4), DX
	MOVL      DX, (R10)(AX*1)
	ADDQ      $4, AX
	JMP       drop4

ddone:
	VZEROUPPER
	RET

// func dropoutGradAVX(dst, grad *float64, keep *uint8, n int, scale float64)
// dst[i] += keep[i] ? scale·grad[i] : +0 for i < n, n a multiple of four,
// keep[i] 0 or 1: 0 − keep[i] is the 64-bit mask; dst is the first
// operand of the addition, as in the Go loop.
TEXT ·dropoutGradAVX(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ keep+16(FP), R10
	MOVQ n+24(FP), CX
	VBROADCASTSD scale+32(FP), Y14
	VPXOR Y15, Y15, Y15
	XORQ  AX, AX

dgrad4:
	CMPQ AX, CX
	JGE  dgdone
	VPMOVZXBQ (R10)(AX*1), Y1
	VPSUBQ    Y1, Y15, Y1         // 0 − keep
	VMULPD    (SI)(AX*8), Y14, Y0 // scale·grad
	VANDPD    Y1, Y0, Y0
	VMOVUPD   (DI)(AX*8), Y2
	VADDPD    Y0, Y2, Y2
	VMOVUPD   Y2, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       dgrad4

dgdone:
	VZEROUPPER
	RET
