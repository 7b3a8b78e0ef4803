"""GKDE under leave-out classes, computed independently of cuqgnn.

An independent PyTorch implementation of the reference's GDK model (BFS
hop distances from every training node with cutoff 10, Gaussian kernel
with σ = 1, α = 1 + evidence, float32 as in torch), its random splits
(numpy seeded with 42), the leave-out-classes setting (the last k classes
leave the train, validation and test sets and stay in the graph) and its
measures; docs/guide/reference.md describes each. It prints the mean over 10 splits of
the ID accuracy and of the AUROCs (OOD positive, ties counted half) of TU,
AU, EU and EU_PC, in percent, in float32 and in float64.

cuqgnn's grid gives the same numbers to within the split-to-split spread,
while the paper's AU and EU columns for GKDE differ (docs/records/faithfulness.md).

    /usr/bin/python3 scripts/gkde-loc-check.py DIR/citeseer.npz 2
    /usr/bin/python3 scripts/gkde-loc-check.py DIR/cora_ml.npz 3
"""

import sys

import numpy as np
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import shortest_path
from scipy.stats import rankdata


def load(path):
    z = np.load(path, allow_pickle=True)
    pre = "adj_" if "adj_data" in z.files else "adj_matrix."
    a = sp.csr_matrix((z[pre + "data"], z[pre + "indices"], z[pre + "indptr"]), shape=tuple(z[pre + "shape"]))
    return ((a + a.T) > 0).astype(float), z["labels"]


def auroc(ood, iid):
    """P(score of an OOD node > score of an ID node), ties counted half."""
    r = rankdata(np.concatenate([ood, iid]))
    return (r[: len(ood)].sum() - len(ood) * (len(ood) + 1) / 2) / (len(ood) * len(iid))


def split(y, classes):
    train, test = [], []
    for c in range(classes):
        nodes = np.where(y == c)[0]
        tr = np.random.choice(nodes, int(np.floor(0.05 * len(nodes))), replace=False)
        rest = np.setdiff1d(nodes, tr)
        va = np.random.choice(rest, int(np.floor(0.15 * len(rest))), replace=False)
        rest = np.setdiff1d(rest, va)
        te = np.random.choice(rest, int(np.floor(0.8 * len(rest))), replace=False)
        train += list(tr)
        test += list(te)
    return np.array(train), np.array(test)


def measures(dist, y_train, id_classes, dtype):
    evidence = torch.zeros((dist.shape[1], id_classes), dtype=dtype)
    for d, c in zip(dist, y_train):
        d = torch.tensor(d, dtype=dtype)
        evidence[:, c] += torch.exp(-d * d / 2) / np.sqrt(2 * np.pi)
    alpha = 1 + evidence
    a0 = alpha.sum(-1, keepdim=True)
    p = alpha / a0
    tu = -(p * p.log()).sum(-1)
    au = (p * (torch.digamma(a0 + 1) - torch.digamma(alpha + 1))).sum(-1)
    return p.argmax(-1).numpy(), {"TU": tu, "AU": au, "EU": tu - au, "EU_PC": -a0.squeeze(-1)}


def main():
    path, left_out = sys.argv[1], int(sys.argv[2])
    adj, y = load(path)
    classes = int(y.max()) + 1
    id_classes = classes - left_out
    np.random.seed(42)
    rows = {"float32": [], "float64": []}
    for _ in range(10):
        train, test = split(y, classes)
        train = train[y[train] < id_classes]
        test_id, test_ood = test[y[test] < id_classes], test[y[test] >= id_classes]
        dist = shortest_path(adj, unweighted=True, indices=train)
        dist[dist > 10] = 1e10  # beyond the BFS cutoff: kernel value 0
        for name, dtype in [("float32", torch.float32), ("float64", torch.float64)]:
            hard, ms = measures(dist, y[train], id_classes, dtype)
            row = [(hard[test_id] == y[test_id]).mean()]
            for m in ["TU", "AU", "EU", "EU_PC"]:
                s = ms[m].double().numpy()
                row.append(auroc(s[test_ood], s[test_id]))
            rows[name].append(row)
    for name, r in rows.items():
        print("%s ID acc %.1f  TU %.1f  AU %.1f  EU %.1f  EU_PC %.1f" % ((name,) + tuple(100 * np.mean(r, axis=0))))


if __name__ == "__main__":
    main()
