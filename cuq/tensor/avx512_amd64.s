//go:build amd64 && !purego

#include "textflag.h"
#include "narrow_amd64.h"
#include "gemm_amd64.h"

// The AVX-512 kernels. Every element they compute is the same chain of
// fused multiply-adds, in the same order, as the AVX2 kernels of
// axpy_amd64.s compute it: a 512-bit register holds eight independent
// chains where a 256-bit one holds four, so results are the same to the
// bit whichever kernel runs.

// func gemm8x16(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)
//
// o[r·ldo + j] += Σ_{s<k} a[r·lda + s·astep]·b[s·ldb + j] for r < 8 and
// j < 16, in order of s: gemm4x8 for eight rows and sixteen columns. The
// 16 accumulators (Z0–Z15) hide the fused multiply-add latency; each row
// of b is loaded once for the eight rows.
TEXT ·gemm8x16(SB), NOSPLIT, $0-64
	GEMM_ARGS
	LEAQ (SI)(R9*4), BX   // a + 4·lda: rows 4–7
	LEAQ (DI)(R12*4), R14 // o + 4·ldo: rows 4–7
	VMOVUPD (DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD (DI)(R12*1), Z2
	VMOVUPD 64(DI)(R12*1), Z3
	VMOVUPD (DI)(R12*2), Z4
	VMOVUPD 64(DI)(R12*2), Z5
	VMOVUPD (DI)(R13*1), Z6
	VMOVUPD 64(DI)(R13*1), Z7
	VMOVUPD (R14), Z8
	VMOVUPD 64(R14), Z9
	VMOVUPD (R14)(R12*1), Z10
	VMOVUPD 64(R14)(R12*1), Z11
	VMOVUPD (R14)(R12*2), Z12
	VMOVUPD 64(R14)(R12*2), Z13
	VMOVUPD (R14)(R13*1), Z14
	VMOVUPD 64(R14)(R13*1), Z15
	TESTQ CX, CX
	JZ    done

kloop:
	VMOVUPD      (DX), Z16
	VMOVUPD      64(DX), Z17
	VBROADCASTSD (SI), Z18
	VBROADCASTSD (SI)(R9*1), Z19
	VBROADCASTSD (SI)(R9*2), Z20
	VBROADCASTSD (SI)(R10*1), Z21
	VBROADCASTSD (BX), Z22
	VBROADCASTSD (BX)(R9*1), Z23
	VBROADCASTSD (BX)(R9*2), Z24
	VBROADCASTSD (BX)(R10*1), Z25
	VFMADD231PD  Z16, Z18, Z0
	VFMADD231PD  Z17, Z18, Z1
	VFMADD231PD  Z16, Z19, Z2
	VFMADD231PD  Z17, Z19, Z3
	VFMADD231PD  Z16, Z20, Z4
	VFMADD231PD  Z17, Z20, Z5
	VFMADD231PD  Z16, Z21, Z6
	VFMADD231PD  Z17, Z21, Z7
	VFMADD231PD  Z16, Z22, Z8
	VFMADD231PD  Z17, Z22, Z9
	VFMADD231PD  Z16, Z23, Z10
	VFMADD231PD  Z17, Z23, Z11
	VFMADD231PD  Z16, Z24, Z12
	VFMADD231PD  Z17, Z24, Z13
	VFMADD231PD  Z16, Z25, Z14
	VFMADD231PD  Z17, Z25, Z15
	ADDQ         R11, SI
	ADDQ         R11, BX
	ADDQ         R8, DX
	DECQ         CX
	JNZ          kloop

done:
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, (DI)(R12*1)
	VMOVUPD Z3, 64(DI)(R12*1)
	VMOVUPD Z4, (DI)(R12*2)
	VMOVUPD Z5, 64(DI)(R12*2)
	VMOVUPD Z6, (DI)(R13*1)
	VMOVUPD Z7, 64(DI)(R13*1)
	VMOVUPD Z8, (R14)
	VMOVUPD Z9, 64(R14)
	VMOVUPD Z10, (R14)(R12*1)
	VMOVUPD Z11, 64(R14)(R12*1)
	VMOVUPD Z12, (R14)(R12*2)
	VMOVUPD Z13, 64(R14)(R12*2)
	VMOVUPD Z14, (R14)(R13*1)
	VMOVUPD Z15, 64(R14)(R13*1)
	VZEROUPPER
	RET

// func spmmRow64(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool
//
// o[0:64] = Σ_{q<nnz} val[q]·b[ind[q]·ldb : ind[q]·ldb+64]: spmmRow32 of
// axpy_amd64.s for a 64-column block, in eight 512-bit accumulators,
// false (o unwritten) when an index is not below nb.
TEXT ·spmmRow64(SB), NOSPLIT, $0-57
	MOVQ o+0(FP), DI
	MOVQ val+8(FP), SI
	MOVQ ind+16(FP), R9
	MOVQ nnz+24(FP), CX
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ nb+48(FP), R11
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	TESTQ CX, CX
	JZ    s64done

s64loop:
	VBROADCASTSD (SI), Z8
	MOVQ  (R9), AX
	CMPQ  AX, R11
	JAE   s64bad
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), R10
	VFMADD231PD (R10), Z8, Z0
	VFMADD231PD 64(R10), Z8, Z1
	VFMADD231PD 128(R10), Z8, Z2
	VFMADD231PD 192(R10), Z8, Z3
	VFMADD231PD 256(R10), Z8, Z4
	VFMADD231PD 320(R10), Z8, Z5
	VFMADD231PD 384(R10), Z8, Z6
	VFMADD231PD 448(R10), Z8, Z7
	ADDQ $8, SI
	ADDQ $8, R9
	DECQ CX
	JNZ  s64loop

