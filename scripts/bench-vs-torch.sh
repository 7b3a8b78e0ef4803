#!/usr/bin/env bash
# bench-vs-torch.sh times a training epoch and an evaluation pass of every
# paper model with a PyTorch timing script (CPU, 2 threads; see
# docs/performance.md) and with cuqgnn (cuq bench), one after the other on
# the same machine, and prints both with the ratio cuqgnn / PyTorch (the
# target is at most 0.2).
#
#   scripts/bench-vs-torch.sh TORCH_SCRIPT DATA_DIR [DATASET] [EPOCHS]
#
# TORCH_SCRIPT takes "NPZ --epochs N --threads 2" and prints lines
# "<model> train_ms=<x> eval_ms=<y>", as `cuq bench` does. Defaults:
# CoraML, 50 epochs. PyTorch comes from Debian (apt-get install -y
# python3-torch python3-scipy).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reference=${1:?usage: bench-vs-torch.sh TORCH_SCRIPT DATA_DIR [DATASET] [EPOCHS]}
data=${2:?usage: bench-vs-torch.sh TORCH_SCRIPT DATA_DIR [DATASET] [EPOCHS]}
dataset=${3:-CoraML}
epochs=${4:-50}
declare -A files=([CoraML]=cora_ml.npz [CiteSeer]=citeseer.npz [AmazonPhotos]=amazon_electronics_photo.npz [AmazonComputers]=amazon_electronics_computers.npz)
npz=$data/${files[$dataset]:?unknown dataset $dataset}
py=/usr/bin/python3
[[ -x $py ]] || py=python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go build -o "$tmp/cuq" ./cmd/cuq)
echo "== PyTorch ($reference)"
"$py" "$reference" "$npz" --epochs "$epochs" --threads 2 2>/dev/null | tee "$tmp/torch.txt"
echo "== cuqgnn"
"$tmp/cuq" bench -data "$data" -dataset "$dataset" -epochs "$epochs" | tee "$tmp/go.txt"
echo
awk '
function val(s, key,   i, n, kv) { n = split(s, kv, " "); for (i = 2; i <= n; i++) if (index(kv[i], key "=") == 1) return substr(kv[i], length(key) + 2); return "" }
FNR == NR && / train_ms=/ { tt[$1] = val($0, "train_ms"); te[$1] = val($0, "eval_ms"); next }
/ train_ms=/ {
	if (!($1 in tt)) { printf "%-8s train %8.2f ms                           eval %7.2f ms\n", $1, val($0, "train_ms"), val($0, "eval_ms"); next }
	gt = val($0, "train_ms"); ge = val($0, "eval_ms")
	printf "%-8s train %8.2f ms vs %8.2f ms  ratio %.2f   eval %7.2f ms vs %7.2f ms  ratio %.2f\n", $1, gt, tt[$1], gt / tt[$1], ge, te[$1], ge / te[$1]
}' "$tmp/torch.txt" "$tmp/go.txt"
