"""Evaluation metrics of cuq/eval, computed independently with numpy.

The Go test TestMetricsAgreeWithPython (cuq/eval/oracle_test.go) writes a
JSON list of cases to this script's standard input and compares its answer
to the Go results. Each case is an object with a "kind":

  calibration  prob (rows of class probabilities), labels, bins
               -> ece, mce, adaptive_ece, classwise_ece, brier, nll, accuracy,
                  confidence, and per equal-width / equal-mass bin its
                  count, confidence and accuracy
  detection    negative, positive (scores, larger flags positives)
               -> auroc, aupr_positive, aupr_negative, fpr95
  selective    uncertainty, correct, rejection, accuracy (a curve)
               -> risk (per coverage k/n), aurc, area (of the curve);
               NaN uncertainties rank below -inf, as the ARC's

Scores may be the strings "NaN", "Inf" and "-Inf". The answer is the
list of results in order, with null for an undefined number (an empty
bin). The methods differ from the Go code's on purpose: bins are found
by searchsorted, ties are handled by average ranks, cumulative counts
at unique thresholds and piecewise-linear interpolation of cumulative
errors, so that agreement means more than a transcription.

    /usr/bin/python3 scripts/metrics-oracle.py < cases.json
"""

import json
import sys

import numpy as np

FLOOR = 2.0 ** -1022  # eval.ProbabilityFloor
TPR = 0.95  # eval.DetectionTPR

trapezoid = getattr(np, "trapezoid", None) or np.trapz  # renamed in numpy 2


def num(x):
    return float(x)


def clean(x):
    x = float(x)
    return None if np.isnan(x) else x


def scores(xs):
    return np.nan_to_num(np.array([num(x) for x in xs], dtype=np.float64))


