package kernelext

import (
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/cuqgnn/cuqgnn/cuq"
)

// ProgressFunc is the form in which long computations report progress:
// done of total steps are complete, msg describes the latest one (e.g. the
// epoch's loss). Code outside kernelext declares the same signature, so a
// training loop can take a (*Progress).Update without importing GoNB.
type ProgressFunc = func(done, total int, msg string)

// Progress is a progress bar that updates in place in the cell output and,
// when done reaches total, turns into a one-line summary. Outside a
// notebook it writes the same lines to standard error.
type Progress struct {
	mu       sync.Mutex
	title    string
	id       string // GoNB display id of the transient output block
	start    time.Time
	last     time.Time // time of the last displayed update
	every    time.Duration
	finished bool
	unit     string    // what the summary counts: "steps", or "epochs" for Training
	out      io.Writer // terminal output outside a notebook
	now      func() time.Time
}

// NewProgress returns a progress bar with the given title; nothing is shown
// until the first Update.
func NewProgress(title string) *Progress {
	return &Progress{
		title: title,
		id:    "cuq-progress-" + gonbui.UniqueId(),
		every: 100 * time.Millisecond,
		unit:  "steps",
		out:   os.Stderr,
		now:   time.Now,
	}
}

// Update shows that done of total steps are complete, with msg. Updates
// closer than 0.1 s to the previous one are skipped, except the last
// (done ≥ total), which replaces the bar by the summary; later calls do
// nothing. Update has the form of ProgressFunc.
func (p *Progress) Update(done, total int, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	final := total > 0 && done >= total
	if !final && !p.last.IsZero() && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	p.finished = final
	elapsed := now.Sub(p.start)
	var h, line string
	if final {
		line = summaryLine(p.title, total, p.unit, elapsed, msg)
		h = "<div style=\"font-family:monospace;\">&#10003; " + html.EscapeString(line) + "</div>"
	} else {
		h, line = barHTML(p.title, done, total, elapsed, msg), barText(p.title, done, total, msg)
	}
	if gonbui.IsNotebook {
		gonbui.UpdateHTML(p.id, h)
		if final {
			gonbui.Sync() // the program may end right after
		}
		return
	}
	if final {
		fmt.Fprintf(p.out, "\r%s\n", line)
	} else {
		fmt.Fprintf(p.out, "\r%s", line)
	}
}

// fraction returns done/total clamped to [0, 1] (0 when total ≤ 0).
func fraction(done, total int) float64 {
	if total <= 0 {
		return 0
	}
	return min(1, max(0, float64(done)/float64(total)))
}

// eta estimates the remaining time by assuming the steps left take as long
// as the steps done: elapsed · (total − done) / done.
func eta(done, total int, elapsed time.Duration) time.Duration {
	if done <= 0 || total <= done {
		return 0
	}
	return time.Duration(float64(elapsed) * float64(total-done) / float64(done))
}

// barHTML renders the bar: title, a filled bar, done/total, percentage,
// elapsed and remaining time, and the message.
func barHTML(title string, done, total int, elapsed time.Duration, msg string) string {
	f := fraction(done, total)
	return fmt.Sprintf(`<div style="font-family:monospace;display:flex;align-items:center;gap:8px;">`+
		`<b>%s</b>`+
		`<div style="width:240px;height:12px;background:#e6e6e6;border-radius:3px;overflow:hidden;">`+
		`<div style="width:%.1f%%;height:100%%;background:#5470c6;"></div></div>`+
		`<span>%d/%d (%.0f%%) %s, eta %s</span><span>%s</span></div>`,
		html.EscapeString(title), 100*f, done, total, 100*f,
		elapsed.Round(100*time.Millisecond), eta(done, total, elapsed).Round(time.Second), html.EscapeString(msg))
}

// barText is the terminal form of the bar.
func barText(title string, done, total int, msg string) string {
	const width = 30
	n := int(fraction(done, total) * width)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	return fmt.Sprintf("%s [%s] %d/%d %s", title, bar, done, total, msg)
}

// summaryLine is the one-line summary left when the work is done.
func summaryLine(title string, total int, unit string, elapsed time.Duration, msg string) string {
	s := fmt.Sprintf("%s: %d %s in %s", title, total, unit, elapsed.Round(10*time.Millisecond))
	if msg != "" {
		s += " · " + msg
	}
	return s
}

// Training shows the progress of a model's Fit in the cell output:
//
//	tr := kernelext.NewTraining("CUQ-GCN on CoraML")
//	hist, err := model.Fit(split, tr.OnEpoch())
//	tr.Done(hist, err)
//
// The bar runs to the epoch at which early stopping would end training
// (cuq.EpochStats.StopAt) and shows the loss and the validation cross
// entropy. The summary counts epochs as cuq.History does: the main
// epochs, with the warm-up epochs said apart, and the best epoch in the
// same numbering.
type Training struct {
	bar  *Progress
	last cuq.EpochStats
}

// NewTraining returns a training progress display with the given title.
func NewTraining(title string) *Training {
	bar := NewProgress(title)
	bar.unit = "epochs"
	return &Training{bar: bar}
}

// OnEpoch returns the Fit option that feeds the display.
func (t *Training) OnEpoch() cuq.FitOption { return cuq.OnEpoch(t.Epoch) }

// Epoch shows the progress after epoch e; OnEpoch passes it to Fit.
func (t *Training) Epoch(e cuq.EpochStats) {
	t.last = e
	msg := fmt.Sprintf("%s epoch %d · loss %.4g", e.Phase, e.Epoch, e.Loss)
	if !math.IsNaN(e.ValCE) {
		msg += fmt.Sprintf(" · val CE %.4f · val acc %.3f", e.ValCE, e.ValAcc)
	}
	// The bar ends only in Done: early stopping may extend StopAt.
	t.bar.Update(e.Epoch, e.StopAt+1, msg)
}

// Done replaces the bar by a summary of the finished Fit (or its error).
func (t *Training) Done(hist *cuq.History, err error) {
	msg := "no epochs"
	switch {
	case err != nil:
		msg = "stopped: " + err.Error()
	case hist != nil && len(hist.Epochs) > 0:
		msg = fmt.Sprintf("best epoch %d (val CE %.4f); %s", hist.BestEpoch, hist.BestValCE, hist.Stopped)
		if w := hist.WarmupEpochs(); w > 0 {
			msg = fmt.Sprintf("after %d warm-up epochs · %s", w, msg)
		}
	case hist != nil:
		msg = hist.Stopped
	}
	total := max(t.last.Epoch, 1)
	if hist != nil && hist.TrainEpochs() > 0 {
		total = hist.TrainEpochs()
	}
	t.bar.Update(total, total, msg)
}
