// The narrow sparse-product kernels (spmmRows2 and spmmRows4 of
// axpy_amd64.s, spmmRows16x512 of avx512_amd64.s) step through the
// entries of their rows with the same registers: R12 the entry, R14 the
// end of the call's entries, R9 the 32-bit column indices, SI the
// values, DX the matrix b, R8 the length of a row of b in bytes.

// prefetchAhead is how many entries ahead the kernels prefetch the row of
// b that an entry will gather. On a large graph those rows come from the
// last-level cache or memory in random order; with the hint the loads of
// many entries are under way at once. Propagating 40 columns over the
// Arxiv-sized graphs (go test ./cuq/graph -bench 'PPRApplyArxiv'):
// 114–118 ms per call against 170–178 ms without on ArxivLike's graph,
// 118–143 against 180–254 on the uniform random one. With only spmmRows4
// prefetching, 32 entries ahead gained less (146–163 ms against 185–208)
// and 128 no more than 64 (123–146 against 131–143); 16 ahead gained
// nothing measurable.
#define prefetchAhead 64

// PREFETCH_ROW prefetches the first and the last byte of the row of b
// that entry R12+prefetchAhead gathers, leaving its address in R15, or
// jumps to done when that entry is past the call's last (a prefetch is a
// hint: it never faults, and the index is checked when it is read).
#define PREFETCH_ROW(done) \
	LEAQ prefetchAhead(R12), R15 \
	CMPQ R15, R14 \
	JGE  done \
	MOVL (R9)(R15*4), R15 \
	IMULQ R8, R15 \
	ADDQ DX, R15 \
	PREFETCHT0 (R15) \
	PREFETCHT0 -8(R15)(R8*1)

// LOAD_ENTRY broadcasts the value of entry R12 into v and sets AX to the
// row of b it gathers, jumping to bad when its column index is not below
// nb.
#define LOAD_ENTRY(v, nb, bad) \
	VBROADCASTSD (SI)(R12*8), v \
	MOVL  (R9)(R12*4), AX \
	CMPQ  AX, nb \
	JAE   bad \
	IMULQ R8, AX \
	ADDQ  DX, AX

// NARROW_ROWS2 is the body of a kernel with spmmRows2's arguments that
// holds each row of the product in two vector registers v0 and v1, at
// columns 0 and off (in bytes after the arguments are read, R11), with
// v8 the broadcast value, v9 and v10 alpha and beta and v11, v12 scratch:
// spmmRows2 in 256-bit registers (columns 0:4 and off:off+4),
// spmmRows16x512 in 512-bit ones (0:8 and off:off+8). ZERO is the
// instruction that clears a register; EXTRA one more instruction after
// PREFETCH_ROW (a prefetch of the row's middle line where a row of b
// spans up to three lines, else NOP, which assembles to nothing).
#define NARROW_ROWS2(ZERO, EXTRA, v0, v1, v8, v9, v10, v11, v12) \
	MOVQ o+0(FP), DI \
	MOVQ ptr+8(FP), BX \
	MOVQ ind+16(FP), R9 \
	MOVQ val+24(FP), SI \
	MOVQ rows+32(FP), CX \
	MOVQ b+40(FP), DX \
	MOVQ f+48(FP), R8 \
	SHLQ $3, R8 \
	MOVQ off+56(FP), R11 \
	SHLQ $3, R11 \
	VBROADCASTSD alpha+72(FP), v9 \
	VBROADCASTSD beta+80(FP), v10 \
	MOVQ (BX), R12 \
	MOVQ (BX)(CX*8), R14 \
	\
rowloop: \
	TESTQ CX, CX \
	JZ    rowsdone \
	MOVQ  8(BX), R13 \
	ZERO v0, v0, v0 \
	ZERO v1, v1, v1 \
	\
entryloop: \
	CMPQ R12, R13 \
	JGE  entriesdone \
	PREFETCH_ROW(entryload) \
	EXTRA \
	\
entryload: \
	LOAD_ENTRY(v8, nb+88(FP), badindex) \
	VFMADD231PD (AX), v8, v0 \
	VFMADD231PD (AX)(R11*1), v8, v1 \
	INCQ R12 \
	JMP  entryloop \
	\
entriesdone: \
	MOVQ  c+64(FP), AX \
	TESTQ AX, AX \
	JZ    store \
	SUBQ  o+0(FP), AX \
	ADDQ  DI, AX \
	VMULPD v9, v0, v0 \
	VMULPD (AX), v10, v11 \
	VADDPD v11, v0, v0 \
	VMULPD v9, v1, v1 \
	VMULPD (AX)(R11*1), v10, v12 \
	VADDPD v12, v1, v1 \
	\
store: \
	VMOVUPD v0, (DI) \
	VMOVUPD v1, (DI)(R11*1) \
	ADDQ R8, DI \
	ADDQ $8, BX \
	DECQ CX \
	JMP  rowloop \
	\
rowsdone: \
	MOVB $1, ret+96(FP) \
	VZEROUPPER \
	RET \
	\
badindex: \
	MOVB $0, ret+96(FP) \
	VZEROUPPER \
	RET
