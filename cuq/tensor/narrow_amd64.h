// The narrow sparse-product kernels (spmmRows2 and spmmRows4 of
// axpy_amd64.s, spmmRows16x512 of avx512_amd64.s) step through the
// entries of their rows with the same registers: R12 the entry (R13 the
// second row's when they take rows in pairs), R14 the entry from which
// they prefetch nothing (PREFETCH_BOUND), R9 the 32-bit column indices,
// SI the values, DX the matrix b, R8 the length of a row of b in bytes.

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

// prefetchBytes is the size of b from which the kernels prefetch: a
// smaller b stays in the second-level cache beside the streamed entries,
// where the prefetch instructions only take issue slots. On the Zen 5
// machine (1 MB of L2 a core), one core, fastest of twelve alternating
// runs (go test ./cuq/tensor -bench SpMMNarrow): a CoraML-sized product
// (3,000 rows of b, 16,000 entries) took 19.5 µs at 7 columns and 16.9 at
// 8 without the prefetches, 21.4 and 20.3 with them; at Amazon Photos'
// size (7,650 rows, 119,000 entries) the prefetches still gained 5–6% at
// 10 and 16 columns (b of 610 and 980 KB), so the bound is well below
// the L2's size.
#define prefetchBytes (256 << 10)

// PREFETCH_BOUND sets R14, the entry from which PREFETCH_AT prefetches
// nothing, to end (the end of the call's entries) when b, nb rows of R8
// bytes, has at least prefetchBytes, else to 0; it clobbers AX and R15.
#define PREFETCH_BOUND(end, nb) \
	MOVQ    end, R14 \
	MOVQ    nb, AX \
	IMULQ   R8, AX \
	XORQ    R15, R15 \
	CMPQ    AX, $prefetchBytes \
	CMOVQLT R15, R14

// PREFETCH_AT prefetches the first and the last byte of the row of b that
// entry q+prefetchAhead gathers, leaving its address in R15, or jumps to
// done when that entry is not below R14: past the call's last, or any
// entry when b is small (PREFETCH_BOUND). A prefetch is a hint: it never
// faults, and the index is checked when it is read.
#define PREFETCH_AT(q, done) \
	LEAQ prefetchAhead(q), R15 \
	CMPQ R15, R14 \
	JGE  done \
	MOVL (R9)(R15*4), R15 \
	IMULQ R8, R15 \
	ADDQ DX, R15 \
	PREFETCHT0 (R15) \
	PREFETCHT0 -8(R15)(R8*1)

// PREFETCH_ROW is PREFETCH_AT for the entry R12.
#define PREFETCH_ROW(done) PREFETCH_AT(R12, done)

// LOAD_AT broadcasts the value of entry q into v and sets addr to the row
// of b it gathers, jumping to bad when its column index is not below nb.
#define LOAD_AT(v, q, addr, nb, bad) \
	VBROADCASTSD (SI)(q*8), v \
	MOVL  (R9)(q*4), addr \
	CMPQ  addr, nb \
	JAE   bad \
	IMULQ R8, addr \
	ADDQ  DX, addr

// LOAD_ENTRY is LOAD_AT for the entry R12, its row's address in AX.
#define LOAD_ENTRY(v, nb, bad) LOAD_AT(v, R12, AX, nb, bad)

// C_ROW sets AX to the row of c (at c, the kernel's argument) that
// blends into the output row at DI, c laid out as o, or jumps to stored
// when c is nil.
#define C_ROW(c, stored) \
	MOVQ  c, AX \
	TESTQ AX, AX \
	JZ    stored \
	SUBQ  o+0(FP), AX \
	ADDQ  DI, AX

// BLEND sets v = alpha·v + beta·cv, alpha and beta broadcast in va, vb
// and cv the block of c at the memory operand cm (two products and a sum,
// each rounded); t is scratch.
#define BLEND(v, cm, va, vb, t) \
	VMULPD va, v, v \
	VMULPD cm, vb, t \
	VADDPD t, v, v

