// prefetchAhead is how many entries ahead spmmRows2, spmmRows4 and
// spmmRows16x512 prefetch the row of b that an entry will gather. On a large graph those rows come
// from the last-level cache or memory in random order; with the hint the
// loads of many entries are under way at once. Propagating 40 columns over
// the Arxiv-sized graphs (go test ./cuq/graph -bench 'PPRApplyArxiv'):
// 114–118 ms per call against 170–178 ms without on ArxivLike's graph,
// 118–143 against 180–254 on the uniform random one. With only spmmRows4
// prefetching, 32 entries ahead gained less (146–163 ms against 185–208)
// and 128 no more than 64 (123–146 against 131–143); 16 ahead gained
// nothing measurable.
#define prefetchAhead 64
