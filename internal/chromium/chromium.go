// Package chromium drives a headless Chromium for tests through the
// DevTools protocol over a pipe (--remote-debugging-pipe: commands go to
// the browser's file descriptor 3, replies come from 4, each message a JSON
// document ended by a NUL byte), so no port is opened and no library is
// needed. The browser runs offline: every host name fails to resolve.
package chromium

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// EnvBinary names the environment variable that may hold the path of the
// browser; otherwise Find looks for chromium, chromium-browser and
// google-chrome in PATH.
const EnvBinary = "CUQ_CHROMIUM"

// Find returns the path of a Chromium binary.
func Find() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium: no chromium, chromium-browser or google-chrome in PATH (or set " + EnvBinary + ")")
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	toB     *os.File // the browser's fd 3
	profile string
	timeout time.Duration

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan message
	readErr error
	done    chan struct{}
}

type message struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method    string `json:"method"`
	SessionID string `json:"sessionId"`
}

// Start launches the browser at path, headless and offline, with a fresh
// profile. Every command waits at most timeout for its reply.
func Start(path string, timeout time.Duration) (*Browser, error) {
	profile, err := os.MkdirTemp("", "cuq-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--remote-debugging-pipe", "--user-data-dir="+profile,
		"about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, repW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close ends the browser's helpers too
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: starting %s: %w", path, err)
	}
	cmdR.Close()
	repW.Close()
	b := &Browser{cmd: cmd, toB: cmdW, profile: profile, timeout: timeout, waiting: map[int]chan message{}, done: make(chan struct{})}
	go b.read(repR)
	return b, nil
}

// read dispatches the browser's replies to the commands waiting for them;
// events are dropped.
func (b *Browser) read(r *os.File) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("chromium: reading replies: %w", err)
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// call sends a command (to a page's session when session is not empty)
// and decodes its result into result (when not nil).
func (b *Browser) call(session, method string, params, result any) error {
	b.mu.Lock()
	if b.readErr != nil {
		err := b.readErr
		b.mu.Unlock()
		return err
	}
	b.nextID++
	id := b.nextID
	ch := make(chan message, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.toB.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("chromium: %s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("chromium: %s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("chromium: %s: %w", method, err)
			}
		}
		return nil
	case <-b.done:
		return fmt.Errorf("chromium: %s: the browser closed the pipe", method)
	case <-time.After(b.timeout):
		b.mu.Lock()
		delete(b.waiting, id)
		b.mu.Unlock()
		return fmt.Errorf("chromium: %s: no reply within %v", method, b.timeout)
	}
}

// Close shuts the browser down and removes its profile.
func (b *Browser) Close() error {
	_ = b.call("", "Browser.close", nil, nil) // the pipe may close before the reply
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	b.toB.Close()
	return os.RemoveAll(b.profile)
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
}

// NewPage opens a blank tab with a viewport of width×height CSS pixels.
func (b *Browser) NewPage(width, height int) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID}
	return p, p.Resize(width, height)
}

// Open opens url in a new tab with a viewport of width×height CSS pixels
// and waits until the document has loaded. Each of setup, such as
// (*Page).DisableScripts, is applied to the tab before it loads url.
func (b *Browser) Open(url string, width, height int, setup ...func(*Page) error) (*Page, error) {
	p, err := b.NewPage(width, height)
	if err != nil {
		return nil, err
	}
	for _, f := range setup {
		if err := f(p); err != nil {
			return nil, err
		}
	}
	return p, p.Navigate(url)
}

// Navigate loads url in the page and waits until the document has loaded
// (its load event has fired).
func (p *Page) Navigate(url string) error {
	if err := p.b.call(p.session, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	u, err := json.Marshal(url)
	if err != nil {
		return err
	}
	return p.WaitFor(`document.readyState === "complete" && location.href === `+string(u), p.b.timeout)
}

// BeforeScripts makes the page run the JavaScript source js before any of
// its own scripts, from its next load on.
func (p *Page) BeforeScripts(js string) error {
	if err := p.b.call(p.session, "Page.enable", nil, nil); err != nil {
		return err
	}
	return p.b.call(p.session, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": js}, nil)
}

// Resize sets the viewport to width×height CSS pixels at scale 1.
func (p *Page) Resize(width, height int) error {
	return p.b.call(p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

// DisableScripts stops the page's own scripts from running from its next
// load on, as in a notebook that is not trusted; Eval still works.
func (p *Page) DisableScripts() error {
	return p.b.call(p.session, "Emulation.setScriptExecutionDisabled", map[string]any{"value": true}, nil)
}

// Eval evaluates a JavaScript expression in the page, awaiting it if it is
// a promise, and decodes its value (JSON-serialisable) into result when
// result is not nil. A thrown exception is returned as an error.
func (p *Page) Eval(expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r)
	if err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("chromium: script failed: %s %s", e.Text, e.Exception.Description)
	}
	if result != nil {
		if len(r.Result.Value) == 0 {
			return fmt.Errorf("chromium: the script returned no value: %s", expr)
		}
		return json.Unmarshal(r.Result.Value, result)
	}
	return nil
}

// WaitFor polls a JavaScript condition until it is true or timeout passes.
func (p *Page) WaitFor(cond string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		var ok bool
		if lastErr = p.Eval("Boolean("+cond+")", &ok); lastErr == nil && ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if lastErr != nil {
		return fmt.Errorf("chromium: waiting for %s: %w", cond, lastErr)
	}
	return fmt.Errorf("chromium: %s still false after %v", cond, timeout)
}

// Screenshot returns a PNG of the whole page: the viewport is stretched
// to the document's height first.
func (p *Page) Screenshot(width int) ([]byte, error) {
	var h int
	if err := p.Eval("Math.ceil(document.documentElement.scrollHeight)", &h); err != nil {
		return nil, err
	}
	if err := p.Resize(width, max(h, 100)); err != nil {
		return nil, err
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}
