#!/usr/bin/env python3
"""nbcheck.py: checks for scripts/ci-notebooks.sh (Python standard library only).

  nbcheck.py clean NB...        committed notebooks carry no outputs
  nbcheck.py executed NB...     executed notebooks have no errors and at least one chart
  nbcheck.py dom HTML           DOM dumped by Chromium: every chart element got an ECharts instance
  nbcheck.py png PNG MIN        screenshot has at least MIN coloured (chart) pixels

Each command prints one line per file and exits with status 1 on the first failure.
"""
import json
import re
import struct
import sys
import zlib

CHART = 'class="cuq-chart"'
ERROR_BOX = "color:#a00;background:#fee"  # kernelext's error display


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


def executed(paths):
    for p in paths:
        nb = load(p)
        charts = 0
        for i, c in enumerate(nb["cells"]):
            for o in c.get("outputs", []):
                kind = o["output_type"]
                if kind == "error":
                    fail(f"{p}: cell {i}: {o.get('ename')}: {o.get('evalue')}")
                if kind == "stream" and o.get("name") == "stderr":
                    s = text(o["text"])
                    if re.search(r"panic:|error|Error|FAIL", s):
                        fail(f"{p}: cell {i} wrote to stderr: {s[:500]}")
                html = text(o.get("data", {}).get("text/html", ""))
                if ERROR_BOX in html:
                    fail(f"{p}: cell {i} displayed an error: {re.sub('<[^>]+>', '', html)[:500]}")
                charts += html.count(CHART)
        if charts == 0:
            fail(f"{p}: no chart outputs")
        print(f"ok: {p}: {charts} chart(s), no errors")


def dom(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        d = f.read()
    elems = re.findall(r"<div[^>]*" + re.escape(CHART) + r"[^>]*>", d)
    drawn = [e for e in elems if "_echarts_instance_" in e]
    canvases = d.count("<canvas")
    if not elems:
        fail(f"{path}: no chart elements in the DOM")
    if len(drawn) != len(elems) or canvases < len(elems):
        fail(f"{path}: {len(drawn)} of {len(elems)} charts initialised by ECharts, {canvases} canvases")
    print(f"ok: {path}: {len(drawn)}/{len(elems)} charts drawn ({canvases} canvases)")


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


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "clean":
        clean(args)
    elif cmd == "executed":
        executed(args)
    elif cmd == "dom":
        dom(args[0])
    elif cmd == "png":
        png(args[0], int(args[1]))
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
