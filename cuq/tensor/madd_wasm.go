//go:build wasm

package tensor

// madd returns x·y + acc with the product rounded first. WebAssembly has
// no fused multiply-add, and math.FMA in software would make the
// explorers' training in the page several times slower, so there the
// portable kernels round twice and differ from the other paths in the
// last bits.
func madd(x, y, acc float64) float64 { return float64(x*y) + acc }
