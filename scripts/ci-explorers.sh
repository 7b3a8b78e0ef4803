#!/usr/bin/env bash
# ci-explorers.sh checks the WebAssembly explorers (package kernelext/explore)
# the way a reader meets them: in headless Chromium, offline, from file://.
#   1. vets the explorers' program for js/wasm;
#   2. opens a page carrying the explorers: the HTML file given as the first
#      argument (a notebook exported by `jupyter nbconvert --to html`), or
#      without one a page of the four default explorers built by the test;
#      waits for the program to start, moves every control of every explorer
#      by script and checks, after each move, every number shown against the
#      library's value for the controls' values; for the training explorer it
#      awaits each training, logs its duration, and checks that the curve was
#      redrawn while it trained (TestExplorersInChromium);
#   3. checks that the note and the static pictures show when the page's
#      scripts are stripped (a sanitised export) or disabled (an untrusted
#      notebook) (TestExplorersFallbackInChromium).
# It fails when Chromium or the Go toolchain is missing. Screenshots
# (explorers-before.png, explorers-training.png, explorers-after.png,
# explorers-fallback.png) and the test log, with the bytes of the bundle, the
# time to ready, the redraw times and the training times, go to $CUQ_EXPLORE_OUT (default: a new temporary directory, printed
# at the end).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${CUQ_EXPLORE_OUT:-$(mktemp -d -t cuq-explorers-XXXXXX)}
mkdir -p "$out"
page=""
if (($# > 0)); then
	[[ -f $1 ]] || { echo "FAIL: no file $1"; exit 1; }
	page=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fi
cd "$repo"

echo "== go vet for js/wasm"
GOOS=js GOARCH=wasm go vet ./kernelext/explore/... ./cuq/pool

echo "== explorers in Chromium (${page:-default explorers})"
CUQ_REQUIRE_CHROMIUM=1 CUQ_EXPLORE_PAGE="$page" CUQ_EXPLORE_OUT="$out" \
	go test -count=1 -v -run 'TestExplorersInChromium|TestExplorersFallbackInChromium' ./kernelext/ >"$out/test.log" 2>&1 ||
	{ cat "$out/test.log"; echo "FAIL: explorers check"; exit 1; }
grep -E 'ready|redraw ms|trained in|screenshot|^--- ' "$out/test.log"
echo "== explorers passed; outputs in $out"
