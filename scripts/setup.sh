#!/usr/bin/env bash
# setup.sh prepares the notebook side of cuqgnn on a machine that already has
# Go and Jupyter (conda: environment.yml; Debian/Ubuntu: apt-get install -y
# jupyter-notebook jupyter-nbconvert python3-ipykernel):
#   1. builds the GoNB kernel, goimports and gopls at the versions pinned in
#      tools/go.mod into $CUQ_BIN (default: $(go env GOBIN), else
#      $(go env GOPATH)/bin, the directory `go install` uses);
#   2. registers the GoNB kernel with Jupyter (gonb --install);
#   3. caches echarts.min.js (npm package echarts@$ECHARTS_VERSION) where
#      chart.DefaultEChartsFile() looks for it, so charts draw offline.
# It is idempotent: run it again after changing a pinned version.
set -euo pipefail

ECHARTS_VERSION=5.6.0 # keep equal to chart.EChartsVersion
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

case "$(uname -s)" in
Darwin) cache=${XDG_CACHE_HOME:-$HOME/Library/Caches} ;;
*) cache=${XDG_CACHE_HOME:-$HOME/.cache} ;;
esac
dest=$cache/cuqgnn/echarts/$ECHARTS_VERSION/echarts.min.js
if [[ -s $dest ]]; then
	echo "== echarts.min.js already cached: $dest"
elif command -v npm >/dev/null 2>&1; then
	echo "== fetching echarts@$ECHARTS_VERSION from npm into $dest"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "echarts@$ECHARTS_VERSION" >/dev/null &&
		tar -xzf "echarts-$ECHARTS_VERSION.tgz" package/dist/echarts.min.js)
	mkdir -p "$(dirname "$dest")"
	mv "$tmp/package/dist/echarts.min.js" "$dest"
else
	echo "== npm not found: charts will load ECharts from the CDN (online only)"
fi

cat <<EOF

Done. Start Jupyter with the tools on the PATH:

    export PATH=$bin:\$PATH
    cd $repo/notebooks && jupyter notebook     # or: jupyter lab

and choose the "Go (gonb)" kernel. Start with notebooks/01_quickstart.ipynb, which also checks the setup.
EOF
