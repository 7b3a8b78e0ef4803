//go:build amd64 && !purego

#include "textflag.h"
#include "narrow_amd64.h"
#include "gemm_amd64.h"

// func axpy4AVX(o, b0, b1, b2, b3 *float64, n int, v0, v1, v2, v3 float64)
// o[j] += v0*b0[j] + v1*b1[j] + v2*b2[j] + v3*b3[j] for j < n, n ≥ 4.
TEXT ·axpy4AVX(SB), NOSPLIT, $0-80
	MOVQ o+0(FP), DI
	MOVQ b0+8(FP), R8
	MOVQ b1+16(FP), R9
	MOVQ b2+24(FP), R10
	MOVQ b3+32(FP), R11
	MOVQ n+40(FP), CX
	VBROADCASTSD v0+48(FP), Y0
	VBROADCASTSD v1+56(FP), Y1
	VBROADCASTSD v2+64(FP), Y2
	VBROADCASTSD v3+72(FP), Y3
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-8, DX

loop8:
	CMPQ AX, DX
	JGE  loop4
	VMOVUPD (DI)(AX*8), Y4
	VMOVUPD 32(DI)(AX*8), Y5
	VFMADD231PD (R8)(AX*8), Y0, Y4
	VFMADD231PD 32(R8)(AX*8), Y0, Y5
	VFMADD231PD (R9)(AX*8), Y1, Y4
	VFMADD231PD 32(R9)(AX*8), Y1, Y5
	VFMADD231PD (R10)(AX*8), Y2, Y4
	VFMADD231PD 32(R10)(AX*8), Y2, Y5
	VFMADD231PD (R11)(AX*8), Y3, Y4
	VFMADD231PD 32(R11)(AX*8), Y3, Y5
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	ADDQ $8, AX
	JMP  loop8

loop4:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $4
	JL   tail
	VMOVUPD (DI)(AX*8), Y4
	VFMADD231PD (R8)(AX*8), Y0, Y4
	VFMADD231PD (R9)(AX*8), Y1, Y4
	VFMADD231PD (R10)(AX*8), Y2, Y4
	VFMADD231PD (R11)(AX*8), Y3, Y4
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ $4, AX

tail:
	CMPQ AX, CX
	JGE  done
	VMOVSD (DI)(AX*8), X4
	VFMADD231SD (R8)(AX*8), X0, X4
	VFMADD231SD (R9)(AX*8), X1, X4
	VFMADD231SD (R10)(AX*8), X2, X4
	VFMADD231SD (R11)(AX*8), X3, X4
	VMOVSD X4, (DI)(AX*8)
	INCQ AX
	JMP  tail

done:
	VZEROUPPER
	RET

