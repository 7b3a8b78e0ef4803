//go:build !wasm

package tensor

import "math"

// madd returns x·y + acc rounded once (math.FMA): one instruction on
// amd64 and arm64, and the step of every assembly kernel's chain.
func madd(x, y, acc float64) float64 { return math.FMA(x, y, acc) }