// BLEND_STORE stores the row of the product held in v0 (columns 0 on) and
// v1 (columns off on, R11 bytes) at DI, blended first when c is not nil:
// o = alpha·o + beta·c with alpha, beta broadcast in v9, v10; v11 and v12
// are scratch, and stored is the label of the stores after the blend.
#define BLEND_STORE(v0, v1, v9, v10, v11, v12, stored) \
	C_ROW(c+64(FP), stored) \
	BLEND(v0, (AX), v9, v10, v11) \
	BLEND(v1, (AX)(R11*1), v9, v10, v12) \
	\
stored: \
	VMOVUPD v0, (DI) \
	VMOVUPD v1, (DI)(R11*1)

// BLEND_STORE4 stores the row of spmmRows4's product held in v0–v3
// (columns 0:4, 4:8, off2:off2+4 and off3:off3+4, with off2 in R11 and
// off3 in R10) at DI, blended first when c (spmmRows4's argument) is not
// nil, as BLEND_STORE does, with alpha and beta in Y9, Y10 and Y11–Y14
// scratch; stored is the label of the stores after the blend.
#define BLEND_STORE4(v0, v1, v2, v3, stored) \
	C_ROW(c+72(FP), stored) \
	BLEND(v0, (AX), Y9, Y10, Y11) \
	BLEND(v1, 32(AX), Y9, Y10, Y12) \
	BLEND(v2, (AX)(R11*1), Y9, Y10, Y13) \
	BLEND(v3, (AX)(R10*1), Y9, Y10, Y14) \
	\
stored: \
	VMOVUPD v0, (DI) \
	VMOVUPD v1, 32(DI) \
	VMOVUPD v2, (DI)(R11*1) \
	VMOVUPD v3, (DI)(R10*1)

// ENTRY_AT opens a loop over one row's entries, q its entry until end:
// at label loop it jumps to done after the last entry, else prefetches
// ahead (PREFETCH_AT, then EXTRA), and at label load broadcasts the
// entry's value into v with its row of b in AX (LOAD_AT, nb and bad as
// there). The caller adds the multiply-adds, INCQ q and JMP loop.
#define ENTRY_AT(q, end, v, EXTRA, nb, bad, loop, load, done) \
loop: \
	CMPQ q, end \
	JGE  done \
	PREFETCH_AT(q, load) \
	EXTRA \
	\
load: \
	LOAD_AT(v, q, AX, nb, bad)

// PAIR_ENTRY opens the loop over two rows' entries at once, row A's entry
// R12 until 8(BX), row B's R13 until endb: at label loop it jumps to
// btail when row A has no entry left and to atail when row B has none,
// else prefetches ahead of row B's entry (PREFETCH_AT, then EXTRA), and at
// label load broadcasts A's value into va with its row of b in AX and B's
// into vb with its row in R15. The caller adds the multiply-adds, INCQ
// R12, INCQ R13 and JMP loop.
#define PAIR_ENTRY(endb, va, vb, EXTRA, nb, bad, loop, load, atail, btail) \
loop: \
	CMPQ R12, 8(BX) \
	JGE  btail \
	CMPQ R13, endb \
	JGE  atail \
	PREFETCH_AT(R13, load) \
	EXTRA \
	\
load: \
	LOAD_AT(va, R12, AX, nb, bad) \
	LOAD_AT(vb, R13, R15, nb, bad)

// ROW_TAIL2 is NARROW_ROWS2's loop over one row's remaining entries, q
// its entry until end, into v0 and v1 with v the broadcast value,
// jumping to done after the last; loop and load are its labels.
#define ROW_TAIL2(q, end, v, v0, v1, EXTRA, loop, load, done) \
	ENTRY_AT(q, end, v, EXTRA, nb+88(FP), badindex, loop, load, done) \
	VFMADD231PD (AX), v, v0 \
	VFMADD231PD (AX)(R11*1), v, v1 \
	INCQ q \
	JMP  loop