// func axpyAVX(o, b *float64, n int, v float64)
// o[j] += v*b[j] for j < n, n ≥ 4.
TEXT ·axpyAVX(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ b+8(FP), R8
	MOVQ n+16(FP), CX
	VBROADCASTSD v+24(FP), Y0
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-4, DX

vloop:
	CMPQ AX, DX
	JGE  vtail
	VMOVUPD (DI)(AX*8), Y4
	VFMADD231PD (R8)(AX*8), Y0, Y4
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ $4, AX
	JMP  vloop

vtail:
	CMPQ AX, CX
	JGE  vdone
	VMOVSD (DI)(AX*8), X4
	VFMADD231SD (R8)(AX*8), X0, X4
	VMOVSD X4, (DI)(AX*8)
	INCQ AX
	JMP  vtail

vdone:
	VZEROUPPER
	RET

// func gemmRow32(o, a, b *float64, k, ldb int)
// o[0:32] = Σ_{p<k} a[p]·b[p·ldb : p·ldb+32]: one 32-column block of a row
// of a·b, accumulated in eight vector registers.
TEXT ·gemmRow32(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ k+24(FP), CX
	MOVQ ldb+32(FP), R8
	SHLQ $3, R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

gloop:
	TESTQ CX, CX
	JZ    gdone
	VBROADCASTSD (SI), Y8
	VFMADD231PD (DX), Y8, Y0
	VFMADD231PD 32(DX), Y8, Y1
	VFMADD231PD 64(DX), Y8, Y2
	VFMADD231PD 96(DX), Y8, Y3
	VFMADD231PD 128(DX), Y8, Y4
	VFMADD231PD 160(DX), Y8, Y5
	VFMADD231PD 192(DX), Y8, Y6
	VFMADD231PD 224(DX), Y8, Y7
	ADDQ $8, SI
	ADDQ R8, DX
	DECQ CX
	JMP  gloop

gdone:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET

// func spmmRow32(o, val *float64, ind *int, nnz int, b *float64, ldb, nb int) bool
// o[0:32] = Σ_{q<nnz} val[q]·b[ind[q]·ldb : ind[q]·ldb+32]: one 32-column
// block of a row of a CSR·dense product; false (o unwritten) when an
// index is not below nb.
TEXT ·spmmRow32(SB), NOSPLIT, $0-57
	MOVQ o+0(FP), DI
	MOVQ val+8(FP), SI
	MOVQ ind+16(FP), R9
	MOVQ nnz+24(FP), CX
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ nb+48(FP), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

sloop:
	TESTQ CX, CX
	JZ    sdone
	VBROADCASTSD (SI), Y8
	MOVQ  (R9), AX
	CMPQ  AX, R11
	JAE   sbad
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), R10
	VFMADD231PD (R10), Y8, Y0
	VFMADD231PD 32(R10), Y8, Y1
	VFMADD231PD 64(R10), Y8, Y2
	VFMADD231PD 96(R10), Y8, Y3
	VFMADD231PD 128(R10), Y8, Y4
	VFMADD231PD 160(R10), Y8, Y5
	VFMADD231PD 192(R10), Y8, Y6
	VFMADD231PD 224(R10), Y8, Y7
	ADDQ $8, SI
	ADDQ $8, R9
	DECQ CX
	JMP  sloop

sdone:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	MOVB $1, ret+56(FP)
	VZEROUPPER
	RET

sbad:
	MOVB $0, ret+56(FP)
	VZEROUPPER
	RET

// func spmmRow4x2(o, val *float64, ind *int, nnz int, b *float64, ldb, off int)
// o[0:4] and o[off:off+4] of Σ_{q<nnz} val[q]·b[ind[q]·ldb : …], for
// 0 ≤ off ≤ 4: up to eight columns of a row of a CSR·dense product,
// accumulated in two vector registers (overlapping when off < 4).
TEXT ·spmmRow4x2(SB), NOSPLIT, $0-56
	MOVQ o+0(FP), DI
	MOVQ val+8(FP), SI
	MOVQ ind+16(FP), R9
	MOVQ nnz+24(FP), CX
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ off+48(FP), R11
	SHLQ $3, R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

nloop:
	TESTQ CX, CX
	JZ    ndone
	VBROADCASTSD (SI), Y8
	MOVQ  (R9), AX
	IMULQ R8, AX
	LEAQ  (DX)(AX*1), R10
	VFMADD231PD (R10), Y8, Y0
	VFMADD231PD (R10)(R11*1), Y8, Y1
	ADDQ $8, SI
	ADDQ $8, R9
	DECQ CX
	JMP  nloop

ndone:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (DI)(R11*1)
	VZEROUPPER
	RET

// func gemm4x8(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)
// o[r·ldo + j] += Σ_{s<k} a[r·lda + s·astep]·b[s·ldb + j] for r < 4, j < 8:
// a 4×8 block of a product, accumulated in eight vector registers. Each row
// of b is loaded once for four rows of the output, which quarters the
// traffic of b against the one-row kernel when b does not fit in L1. The
// sum over s runs in order, one fused multiply-add per step, as in
// gemmRow32 and axpy4AVX.
TEXT ·gemm4x8(SB), NOSPLIT, $0-64
	GEMM_ARGS
	GEMM_LOAD4

kloop:
	TESTQ CX, CX
	JZ    kdone
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VBROADCASTSD (SI), Y10
	VBROADCASTSD (SI)(R9*1), Y11
	VBROADCASTSD (SI)(R9*2), Y12
	VBROADCASTSD (SI)(R10*1), Y13
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7
	ADDQ R11, SI
	ADDQ R8, DX
	DECQ CX
	JMP  kloop

kdone:
	GEMM_STORE4
	VZEROUPPER
	RET

// func gemm6x8(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int)
//
// gemm4x8 for six rows: o[r·ldo + j] += Σ_{s<k} a[r·lda + s·astep]·b[s·ldb
// + j] for r < 6 and j < 8, in order of s. Its twelve accumulators (Y0–Y11)
// give each chain three cycles of other work between two of its fused
// multiply-adds, where gemm4x8's eight leave it none to spare; the
// broadcasts alternate between Y14 and Y15.
TEXT ·gemm6x8(SB), NOSPLIT, $0-64
	GEMM_ARGS
	LEAQ (SI)(R9*4), BX    // a + 4·lda: rows 4 and 5
	LEAQ (DI)(R12*4), R14  // o + 4·ldo: rows 4 and 5
	GEMM_LOAD4
	VMOVUPD (R14), Y8
	VMOVUPD 32(R14), Y9
	VMOVUPD (R14)(R12*1), Y10
	VMOVUPD 32(R14)(R12*1), Y11
	TESTQ CX, CX
	JZ    g6done

g6loop:
	VMOVUPD      (DX), Y12
	VMOVUPD      32(DX), Y13
	VBROADCASTSD (SI), Y14
	VFMADD231PD  Y12, Y14, Y0
	VFMADD231PD  Y13, Y14, Y1
	VBROADCASTSD (SI)(R9*1), Y15
	VFMADD231PD  Y12, Y15, Y2
	VFMADD231PD  Y13, Y15, Y3
	VBROADCASTSD (SI)(R9*2), Y14
	VFMADD231PD  Y12, Y14, Y4
	VFMADD231PD  Y13, Y14, Y5
	VBROADCASTSD (SI)(R10*1), Y15
	VFMADD231PD  Y12, Y15, Y6
	VFMADD231PD  Y13, Y15, Y7
	VBROADCASTSD (BX), Y14
	VFMADD231PD  Y12, Y14, Y8
	VFMADD231PD  Y13, Y14, Y9
	VBROADCASTSD (BX)(R9*1), Y15
	VFMADD231PD  Y12, Y15, Y10
	VFMADD231PD  Y13, Y15, Y11
	ADDQ         R11, SI
	ADDQ         R11, BX
	ADDQ         R8, DX
	DECQ         CX
	JNZ          g6loop

g6done:
	GEMM_STORE4
	VMOVUPD Y8, (R14)
	VMOVUPD Y9, 32(R14)
	VMOVUPD Y10, (R14)(R12*1)
	VMOVUPD Y11, 32(R14)(R12*1)
	VZEROUPPER
	RET

// func spmmRows2(o *float64, ptr *int, ind *int32, val *float64, rows int, b *float64, f, off int, c *float64, alpha, beta float64, nb int) bool
// Rows 0 ≤ r < rows of a CSR·dense product with f columns, 4 ≤ f ≤ 8:
// o[r·f + j] = Σ_q val[q]·b[ind[q]·f + j] over the entries q of row r,
// ptr[r] ≤ q < ptr[r+1], in order of q, for the columns j in 0:4 and
// off:off+4 (off = min(4, f−4); they overlap when f < 8). ptr points at the
// first row's offset, ind (32-bit column indices, read zero-extended) and
// val at entry 0, o at the first row. When c is not nil each element is
// blended as it is stored, o = alpha·o + beta·c (two products and a sum,
// each rounded), c laid out as o. It
// returns false, at once, when an index is not below nb, the rows of b. It
// is spmmRow4x2 over a range of rows in one call. While it gathers entry q
// it prefetches the row that entry q+prefetchAhead will gather (a hint
// only: a prefetch never faults, and the index is checked when it is read
// for its product). The body is NARROW_ROWS2 of narrow_amd64.h, which
// spmmRows16x512 shares.
TEXT ·spmmRows2(SB), NOSPLIT, $0-97
	NARROW_ROWS2(VXORPD, NOP, Y0, Y1, Y8, Y9, Y10, Y11, Y12, Y2, Y3, Y13)

// func spmmRows4(o *float64, ptr *int, ind *int32, val *float64, rows int, b *float64, f, off2, off3 int, c *float64, alpha, beta float64, nb int) bool
// spmmRows2 for 8 < f ≤ 16: columns 0:4, 4:8, off2:off2+4 and off3:off3+4
// of each row (off2 = min(8, f−4), off3 = f−4), in four vector registers;
// for f ≤ 12, where off2 = off3, the entries go through three and the
// third is stored for both. As in spmmRows2 the rows go two at a time,
// row A in Y0–Y3 and row B in Y4–Y7 (Y8 and Y15 their entries' values),
// their entries alternating while both have some; R13 is row B's entry,
// 8(BX) the end of row A's entries and 16(BX) of row B's.
TEXT ·spmmRows4(SB), NOSPLIT, $0-105
	MOVQ o+0(FP), DI
	MOVQ ptr+8(FP), BX
	MOVQ ind+16(FP), R9
	MOVQ val+24(FP), SI
	MOVQ rows+32(FP), CX
	MOVQ b+40(FP), DX
	MOVQ f+48(FP), R8
	SHLQ $3, R8
	MOVQ off2+56(FP), R11
	SHLQ $3, R11
	MOVQ off3+64(FP), R10
	SHLQ $3, R10
	VBROADCASTSD alpha+80(FP), Y9
	VBROADCASTSD beta+88(FP), Y10
	MOVQ (BX), R12
	PREFETCH_BOUND((BX)(CX*8), nb+96(FP))

p4loop:
	CMPQ CX, $2
	JLT  r4loop
	MOVQ 8(BX), R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	CMPQ   R11, R10
	JEQ    pq3loop

	PAIR_ENTRY(16(BX), Y8, Y15, PREFETCHT0 64(R15), nb+96(FP), r4bad, pq4loop, pq4load, pq4a, pq4b)
	VFMADD231PD (AX), Y8, Y0
	VFMADD231PD (R15), Y15, Y4
	VFMADD231PD 32(AX), Y8, Y1
	VFMADD231PD 32(R15), Y15, Y5
	VFMADD231PD (AX)(R11*1), Y8, Y2
	VFMADD231PD (R15)(R11*1), Y15, Y6
	VFMADD231PD (AX)(R10*1), Y8, Y3
	VFMADD231PD (R15)(R10*1), Y15, Y7
	INCQ R12
	INCQ R13
	JMP  pq4loop

	ROW_TAIL4(R12, 8(BX), Y8, Y0, Y1, Y2, Y3, pq4a, pq4aload, pairdone)

	ROW_TAIL4(R13, 16(BX), Y15, Y4, Y5, Y6, Y7, pq4b, pq4bload, pairdone)

	PAIR_ENTRY(16(BX), Y8, Y15, PREFETCHT0 64(R15), nb+96(FP), r4bad, pq3loop, pq3load, pq3a, pq3b)
	VFMADD231PD (AX), Y8, Y0
	VFMADD231PD (R15), Y15, Y4
	VFMADD231PD 32(AX), Y8, Y1
	VFMADD231PD 32(R15), Y15, Y5
	VFMADD231PD (AX)(R11*1), Y8, Y2
	VFMADD231PD (R15)(R11*1), Y15, Y6
	INCQ R12
	INCQ R13
	JMP  pq3loop

	ROW_TAIL3(R12, 8(BX), Y8, Y0, Y1, Y2, pq3a, pq3aload, pq3done)

	ROW_TAIL3(R13, 16(BX), Y15, Y4, Y5, Y6, pq3b, pq3bload, pq3done)

pq3done:
	VMOVAPD Y2, Y3
	VMOVAPD Y6, Y7

pairdone:
	BLEND_STORE4(Y0, Y1, Y2, Y3, pstoreda)
	ADDQ R8, DI
	BLEND_STORE4(Y4, Y5, Y6, Y7, pstoredb)
	ADDQ R8, DI
	MOVQ R13, R12
	ADDQ $16, BX
	SUBQ $2, CX
	JMP  p4loop

r4loop:
	TESTQ CX, CX
	JZ    r4done
	MOVQ  8(BX), R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	CMPQ   R11, R10
	JEQ    q3loop

	ROW_TAIL4(R12, R13, Y8, Y0, Y1, Y2, Y3, q4loop, q4load, q4done)

	ROW_TAIL3(R12, R13, Y8, Y0, Y1, Y2, q3loop, q3load, q3done)

q3done:
	VMOVAPD Y2, Y3

q4done:
	BLEND_STORE4(Y0, Y1, Y2, Y3, store4)
	ADDQ R8, DI
	ADDQ $8, BX
	DECQ CX
	JMP  r4loop

r4done:
	MOVB $1, ret+104(FP)
	VZEROUPPER
	RET

r4bad:
	MOVB $0, ret+104(FP)
	VZEROUPPER
	RET

// func binarySum256(o *float64, ldo int, entries *uint32, start *int, tables, scale, bias *float64, rows int)
//
// binarySum512 of avx512_amd64.s with AVX2, one row at a time.
TEXT ·binarySum256(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ ldo+8(FP), R8
	SHLQ $3, R8
	MOVQ entries+16(FP), SI
	MOVQ start+24(FP), R9
	MOVQ tables+32(FP), DX
	MOVQ scale+40(FP), R11
	MOVQ bias+48(FP), R12
	MOVQ rows+56(FP), CX

brow:
	TESTQ CX, CX
	JZ    browsdone
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ (R9), BX
	MOVQ 8(R9), R10
	CMPQ BX, R10
	JGE  browsum

browloop:
	MOVLQZX (SI)(BX*4), AX
	LEAQ    (DX)(AX*8), AX
	VADDPD  (AX), Y0, Y0
	VADDPD  32(AX), Y1, Y1
	VADDPD  64(AX), Y2, Y2
	VADDPD  96(AX), Y3, Y3
	VADDPD  128(AX), Y4, Y4
	VADDPD  160(AX), Y5, Y5
	VADDPD  192(AX), Y6, Y6
	VADDPD  224(AX), Y7, Y7
	INCQ    BX
	CMPQ    BX, R10
	JLT     browloop

browsum:
	VBROADCASTSD (R11), Y8
	VFMADD213PD (R12), Y8, Y0
	VFMADD213PD 32(R12), Y8, Y1
	VFMADD213PD 64(R12), Y8, Y2
	VFMADD213PD 96(R12), Y8, Y3
	VFMADD213PD 128(R12), Y8, Y4
	VFMADD213PD 160(R12), Y8, Y5
	VFMADD213PD 192(R12), Y8, Y6
	VFMADD213PD 224(R12), Y8, Y7
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	ADDQ R8, DI
	ADDQ $8, R9
	ADDQ $8, R11
	DECQ CX
	JMP  brow

browsdone:
	VZEROUPPER
	RET

// func scatterBlockAVX(o *float64, ldo int, masks *uint32, nj int, b *float64, ldb, cols int, scale *float64)
// For each j < nj with masks[j] ≠ 0 and each 32-column block of the first
// cols (a multiple of 32): the block of row j of o in Y1–Y8, then for
// every set bit r of masks[j], lowest first, o += scale[r]·b[r·ldb + …],
// one fused multiply-add per element, then stored.
TEXT ·scatterBlockAVX(SB), NOSPLIT, $0-64
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

brow:
	TESTQ   R9, R9
	JZ      bdone
	MOVLQZX (SI), DX
	TESTQ   DX, DX
	JZ      bnext
	XORQ    AX, AX

bblock:
	VMOVUPD (DI)(AX*8), Y1
	VMOVUPD 32(DI)(AX*8), Y2
	VMOVUPD 64(DI)(AX*8), Y3
	VMOVUPD 96(DI)(AX*8), Y4
	VMOVUPD 128(DI)(AX*8), Y5
	VMOVUPD 160(DI)(AX*8), Y6
	VMOVUPD 192(DI)(AX*8), Y7
	VMOVUPD 224(DI)(AX*8), Y8
	MOVLQZX (SI), DX

bbit:
	BSFQ         DX, R12
	BTRQ         R12, DX
	VBROADCASTSD (BX)(R12*8), Y0
	IMULQ        R11, R12
	ADDQ         R10, R12
	VFMADD231PD  (R12)(AX*8), Y0, Y1
	VFMADD231PD  32(R12)(AX*8), Y0, Y2
	VFMADD231PD  64(R12)(AX*8), Y0, Y3
	VFMADD231PD  96(R12)(AX*8), Y0, Y4
	VFMADD231PD  128(R12)(AX*8), Y0, Y5
	VFMADD231PD  160(R12)(AX*8), Y0, Y6
	VFMADD231PD  192(R12)(AX*8), Y0, Y7
	VFMADD231PD  224(R12)(AX*8), Y0, Y8
	TESTQ        DX, DX
	JNZ          bbit
	VMOVUPD      Y1, (DI)(AX*8)
	VMOVUPD      Y2, 32(DI)(AX*8)
	VMOVUPD      Y3, 64(DI)(AX*8)
	VMOVUPD      Y4, 96(DI)(AX*8)
	VMOVUPD      Y5, 128(DI)(AX*8)
	VMOVUPD      Y6, 160(DI)(AX*8)
	VMOVUPD      Y7, 192(DI)(AX*8)
	VMOVUPD      Y8, 224(DI)(AX*8)
	ADDQ         $32, AX
	CMPQ         AX, CX
	JLT          bblock

bnext:
	ADDQ R8, DI
	ADDQ $4, SI
	DECQ R9
	JMP  brow

bdone:
	VZEROUPPER
	RET
