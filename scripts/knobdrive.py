#!/usr/bin/env python3
"""knobdrive.py: drives the live knobs of a notebook as a user in a browser would.

  knobdrive.py NOTEBOOK [MAX_MS]

Starts the GoNB kernel (jupyter_client, from Debian's python3-jupyter-client)
in the notebook's directory and executes its code cells in order. A cell
that calls kernelext.ShowLive gets a front-end: this script plays the part
of the JavaScript that GoNB's widgets run in the page, over the kernel's
Jupyter "comm" messages:

  - when the kernel publishes its gonb_comm installer (a <script> holding
    the kernel id), it opens the comm (comm_open, target "gonb_comm") as
    gonb_comm._connect_to_gonb does, and answers every #heartbeat/ping with
    a #heartbeat/pong;
  - it answers kernelext's probe (gonb_comm.send(address, 1));
  - for every slider, select and button it sends the first value that
    gonb_comm.newSyncedVariable sends (the element's value, as a string, or
    0 for a button);
  - it then moves every knob to several positions, sending what the
    element's "change" listener sends (the new value, as a string), waits
    for the picture to be replaced, and checks it: the setting shown is the
    knob's label at that position, and the numbers are those a changed
    setting must give (the conformal coverage does not rise with α; the
    number of rejected nodes is round(r·n); K, t and the pooling shown are
    the ones set);
  - finally it presses the stop button and checks that the cell ends with
    the static picture of the last setting and its note.

Every redraw's time, as the kernel measured it (data-ms of the picture) and
as a round trip from the message to the new picture, is printed; with
$CUQ_KNOB_SNAPSHOTS set to a directory, each knob cell's first live picture
and its picture after the last move are written there as HTML pages
(cellN-first.html, cellN-moved.html), to be looked at in a browser; a redraw
slower than MAX_MS (default 200) in the kernel fails the run. Cells without
knobs are executed and checked as scripts/nbdrive.py checks them.
"""
import html
import math
import os
import queue
import re
import sys
import time
import uuid

from jupyter_client.manager import KernelManager

LIVE = re.compile(r'<div class="cuq-live" data-setting="([^"]*)">')
NUMBERS = re.compile(r'<pre class="cuq-live-numbers"[^>]*>(.*?)</pre>', re.S)
NOTE = re.compile(r'<div class="cuq-live-note"[^>]*>(.*?)</div>', re.S)
MS = re.compile(r'class="cuq-live-time" data-ms="([0-9.]+)"')
KERNEL_ID = re.compile(r'_kernel_id: "([^"]*)"')
PROBE = re.compile(r'gonb_comm\?\.send\("(/cuq/live/probe/[^"]+)", 1\)')
ELEMENT = re.compile(r'getElementById\("([^"]+)"\)')
SYNCED = re.compile(r'newSyncedVariable\("([^"]+)", (?:0|slider\.value|el\.value)\)')
LABEL = re.compile(r'<label for="([^"]+)" class="cuq-live-label"(?: data-knob="(\d+)" data-labels="([^"]*)")?>([^<]*)</label>')
RANGE = re.compile(r'<input type="range" id="([^"]+)" min="(\d+)" max="(\d+)" value="(\d+)"/>')
SELECT = re.compile(r'<select id="([^"]+)">(.*?)</select>', re.S)


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def text(v):
    return v if isinstance(v, str) else "".join(v)


class FrontEnd:
    """The page's side of GoNB's comms, for one kernel."""

    def __init__(self, kc):
        self.kc = kc
        self.comm_id = None
        self.kernel_id = None
        self.opened = False
        self.widgets = {}      # html id -> {"kind", "address", "value", "labels", "name", "knob"}
        self.pictures = {}     # display id -> latest picture html
        self.updates = queue.Queue()  # (time, display id, html) of every picture shown

    def shell(self, msg_type, content):
        msg = self.kc.session.msg(msg_type, content)
        self.kc.shell_channel.send(msg)

    def send(self, address, value):
        if not self.opened:
            fail(f"sending {address} = {value!r} before the comm is open")
        self.shell("comm_msg", {"comm_id": self.comm_id, "data": {"address": address, "value": value}})

    def html_shown(self, h, display_id):
        """Reacts to HTML the kernel displays, as the page would."""
        m = KERNEL_ID.search(h)
        if m and "_ws_url" in h:
            self.kernel_id = m.group(1)
            self.comm_id = str(uuid.uuid4())
            self.shell("comm_open", {"comm_id": self.comm_id, "target_name": "gonb_comm",
                                     "kernel_id": self.kernel_id, "data": {}})
            return
        for m in RANGE.finditer(h):
            self.widget(m.group(1), kind="slider", value=m.group(4))
        for m in SELECT.finditer(h):
            opts = re.findall(r'<option value="(\d+)"( selected)?>', m.group(2))
            value = next((v for v, sel in opts if sel), opts[0][0] if opts else "0")
            self.widget(m.group(1), kind="select", value=value)
        for m in re.finditer(r'<button id="([^"]+)" type="button">', h):
            self.widget(m.group(1), kind="button", value=0)
        for m in LABEL.finditer(h):
            w = self.widget(m.group(1))
            w["name"] = html.unescape(m.group(4))
            if m.group(3) is not None:
                w["knob"], w["labels"] = int(m.group(2)), html.unescape(m.group(3)).split("|")
        m = PROBE.search(h)
        if m:
            self.send(m.group(1), 1)
        # A widget's script: the element it reads and its synced variable,
        # whose first value newSyncedVariable sends at once.
        elements, synced = ELEMENT.findall(h), SYNCED.findall(h)
        if len(elements) == 1 and len(synced) == 1:
            w = self.widget(elements[0])
            w["address"] = synced[0]
            self.send(w["address"], w["value"])
        if LIVE.search(h) and display_id:
            self.pictures[display_id] = h
            self.updates.put((time.monotonic(), display_id, h))

    def widget(self, html_id, **kw):
        w = self.widgets.setdefault(html_id, {})
        w.update(kw)
        return w

    def comm_msg(self, content):
        data = content.get("data", {})
        address = data.get("address")
        if address == "#comm_open_ack":
            self.opened = True
        elif address == "#heartbeat/ping":
            self.send("#heartbeat/pong", True)


