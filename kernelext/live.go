package kernelext

import (
	"errors"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/cuqgnn/cuqgnn/cuq/chart"
)

// Knob is one control of a Live view: a slider over the settings Labels
// (the slider's positions 0, 1, …, len(Labels)−1), or with Select a
// drop-down list of them. At is the position shown first.
type Knob struct {
	Name   string
	Labels []string
	Select bool
	At     int
}

// Picture is what a Live view shows for one setting: a line naming the
// setting, the numbers as text lines, the charts side by side, and the
// numbers by name for tests and drivers.
type Picture struct {
	Setting string
	Lines   []string
	Charts  []*chart.Chart
	Values  map[string]float64
}

// Live is a picture that follows knobs: GoNB widgets in the cell, a
// listener on them, and the picture recomputed and replaced in place on
// every change. Make one with NewLive or the knobs of this package
// (ConformalKnob, RejectionKnob, PropagationKnobs, PoolingKnob), then
// call Show.
//
// The widgets need a kernel that answers: Jupyter running the cell in a
// browser. Show asks the page first; in an HTML export, a headless run or
// any page that does not answer within the wait (see Wait), the cell shows
// the static picture of the knobs' first setting with a note that says
// so, and no widgets. In a running kernel the cell listens until its
// "stop" button is pressed or no knob has moved for the idle time (see
// Idle), then leaves the last picture, with the same note, as the cell's
// saved output.
type Live struct {
	title      string
	knobs      []Knob
	draw       func(at []int) (*Picture, error)
	wait, idle time.Duration
	times      []time.Duration
}

// Defaults of a Live view's waits.
const (
	DefaultLiveWait = 8 * time.Second  // for the page to answer
	DefaultLiveIdle = 15 * time.Minute // without a move before the cell ends
)

// NewLive returns the live view titled title of draw, which computes the
// picture of the knobs' positions (one per knob, in order).
func NewLive(title string, draw func(at []int) (*Picture, error), knobs ...Knob) *Live {
	return &Live{title: title, knobs: knobs, draw: draw, wait: DefaultLiveWait, idle: DefaultLiveIdle}
}

// Wait sets how long Show waits for the page to answer before it shows the
// static picture (DefaultLiveWait).
func (v *Live) Wait(d time.Duration) *Live { v.wait = d; return v }

// Idle sets how long the cell listens without a move before it ends
// (DefaultLiveIdle).
func (v *Live) Idle(d time.Duration) *Live { v.idle = d; return v }

// Knobs returns the view's knobs.
func (v *Live) Knobs() []Knob { return v.knobs }

// Times returns the time of every redraw so far (the first picture
// included): computing the picture and rendering its HTML.
func (v *Live) Times() []time.Duration { return v.times }

// check returns an error for a view without a draw function or with a
// knob without settings or whose position is out of range.
func (v *Live) check(at []int) error {
	if v == nil || v.draw == nil {
		return errors.New("kernelext: live view without a draw function")
	}
	if len(at) != len(v.knobs) {
		return fmt.Errorf("kernelext: %d positions for %d knobs", len(at), len(v.knobs))
	}
	for k, kn := range v.knobs {
		if len(kn.Labels) == 0 {
			return fmt.Errorf("kernelext: knob %q has no settings", kn.Name)
		}
		if at[k] < 0 || at[k] >= len(kn.Labels) {
			return fmt.Errorf("kernelext: knob %q at position %d, out of [0, %d)", kn.Name, at[k], len(kn.Labels))
		}
	}
	return nil
}

// First returns the knobs' first positions.
func (v *Live) First() []int {
	at := make([]int, len(v.knobs))
	for k, kn := range v.knobs {
		at[k] = kn.At
	}
	return at
}

// Frame is one redraw of a Live view: the picture, its rendered body and
// the time both took.
type Frame struct {
	Picture *Picture
	Took    time.Duration
	body    string
}

// Redraw computes the picture of the knobs at positions at and renders
// it, and records the time it took. It shows nothing: Show calls it on
// every change, tests call it directly.
func (v *Live) Redraw(at ...int) (*Frame, error) {
	if err := v.check(at); err != nil {
		return nil, err
	}
	start := time.Now()
	p, err := v.draw(at)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("kernelext: %s: no picture", v.title)
	}
	for k, c := range p.Charts {
		if c == nil {
			return nil, fmt.Errorf("kernelext: %s: chart %d of the picture is nil", v.title, k)
		}
	}
	f := &Frame{Picture: p, body: pictureBody(p)}
	f.Took = time.Since(start)
	v.times = append(v.times, f.Took)
	return f, nil
}

// pictureBody renders the numbers and the charts of p.
func pictureBody(p *Picture) string {
	var b strings.Builder
	b.WriteString("<pre class=\"cuq-live-numbers\" style=\"margin:4px 0;\">")
	b.WriteString(html.EscapeString(strings.Join(p.Lines, "\n")))
	b.WriteString("</pre>\n")
	if len(p.Charts) > 0 {
		b.WriteString(chart.NewPage("").AddRow(p.Charts...).Fragment())
	}
	return b.String()
}

// HTML returns the frame's picture with the note, the setting and the
// redraw time, in elements a driver can read (classes cuq-live-…, the
// setting in data-setting, the time in data-ms).
func (f *Frame) HTML(note string) string {
	p, body := f.Picture, f.body
	ms := float64(f.Took.Microseconds()) / 1000
	return fmt.Sprintf("<div class=\"cuq-live\" data-setting=\"%s\">\n"+
		"<div class=\"cuq-live-note\" style=\"background:#f4f4f4;border-left:4px solid #888;padding:4px 8px;margin:4px 0;\">%s</div>\n"+
		"<div class=\"cuq-live-setting\" style=\"font-weight:bold;\">%s</div>\n%s"+
		"<div class=\"cuq-live-time\" data-ms=\"%.1f\" style=\"color:#777;font-size:85%%;\">redrawn in %.1f ms</div>\n</div>",
		html.EscapeString(p.Setting), html.EscapeString(note), html.EscapeString(p.Setting), body, ms, ms)
}

