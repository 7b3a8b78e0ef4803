#!/usr/bin/env bash
# ci-notebooks.sh runs every notebook in notebooks/ the way a user does and
# checks what the user would see:
#   1. installs Jupyter, nbclient and Chromium from Debian if missing;
#   2. builds GoNB, goimports and gopls from tools/go.mod and registers the
#      kernel in a private Jupyter data dir (the user's kernels are untouched);
#   3. checks that the committed notebooks carry no outputs and are prose
#      with short cells (scripts/nbcheck.py layout);
#   4. runs every notebook in quick mode (CUQ_QUICK=1), and 01 and 02 also in
#      full mode, cell by cell with nbclient (scripts/nbdrive.py): no cell may
#      fail, a failed kernelext.Claim included; then it re-runs the first and
#      the last chart cell and saves the notebook;
#   4b. checks that every grade of the exercises notebook (09_exercises)
#      reported a failure with a counterexample, as it must with the
#      bodies left to the student; then puts the bodies of
#      notebooks/solutions/exercises.go into a copy of it, runs the copy
#      the same way and checks that every grade passed;
#   5. exports each saved notebook with `jupyter nbconvert --to html`, checks
#      that the code is highlighted as Go, opens the export in headless
#      Chromium from file:// with every network lookup failing, and counts
#      the chart elements that drew (a canvas or svg inside) against those
#      that did not; no MathJax badge may be left showing;
#   6. moves every control of the WebAssembly explorers in the export of 02
#      and checks every number shown against the library
#      (scripts/ci-explorers.sh), and that their static pictures show where
#      scripts do not run;
#   7. checks that the export of 11_live_knobs shows each knob cell's
#      static picture with its note and no widgets, then drives every knob
#      of 11_live_knobs in a kernel as the widgets' JavaScript would
#      (scripts/knobdrive.py): the numbers redrawn checked, every redraw
#      under 200 ms;
#   8. does the same chart count for the report.html of a small `cuq grid`
#      run.
# Nothing is cached beforehand: the charts draw from the ECharts copy
# embedded in package chart. Outputs (notebooks, HTML, DOM dumps,
# screenshots) stay in $CUQ_CI_OUT (default: a new temporary directory,
# printed at the end). The benchmark files are read from $CUQ_DATA, default
# the tests' data directory.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${CUQ_CI_OUT:-$(mktemp -d -t cuq-notebooks-XXXXXX)}
bin=${XDG_CACHE_HOME:-$HOME/.cache}/cuqgnn/ci-bin
start=$(date +%s)
mkdir -p "$out/quick" "$out/full" "$out/solved" "$out/solved-src" "$out/html" "$bin"

step() { echo "== $* ($(($(date +%s) - start))s)"; }