class Driver:
    def __init__(self, path, max_ms):
        self.path, self.max_ms = path, max_ms
        self.km = KernelManager(kernel_name="gonb")
        self.km.start_kernel(cwd=os.path.dirname(os.path.abspath(path)))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=300)
        self.fe = FrontEnd(self.kc)
        self.running = None  # msg_id of the cell being executed
        self.done = False
        self.stderr = ""
        self.error = None

    def pump(self, timeout):
        """Handles the kernel's messages for at most timeout seconds, or until
        the running cell is done."""
        end = time.monotonic() + timeout
        while not self.done and time.monotonic() < end:
            try:
                msg = self.kc.get_iopub_msg(timeout=min(0.05, max(0.001, end - time.monotonic())))
            except queue.Empty:
                continue
            t, c = msg["msg_type"], msg["content"]
            parent = msg.get("parent_header", {}).get("msg_id")
            if t == "comm_msg":
                self.fe.comm_msg(c)
            elif t in ("display_data", "update_display_data", "execute_result"):
                h = c.get("data", {}).get("text/html", "")
                if h:
                    self.fe.html_shown(text(h), c.get("transient", {}).get("display_id"))
            elif parent != self.running:
                continue
            elif t == "stream" and c.get("name") == "stderr":
                self.stderr += c["text"]
            elif t == "error":
                self.error = f"{c.get('ename')}: {c.get('evalue')}"
            elif t == "status" and c.get("execution_state") == "idle":
                self.done = True

    def run_cell(self, i, source, live):
        self.done, self.stderr, self.error = False, "", None
        self.fe.widgets, self.fe.updates = {}, queue.Queue()  # the page's elements of this cell only
        self.running = self.kc.execute(source)
        if live:
            self.drive(i)
        self.pump(3600)
        if not self.done:
            fail(f"{self.path}: cell {i} did not finish")
        if self.error:
            fail(f"{self.path}: cell {i}: {self.error}")
        if re.search(r"exit status|panic:", self.stderr):
            fail(f"{self.path}: cell {i} stopped: {self.stderr[-800:]}")

    def wait_picture(self, i, what, want_setting=None, timeout=600):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                t, did, h = self.fe.updates.get_nowait()
            except queue.Empty:
                if self.done:
                    fail(f"{self.path}: cell {i} ended while waiting for {what}")
                self.pump(0.05)
                continue
            setting = html.unescape(LIVE.search(h).group(1))
            if want_setting is None or setting == want_setting:
                return t, did, h, setting
        fail(f"{self.path}: cell {i}: no picture for {what} within {timeout} s")

    def drive(self, i):
        # The live picture appears once the page has answered the probe.
        while True:
            _, did, h, setting = self.wait_picture(i, "the live picture")
            if NOTE.search(h).group(1).startswith("Live:"):
                break
        knobs = {}
        while True:  # every knob's widget and the stop button
            knobs = {w["knob"]: w for w in self.fe.widgets.values() if "knob" in w and "address" in w}
            stop = [w for w in self.fe.widgets.values() if w.get("kind") == "button" and "address" in w]
            expected = [w for w in self.fe.widgets.values() if "knob" in w]
            if stop and len(knobs) == len(expected):
                break
            if self.done:
                fail(f"{self.path}: cell {i} ended before showing its knobs")
            self.pump(0.05)
        positions = {k: int(w["value"]) for k, w in knobs.items()}
        snapshot(i, "first", h)
        first = parse(h)
        report = []
        check(self.path, i, first, None)
        prev = first
        for k in sorted(knobs):
            w = knobs[k]
            n = len(w["labels"])
            for pos in moves(n, positions[k]):
                positions[k] = pos
                want = setting_of(knobs, positions)
                sent = time.monotonic()
                self.fe.send(w["address"], str(pos))
                t, did, h, setting = self.wait_picture(i, f"{w['name']} at {w['labels'][pos]}", want)
                pic = parse(h)
                check(self.path, i, pic, prev)
                trip = 1000 * (t - sent)
                report.append((w["name"].split(" (")[0], w["labels"][pos], pic["ms"], trip))
                print(f"  cell {i}: {setting}: redrawn in {pic['ms']:.1f} ms in the kernel, {trip:.0f} ms round trip; "
                      f"{pic['lines'][0][:110]}", flush=True)
                prev = pic
        snapshot(i, "moved", h)
        self.fe.send(stop[0]["address"], 1)
        _, _, h, setting = self.wait_picture(i, "the static picture after stop")
        note = html.unescape(NOTE.search(h).group(1))
        if not note.startswith("Static picture at " + prev["setting"] + ":"):
            fail(f"{self.path}: cell {i}: after stop the note is {note!r}, not the static picture of {prev['setting']!r}")
        slow = [r for r in report if r[2] > self.max_ms]
        ms = [r[2] for r in report]
        print(f"ok: cell {i}: {len(report)} moves, redraw {min(ms):.1f}–{max(ms):.1f} ms in the kernel "
              f"(median {sorted(ms)[len(ms) // 2]:.1f}); stopped with the static picture of {prev['setting']}", flush=True)
        if slow:
            fail(f"{self.path}: cell {i}: redraws over {self.max_ms} ms: {slow}")

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def snapshot(i, name, h):
    """Writes picture h of cell i to $CUQ_KNOB_SNAPSHOTS/cell{i}-{name}.html when set."""
    d = os.environ.get("CUQ_KNOB_SNAPSHOTS")
    if d:
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"cell{i}-{name}.html"), "w", encoding="utf-8") as f:
            f.write('<!doctype html><meta charset="utf-8">\n' + h)