s64done:
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	VMOVUPD Z4, 256(DI)
	VMOVUPD Z5, 320(DI)
	VMOVUPD Z6, 384(DI)
	VMOVUPD Z7, 448(DI)
	MOVB $1, ret+56(FP)
	VZEROUPPER
	RET

s64bad:
	MOVB $0, ret+56(FP)
	VZEROUPPER
	RET

// TABLE_ENTRY leaves in reg the address of the table entry that
// entries[idx] names (entries in SI, the tables in DX).
#define TABLE_ENTRY(idx, reg) \
	MOVLQZX (SI)(idx*4), reg \
	LEAQ (DX)(reg*8), reg

// ADD_ENTRY adds the entry's 32 values at ptr to the sums z0–z3.
#define ADD_ENTRY(ptr, z0, z1, z2, z3) \
	VADDPD (ptr), z0, z0 \
	VADDPD 64(ptr), z1, z1 \
	VADDPD 128(ptr), z2, z2 \
	VADDPD 192(ptr), z3, z3

// func binarySum512(o *float64, ldo int, entries *uint32, start *int, tables, scale, bias *float64, rows int)
//
// For rows i < rows: o[i·ldo + j] = fma(scale[i], Σ_q T[entries[q] + j], bias[j])
// for j < 32 and q from start[i] to start[i+1], the table entries added
// in order to a zero start; two rows at a time (ScaledBinary.sumRows),
// side by side for as many entries as both have, then each row's rest.
TEXT ·binarySum512(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ ldo+8(FP), R8
	SHLQ $3, R8
	MOVQ entries+16(FP), SI
	MOVQ start+24(FP), R13
	MOVQ tables+32(FP), DX
	MOVQ scale+40(FP), R11
	MOVQ bias+48(FP), R12
	MOVQ rows+56(FP), CX
	VMOVUPD (R12), Z16
	VMOVUPD 64(R12), Z17
	VMOVUPD 128(R12), Z18
	VMOVUPD 192(R12), Z19

bpair:
	CMPQ CX, $2
	JLT  bone
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	MOVQ (R13), BX
	MOVQ 8(R13), R14
	MOVQ R14, R9
	SUBQ BX, R9
	MOVQ 16(R13), R10
	SUBQ R14, R10
	CMPQ R9, R10
	JLE  bpaircount
	MOVQ R10, R9

bpaircount:
	TESTQ R9, R9
	JZ    bfirst

bpairloop:
	TABLE_ENTRY(BX, AX)
	TABLE_ENTRY(R14, R15)
	ADD_ENTRY(AX, Z0, Z1, Z2, Z3)
	ADD_ENTRY(R15, Z4, Z5, Z6, Z7)
	INCQ    BX
	INCQ    R14
	DECQ    R9
	JNZ     bpairloop

bfirst:
	CMPQ BX, 8(R13)
	JGE  bsecond
	TABLE_ENTRY(BX, AX)
	ADD_ENTRY(AX, Z0, Z1, Z2, Z3)
	INCQ    BX
	JMP     bfirst

bsecond:
	CMPQ R14, 16(R13)
	JGE  bpairsum
	TABLE_ENTRY(R14, R15)
	ADD_ENTRY(R15, Z4, Z5, Z6, Z7)
	INCQ    R14
	JMP     bsecond

bpairsum:
	VBROADCASTSD (R11), Z8
	VBROADCASTSD 8(R11), Z9
	VFMADD213PD Z16, Z8, Z0
	VFMADD213PD Z17, Z8, Z1
	VFMADD213PD Z18, Z8, Z2
	VFMADD213PD Z19, Z8, Z3
	VFMADD213PD Z16, Z9, Z4
	VFMADD213PD Z17, Z9, Z5
	VFMADD213PD Z18, Z9, Z6
	VFMADD213PD Z19, Z9, Z7
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	VMOVUPD Z4, (DI)(R8*1)
	VMOVUPD Z5, 64(DI)(R8*1)
	VMOVUPD Z6, 128(DI)(R8*1)
	VMOVUPD Z7, 192(DI)(R8*1)
	LEAQ (DI)(R8*2), DI
	ADDQ $16, R13
	ADDQ $16, R11
	SUBQ $2, CX
	JMP  bpair

bone:
	TESTQ CX, CX
	JZ    bdone
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	MOVQ (R13), BX
	MOVQ 8(R13), R10
	CMPQ BX, R10
	JGE  bonesum

boneloop:
	TABLE_ENTRY(BX, AX)
	ADD_ENTRY(AX, Z0, Z1, Z2, Z3)
	INCQ    BX
	CMPQ    BX, R10
	JLT     boneloop

bonesum:
	VBROADCASTSD (R11), Z8
	VFMADD213PD Z16, Z8, Z0
	VFMADD213PD Z17, Z8, Z1
	VFMADD213PD Z18, Z8, Z2
	VFMADD213PD Z19, Z8, Z3
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)

