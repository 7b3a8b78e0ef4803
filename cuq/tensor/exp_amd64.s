//go:build amd64 && !purego

#include "textflag.h"

// ARGS loads the arguments of both kernels: dst in DI, src in SI, n in CX,
// the table in R8, and the index of the next block, 0, in AX.
#define ARGS \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ n+16(FP), CX \
	MOVQ table+24(FP), R8 \
	XORQ AX, AX

// NEXT loads the block at AX into Y0, with the index after it in DX, and
// jumps to done when there is no whole block left or a lane lies outside
// [table[0], table[1]] (NaN included, the comparisons are ordered).
#define NEXT(done) \
	LEAQ 4(AX), DX \
	CMPQ DX, CX \
	JGT  done \
	VMOVUPD (SI)(AX*8), Y0 \
	VCMPPD  $0x1D, (R8), Y0, Y1 \
	VCMPPD  $0x12, 32(R8), Y0, Y2 \
	VANDPD  Y1, Y2, Y1 \
	VMOVMSKPD Y1, BX \
	CMPQ    BX, $15 \
	JNE     done

// func expAVX(dst, src *float64, n int, table *[20][4]float64) int
// dst[i] = exp(src[i]) for the blocks of four elements i < n, four lanes at
// a time, in the operations of expScalar (see exp.go); table is expTable.
// It stops at the first block with a lane outside [table[0], table[1]]
// (NaN included, the comparisons are ordered) and returns the number of
// elements done.
TEXT ·expAVX(SB), NOSPLIT, $0-40
	ARGS

loop:
	NEXT(done)
	VMULPD   64(R8), Y0, Y1       // x·log₂e
	VROUNDPD $0, Y1, Y1           // n, to nearest even
	VFNMADD231PD 96(R8), Y1, Y0   // r = x − n·ln2Hi
	VFNMADD231PD 128(R8), Y1, Y0  // r = r − n·ln2Lo
	VMOVUPD 160(R8), Y2           // p = 1/13!
	VFMADD213PD 192(R8), Y0, Y2   // p = p·r + 1/12!
	VFMADD213PD 224(R8), Y0, Y2
	VFMADD213PD 256(R8), Y0, Y2
	VFMADD213PD 288(R8), Y0, Y2
	VFMADD213PD 320(R8), Y0, Y2
	VFMADD213PD 352(R8), Y0, Y2
	VFMADD213PD 384(R8), Y0, Y2
	VFMADD213PD 416(R8), Y0, Y2
	VFMADD213PD 448(R8), Y0, Y2
	VFMADD213PD 480(R8), Y0, Y2
	VFMADD213PD 512(R8), Y0, Y2
	VFMADD213PD 544(R8), Y0, Y2
	VFMADD213PD 576(R8), Y0, Y2   // p = p·r + 1
	VADDPD  608(R8), Y1, Y1       // n + 1023 in the low bits
	VPSLLQ  $52, Y1, Y1           // 2ⁿ
	VMULPD  Y1, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     loop

done:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func mathExpAVX(dst, src *float64, n int, table *[17][4]float64) int
// dst[i] = math.Exp(src[i]) for the blocks of four elements i < n, four
// lanes at a time, in the operations of math.Exp's fused multiply-add
// branch on amd64 (math/exp_amd64.s), whose constants table
// (mathExpTable) repeats; it stops as expAVX does, at the first block with
// a lane outside [table[0], table[1]] or NaN.
TEXT ·mathExpAVX(SB), NOSPLIT, $0-40
	ARGS

mloop:
	NEXT(mdone)
	VMULPD   64(R8), Y0, Y1       // x·log₂e
	VROUNDPD $0, Y1, Y1           // k, to nearest even (CVTSD2SL)
	VFNMADD231PD 96(R8), Y1, Y0   // x − k·ln2 (upper part)
	VFNMADD231PD 128(R8), Y1, Y0  // − k·ln2 (lower part)
	VMULPD  160(R8), Y0, Y0       // r = that/16
	VMOVUPD 192(R8), Y2           // p = 1/8!
	VFMADD213PD 224(R8), Y0, Y2   // p = p·r + 1/7!
	VFMADD213PD 256(R8), Y0, Y2
	VFMADD213PD 288(R8), Y0, Y2
	VFMADD213PD 320(R8), Y0, Y2
	VFMADD213PD 352(R8), Y0, Y2
	VFMADD213PD 384(R8), Y0, Y2   // p = p·r + 1/2
	VFMADD213PD 416(R8), Y0, Y2   // p = p·r + 1
	VMULPD  Y2, Y0, Y0            // y = r·p = e^r − 1
	VADDPD  448(R8), Y0, Y2       // y = y·(y + 2), three times: e^{2r} − 1, …
	VMULPD  Y2, Y0, Y0
	VADDPD  448(R8), Y0, Y2
	VMULPD  Y2, Y0, Y0
	VADDPD  448(R8), Y0, Y2
	VMULPD  Y2, Y0, Y0
	VADDPD  448(R8), Y0, Y2
	VFMADD213PD 480(R8), Y2, Y0   // y·(y + 2) + 1 = e^{16r}
	VADDPD  512(R8), Y1, Y1       // k + 1023 in the low bits
	VPSLLQ  $52, Y1, Y1           // 2ᵏ
	VMULPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	MOVQ    DX, AX
	JMP     mloop

mdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
