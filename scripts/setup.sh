#!/usr/bin/env bash
# setup.sh prepares the notebook side of cuqgnn on a machine that already has
# Go and Jupyter (conda: environment.yml; Debian/Ubuntu: apt-get install -y
# jupyter-notebook jupyter-nbconvert python3-ipykernel):
#   1. builds the GoNB kernel, goimports and gopls at the versions pinned in
#      tools/go.mod into $CUQ_BIN (default: $(go env GOBIN), else
#      $(go env GOPATH)/bin, the directory `go install` uses);
#   2. registers the GoNB kernel with Jupyter (gonb --install).
# The charts need nothing more: package chart embeds ECharts, so they draw
# offline. It is idempotent: run it again after changing a pinned version.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

need() { command -v "$1" >/dev/null 2>&1 || { echo "setup.sh: $1 not found: $2" >&2; exit 1; }; }
need go "install Go (https://go.dev/dl or conda install -c conda-forge go)"
need jupyter "install Jupyter (see README: conda or Debian packages)"
bin=${CUQ_BIN:-$(go env GOBIN)}
bin=${bin:-$(go env GOPATH)/bin}

echo "== building gonb, goimports and gopls into $bin"
mkdir -p "$bin"
(cd "$repo/tools" && go build -o "$bin/gonb" github.com/janpfeifer/gonb &&
	go build -o "$bin/goimports" golang.org/x/tools/cmd/goimports &&
	go build -o "$bin/gopls" golang.org/x/tools/gopls)
# GoNB finds goimports and gopls on the PATH of the Jupyter server.
case ":$PATH:" in
*":$bin:"*) ;;
*) echo "== note: $bin is not on your PATH; add it before starting Jupyter" >&2 ;;
esac
export PATH=$bin:$PATH

echo "== registering the GoNB kernel"
gonb --install

cat <<EOF

Done. Start Jupyter with the tools on the PATH:

    export PATH=$bin:\$PATH
    cd $repo/notebooks && jupyter notebook     # or: jupyter lab

and choose the "Go (gonb)" kernel. Start with notebooks/01_quickstart.ipynb, which also checks the setup.
EOF