bdone:
	VZEROUPPER
	RET

// func scatterBlock512(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64)
//
// scatterBlockAVX with 64-column blocks: for each j < nj with masks[j] ≠ 0
// and each 64-column block of the first cols (a multiple of 64), the block
// of row j of o in Z1–Z8, then for every set bit r of masks[j], lowest
// first, o += scale[r]·b[r·ldb + …], one fused multiply-add per element,
// then stored.
TEXT ·scatterBlock512(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ ldo+8(FP), R8
	SHLQ $3, R8
	MOVQ masks+16(FP), SI
	MOVQ nj+24(FP), R9
	MOVQ b+32(FP), R10
	MOVQ ldb+40(FP), R11
	SHLQ $3, R11
	MOVQ cols+48(FP), CX
	MOVQ scale+56(FP), BX

zrow:
	TESTQ   R9, R9
	JZ      zdone
	MOVLQZX (SI), DX
	TESTQ   DX, DX
	JZ      znext
	XORQ    AX, AX

zblock:
	VMOVUPD (DI)(AX*8), Z1
	VMOVUPD 64(DI)(AX*8), Z2
	VMOVUPD 128(DI)(AX*8), Z3
	VMOVUPD 192(DI)(AX*8), Z4
	VMOVUPD 256(DI)(AX*8), Z5
	VMOVUPD 320(DI)(AX*8), Z6
	VMOVUPD 384(DI)(AX*8), Z7
	VMOVUPD 448(DI)(AX*8), Z8
	MOVLQZX (SI), DX

zbit:
	BSFQ         DX, R12
	BTRQ         R12, DX
	VBROADCASTSD (BX)(R12*8), Z0
	IMULQ        R11, R12
	ADDQ         R10, R12
	VFMADD231PD  (R12)(AX*8), Z0, Z1
	VFMADD231PD  64(R12)(AX*8), Z0, Z2
	VFMADD231PD  128(R12)(AX*8), Z0, Z3
	VFMADD231PD  192(R12)(AX*8), Z0, Z4
	VFMADD231PD  256(R12)(AX*8), Z0, Z5
	VFMADD231PD  320(R12)(AX*8), Z0, Z6
	VFMADD231PD  384(R12)(AX*8), Z0, Z7
	VFMADD231PD  448(R12)(AX*8), Z0, Z8
	TESTQ        DX, DX
	JNZ          zbit
	VMOVUPD      Z1, (DI)(AX*8)
	VMOVUPD      Z2, 64(DI)(AX*8)
	VMOVUPD      Z3, 128(DI)(AX*8)
	VMOVUPD      Z4, 192(DI)(AX*8)
	VMOVUPD      Z5, 256(DI)(AX*8)
	VMOVUPD      Z6, 320(DI)(AX*8)
	VMOVUPD      Z7, 384(DI)(AX*8)
	VMOVUPD      Z8, 448(DI)(AX*8)
	ADDQ         $64, AX
	CMPQ         AX, CX
	JLT          zblock

znext:
	ADDQ R8, DI
	ADDQ $4, SI
	DECQ R9
	JMP  zrow

zdone:
	VZEROUPPER
	RET

// func spmmRows16x512(o *float64, ptr *int, ind *int32, val *float64, rows int, b *float64, f, off int, c *float64, alpha, beta float64, nb int) bool
//
// spmmRows4 of axpy_amd64.s for 8 < f ≤ 16 in two 512-bit registers:
// columns 0:8 and off:off+8 of each row (off = f−8; where the two
// overlap, both compute the shared columns with the same operations);
// its body is spmmRows2's (NARROW_ROWS2 of narrow_amd64.h).
TEXT ·spmmRows16x512(SB), NOSPLIT, $0-97
	NARROW_ROWS2(VPXORQ, PREFETCHT0 64(R15), Z0, Z1, Z8, Z9, Z10, Z11, Z12, Z2, Z3, Z13)
