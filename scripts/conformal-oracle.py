"""Split conformal prediction of cuq/conformal, computed independently with numpy.

The Go test TestConformalAgreesWithPython (cuq/conformal/oracle_test.go)
writes a JSON list of cases to this script's standard input and compares
its answer to the Go results. Each case is an object with

  prob         rows of class probabilities, one per node
  labels       the nodes' labels
  u            one uniform number per node (randomised scores)
  edges        [i, j, w]: an entry A_ij = w of the adjacency (row i
               averages over its j), for DAPS, SNAPS and NAPS
  similar      [i, j, w]: an entry S_ij = w of the similarity graph, for
               SNAPS
  calibration, evaluation
               the node sets
  alpha        the miscoverage level
  scores       a list of {"kind": "aps" | "raps" | "daps" | "snaps" |
               "naps", "lambda", "mu", "kreg", "randomized", "hops",
               "weighting" (0 uniform, 1 linear, 2 geometric), "min",
               "base" (a score, for daps, snaps and naps)}

and the answer is, per case, a list with per score its "scores" (rows per
node), "qhat" (null for +inf), "sets" (the classes of each evaluation
node's set) and for naps "quantiles" (each evaluation node's threshold,
null for +inf). The methods differ from the Go code's on purpose: the
cumulative mass and the rank of a class are comparisons of every pair of
classes instead of a walk down the sorted order, the diffusion is a dense
matrix product and the quantile is the smallest calibration score that
enough of them do not exceed, found by counting rather than sorting (for
naps, by summing weights over every pair); naps's hop distances come from
powers of the dense adjacency pattern rather than a breadth-first search.

    /usr/bin/python3 scripts/conformal-oracle.py < cases.json
"""

import json
import math
import sys

import numpy as np

RANK_SLACK = 1e-9  # conformal.quantileRankSlack


def mean_or_own(graph, base):
    """Row-weighted mean of base over graph, a row's own base if it is empty."""
    deg = graph.sum(axis=1)
    mean = (graph @ base) / np.where(deg > 0, deg, 1.0)[:, None]
    return np.where(deg[:, None] > 0, mean, base)


def score(spec, prob, u, adj, sim):
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
    base = score(spec["base"], prob, u, adj, sim)
    if kind == "naps":
        return base
    if kind == "snaps":
        lam, mu = spec["lambda"], spec["mu"]
        return (1 - lam - mu) * base + lam * mean_or_own(sim, base) + mu * mean_or_own(adj, base)
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
    sim = np.zeros((n, n))
    for i, j, w in case["similar"] or []:
        sim[i, j] += w
    cal = np.array(case["calibration"], dtype=np.int64)
    ev = np.sort(np.array(case["evaluation"], dtype=np.int64))
    alpha = case["alpha"]
    out = []
    for spec in case["scores"]:
        s = score(spec, prob, u, adj, sim)
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
        res = {"scores": s.tolist(), "qhat": None if math.isinf(qhat) else qhat}
        thresholds = np.full(len(ev), qhat)
        if spec["kind"] == "naps":
            thresholds = naps_thresholds(spec, adj, s[cal, labels[cal]], cal, ev, alpha, qhat)
            res["quantiles"] = [None if math.isinf(q) else float(q) for q in thresholds]
        res["sets"] = [np.flatnonzero(s[i] <= q).tolist() for i, q in zip(ev, thresholds)]
        out.append(res)
    return out


def hop_distances(adj, hops):
    """dist[i, j]: the fewest steps along entries adj[u, v] > 0 from i to j
    (inf beyond hops)."""
    n = len(adj)
    step = (adj > 0).astype(np.int64)
    dist = np.full((n, n), np.inf)
    reach = np.eye(n, dtype=np.int64)
    dist[reach > 0] = 0
    for d in range(1, hops + 1):
        reach = ((reach + reach @ step) > 0).astype(np.int64)
        dist[(reach > 0) & np.isinf(dist)] = d
    return dist


def naps_thresholds(spec, adj, true, cal, ev, alpha, qhat):
    dist = hop_distances(adj, spec["hops"])
    out = []
    for i in ev:
        d = dist[i, cal]
        near = (d >= 1) & np.isfinite(d)
        if near.sum() < spec["min"]:
            out.append(qhat)
            continue
        sc, dd = true[near], d[near]
        w = [np.ones_like(dd), 1 / dd, 0.5 ** (dd - 1)][spec["weighting"]]
        need = (w.sum() + 1) * (1 - alpha) - RANK_SLACK
        # weight at or below each score, every pair compared
        below = (w[None, :] * (sc[None, :] <= sc[:, None])).sum(axis=1)
        ok = below >= need
        out.append(float(sc[ok].min()) if ok.any() else math.inf)
    return np.array(out)


def main():
    json.dump([conformal(c) for c in json.load(sys.stdin)], sys.stdout)


if __name__ == "__main__":
    main()