def calibration(case):
    prob = np.array(case["prob"], dtype=np.float64)
    labels = np.array(case["labels"], dtype=np.int64)
    bins = case["bins"]
    n = len(labels)
    conf = prob.max(axis=1)
    correct = (prob.argmax(axis=1) == labels).astype(np.float64)

    # Equal width: bin b holds (b/bins, (b+1)/bins], the first also 0.
    edges = np.arange(bins + 1, dtype=np.float64) / bins
    idx = np.clip(np.searchsorted(edges, conf, side="left") - 1, 0, bins - 1)
    width = []
    for b in range(bins):
        m = idx == b
        k = int(m.sum())
        width.append((k, conf[m].mean() if k else np.nan, correct[m].mean() if k else np.nan))

    # Equal mass: sorted positions split at floor(b*n/bins); a position's
    # correctness is the mean correctness of its group of equal confidence.
    order = np.argsort(conf, kind="stable")
    sc, scorr = conf[order], correct[order]
    _, inverse, counts = np.unique(sc, return_inverse=True, return_counts=True)
    rate = np.bincount(inverse, weights=scorr) / counts
    expected = rate[inverse]
    cuts = [b * n // bins for b in range(bins + 1)]
    mass = []
    for b in range(bins):
        lo, hi = cuts[b], cuts[b + 1]
        k = hi - lo
        mass.append((k, sc[lo:hi].mean() if k else np.nan, expected[lo:hi].mean() if k else np.nan))

    def ece(bs):
        return sum(k * abs(a - c) for k, c, a in bs if k) / n

    onehot = np.zeros_like(prob)
    onehot[np.arange(n), labels] = 1
    p_true = prob[np.arange(n), labels]
    # Classwise: per class, the equal-width bins of p_ik found by
    # searchsorted again, gaps weighted by counts through bincount.
    classwise = 0.0
    for c in range(prob.shape[1]):
        p = np.minimum(prob[:, c], 1.0)
        b = np.clip(np.searchsorted(edges, p, side="left") - 1, 0, bins - 1)
        counts = np.bincount(b, minlength=bins)
        sum_p = np.bincount(b, weights=p, minlength=bins)
        sum_y = np.bincount(b, weights=(labels == c).astype(np.float64), minlength=bins)
        classwise += np.abs(sum_y - sum_p).sum() / n
    return {
        "classwise_ece": classwise / prob.shape[1],
        "accuracy": correct.mean(),
        "confidence": conf.mean(),
        "ece": ece(width),
        "mce": max(abs(a - c) for k, c, a in width if k),
        "adaptive_ece": ece(mass),
        "brier": ((prob - onehot) ** 2).sum(axis=1).mean(),
        "nll": -np.log(np.maximum(p_true, FLOOR)).mean(),
        "width": [[k, clean(c), clean(a)] for k, c, a in width],
        "mass": [[k, clean(c), clean(a)] for k, c, a in mass],
    }


def average_ranks(x):
    """Ranks 1..n of x ascending, ties given their mean rank."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    return ((upper - counts + 1 + upper) / 2.0)[inverse]


def auroc(neg, pos):
    ranks = average_ranks(np.concatenate([neg, pos]))
    p, q = len(pos), len(neg)
    return (ranks[q:].sum() - p * (p + 1) / 2.0) / (p * q)


def thresholds(neg, pos):
    """Cumulative (tp, fp) after flagging every score >= t, t descending."""
    s = np.concatenate([neg, pos])
    y = np.concatenate([np.zeros(len(neg)), np.ones(len(pos))])
    t = np.unique(s)[::-1]
    tp = np.array([y[s >= v].sum() for v in t])
    fp = np.array([(1 - y[s >= v]).sum() for v in t])
    return tp, fp


def average_precision(neg, pos):
    tp, fp = thresholds(neg, pos)
    recall = tp / len(pos)
    precision = tp / (tp + fp)
    return float(np.sum(np.diff(np.concatenate([[0.0], recall])) * precision))


def fpr_at_tpr(neg, pos, level):
    tp, fp = thresholds(neg, pos)
    tp = np.concatenate([[0.0], tp])
    fp = np.concatenate([[0.0], fp])
    target = level * len(pos)
    values = np.unique(tp)
    first = np.array([fp[tp == v].min() for v in values])
    last = np.array([fp[tp == v].max() for v in values])
    i = int(np.searchsorted(values, target, side="left"))
    if values[i] == target:
        return first[i] / len(neg)
    x0, x1, y0, y1 = values[i - 1], values[i], last[i - 1], first[i]
    return (y0 + (y1 - y0) * (target - x0) / (x1 - x0)) / len(neg)


def detection(case):
    neg, pos = scores(case["negative"]), scores(case["positive"])
    return {
        "auroc": auroc(neg, pos),
        "aupr_positive": average_precision(neg, pos),
        "aupr_negative": average_precision(-pos, -neg),
        "fpr95": fpr_at_tpr(neg, pos, TPR),
    }


def selective_keys(xs):
    """Ranks of the uncertainties, NaN below every number (-inf included)."""
    u = np.array([num(x) for x in xs], dtype=np.float64)
    nan = np.isnan(u)
    values = np.unique(u[~nan])
    return np.where(nan, 0, np.searchsorted(values, np.where(nan, 0.0, u)) + 1)


def selective(case):
    u = selective_keys(case["uncertainty"])
    wrong = 1.0 - np.array(case["correct"], dtype=np.float64)
    n = len(u)
    # Expected errors among the k least uncertain are piecewise linear in
    # k between the ends of the groups of equal uncertainty.
    values, inverse = np.unique(u, return_inverse=True)
    group_errors = np.bincount(inverse, weights=wrong, minlength=len(values))
    group_sizes = np.bincount(inverse, minlength=len(values))
    ends = np.concatenate([[0], np.cumsum(group_sizes)])
    cum = np.concatenate([[0.0], np.cumsum(group_errors)])
    k = np.arange(1, n + 1)
    risk = np.interp(k, ends, cum) / k
    return {
        "risk": risk.tolist(),
        "aurc": risk.mean(),
        "area": float(trapezoid(np.array(case["accuracy"], dtype=np.float64), np.array(case["rejection"], dtype=np.float64))),
    }


KINDS = {"calibration": calibration, "detection": detection, "selective": selective}


def main():
    cases = json.load(sys.stdin)
    out = []
    for case in cases:
        res = KINDS[case["kind"]](case)
        out.append({k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in res.items()})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
