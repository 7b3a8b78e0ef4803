#!/usr/bin/env python3
"""nbcheck.py: checks for scripts/ci-notebooks.sh (Python standard library only).

  nbcheck.py clean NB...        committed notebooks carry no outputs
  nbcheck.py layout NB...       notebooks are prose with short cells: every code cell has at
                                most 15 lines, and code lines are at most 1.5 times the prose lines
  nbcheck.py export HTML...     HTML exports highlight the code as Go
  nbcheck.py dom HTML           DOM dumped by Chromium: every chart element holds a drawn canvas
                                or svg, and no MathJax badge is left showing
  nbcheck.py png PNG MIN        screenshot has at least MIN coloured (chart) pixels
  nbcheck.py size NB MAX        a saved (executed) notebook is at most MAX bytes per cell that
                                shows a chart: its charts carry ECharts compressed (about
                                450 kB), not the whole library (1 MB), once per cell

Each command prints one line per file and exits with status 1 on the first failure.
"""
import html.parser
import json
import struct
import sys
import zlib



def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def text(v):
    return v if isinstance(v, str) else "".join(v)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def clean(paths):
    for p in paths:
        nb = load(p)
        for i, c in enumerate(nb["cells"]):
            if c["cell_type"] != "code":
                continue
            if c.get("outputs") or c.get("execution_count") is not None:
                fail(f"{p}: cell {i} has outputs or an execution count; "
                     "clear them (jupyter nbconvert --clear-output --inplace) before committing")
        print(f"ok: {p} has no outputs")


def layout(paths):
    for p in paths:
        nb = load(p)
        code = prose = 0
        for i, c in enumerate(nb["cells"]):
            lines = [l for l in text(c["source"]).split("\n") if l.strip()]
            if c["cell_type"] == "markdown":
                prose += len(lines)
                continue
            code += len(lines)
            if len(lines) > 15:
                fail(f"{p}: code cell {i} has {len(lines)} lines; a code cell has at most 15")
        if code > 1.5 * prose:
            fail(f"{p}: {code} code lines for {prose} prose lines (at most 1.5 code lines per prose line)")
        print(f"ok: {p}: {code} code lines, {prose} prose lines ({code / prose:.2f}:1)")


def export(paths):
    for p in paths:
        with open(p, encoding="utf-8") as f:
            h = f.read()
        # Pygments marks Go's declaration keywords (func, var, type) "kd";
        # its Python lexer has no such tokens in Go source.
        if 'class="kd"' not in h:
            fail(f"{p}: the code is not highlighted as Go")
        print(f"ok: {p}: code highlighted as Go")


class ChartFinder(html.parser.HTMLParser):
    """Collects, for every chart element, whether a canvas or svg was drawn inside it."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack = []      # open elements: [tag, chart index or None]
        self.charts = []     # drawn flag per chart element
        self.mathjax = ""    # text of MathJax's message badge
        self.in_mathjax = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("canvas", "svg"):
            for _, k in self.stack:
                if k is not None:
                    self.charts[k] = True
        if tag in self.VOID:
            return
        k = None
        if tag == "div" and "cuq-chart" in (a.get("class") or "").split():
            k = len(self.charts)
            self.charts.append(False)
        self.in_mathjax = a.get("id") == "MathJax_Message"
        self.stack.append([tag, k])

    def handle_endtag(self, tag):
        for j in range(len(self.stack) - 1, -1, -1):
            if self.stack[j][0] == tag:
                del self.stack[j:]
                break
        self.in_mathjax = False

    def handle_data(self, data):
        if self.in_mathjax:
            self.mathjax += data


def dom(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        d = f.read()
    finder = ChartFinder()
    finder.feed(d)
    n, drawn = len(finder.charts), sum(finder.charts)
    if n == 0:
        fail(f"{path}: no chart elements in the DOM")
    if drawn != n:
        fail(f"{path}: {drawn} of {n} charts drew (canvas or svg inside); {n - drawn} stayed blank")
    if finder.mathjax.strip():
        fail(f"{path}: the MathJax badge still shows: {finder.mathjax.strip()!r}")
    print(f"ok: {path}: {drawn}/{n} charts drew")


def png_pixels(path):
    """Decodes an 8-bit RGB or RGBA non-interlaced PNG; returns (w, h, channels, rows)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG file")
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail(f"{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if w is None:
        fail(f"{path}: no IHDR chunk")
    raw = zlib.decompress(b"".join(idat))
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for x in range(ch, stride):
                line[x] = (line[x] + line[x - ch]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for x in range(stride):
                left = line[x - ch] if x >= ch else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - ch] if x >= ch else 0
                b, c = prev[x], prev[x - ch] if x >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, ch, rows


def png(path, minimum):
    w, h, ch, rows = png_pixels(path)
    coloured = nonwhite = 0
    for line in rows:
        for x in range(0, w * ch, ch):
            r, g, b = line[x], line[x + 1], line[x + 2]
            if r < 245 or g < 245 or b < 245:
                nonwhite += 1
            if max(r, g, b) - min(r, g, b) > 60:
                coloured += 1
    if coloured < minimum:
        fail(f"{path}: {w}x{h}, only {coloured} coloured pixels ({nonwhite} non-white); charts did not draw")
    print(f"ok: {path}: {w}x{h}, {coloured} coloured and {nonwhite} non-white pixels")


def size(path, per_cell):
    nb = load(path)
    charts = cells = 0
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        k = sum(text(o.get("data", {}).get("text/html", "")).count('class="cuq-chart"') for o in c.get("outputs", []))
        charts += k
        cells += k > 0
    with open(path, "rb") as f:
        n = len(f.read())
    maximum = per_cell * max(cells, 1)
    if n > maximum:
        fail(f"{path}: {n} bytes for {charts} charts in {cells} cells; at most {per_cell} per cell, {maximum}")
    print(f"ok: {path}: {n} bytes for {charts} charts in {cells} cells (at most {per_cell} per cell, {maximum})")


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "clean":
        clean(args)
    elif cmd == "layout":
        layout(args)
    elif cmd == "export":
        export(args)
    elif cmd == "dom":
        dom(args[0])
    elif cmd == "png":
        png(args[0], int(args[1]))
    elif cmd == "size":
        size(args[0], int(args[1]))
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