step "system packages"
pkgs=()
jupyter nbconvert --version >/dev/null 2>&1 || pkgs+=(jupyter-notebook jupyter-nbconvert python3-ipykernel)
/usr/bin/python3 -c "import nbclient" >/dev/null 2>&1 || pkgs+=(python3-nbclient)
command -v chromium >/dev/null 2>&1 || pkgs+=(chromium)
if ((${#pkgs[@]})); then
	sudo=""
	[[ $(id -u) == 0 ]] || sudo=sudo
	# Wait for another apt run to finish rather than fail on its lock.
	while command -v fuser >/dev/null && fuser /var/lib/dpkg/lock-frontend >/dev/null 2>&1; do sleep 5; done
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}"
fi
py=/usr/bin/python3 # Debian's Python, which has nbclient

step "GoNB, goimports, gopls (tools/go.mod) into $bin"
(cd "$repo/tools" && go build -o "$bin/gonb" github.com/janpfeifer/gonb &&
	go build -o "$bin/goimports" golang.org/x/tools/cmd/goimports &&
	go build -o "$bin/gopls" golang.org/x/tools/gopls)
export PATH=$bin:$PATH
export JUPYTER_DATA_DIR=$out/jupyter
gonb --install >"$out/gonb-install.log" 2>&1 || { cat "$out/gonb-install.log"; exit 1; }

# The notebooks read $CUQ_DATA; CI gives them the tests' data directory
# ($CUQ_TEST_DATA, else shared/datasets beside the repository: docs/guide/data.md).
if [[ -z ${CUQ_DATA:-} ]]; then
	test_data=${CUQ_TEST_DATA:-$repo/../shared/datasets}
	[[ -d $test_data ]] && export CUQ_DATA=$(cd "$test_data" && pwd)
fi
echo "data: ${CUQ_DATA:-none (the notebooks use the synthetic graphs)}"

shopt -s nullglob
notebooks=("$repo"/notebooks/*.ipynb)
((${#notebooks[@]})) || { echo "FAIL: no notebooks in $repo/notebooks"; exit 1; }

step "committed notebooks: no outputs, prose with short cells"
python3 "$repo/scripts/nbcheck.py" clean "${notebooks[@]}"
python3 "$repo/scripts/nbcheck.py" layout "${notebooks[@]}"

for nb in "${notebooks[@]}"; do
	step "running $(basename "$nb") in quick mode"
	CUQ_QUICK=1 $py "$repo/scripts/nbdrive.py" "$nb" "$out/quick"
done
for nb in "$repo"/notebooks/0[12]_*.ipynb; do
	step "running $(basename "$nb") in full mode"
	CUQ_QUICK=0 $py "$repo/scripts/nbdrive.py" "$nb" "$out/full"
done

# exercises NOTEBOOK unsolved|solved checks the grades that a run of the
# exercises notebook showed (kernelext.Grade…, one report per call): every
# one failed with a counterexample, or every one passed.
# exercises NOTEBOOK apply SOLUTIONS.go OUT writes to OUT a copy of the
# notebook with each function of SOLUTIONS.go in place of the cell's
# function of that name, and the kernel's module pointed at this checkout
# (the copy runs in another directory).
exercises() {
	python3 - "$repo" "$@" <<'EOF'
import json, re, sys
repo, path, mode = sys.argv[1:4]
FUNC = re.compile(r"^func (\w+)\(.*?^}$", re.M | re.S)
nb = json.load(open(path, encoding="utf-8"))

def text(v):
    return v if isinstance(v, str) else "".join(v)

def fail(msg):
    print(f"FAIL: {path}: {msg}", flush=True)
    sys.exit(1)

if mode == "apply":
    solutions = {m.group(1): m.group(0) for m in FUNC.finditer(open(sys.argv[4], encoding="utf-8").read())}
    used = set()
    def put(m):
        if m.group(1) in solutions:
            used.add(m.group(1))
            return solutions[m.group(1)]
        return m.group(0)
    for c in nb["cells"]:
        if c["cell_type"] == "code":
            s = FUNC.sub(put, text(c["source"])).replace("${GONB_DIR}/..", repo)
            c["source"] = s.splitlines(keepends=True)
    if set(solutions) - used:
        fail(f"no cell defines {sorted(set(solutions) - used)} of the solutions")
    json.dump(nb, open(sys.argv[5], "w", encoding="utf-8"), indent=1, ensure_ascii=False)
    print(f"ok: {path}: {len(used)} functions replaced by the solutions in {sys.argv[5]}")
    sys.exit(0)

calls = passed = failed = 0
for i, c in enumerate(nb["cells"]):
    if c["cell_type"] != "code":
        continue
    n = len(re.findall(r"kernelext\.Grade\w*\(", text(c["source"])))
    reports = [h for h in (text(o.get("data", {}).get("text/html", "")) for o in c.get("outputs", [])) if "cuq-grade" in h]
    if len(reports) != n:
        fail(f"cell {i} grades {n} functions but shows {len(reports)} reports")
    for r in reports:
        if "cuq-grade-pass" in r:
            passed += 1
        elif all(k in r for k in ("input:", "expected:", "yours:")):
            failed += 1
        else:
            fail(f"cell {i}: a failed grade without a counterexample: {r[:400]}")
    calls += n
if calls == 0 or (passed, failed) != ((0, calls) if mode == "unsolved" else (calls, 0)):
    fail(f"{mode}: {passed} of {calls} grades passed, {failed} failed")
print(f"ok: {path}: {mode}: {calls} grades, {passed} passed, {failed} failed with a counterexample")
EOF
}
step "the study notebook, saved after its run, is light: under 600 kB per cell with charts"
python3 "$repo/scripts/nbcheck.py" size "$out/quick/08_comparing_models.ipynb" 600000

exercises_nb=$repo/notebooks/09_exercises.ipynb
step "exercises, unsolved: every grade fails with a counterexample"
exercises "$out/quick/$(basename "$exercises_nb")" unsolved
step "exercises, solved by notebooks/solutions: every grade passes"
exercises "$exercises_nb" apply "$repo/notebooks/solutions/exercises.go" "$out/solved-src/$(basename "$exercises_nb")"
CUQ_QUICK=1 $py "$repo/scripts/nbdrive.py" "$out/solved-src/$(basename "$exercises_nb")" "$out/solved"
exercises "$out/solved/$(basename "$exercises_nb")" solved

# The charts are drawn by inline scripts before the load event, so Chromium
# needs no virtual time budget; with one, Chromium 156 never returns from
# --screenshot. A hang is still possible on a busy machine and is not a
# failed check, so each call gets three tries of 120 s, each writing its
# standard output afresh; a real failure still fails.
chrome() {
	local page=$1 stdout=$2 try
	shift 2
	for try in 1 2 3; do
		if timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-quic --no-first-run --disable-component-update --disable-sync \
			--host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$(mktemp -d)" \
			"$@" "file://$page" >"$stdout" 2>>"$out/html/chromium.log"; then
			return 0
		fi
		echo "chromium $*: try $try did not finish" >&2
	done
	return 1
}

for mode in quick full; do
	for saved in "$out/$mode"/*.ipynb; do
		name=$mode-$(basename "$saved" .ipynb)
		step "exporting $name to HTML and drawing it in Chromium, offline"
		jupyter nbconvert --to html --output "$name" --output-dir "$out/html" "$saved" >"$out/html/$name.log" 2>&1 ||
			{ cat "$out/html/$name.log"; exit 1; }
		python3 "$repo/scripts/nbcheck.py" export "$out/html/$name.html"
		chrome "$out/html/$name.html" "$out/html/$name.dom.html" --dump-dom
		python3 "$repo/scripts/nbcheck.py" dom "$out/html/$name.dom.html"
	done
done
step "live knobs of 11_live_knobs: static pictures in the export, knobs driven in a kernel"
# Run headless (no page answers), every knob cell shows the static picture
# of its first setting with a note saying so, and no widgets.
python3 - "$out/html/quick-11_live_knobs.html" "$repo/notebooks/11_live_knobs.ipynb" <<'EOF2'
import json, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
nb = json.load(open(sys.argv[2], encoding="utf-8"))
cells = sum("ShowLive(" in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
notes = re.findall(r'<div class="cuq-live-note"[^>]*>(Static picture at [^<]*in a running kernel[^<]*)</div>', h)
widgets = 'type="range"' in h or '<select id="cuq-live-' in h or 'class="cuq-live-label"' in h
if cells == 0 or len(notes) != cells or widgets:
    print(f"FAIL: {sys.argv[1]}: {cells} knob cells, {len(notes)} static notes, widgets left: {widgets}")
    sys.exit(1)
print(f"ok: {sys.argv[1]}: {cells} knob cells, each with its static picture: " + "; ".join(n.split(":")[0] for n in notes))
EOF2
# In a kernel, each knob is moved as the widgets' JavaScript would move it.
CUQ_QUICK=1 $py "$repo/scripts/knobdrive.py" "$repo/notebooks/11_live_knobs.ipynb"

step "explorers of 02_axioms_and_pooling in Chromium, offline"
CUQ_EXPLORE_OUT="$out/explorers" bash "$repo/scripts/ci-explorers.sh" "$out/html/quick-02_axioms_and_pooling.html"
chrome "$out/html/quick-01_quickstart.html" /dev/null --window-size=1200,8000 --screenshot="$out/html/quick-01_quickstart.png"
python3 "$repo/scripts/nbcheck.py" png "$out/html/quick-01_quickstart.png" 30000

step "report.html of a small grid, in Chromium, offline"
data=()
[[ -n ${CUQ_DATA:-} ]] && data=(-data "$CUQ_DATA" -datasets CoraML) # else the synthetic graph
(cd "$repo" && go run ./cmd/cuq grid "${data[@]}" -splits 1 -inits 1 -max-epochs 5 -quiet -out "$out/grid")
chrome "$out/grid/report.html" "$out/html/report.dom.html" --dump-dom
python3 "$repo/scripts/nbcheck.py" dom "$out/html/report.dom.html"

step "all notebooks passed; outputs in $out"