def moves(n, at):
    """Positions to visit from at: the far ends, the middle and one step back."""
    out = []
    for p in (n - 1, 0, n // 2, max(0, n // 2 - 1)):
        if p != (out[-1] if out else at):
            out.append(p)
    return out


def setting_of(knobs, positions):
    """The setting line the knobs' positions must show, for the knobs whose
    labels name the whole setting (one knob), else None (checked by the
    numbers)."""
    if len(knobs) == 1:
        (k, w), = knobs.items()
        name = w["name"].split(" (")[0]
        return f"{name} = {w['labels'][positions[k]]}" if name in ("α", "r") else None
    return None


def parse(h):
    lines = html.unescape(NUMBERS.search(h).group(1)).split("\n")
    return {"setting": html.unescape(LIVE.search(h).group(1)), "lines": lines, "ms": float(MS.search(h).group(1))}


def number(pattern, s, what):
    m = re.search(pattern, s)
    if not m:
        fail(f"no {what} in {s!r}")
    return m.groups()


def check(path, i, pic, prev):
    """Checks the numbers a picture shows against its setting."""
    s = pic["setting"]
    if s.startswith("α = "):
        alpha = float(s[4:])
        for line in pic["lines"]:
            cov, target = map(float, number(r"coverage ([0-9.]+)% \(target ([0-9.]+)%\)", line, "coverage"))
            if abs(target - 100 * (1 - alpha)) > 0.51:
                fail(f"{path}: cell {i}: {s}: target {target}% is not 1 − α")
        if prev is not None and prev["setting"] != s:
            a0 = float(prev["setting"][4:])
            for l0, l1 in zip(prev["lines"], pic["lines"]):
                c0 = float(number(r"coverage ([0-9.]+)%", l0, "coverage")[0])
                c1 = float(number(r"coverage ([0-9.]+)%", l1, "coverage")[0])
                if (alpha > a0 and c1 > c0) or (alpha < a0 and c1 < c0):
                    fail(f"{path}: cell {i}: coverage {c0}% at α = {a0} but {c1}% at α = {alpha}: the sets are nested")
    elif s.startswith("r = "):
        r = float(s[4:])
        k, n = map(int, number(r"rejected: (\d+) of (\d+) nodes", pic["lines"][0], "rejected count"))
        if k != math.floor(r * n + 0.5) and k != round(r * n):
            fail(f"{path}: cell {i}: {s}: {k} of {n} rejected, not round(r·n) = {round(r * n)}")
    elif s.startswith("K = "):
        number(r"^K = (\d+), t = ([0-9.]+)", s, "K and t")
    elif "pooling" not in s:
        fail(f"{path}: cell {i}: a picture with an unknown setting {s!r}")


def main(path, max_ms):
    import nbformat
    nb = nbformat.read(path, as_version=4)
    d = Driver(path, max_ms)
    try:
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            live = "ShowLive(" in cell.source
            d.run_cell(i, cell.source, live)
            if live:
                print(f"ok: {path}: cell {i} driven", flush=True)
    finally:
        d.close()
    print(f"ok: {path}: every knob moved, every picture checked", flush=True)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        fail(__doc__)
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3 else 200.0)
