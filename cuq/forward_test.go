package cuq_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// ForwardTo writes Forward's output, bit for bit, into the caller's
// matrix for a first-order model, PostNet models with each pooling and
// convolution kind and GKDE; once its pool is warm, a pass allocates less
// than half the output's size (Forward allocates the whole output every
// pass); a destination of the wrong shape, or none, is an error.
func TestForwardToIsForward(t *testing.T) {
	g, split := testenv.Split(t, datasets.Synthetic, graph.Stratified(0.05, 0.15, 0.8))
	for _, c := range []struct {
		name  string
		build interface {
			Done(*graph.Graph) (*cuq.Model, error)
		}
	}{
		{"APPNP", cuq.APPNP()}, {"GPN", cuq.GPN()}, {"LOP-GPN", cuq.LOPGPN()},
		{"CUQ-GCN", cuq.CUQGCN()}, {"CUQ-GAT", cuq.CUQGAT()}, {"GKDE", cuq.GKDE()},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := must(c.build.Done(g))
			if m.Trainable() {
				for range 3 {
					must(m.Step(split))
				}
			} else {
				must(m.Fit(split))
			}
			want := must(m.Forward(nil))
			dst := tensor.New(want.Rows, want.Cols)
			if err := m.ForwardTo(dst, nil); err != nil {
				t.Fatal(err)
			}
			if !tensor.SameBits(dst.Data, want.Data) {
				t.Fatal("ForwardTo's output differs from Forward's")
			}

			const passes = 10
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range passes {
				if err := m.ForwardTo(dst, nil); err != nil {
					t.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(passes*8*len(dst.Data)/2); got >= limit {
				t.Errorf("%d passes allocated %d bytes, want under %d (half of one output per pass)", passes, got, limit)
			}

			for _, bad := range []*tensor.Dense{tensor.New(want.Rows+1, want.Cols), tensor.New(want.Rows, want.Cols-1), nil} {
				err := m.ForwardTo(bad, nil)
				if err == nil || !strings.Contains(err.Error(), "destination") {
					t.Errorf("ForwardTo(%v): error %v, want one about the destination", bad, err)
				}
			}
		})
	}
}
