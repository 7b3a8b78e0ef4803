#!/usr/bin/env bash
# bench-vs-torch.sh times a training epoch and an evaluation pass of every
# paper model with a PyTorch timing script (CPU, 2 threads; see
# docs/records/performance.md) and with cuqgnn (cuq bench), one after the other on
# the same machine and on the very same graph, dataset by dataset, and
# prints a Markdown table of both with the ratio cuqgnn / PyTorch (the
# target is at most 0.2) and each process's peak resident memory. cuqgnn
# times the models PyTorch timed.
#
#   scripts/bench-vs-torch.sh TORCH_SCRIPT DATA_DIR [DATASETS] [EPOCHS]
#
# TORCH_SCRIPT takes "NPZ --epochs N --threads 2" and prints lines
# "<model> train_ms=<x> eval_ms=<y>", as `cuq bench` does. DATASETS is a
# comma-separated list of dataset names and "arxivlike" (the synthetic
# graph of OGBN Arxiv's size), each optionally with its own number of
# epochs after a colon; default: CoraML, CiteSeer, AmazonPhotos,
# AmazonComputers with EPOCHS each and arxivlike with 5 (PyTorch needs
# half a minute per epoch there for the PostNet models). EPOCHS defaults
# to 100, which gives 20 evaluation passes. The README's table is
#
#   scripts/bench-vs-torch.sh TORCH_SCRIPT DATA_DIR
#
# CUQ_BENCH_ISA restricts both programs to one instruction set, so that a
# machine with AVX-512 also times the path of a processor without it:
#
#   avx2      cuqgnn with GODEBUG=cpu.avx512f=off (its AVX2 kernels);
#             PyTorch with ATEN_CPU_CAPABILITY=avx2 (ATen's kernels),
#             OPENBLAS_CORETYPE=Haswell and MKL_ENABLE_INSTRUCTIONS=AVX2
#             (its BLAS, whichever it links) and ONEDNN_MAX_CPU_ISA=AVX2
#             (oneDNN's kernels);
#   portable  cuqgnn built with -tags purego (the Go kernels that arm64
#             and every other architecture run) and GOAMD64=v3, so that
#             their math.FMA is one instruction as on arm64 (at the
#             default level v1 each one first tests the processor);
#             PyTorch unrestricted;
#   (unset)   both use every feature of the processor.
#
# The table's first line says which kernels each program ran.
#
# Each graph is written as an .npz file by `cuq bench -write-npz` and both
# programs read that file. PyTorch comes from Debian (apt-get install -y python3-torch
# python3-scipy); peak memory needs GNU time (apt-get install -y time).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: bench-vs-torch.sh TORCH_SCRIPT DATA_DIR [DATASETS] [EPOCHS]"
reference=${1:?$usage}
data=${2:?$usage}
IFS=, read -r -a names <<<"${3:-CoraML,CiteSeer,AmazonPhotos,AmazonComputers,arxivlike:5}"
default_epochs=${4:-100}
py=/usr/bin/python3
[[ -x $py ]] || py=python3
timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "peak_rss_kb=%M")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tags=()
buildenv=()
goenv=()
torchenv=()
case ${CUQ_BENCH_ISA:-} in
"") ;;
avx2)
	goenv=(GODEBUG=cpu.avx512f=off)
	torchenv=(ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2)
	;;
portable)
	tags=(-tags purego)
	buildenv=(GOAMD64=v3)
	;;
*)
	echo "bench-vs-torch.sh: CUQ_BENCH_ISA=$CUQ_BENCH_ISA: want avx2, portable or nothing" >&2
	exit 2
	;;
esac
(cd "$repo" && env "${buildenv[@]}" go build "${tags[@]}" -o "$tmp/cuq" ./cmd/cuq)
# torch.backends.cpu.get_cpu_capability() since PyTorch 2.0; before it,
# the "CPU capability usage" line of torch.__config__.show().
capability=$(env "${torchenv[@]}" "$py" -c '
import torch
try:
    print(torch.backends.cpu.get_cpu_capability())
except AttributeError:
    print(next(l.split(":")[1].strip() for l in torch.__config__.show().splitlines() if "CPU capability usage" in l))
' 2>/dev/null || echo unknown)
kernels=$(env "${goenv[@]}" "$tmp/cuq" bench -dataset synthetic -models gkde -epochs 1 2>/dev/null | sed -n 's/.*kernels=\([a-z0-9]*\).*/\1/p')
echo "cuqgnn kernels: ${kernels:-unknown}; PyTorch CPU capability: $capability"
echo

# peak prints the peak resident memory in MiB that GNU time wrote into $1.
peak() { sed -n 's/^peak_rss_kb=//p' "$1" | awk '{ printf "%.0f", $1 / 1024 }'; }

echo "| dataset | model | train ms, cuqgnn / PyTorch | ratio | eval ms, cuqgnn / PyTorch | ratio |"
echo "|---|---|---|---|---|---|"
memory=()
for entry in "${names[@]}"; do
	name=${entry%%:*}
	epochs=$default_epochs
	[[ $entry == *:* ]] && epochs=${entry#*:}
	npz=$tmp/$name.npz
	"$tmp/cuq" bench -data "$data" -dataset "$name" -write-npz "$npz" >/dev/null
	env "${torchenv[@]}" "${timer[@]}" "$py" "$reference" "$npz" --epochs "$epochs" --threads 2 >"$tmp/torch.txt" 2>"$tmp/torch.err" ||
		{ cat "$tmp/torch.err" >&2; exit 1; }
	# Only the models PyTorch timed: GKDE's kernel over every training
	# node's neighbourhood is slow on the Arxiv-sized graph, and without a
	# counterpart it has no ratio.
	models=$(awk '/ train_ms=/ { print $1 }' "$tmp/torch.txt" | paste -sd, -)
	env "${goenv[@]}" "${timer[@]}" "$tmp/cuq" bench -dataset "$npz" -models "$models" -epochs "$epochs" >"$tmp/go.txt" 2>"$tmp/go.err" ||
		{ cat "$tmp/go.err" >&2; exit 1; }
	awk -v dataset="$name" '
	function val(s, key,   i, n, kv) { n = split(s, kv, " "); for (i = 2; i <= n; i++) if (index(kv[i], key "=") == 1) return substr(kv[i], length(key) + 2); return "" }
	FNR == NR && / train_ms=/ { tt[$1] = val($0, "train_ms"); te[$1] = val($0, "eval_ms"); next }
	/ train_ms=/ {
		gt = val($0, "train_ms"); ge = val($0, "eval_ms")
		printf "| %s | %s | %.1f / %.1f | %.2f | %.1f / %.1f | %.2f |\n", dataset, $1, gt, tt[$1], gt / tt[$1], ge, te[$1], ge / te[$1]
	}' "$tmp/torch.txt" "$tmp/go.txt"
	if ((${#timer[@]})); then
		memory+=("| $name | $epochs | $(peak "$tmp/go.err") | $(peak "$tmp/torch.err") |")
	fi
done
if ((${#memory[@]})); then
	echo
	echo "Peak resident memory of each process (the training epochs and evaluation passes of every model), MiB:"
	echo
	echo "| dataset | epochs | cuqgnn | PyTorch |"
	echo "|---|---|---|---|"
	printf '%s\n' "${memory[@]}"
fi