// ROW_TAIL4 is spmmRows4's loop over one row's remaining entries, q its
// entry until end, into v0–v3 (columns 0:4, 4:8, off2:off2+4 and
// off3:off3+4) with v the broadcast value, jumping to done after the
// last; ROW_TAIL3 the same into v0–v2 where off2 = off3.
#define ROW_TAIL4(q, end, v, v0, v1, v2, v3, loop, load, done) \
	ENTRY_AT(q, end, v, PREFETCHT0 64(R15), nb+96(FP), r4bad, loop, load, done) \
	VFMADD231PD (AX), v, v0 \
	VFMADD231PD 32(AX), v, v1 \
	VFMADD231PD (AX)(R11*1), v, v2 \
	VFMADD231PD (AX)(R10*1), v, v3 \
	INCQ q \
	JMP  loop

#define ROW_TAIL3(q, end, v, v0, v1, v2, loop, load, done) \
	ENTRY_AT(q, end, v, PREFETCHT0 64(R15), nb+96(FP), r4bad, loop, load, done) \
	VFMADD231PD (AX), v, v0 \
	VFMADD231PD 32(AX), v, v1 \
	VFMADD231PD (AX)(R11*1), v, v2 \
	INCQ q \
	JMP  loop

// NARROW_ROWS2 is the body of a kernel with spmmRows2's arguments that
// holds each row of the product in two vector registers v0 and v1, at
// columns 0 and off (in bytes after the arguments are read, R11), with
// v8 the broadcast value, v9 and v10 alpha and beta and v11, v12 scratch:
// spmmRows2 in 256-bit registers (columns 0:4 and off:off+4),
// spmmRows16x512 in 512-bit ones (0:8 and off:off+8). ZERO is the
// instruction that clears a register; EXTRA one more instruction after
// each prefetch (a prefetch of the row's middle line where a row of b
// spans up to three lines, else NOP, which assembles to nothing).
//
// Each element is a chain of fused multiply-adds, one per entry of its
// row, so one row's entries take the latency of a multiply-add each. The
// rows therefore go two at a time, row A (R12 its entry) in v0, v1 and
// row B (R13) in w0, w1 with w8 its broadcast value: their entries
// alternate while both have some, then the longer row finishes alone.
// Each row's chain is the same as alone. The prefetches run ahead of row
// B's entry, which is the later one in the call's entries; R10 holds the
// end of row B's entries. A last odd row goes alone.
#define NARROW_ROWS2(ZERO, EXTRA, v0, v1, v8, v9, v10, v11, v12, w0, w1, w8) \
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
	PREFETCH_BOUND((BX)(CX*8), nb+88(FP)) \
	\
pairloop: \
	CMPQ CX, $2 \
	JLT  rowloop \
	MOVQ 8(BX), R13 \
	MOVQ 16(BX), R10 \
	ZERO v0, v0, v0 \
	ZERO v1, v1, v1 \
	ZERO w0, w0, w0 \
	ZERO w1, w1, w1 \
	\
	PAIR_ENTRY(R10, v8, w8, EXTRA, nb+88(FP), badindex, bothloop, bothload, aloop, bloop) \
	VFMADD231PD (AX), v8, v0 \
	VFMADD231PD (R15), w8, w0 \
	VFMADD231PD (AX)(R11*1), v8, v1 \
	VFMADD231PD (R15)(R11*1), w8, w1 \
	INCQ R12 \
	INCQ R13 \
	JMP  bothloop \
	\
	ROW_TAIL2(R12, 8(BX), v8, v0, v1, EXTRA, aloop, aload, pairdone) \
	ROW_TAIL2(R13, R10, w8, w0, w1, EXTRA, bloop, bload, pairdone) \
	\
pairdone: \
	BLEND_STORE(v0, v1, v9, v10, v11, v12, storeda) \
	ADDQ R8, DI \
	BLEND_STORE(w0, w1, v9, v10, v11, v12, storedb) \
	ADDQ R8, DI \
	MOVQ R10, R12 \
	ADDQ $16, BX \
	SUBQ $2, CX \
	JMP  pairloop \
	\
rowloop: \
	TESTQ CX, CX \
	JZ    rowsdone \
	MOVQ  8(BX), R13 \
	ZERO v0, v0, v0 \
	ZERO v1, v1, v1 \
	\
	ROW_TAIL2(R12, R13, v8, v0, v1, EXTRA, entryloop, entryload, entriesdone) \
	\
entriesdone: \
	BLEND_STORE(v0, v1, v9, v10, v11, v12, store) \
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
