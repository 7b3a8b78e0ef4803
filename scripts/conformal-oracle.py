"""Split conformal prediction of cuq/conformal, computed independently with numpy.

The Go test TestConformalAgreesWithPython (cuq/conformal/oracle_test.go)
writes a JSON list of cases to this script's standard input and compares
its answer to the Go results. Each case is an object with

  prob         rows of class probabilities, one per node
  labels       the nodes' labels
  u            one uniform number per node (randomised scores)
  edges        [i, j, w]: an entry A_ij = w of the adjacency (row i
               averages over its j), for DAPS
  calibration, evaluation
               the node sets
  alpha        the miscoverage level
  scores       a list of {"kind": "aps" | "raps" | "daps", "lambda",
               "kreg", "randomized", "base" (a score, for daps)}

and the answer is, per case, a list with per score its "scores" (rows per
node), "qhat" (null for +inf) and "sets" (the classes of each evaluation
node's set). The methods differ from the Go code's on purpose: the
cumulative mass and the rank of a class are comparisons of every pair of
classes instead of a walk down the sorted order, the diffusion is a dense
matrix product and the quantile is the smallest calibration score that
enough of them do not exceed, found by counting rather than sorting.

    /usr/bin/python3 scripts/conformal-oracle.py < cases.json
"""

import json
import math
import sys

import numpy as np

RANK_SLACK = 1e-9  # conformal.quantileRankSlack


def score(spec, prob, u, adj):
    kind = spec["kind"]
    if kind in ("aps", "raps"):
        # at_least[i, c, d]: class d is at least as probable as class c.
        at_least = prob[:, None, :] >= prob[:, :, None]
        mass = np.where(at_least, prob[:, None, :], 0.0).sum(axis=2)
        rank = at_least.sum(axis=2)
        uu = u if spec["randomized"] else np.zeros_like(u)
        s = mass - uu[:, None] * prob
        if kind == "raps":
            s = s + spec["lambda"] * np.maximum(0, rank - spec["kreg"])
        return s
    base = score(spec["base"], prob, u, adj)
    lam = spec["lambda"]
    deg = adj.sum(axis=1)
    mean = (adj @ base) / np.where(deg > 0, deg, 1.0)[:, None]
    return np.where(deg[:, None] > 0, (1 - lam) * base + lam * mean, base)


def conformal(case):
    prob = np.array(case["prob"], dtype=np.float64)
    labels = np.array(case["labels"], dtype=np.int64)
    u = np.array(case["u"], dtype=np.float64)
    n = len(prob)
    adj = np.zeros((n, n))
    for i, j, w in case["edges"] or []:
        adj[i, j] += w
    cal = np.array(case["calibration"], dtype=np.int64)
    ev = np.sort(np.array(case["evaluation"], dtype=np.int64))
    alpha = case["alpha"]
    out = []
    for spec in case["scores"]:
        s = score(spec, prob, u, adj)
        true = s[cal, labels[cal]]
        m = len(cal)
        k = max(1, math.ceil((m + 1) * (1 - alpha) - RANK_SLACK))
        if k > m:
            qhat = math.inf
        else:
            # The smallest calibration score that at least k of them do
            # not exceed (numpy's inverted-CDF quantile at k/m would do
            # but for the rounding of k/m).
            counts = (true[None, :] <= true[:, None]).sum(axis=1)
            qhat = float(true[counts >= k].min())
        out.append({
            "scores": s.tolist(),
            "qhat": None if math.isinf(qhat) else qhat,
            "sets": [np.flatnonzero(s[i] <= qhat).tolist() for i in ev],
        })
    return out


def main():
    json.dump([conformal(c) for c in json.load(sys.stdin)], sys.stdout)


if __name__ == "__main__":
    main()
