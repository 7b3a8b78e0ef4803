#!/usr/bin/env bash
# fusion-check.sh fails when the Go compiler would fuse a multiplication
# and an addition of this module's code into one fused multiply-add.
#
# Go may compute x*y + z with one rounding instead of two wherever the
# target has the instruction: on arm64, ppc64le, s390x, riscv64 and
# loong64 always, on amd64 when built with GOAMD64=v3 or above. A fused
# result differs in its last bits, so the same source would give other
# numbers on an Apple or Graviton machine, or under GOAMD64=v3, than on the
# amd64 machine that produced the documented ones. An explicit conversion,
# float64(x*y) + z, rounds the product and forbids the fusion; math.FMA
# asks for it on purpose. This script compiles every package of the module
# for arm64 and for amd64 at level v3, lists the fused instructions the
# compiler emitted, and reports each whose source line does not call
# math.FMA. The WebAssembly explorers' package (kernelext/explore) is left
# out: it draws pixels, and WebAssembly has no fused multiply-add; so are
# the exercises' solutions under notebooks/, written as a student writes
# them and graded with a tolerance.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
# A build cache of its own: the compiler prints its listing only for the
# packages it compiles, and a shared cache would skip them.
cache=$(mktemp -d)
listings=$(mktemp -d)
trap 'rm -rf "$cache" "$listings"' EXIT
found=0
for target in arm64/v1 amd64/v3; do
	arch=${target%/*} level=${target#*/}
	name=$arch
	[[ $arch == amd64 ]] && name="amd64 $level"
	listing=$listings/$arch.txt
	if ! GOCACHE=$cache GOARCH=$arch GOAMD64=$level go build -gcflags="github.com/cuqgnn/cuqgnn/...=-S" ./... >"$listing" 2>&1; then
		grep -E '^[^[:space:]]+\.go:[0-9]+:[0-9]+: ' "$listing" | sed -n 1,20p || true
		echo "fusion-check: the build for $name failed"
		exit 1
	fi
	sites=$(grep -E '[[:space:]]V?FN?M(ADD|SUB)[A-Z0-9]*[[:space:]]' "$listing" | grep -oE "\($root/[^)]*:[0-9]+\)" | tr -d '()' | sort -u || true)
	for site in $sites; do
		file=${site%:*} line=${site##*:}
		[[ $file == "$root"/kernelext/explore/* ]] && continue
		[[ $file == "$root"/notebooks/* ]] && continue
		src=$(sed -n "${line}p" "$file")
		if [[ $src != *math.FMA* ]]; then
			echo "${file#"$root"/}:$line: fused on $name: $(sed 's/^[[:space:]]*//' <<<"$src")"
			found=1
		fi
	done
done
if ((found)); then
	echo "round these products explicitly, float64(x*y), or use math.FMA where the fusion is meant"
	exit 1
fi
echo "no fused multiply-adds but math.FMA's (arm64, amd64 v3)"
