#!/usr/bin/env python3
"""Softmax entropy of a GCN on one of Bazhenov et al.'s released structural splits.

An independent PyTorch check of docs/records/faithfulness.md's section on the
structural-shift benchmark: it trains a GCN on the CoraML graph and split
files that the benchmark's repository (yandex-research/structural-graph-shifts)
ships under datasets/cora-ml, and prints the OOD-detection AUROC of the
softmax entropy (ID test nodes against OOD test nodes, OOD positive) for the
model of the last epoch and for that of the lowest ID validation loss; then,
with the seeds' models as a deep ensemble, that of its total uncertainty (the
entropy of the mean) and of its knowledge uncertainty (the mutual
information: total minus the members' mean entropy).

The default model is the benchmark's ("SE"): three GCN layers of 256, each
followed by GELU, BatchNorm and dropout 0.2, a linear output layer, Adam with
learning rate 3e-4 and weight decay 1e-5, 200 epochs. The options change one
part at a time; --kipf gives the GCN of Kipf and Welling as cuqgnn's GCN preset
has it (one hidden layer of 64, ReLU, dropout 0.5, GCN output layer, learning
rate 0.01, weight decay 5e-4).

    python3 scripts/structural-benchmark.py --data DIR/datasets/cora-ml --property locality
"""
import argparse

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.stats
import torch
import torch.nn.functional as F


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="directory holding data.mat and splits/")
    p.add_argument("--property", default="locality", choices=["popularity", "locality", "density"])
    p.add_argument("--layers", type=int, default=3, help="GCN layers")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--activation", default="gelu", choices=["gelu", "relu"])
    p.add_argument("--no-batchnorm", dest="batchnorm", action="store_false")
    p.add_argument("--batch-stats", action="store_true",
                   help="normalise with the batch's statistics at prediction too (no running estimates)")
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--weight-decay", type=float, default=1e-5)
    p.add_argument("--gcn-output", action="store_true",
                   help="the last GCN layer maps to the classes (no linear output layer)")
    p.add_argument("--kipf", action="store_true", help="Kipf and Welling's GCN (cuqgnn's GCN preset)")
    p.add_argument("--normalize-features", action="store_true",
                   help="rows of the features scaled to sum 1, as cuqgnn loads CoraML")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--seeds", type=int, default=3)
    a = p.parse_args()
    if a.kipf:
        a.layers, a.hidden, a.activation, a.batchnorm = 2, 64, "relu", False
        a.dropout, a.lr, a.weight_decay, a.gcn_output = 0.5, 0.01, 5e-4, True
    return a


def load(directory, prop, normalize):
    """Features, labels, the normalised adjacency D^-1/2 (A+I) D^-1/2 and the masks."""
    d = scipy.io.loadmat(f"{directory}/data.mat")
    f = sp.csr_matrix(d["features"])
    if normalize:
        f = sp.diags(1 / np.maximum(np.asarray(f.sum(1)).ravel(), 1e-300)) @ f
    f = f.tocoo()
    x = torch.sparse_coo_tensor(np.vstack([f.row, f.col]), f.data, f.shape, dtype=torch.float).coalesce()
    y = torch.tensor(d["labels"].ravel(), dtype=torch.long)
    n = len(y)
    rows, cols = d["edges"]
    a = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    a = ((a + a.T) > 0).astype(float)
    a.setdiag(0)
    a.eliminate_zeros()
    a = (a + sp.eye(n)).tocoo()
    deg = np.asarray(a.sum(1)).ravel() ** -0.5
    val = deg[a.row] * a.data * deg[a.col]
    adj = torch.sparse_coo_tensor(np.vstack([a.row, a.col]), val, (n, n), dtype=torch.float).coalesce()
    masks = torch.load(f"{directory}/splits/{prop}.pth")
    return x, y, adj, masks