// StaticNote is the note of a picture shown without a kernel that
// answers, or left when the cell stopped listening.
func (v *Live) StaticNote(p *Picture) string {
	names := make([]string, len(v.knobs))
	for k, kn := range v.knobs {
		names[k] = kn.Name
	}
	what := "knob " + names[0] + " moves"
	if len(names) > 1 {
		what = "knobs " + strings.Join(names, ", ") + " move"
	}
	return fmt.Sprintf("Static picture at %s: the %s it in a running kernel (run the cell).", p.Setting, what)
}

// liveNote is the note while the cell listens.
const liveNote = "Live: move a knob and the picture follows; press \"stop\" (or wait %s without a move) to end the cell and keep the last picture."

// Show displays the view: its first picture, and, where the page answers,
// the knobs and a stop button, redrawing in place on every change until
// the stop button or the idle time ends the cell (see Live). Outside a
// notebook it prints the first picture's lines. An error in a redraw is
// shown in the cell and returned.
func (v *Live) Show() error {
	at := v.First()
	if err := v.check(at); err != nil {
		return Show(nil, err)
	}
	if !gonbui.IsNotebook {
		f, err := v.Redraw(at...)
		if err != nil {
			return err
		}
		fmt.Println(f.Picture.Setting)
		fmt.Println(strings.Join(f.Picture.Lines, "\n"))
		return nil
	}
	if v.title != "" {
		gonbui.DisplayHTML("<h4 class=\"cuq-live-title\">" + html.EscapeString(v.title) + "</h4>")
	}
	if l := loader(); l != "" {
		gonbui.DisplayHTML(l) // charts redrawn in place find the library in this output
	}
	id := "cuq-live-" + gonbui.UniqueId()
	f, err := v.Redraw(at...)
	if err != nil {
		return Show(nil, err)
	}
	if !pageAnswers(v.wait) {
		gonbui.UpdateHTML(id, f.HTML(v.StaticNote(f.Picture)))
		return flush()
	}
	return v.listen(id, at)
}

// listen shows the knobs and redraws on their moves until the stop button
// or the idle time.
func (v *Live) listen(id string, at []int) error {
	note := fmt.Sprintf(liveNote, v.idle)
	f, err := v.Redraw(at...)
	if err != nil {
		return Show(nil, err)
	}
	gonbui.UpdateHTML(id, f.HTML(note))
	type move struct{ knob, at int }
	moves := make(chan move, 16)
	for k, kn := range v.knobs {
		ch := v.widget(id, k, kn)
		go func() {
			for x := range ch.C {
				moves <- move{k, x}
			}
		}()
	}
	stopID := id + "-stop"
	gonbui.DisplayHTML(fmt.Sprintf("<label for=\"%s\" class=\"cuq-live-label\">end the cell, keep the picture: </label>", stopID))
	stop := widgets.Button("stop").WithHtmlId(stopID).Done().Listen()
	defer stop.Close()
	for {
		select {
		case m := <-moves:
			if m.at < 0 || m.at >= len(v.knobs[m.knob].Labels) {
				continue // a value the widget cannot send
			}
			at[m.knob] = m.at
			if f, err = v.Redraw(at...); err != nil {
				return Show(nil, err)
			}
			gonbui.UpdateHTML(id, f.HTML(note))
		case <-stop.C:
			return v.end(id, f)
		case <-time.After(v.idle):
			return v.end(id, f)
		}
	}
}

// end replaces the live picture with the static one of the last setting.
func (v *Live) end(id string, f *Frame) error {
	gonbui.UpdateHTML(id, f.HTML(v.StaticNote(f.Picture)))
	return flush()
}

// widget shows knob k as a GoNB slider or select with a label, and returns
// a channel of its positions that keeps only the latest one.
func (v *Live) widget(id string, k int, kn Knob) *comms.AddressChan[int] {
	htmlID := fmt.Sprintf("%s-knob%d", id, k)
	gonbui.DisplayHTML(fmt.Sprintf("<label for=\"%s\" class=\"cuq-live-label\" data-knob=\"%d\" data-labels=\"%s\">%s (%s … %s)</label>",
		htmlID, k, html.EscapeString(strings.Join(kn.Labels, "|")), html.EscapeString(kn.Name), html.EscapeString(kn.Labels[0]), html.EscapeString(kn.Labels[len(kn.Labels)-1])))
	if kn.Select {
		w := widgets.Select(kn.Labels).SetDefault(kn.At).WithHtmlId(htmlID).Done()
		return w.Listen().LatestOnly()
	}
	w := widgets.Slider(0, len(kn.Labels)-1, kn.At).WithHtmlId(htmlID).Done()
	return w.Listen().LatestOnly()
}

// pageAnswers reports whether the page runs GoNB's front-end (the
// gonb_comm object of its widgets): it asks the page to send a value and
// waits for it at most wait.
func pageAnswers(wait time.Duration) bool {
	address := "/cuq/live/probe/" + gonbui.UniqueId()
	ch := comms.Listen[int](address)
	defer ch.Close()
	dom.TransientJavascript(fmt.Sprintf("globalThis.gonb_comm?.send(%q, 1);", address))
	select {
	case <-ch.C:
		return true
	case <-time.After(wait):
		return false
	}
}
