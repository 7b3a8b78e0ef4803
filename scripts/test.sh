#!/usr/bin/env bash
# test.sh runs the whole test suite, exactly as CI does (.ci/run):
#   1. gofmt and go vet must be clean, go vet also for js/wasm on the
#      explorers' WebAssembly program, and the compiler must fuse no
#      multiply-add of this module's code on arm64 or amd64 v3
#      (scripts/fusion-check.sh);
#   2. go test ./... (real datasets from $CUQ_TEST_DATA, else shared/datasets
#      beside the repository, see docs/guide/data.md;
#      under CI=true their absence is a failure, elsewhere those tests skip);
#   3. the tests of the kernels, the flows, the measures and Adam built for arm64
#      and run under qemu-user (Debian's
#      qemu-user-static): the portable kernels that Apple and other arm64
#      machines run compute the same fused chains, bit for bit, as the
#      amd64 ones; skipped without qemu-aarch64-static unless CI=true;
#   4. every notebook executed headless, its charts checked in Chromium
#      (scripts/ci-notebooks.sh). CUQ_SKIP_NOTEBOOKS=1 skips this step on a
#      machine without Jupyter; CI never sets it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

echo "== gofmt"
unformatted=$(gofmt -l cuq cmd datasets experiment internal kernelext scripts)
if [[ -n $unformatted ]]; then
	echo "gofmt would change:"
	echo "$unformatted"
	exit 1
fi
echo "== go vet"
go vet ./...
echo "== go vet for js/wasm (the explorers' WebAssembly program)"
# every package of this module the program is built from, with its tests
GOOS=js GOARCH=wasm go vet $(GOOS=js GOARCH=wasm go list -deps ./kernelext/explore/... | grep '^github.com/cuqgnn/cuqgnn/')
echo "== fused multiply-adds (arm64, amd64 v3)"
bash scripts/fusion-check.sh
echo "== go test"
go test -timeout 30m ./...
echo "== arm64 kernels under qemu-user"
if command -v qemu-aarch64-static >/dev/null; then
	GOARCH=arm64 go test -exec qemu-aarch64-static ./cuq/tensor/ ./cuq/nn/ ./cuq/uq/ ./cuq/optim/
elif [[ ${CI:-} == true ]]; then
	echo "qemu-aarch64-static not found (apt-get install -y qemu-user-static)" >&2
	exit 1
else
	echo "skipped: no qemu-aarch64-static"
fi
if [[ ${CUQ_SKIP_NOTEBOOKS:-} == 1 ]]; then
	echo "== notebooks skipped (CUQ_SKIP_NOTEBOOKS=1)"
else
	echo "== notebooks"
	bash scripts/ci-notebooks.sh
fi