class GCN(torch.nn.Module):
    def __init__(self, a, features, classes):
        super().__init__()
        widths = [features] + [a.hidden] * a.layers
        if a.gcn_output:
            widths[-1] = classes
        self.convs = torch.nn.ModuleList(torch.nn.Linear(i, o) for i, o in zip(widths[:-1], widths[1:]))
        for c in self.convs:  # DGL's GraphConv: Glorot weights, zero bias
            torch.nn.init.xavier_uniform_(c.weight)
            torch.nn.init.zeros_(c.bias)
        hidden = a.layers - 1 if a.gcn_output else a.layers
        self.norms = torch.nn.ModuleList(
            torch.nn.BatchNorm1d(a.hidden, track_running_stats=not a.batch_stats) if a.batchnorm
            else torch.nn.Identity() for _ in range(hidden))
        self.head = None if a.gcn_output else torch.nn.Linear(a.hidden, classes)
        self.act = F.gelu if a.activation == "gelu" else F.relu
        self.dropout = a.dropout

    def forward(self, adj, x):
        for k, conv in enumerate(self.convs):
            # Â (x W) + b, the bias after the propagation, as DGL's GraphConv
            xw = torch.sparse.mm(x, conv.weight.T) if x.is_sparse else x @ conv.weight.T
            x = torch.sparse.mm(adj, xw) + conv.bias
            if k < len(self.norms):
                x = F.dropout(self.norms[k](self.act(x)), self.dropout, self.training)
        return x if self.head is None else self.head(x)


def categorical_entropy(p):
    return -(p * torch.log(p.clamp_min(1e-30))).sum(1)


def auroc(score, positive):
    ranks = scipy.stats.rankdata(score)
    p, q = positive.sum(), len(positive) - positive.sum()
    return (ranks[positive].sum() - p * (p + 1) / 2) / (p * q)


def main():
    a = parse()
    torch.set_num_threads(1)
    x, y, adj, m = load(a.data, a.property, a.normalize_features)
    test = (m["test_in"] | m["test_out"]).numpy()
    ood = m["test_out"].numpy()[test]
    members = {"last": [], "best": []}  # each seed's class probabilities
    for seed in range(a.seeds):
        torch.manual_seed(seed)
        net = GCN(a, x.shape[1], int(y.max()) + 1)
        opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=a.weight_decay)
        best, best_state, best_epoch = float("inf"), None, 0
        for epoch in range(1, a.epochs + 1):
            net.train()
            opt.zero_grad()
            F.cross_entropy(net(adj, x)[m["train"]], y[m["train"]]).backward()
            opt.step()
            net.eval()
            with torch.no_grad():
                val = F.cross_entropy(net(adj, x)[m["valid_in"]], y[m["valid_in"]]).item()
            if val < best:
                best, best_epoch = val, epoch
                best_state = {k: v.clone() for k, v in net.state_dict().items()}
        out = []
        for label, state in (("last", None), ("best", best_state)):
            if state is not None:
                net.load_state_dict(state)
            net.eval()
            with torch.no_grad():
                p = F.softmax(net(adj, x), 1)
            members[label].append(p)
            entropy = categorical_entropy(p).numpy()
            acc = (p.argmax(1)[m["test_in"]] == y[m["test_in"]]).float().mean().item()
            out.append(f"{label}: AUROC {100 * auroc(entropy[test], ood):.2f} ID acc {100 * acc:.1f}")
        print(f"seed {seed} (best epoch {best_epoch}): " + ", ".join(out), flush=True)
    if a.seeds > 1:
        out = []
        for label, ps in members.items():
            total = categorical_entropy(torch.stack(ps).mean(0))
            knowledge = total - torch.stack([categorical_entropy(p) for p in ps]).mean(0)
            out.append(f"{label}: total {100 * auroc(total.numpy()[test], ood):.2f} "
                       f"knowledge {100 * auroc(knowledge.numpy()[test], ood):.2f}")
        print(f"ensemble of {a.seeds}: " + ", ".join(out))


if __name__ == "__main__":
    main()
