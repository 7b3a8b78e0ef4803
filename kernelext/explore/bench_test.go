package explore

import (
	"fmt"
	"testing"
)

// BenchmarkView times one redraw of each explorer at its starting values
// (natively; in a browser the WebAssembly build is slower by a factor the
// Chromium check of package kernelext reports).
func BenchmarkView(b *testing.B) {
	for _, e := range []Explorer{Dirichlet(), Pooling(), Degree(), Degree().Side(30)} {
		name := e.Kind()
		if d, ok := e.(*DegreeExplorer); ok {
			name += fmt.Sprintf("/side=%d", d.cfg.Side)
		}
		b.Run(name, func(b *testing.B) {
			v := Start(e)
			for b.Loop() {
				if _, err := e.View(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
