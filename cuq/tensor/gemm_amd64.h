// The dense register kernels (gemm4x8 and gemm6x8 of axpy_amd64.s,
// gemm8x16 of avx512_amd64.s) share their arguments,
//
//	(o *float64, ldo int, a *float64, lda, astep int, b *float64, ldb, k int),
//
// and GEMM_ARGS loads them: o in DI, a in SI, b in DX, k in CX, and the
// strides in bytes, ldo in R12, lda in R9, astep in R11, ldb in R8, with
// 3·lda in R10 and 3·ldo in R13 for the addresses of rows 3 and 7.
#define GEMM_ARGS \
	MOVQ o+0(FP), DI \
	MOVQ ldo+8(FP), R12 \
	SHLQ $3, R12 \
	MOVQ a+16(FP), SI \
	MOVQ lda+24(FP), R9 \
	SHLQ $3, R9 \
	MOVQ astep+32(FP), R11 \
	SHLQ $3, R11 \
	MOVQ b+40(FP), DX \
	MOVQ ldb+48(FP), R8 \
	SHLQ $3, R8 \
	MOVQ k+56(FP), CX \
	LEAQ (R9)(R9*2), R10 \
	LEAQ (R12)(R12*2), R13

// GEMM_LOAD4 and GEMM_STORE4 load and store the accumulators of an AVX2
// kernel's first four rows of eight columns, Y0–Y7, two per row, at o (DI)
// with the row stride ldo (R12) and 3·ldo in R13.
#define GEMM_LOAD4 \
	VMOVUPD (DI), Y0 \
	VMOVUPD 32(DI), Y1 \
	VMOVUPD (DI)(R12*1), Y2 \
	VMOVUPD 32(DI)(R12*1), Y3 \
	VMOVUPD (DI)(R12*2), Y4 \
	VMOVUPD 32(DI)(R12*2), Y5 \
	VMOVUPD (DI)(R13*1), Y6 \
	VMOVUPD 32(DI)(R13*1), Y7

#define GEMM_STORE4 \
	VMOVUPD Y0, (DI) \
	VMOVUPD Y1, 32(DI) \
	VMOVUPD Y2, (DI)(R12*1) \
	VMOVUPD Y3, 32(DI)(R12*1) \
	VMOVUPD Y4, (DI)(R12*2) \
	VMOVUPD Y5, 32(DI)(R12*2) \
	VMOVUPD Y6, (DI)(R13*1) \
	VMOVUPD Y7, 32(DI)(R13*1)
