#!/usr/bin/env python3
"""nbdrive.py: runs a notebook the way a user does, for scripts/ci-notebooks.sh.

  nbdrive.py NOTEBOOK OUTDIR

Starts the GoNB kernel, executes the cells one by one (nbclient, from
Debian's python3-nbclient), checks that no cell failed, then re-runs the
first and the last cell that drew a chart, checks them again, and saves the
notebook to OUTDIR as a user's "save" would. A cell fails when the kernel
reports an error (a cell that does not compile), when it writes
"exit status" or "panic:" to stderr (a Go program that stopped, such as
kernelext.Must on an error or a failed kernelext.Claim), or when it shows
kernelext's error box. The notebook must draw at least one chart.
"""
import os
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CHART = 'class="cuq-chart"'
ERROR_BOX = 'class="cuq-error"'


def text(v):
    return v if isinstance(v, str) else "".join(v)


def check_cell(path, i, cell):
    """Returns the number of charts the cell drew; exits on a failed cell."""
    charts = 0
    for o in cell.get("outputs", []):
        if o["output_type"] == "error":
            fail(f"{path}: cell {i}: {o.get('ename')}: {o.get('evalue')}")
        if o["output_type"] == "stream" and o.get("name") == "stderr":
            s = text(o["text"])
            if re.search(r"exit status|panic:", s):
                fail(f"{path}: cell {i} stopped: {s[-800:]}")
        html = text(o.get("data", {}).get("text/html", ""))
        if ERROR_BOX in html:
            fail(f"{path}: cell {i} showed an error: {re.sub('<[^>]+>', '', html)[:800]}")
        charts += html.count(CHART)
    return charts


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def main(path, outdir):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="gonb", timeout=3600,
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
    charted = []
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            try:
                client.execute_cell(cell, i)
            except CellExecutionError as e:
                fail(f"{path}: cell {i}: {str(e)[-1500:]}")
            n = check_cell(path, i, cell)
            if n:
                charted.append((i, n))
        if not charted:
            fail(f"{path}: no cell drew a chart")
        for i, n in sorted({charted[0], charted[-1]}):
            try:
                client.execute_cell(nb.cells[i], i)
            except CellExecutionError as e:
                fail(f"{path}: re-running cell {i}: {str(e)[-1500:]}")
            if check_cell(path, i, nb.cells[i]) != n:
                fail(f"{path}: re-running cell {i} drew a different number of charts")
    total = sum(n for _, n in charted)
    out = os.path.join(outdir, os.path.basename(path))
    nbformat.write(nb, out)
    print(f"ok: {path}: {total} chart(s) in {len(charted)} cells, no errors; "
          f"re-ran cells {sorted({charted[0][0], charted[-1][0]})}; saved {out}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail(__doc__)
    main(sys.argv[1], sys.argv[2])
