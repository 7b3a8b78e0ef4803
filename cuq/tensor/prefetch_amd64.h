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
