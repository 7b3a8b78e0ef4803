package kernelext

import (
	"context"
	"fmt"

	"github.com/cuqgnn/cuqgnn/experiment"
)

// RunGrid runs the experiment grid g into the output directory dir with a
// progress bar in the cell, then reads back and aggregates every record
// there (experiment.Collect). Jobs finished earlier in dir, by this cell,
// another notebook or `cuq grid`, are not run again, so re-running the cell
// only draws. It returns an error when a job fails.
func RunGrid(g *experiment.Grid, dir string) (*experiment.Results, error) {
	if g == nil {
		return nil, fmt.Errorf("kernelext.RunGrid: nil grid")
	}
	var bar *Progress
	sum, err := g.Out(dir).Progress(func(e experiment.Event) {
		switch e.Kind {
		case experiment.Planned:
			if e.Total > 0 {
				bar = NewProgress(fmt.Sprintf("experiment grid: %d jobs to run (%d finished earlier) in %s", e.Total, e.Skipped, dir))
			}
		case experiment.Finished, experiment.Failed:
			if bar != nil {
				bar.Update(e.Done, e.Total, fmt.Sprintf("%s (%.1fs)", e.Job, e.Elapsed.Seconds()))
			}
		}
	}).Run(context.Background())
	if err != nil {
		return nil, err
	}
	if !sum.Complete {
		return nil, fmt.Errorf("kernelext.RunGrid: the grid in %s is not complete", dir)
	}
	return experiment.Collect(dir)
}
