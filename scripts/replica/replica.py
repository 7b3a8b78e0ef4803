#!/usr/bin/env python3
"""Independent PyTorch replica of the reference implementation's training.

Reads a run exported by cuqgnn (scripts/replica (Export): run.json plus raw
little-endian arrays), trains it as the reference does (dropout off unless
--dropout), and
writes result.json (per-epoch losses, validation cross entropies and
per-parameter gradient norms, the restored best epoch), output.f64 (the
final per-node output: log-probabilities for APPNP, alpha for GPN and the
CUQ models, the per-node alpha_ft for LOP-GPN) and measures.f64 (the final
per-node uncertainty measures TU, AU, EU, EU_PC, EU_SO, APPNP's TU only,
computed here from that output) and class.i64 (the predicted classes).

Written from the reference's facts, not from cuqgnn's code: plain torch, no
torch_geometric. Usage:

    replica.py RUN_DIR [--dtype float64|float32] [--epochs N] [--out DIR] [--dropout P]
               [--seed N | --go-dropout SEED,INIT] [--exact-trigamma] [--grad-noise EPS] [--threads N]
"""

import argparse
import json
import math
import os
import sys
import warnings

# Debian's torch and numpy do their dense products in OpenBLAS, whose own
# threads (one per core unless told) spin while idle: twice the CPU time
# for the same wall time. One thread unless the environment says otherwise;
# --threads sets torch's.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402 (after the OpenBLAS setting)
import torch  # noqa: E402

ENTROPY_APPROX_THRESHOLD = 1e4  # Dirichlet entropy: exact below, asymptotic above


def load_array(run_dir, a, dtype):
    np_dtype = {"f8": "<f8", "i8": "<i8"}[a["dtype"]]
    v = np.fromfile(os.path.join(run_dir, a["file"]), dtype=np_dtype)
    shape = a.get("shape") or [v.size]
    if len(shape) == 2 and shape[0] * shape[1] != v.size:
        sys.exit(f"{a['file']}: {v.size} values for shape {shape}")
    v = v.reshape(shape)
    if a["dtype"] == "f8":
        return torch.tensor(v, dtype=dtype)
    return torch.tensor(v, dtype=torch.long)


def load_csr(run_dir, s, dtype):
    """A CSR matrix from the export, as a coalesced sparse COO tensor (a
    repeated entry is summed)."""
    ptr = load_array(run_dir, s["ptr"], dtype)
    ind = load_array(run_dir, s["ind"], dtype)
    val = load_array(run_dir, s["val"], dtype)
    rows = torch.repeat_interleave(torch.arange(s["rows"]), ptr[1:] - ptr[:-1])
    return torch.sparse_coo_tensor(torch.stack([rows, ind]), val, (s["rows"], s["cols"])).coalesce()


class _SparseMM(torch.autograd.Function):
    """a @ x for a constant sparse a, differentiated as a^T @ grad with the
    transpose a_t given."""

    @staticmethod
    def forward(ctx, a, a_t, x):
        ctx.a_t = a_t
        return torch.sparse.mm(a, x)

    @staticmethod
    def backward(ctx, grad):
        return None, None, torch.sparse.mm(ctx.a_t, grad)


class Operator:
    """A constant sparse matrix (the normalised adjacency, sparse features,
    the pruned mixture weights) as the left factor of products `op @ x`.

    The same products as torch.sparse.mm, but the transpose for the backward
    pass is formed once: torch.sparse.mm transposes and re-sorts the matrix
    on every backward pass, a sixth of an epoch on Amazon Computers."""

    def __init__(self, a):
        self.a = a.coalesce()
        self.a_t = self.a.t().coalesce()

    def __matmul__(self, x):
        return _SparseMM.apply(self.a, self.a_t, x)


class _EdgeSum(torch.autograd.Function):
    """out_i = sum over the edges e = (i <- j) of w_e h_j, for edge weights w
    (the attention) and node features h.

    Forward as one sparse product; backward grad_h = W^T grad, grad_w_e =
    <grad_i, h_j>. Autograd through h[src] and index_add computes the same
    but materialises the E x d messages, three times slower on Computers."""

    @staticmethod
    def forward(ctx, w, h, dst, src):
        ctx.save_for_backward(w, h, dst, src)
        n = h.shape[0]
        return torch.sparse.mm(torch.sparse_coo_tensor(torch.stack([dst, src]), w, (n, n)), h)

    @staticmethod
    def backward(ctx, grad):
        w, h, dst, src = ctx.saved_tensors
        n = h.shape[0]
        grad_h = torch.sparse.mm(torch.sparse_coo_tensor(torch.stack([src, dst]), w, (n, n)), grad)
        grad_w = (grad[dst] * h[src]).sum(dim=1)
        return grad_w, grad_h, None, None


def sparse(rows, cols, vals, n):
    """The n x n sparse tensor with the given entries, repeated ones summed."""
    return torch.sparse_coo_tensor(torch.stack([rows, cols]), vals, (n, n)).coalesce()


def with_remaining_self_loops(a):
    """The entries of the sparse square a without its explicit zeros, plus a
    self loop of weight 1 at every node that has none; existing loops keep
    their weight. Returns (rows, cols, vals)."""
    (r, c), v = a.indices(), a.values()
    nz = v != 0
    r, c, v = r[nz], c[nz], v[nz]
    n = a.shape[0]
    has_loop = torch.zeros(n, dtype=torch.bool)
    has_loop[r[r == c]] = True
    missing = torch.nonzero(~has_loop)[:, 0]
    return (torch.cat([r, missing]), torch.cat([c, missing]),
            torch.cat([v, torch.ones(len(missing), dtype=v.dtype)]))


def degree_inverse(r, v, n, power):
    """deg_i^power of the weighted degrees deg_i = sum_j a_ij; a zero degree gives 0."""
    deg = torch.zeros(n, dtype=v.dtype).index_add_(0, r, v)
    return torch.where(deg > 0, deg.pow(power), torch.zeros_like(deg))


def sym_norm(a):
    """D^-1/2 (A+I) D^-1/2 (sparse), d_i the weighted degree of row i."""
    n = a.shape[0]
    r, c, v = with_remaining_self_loops(a)
    inv = degree_inverse(r, v, n, -0.5)
    return sparse(r, c, inv[r] * v * inv[c], n)


def rw_norm(a):
    """D^-1 (A+I) (sparse): each row sums to 1."""
    n = a.shape[0]
    r, c, v = with_remaining_self_loops(a)
    return sparse(r, c, degree_inverse(r, v, n, -1.0)[r] * v, n)


def appnp_prop(a_hat, x, k, t):
    """APPNP propagation: h0 = x; K times x <- (1-t) A_hat x + t h0."""
    h0 = x
    for _ in range(k):
        x = (1 - t) * (a_hat @ x) + t * h0
    return x


def pruned_ppr(a_hat, k, t, threshold):
    """The reference's sparse mixture weights: Pi = APPNP-prop(I) over a_hat,
    with every step X <- (1-t) A_hat X + t I followed by a pruning step that
    drops the entries below threshold and adds each row's dropped mass to its
    diagonal, so that every row keeps the mass 1 it has under the random-walk
    normalisation. The diagonal, at least t, is never dropped.

    The threshold meets exact ties: in the first step a node of degree 89
    gives its 90 neighbours (self loop included) 0.9/90 = 0.01, and later
    steps produce sums within an ulp of 0.01, so which of them survive
    depends on rounding. ((1-t) A_hat) X, the factor applied to A_hat's
    entries before the product, rounds as cuqgnn does: in float64 both keep
    the same entries (on Photos and Computers), which the lock step needs."""
    n = a_hat.shape[0]
    nodes = torch.arange(n)
    eye = sparse(nodes, nodes, torch.ones(n, dtype=a_hat.dtype), n)
    step = a_hat * (1 - t)
    x = eye
    for _ in range(k):
        x = (torch.sparse.mm(step, x) + eye * t).coalesce()
        (r, c), v = x.indices(), x.values()
        drop = v < threshold
        lost = torch.zeros(n, dtype=v.dtype).index_add_(0, r[drop], v[drop])
        keep = ~drop
        x = sparse(torch.cat([r[keep], nodes]), torch.cat([c[keep], nodes]), torch.cat([v[keep], lost]), n)
    return x


def row_entropy(pi):
    """H(pi_i) of every row of the dense or sparse weights pi, 0 log 0 = 0."""
    if not pi.is_sparse:
        return categorical_entropy(pi)
    (r, _), v = pi.indices(), pi.values()
    w = -torch.where(v > 0, v * torch.log(v), torch.zeros_like(v))
    return torch.zeros(pi.shape[0], dtype=v.dtype).index_add_(0, r, w)


def trigamma(x):
    """psi_1(x) for x > 0 to float64 accuracy: psi_1(x) = psi_1(x+1) + 1/x^2 up to
    x >= 10, then 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1) with seven Bernoulli terms.

    torch.polygamma(1, x), digamma's derivative in autograd, shifts only to
    x >= 6 and stops after B_6: relative error 4.8e-10 at x = 1, 2e-10 at 3,
    5e-12 at 10 (torch 1.13 to 2.x)."""
    acc = torch.zeros_like(x)
    for _ in range(10):
        small = x < 10
        acc = acc + torch.where(small, 1 / (x * x), torch.zeros_like(x))
        x = torch.where(small, x + 1, x)
    z = 1 / (x * x)
    series = z * (1 / 6 - z * (1 / 30 - z * (1 / 42 - z * (1 / 30 - z * (5 / 66 - z * (691 / 2730 - z * 7 / 6))))))
    return acc + 1 / x + 0.5 * z + series / x


class ExactDigamma(torch.autograd.Function):
    """torch.digamma with trigamma() as its derivative (--exact-trigamma)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.digamma(x)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * trigamma(x)


digamma = torch.digamma  # ExactDigamma.apply with --exact-trigamma


def dirichlet_entropy(alpha):
    """Differential entropy of Dir(alpha) per row, asymptotic from alpha0 >= 1e4."""
    k = alpha.shape[1]
    a0 = alpha.sum(dim=1)
    exact = (torch.lgamma(alpha).sum(dim=1) - torch.lgamma(a0)
             + (a0 - k) * digamma(a0)
             - ((alpha - 1) * digamma(alpha)).sum(dim=1))
    approx = (0.5 * (k - 1) + 0.5 * (k - 1) * math.log(2 * math.pi)
              + 0.5 * torch.log(alpha).sum(dim=1) - (k - 0.5) * torch.log(a0))
    return torch.where(a0 >= ENTROPY_APPROX_THRESHOLD, approx, exact)


def categorical_entropy(p):
    """H(p) per row, 0 log 0 = 0."""
    return -torch.where(p > 0, p * torch.log(p), torch.zeros_like(p)).sum(dim=1)


MEASURES = ["TU", "AU", "EU", "EU_PC", "EU_SO"]


def mean_probs(kind, out, pi=None):
    """Mean class probabilities: exp(out) (APPNP), alpha/alpha0, pi @ (alpha/alpha0) (LOP-GPN)."""
    if kind == "appnp":
        return torch.exp(out)
    t = out / out.sum(dim=1, keepdim=True)
    return pi @ t if kind == "gpn_lop" else t


def measures(kind, out, pi=None):
    """Per-node uncertainty measures (larger = more uncertain) from the final output.

    Dirichlet Dir(alpha), alpha0 = sum alpha, mean t = alpha/alpha0: TU = H(t),
    AU = sum_k t_k (psi(alpha0+1) - psi(alpha_k+1)), EU = TU - AU, EU_PC = -alpha0,
    EU_SO = h(Dir(alpha)). LOP-GPN's mixture sum_j pi_ij Dir(alpha_j): TU = H(pi t),
    AU and alpha0 pi-weighted, EU_SO = sum_j pi_ij h(Dir(alpha_j)) + H(pi_i).
    APPNP: TU = H(p) only."""
    tu = categorical_entropy(mean_probs(kind, out, pi))
    if kind == "appnp":
        return {"TU": tu}
    a0 = out.sum(dim=1, keepdim=True)
    au = (out / a0 * (torch.digamma(a0 + 1) - torch.digamma(out + 1))).sum(dim=1)
    h, a0 = dirichlet_entropy(out), a0[:, 0]
    if kind == "gpn_lop":
        au, a0, h = ((pi @ v[:, None])[:, 0] for v in (au, a0, h))
        h = h + row_entropy(pi)
    return dict(zip(MEASURES, [tu, au, tu - au, -a0, h]))


class RadialFlows:
    """One chain of radial flows per class on R^d with a standard normal base.

    Layer l of class c: centre x0[l*C + c], raw scalars a'[l, c], b'[l, c];
    a = softplus(a'), b = -a + softplus(b'), r = |z - x0|, h = 1/(a + r),
    z' = z + b h (z - x0), log|det| = (d-1) log(1 + b h) + log(1 + b h - b h^2 r).
    """

    def __init__(self, x0, a, b):
        self.x0, self.a, self.b = x0, a, b
        self.layers, self.classes = a.shape

    def log_density(self, z):
        n, d = z.shape
        c = self.classes
        zc = z[:, None, :].expand(n, c, d)
        logdet = torch.zeros(n, c, dtype=z.dtype)
        for l in range(self.layers):
            x0 = self.x0[l * c:(l + 1) * c]  # C x d
            alpha = torch.nn.functional.softplus(self.a[l])  # C
            beta = -alpha + torch.nn.functional.softplus(self.b[l])
            diff = zc - x0[None]
            r = diff.norm(dim=2)
            h = 1.0 / (alpha[None] + r)
            bh = beta[None] * h
            zc = zc + bh[..., None] * diff
            logdet = logdet + (d - 1) * torch.log1p(bh) + torch.log1p(bh - beta[None] * h * h * r)
        return -0.5 * d * math.log(2 * math.pi) - 0.5 * (zc * zc).sum(dim=2) + logdet


class Replica:
    def __init__(self, run_dir, dtype):
        with open(os.path.join(run_dir, "run.json")) as f:
            run = json.load(f)
        self.run, self.dtype = run, dtype
        self.kind = run["model"]
        self.hp = run["train"]
        self.k, self.t = run["k"], run["teleport"]
        if run.get("feature_csr"):
            self.x = Operator(load_csr(run_dir, run["feature_csr"], dtype))
        else:
            self.x = load_array(run_dir, run["feature_dense"], dtype)
        adj = load_csr(run_dir, run["adjacency"], dtype)
        self.labels = torch.tensor(run["labels"], dtype=torch.long)
        self.train_nodes = torch.tensor(run["train_nodes"], dtype=torch.long)
        self.val_nodes = torch.tensor(run["val_nodes"], dtype=torch.long)
        self.y_train = self.labels[self.train_nodes]
        self.y_val = self.labels[self.val_nodes]
        self.params, self.groups = {}, {"flows": [], "others": []}
        for p in run["params"]:
            v = load_array(run_dir, p, dtype).requires_grad_(True)
            self.params[p["name"]] = v
            self.groups[p["group"]].append(p["name"])
        self.order = [p["name"] for p in run["params"]]
        if self.kind in ("appnp", "gpn", "cuq_ppr", "cuq_gcn"):
            self.a_sym = Operator(sym_norm(adj))
        if self.kind == "gpn_lop":
            # Exact and dense unless the run names the reference's pruning
            # threshold (Photos, Computers): then sparse and pruned.
            n, prune = adj.shape[0], run.get("prune", 0)
            if prune > 0:
                self.pi = pruned_ppr(rw_norm(adj), self.k, self.t, prune)
            else:
                self.pi = appnp_prop(rw_norm(adj), torch.eye(n, dtype=dtype), self.k, self.t)
            if self.pi.is_sparse:
                self.pi_train = Operator(self.pi.index_select(0, self.train_nodes))
                self.h_pi = row_entropy(self.pi_train.a).sum()
            else:
                self.pi_train = self.pi[self.train_nodes]
                self.h_pi = row_entropy(self.pi_train).sum()
        if self.kind == "cuq_gat":
            # Edge list of the attention, destination i <- source j for every
            # nonzero a_ij off the diagonal, plus one self loop per node (a
            # loop in the graph is replaced by it), as GATConv builds it.
            (r, c), v = adj.indices(), adj.values()
            off = (r != c) & (v != 0)
            nodes = torch.arange(adj.shape[0])
            self.gat_dst, self.gat_src = torch.cat([r[off], nodes]), torch.cat([c[off], nodes])
        if self.kind != "appnp":
            counts = torch.bincount(self.y_train, minlength=run["classes"]).to(dtype)
            self.log_prior = torch.log(counts / counts.sum())
            d = self.hp["latent"]
            self.budget = 0.5 * d * math.log(4 * math.pi)
            p = self.params
            self.flows = RadialFlows(p["flow.x0"], p["flow.a"], p["flow.b"])

    def linear(self, name, x):
        return x @ self.params[name + ".W"] + self.params[name + ".b"]

    def gat(self, name, x):
        """Single-head GATConv: h = xW, e_ij = LeakyReLU(a_src.h_j + a_dst.h_i, 0.2)
        over the in-edges j -> i of i with its self loop, attention a_ij the
        softmax of e_ij over those j, out_i = sum_j a_ij h_j + b."""
        p = self.params
        h = x @ p[name + ".W"]
        dst, src = self.gat_dst, self.gat_src
        n = h.shape[0]
        s_src = h @ p[name + ".a_src"][0]
        s_dst = h @ p[name + ".a_dst"][0]
        e = torch.nn.functional.leaky_relu(s_dst[dst] + s_src[src], 0.2)
        # Softmax per destination, shifted by the destination's largest score
        # for range; the shift cancels, so it carries no gradient.
        top = torch.full((n,), -math.inf, dtype=e.dtype).scatter_reduce(0, dst, e.detach(), "amax")
        w = torch.exp(e - top[dst])
        att = w / torch.zeros(n, dtype=e.dtype).index_add(0, dst, w)[dst]
        return _EdgeSum.apply(att, h, dst, src) + p[name + ".b"]

    dropout = 0.0  # --dropout
    training = False  # dropout is active while the loss is computed
    go_rng = None  # --go-dropout: cuqgnn's random stream instead of torch's

    def drop(self, h):
        if self.go_rng is None or not self.training or self.dropout == 0:
            return torch.nn.functional.dropout(h, self.dropout, self.training)
        keep = torch.from_numpy(self.go_rng.keep(h.numel(), self.dropout).reshape(h.shape))
        return h * keep.to(h.dtype) * (1.0 / (1.0 - self.dropout))

    def encode(self):
        return self.drop(torch.relu(self.linear("encoder0", self.x)))

    def output(self):
        """Raw output per node: log-probabilities (APPNP), alpha, or alpha_ft (LOP-GPN)."""
        h = self.encode()
        if self.kind == "appnp":
            logits = appnp_prop(self.a_sym, self.linear("output", h), self.k, self.t)
            return torch.log_softmax(logits, dim=1)
        if self.kind == "cuq_ppr":
            h = appnp_prop(self.a_sym, h, self.k, self.t)
        elif self.kind == "cuq_gcn":
            h = self.drop(torch.relu(self.a_sym @ (h @ self.params["gcn0.W"]) + self.params["gcn0.b"]))
            h = self.a_sym @ (h @ self.params["gcn1.W"]) + self.params["gcn1.b"]
        elif self.kind == "cuq_gat":
            h = self.drop(torch.nn.functional.elu(self.gat("gat0", h)))
            h = self.gat("gat1", h)
        z = self.linear("latent", h)
        log_p = self.flows.log_density(z)
        if not torch.is_grad_enabled():  # evaluation: a NaN density counts as 0
            log_p = torch.where(torch.isnan(log_p), torch.full_like(log_p, -math.inf), log_p)
        log_beta = log_p + self.log_prior[None] + self.budget
        beta = torch.exp(torch.clamp(log_beta, -30.0, 30.0))
        if self.kind == "gpn":
            beta = appnp_prop(self.a_sym, beta, self.k, self.t)
        return 1.0 + beta

    def loss(self):
        self.training = True
        out = self.output()
        self.training = False
        y, idx = self.y_train, self.train_nodes
        reg = self.hp["entropy_reg"]
        if self.kind == "appnp":
            return -out[idx, y].mean()
        if self.kind == "gpn_lop":
            pi = self.pi_train
            d = digamma(out.sum(dim=1, keepdim=True)) - digamma(out)
            uce = (pi @ d)[torch.arange(len(idx)), y].sum()
            return uce + reg * ((pi @ -dirichlet_entropy(out)[:, None]).sum() - self.h_pi)
        a = out[idx]
        uce = (digamma(a.sum(dim=1)) - digamma(a[torch.arange(len(idx)), y])).sum()
        return uce + reg * (-dirichlet_entropy(a)).sum()

    def val_ce(self):
        with torch.no_grad():
            out = self.output()
            if torch.isnan(out).any():
                sys.exit("NaN output in evaluation")
            p = mean_probs(self.kind, out, getattr(self, "pi", None))
            return -torch.log(p[self.val_nodes, self.y_val]).mean().item()

    grad_noise = 0.0

    def add_grad_noise(self):
        """Multiplies each gradient element by (1 + grad_noise*u), u ~ U(-1, 1)."""
        if not self.grad_noise:
            return
        gen = getattr(self, "_gen", None) or torch.Generator().manual_seed(1)
        self._gen = gen
        with torch.no_grad():
            for v in self.params.values():
                if v.grad is not None:
                    u = torch.rand(v.grad.shape, generator=gen, dtype=v.grad.dtype) * 2 - 1
                    v.grad.mul_(1 + self.grad_noise * u)

    def grad_norms(self):
        return {n: (self.params[n].grad.norm().item() if self.params[n].grad is not None else 0.0)
                for n in self.order}

    def adam(self, names, wd):
        return {"params": [self.params[n] for n in names], "lr": self.hp["lr"], "weight_decay": wd}

    def train(self, epochs):
        hp, log = self.hp, []
        if self.kind != "appnp" and hp["warmup_epochs"] > 0:
            warm = torch.optim.Adam([self.adam(self.groups["flows"], hp["flow_weight_decay"])])
            for e in range(1, hp["warmup_epochs"] + 1):
                warm.zero_grad()  # the flows' gradients only, as the reference
                loss = self.loss()
                loss.backward()
                self.add_grad_noise()
                log.append({"phase": "warmup", "epoch": e, "loss": loss.item(), "val_ce": None,
                            "grad_norms": self.grad_norms()})
                warm.step()
        groups = [self.adam(self.groups["others"], hp["weight_decay"])]
        if self.groups["flows"]:
            groups.append(self.adam(self.groups["flows"], hp["flow_weight_decay"]))
        opt = torch.optim.Adam(groups)
        best, best_epoch, best_state, since = math.inf, 0, None, 0
        for e in range(1, epochs + 1):
            opt.zero_grad()
            loss = self.loss()
            loss.backward()
            self.add_grad_noise()
            entry = {"phase": "train", "epoch": e, "loss": loss.item(), "val_ce": None,
                     "grad_norms": self.grad_norms()}
            opt.step()
            if e % hp["eval_every"] == 0:
                ce = self.val_ce()
                entry["val_ce"] = ce
                if ce < best:
                    best, best_epoch, since = ce, e, 0
                    best_state = {n: v.detach().clone() for n, v in self.params.items()}
                else:
                    since += 1
            log.append(entry)
            if since >= hp["patience"]:
                break
        if best_state is not None:
            with torch.no_grad():
                for n, v in best_state.items():
                    self.params[n].copy_(v)
        return log, best_epoch, best


class GoPCG:
    """The random stream cuqgnn draws its dropout from: Go's math/rand/v2
    PCG (a 128-bit LCG with the DXSM output function) of seeds (s1, s2)."""

    MUL = (2549297995355413924 << 64) | 4865540595714422341
    INC = (6364136223846793005 << 64) | 1442695040888963407
    M64, M128 = (1 << 64) - 1, (1 << 128) - 1

    def __init__(self, seed1, seed2):
        self.state = (seed1 << 64) | seed2

    def uint64s(self, n):
        out, s = np.empty(n, dtype=np.uint64), self.state
        mul, inc, m64, m128 = self.MUL, self.INC, self.M64, self.M128
        for k in range(n):
            s = (s * mul + inc) & m128
            hi, lo = s >> 64, s & m64
            hi ^= hi >> 32
            hi = (hi * 0xDA942042E4DD58B5) & m64
            hi ^= hi >> 48
            out[k] = (hi * (lo | 1)) & m64
        self.state = s
        return out

    def keep(self, n, p):
        """cuqgnn's dropout mask of n elements (ad.Tape.Dropout): one 64-bit
        draw per pair of elements, the low 32 bits for the first, the high
        for the second; an element is kept when its 32 bits are at least
        p·2³²."""
        u = self.uint64s((n + 1) // 2)
        bits = np.empty(2 * len(u), dtype=np.uint64)
        bits[0::2], bits[1::2] = u & 0xFFFFFFFF, u >> 32
        return bits[:n] >= np.uint64(min(int(p * 2.0**32), 2**32 - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir")
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    ap.add_argument("--epochs", type=int, help="main-phase epochs (default: the run's max_epochs)")
    ap.add_argument("--out", help="output directory (default: RUN_DIR)")
    ap.add_argument("--grad-noise", type=float, default=0.0,
                    help="multiply every gradient element by (1 + NOISE*u), u uniform in [-1, 1], before each "
                         "step: a control of how rounding-sized differences grow over the epochs (default 0)")
    ap.add_argument("--dropout", type=float, default=0.0,
                    help="dropout probability in training, where the reference has it: after the encoder's ReLU "
                         "(APPNP: before its output layer) and between the GCN or GAT layers (default 0)")
    ap.add_argument("--seed", type=int, default=0, help="seed of torch's generator, which draws the dropout (default 0)")
    ap.add_argument("--go-dropout", metavar="SEED,INIT[,STREAM]",
                    help="draw the dropout masks as cuqgnn does, from Go's PCG stream of the model's seed, init and "
                         "dropout stream (cuq's dropout stream, PCG(SEED, INIT + 2^32 + STREAM·2^40); STREAM 0 unless "
                         "given, as cuq.Builder.DropoutStream), so that both sides drop the same units")
    ap.add_argument("--exact-trigamma", action="store_true",
                    help="differentiate digamma with a float64-accurate trigamma instead of torch's, which is "
                         "off by up to 5e-10 relative (a control: the reference runs with torch's)")
    ap.add_argument("--measures-float64", action="store_true",
                    help="compute the uncertainty measures in float64 from the final output, whatever --dtype "
                         "(a control: in float32, EU = TU - AU loses the digits TU and AU share)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (default 1; another count changes the summation order)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="scatter_reduce", category=UserWarning)  # beta in torch 1.13
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.exact_trigamma:
        global digamma
        digamma = ExactDigamma.apply
    dtype = getattr(torch, args.dtype)
    r = Replica(args.run_dir, dtype)
    r.grad_noise, r.dropout = args.grad_noise, args.dropout
    if args.go_dropout:
        parts = [int(v) for v in args.go_dropout.split(",")]
        if len(parts) not in (2, 3):
            ap.error("--go-dropout: want SEED,INIT or SEED,INIT,STREAM")
        seed, init, stream = (parts + [0])[:3]
        r.go_rng = GoPCG(seed, init + (1 << 32) + (stream << 40))
    log, best_epoch, best = r.train(args.epochs or r.hp["max_epochs"])
    with torch.no_grad():
        out = r.output()
        pi = getattr(r, "pi", None)
        cls = mean_probs(r.kind, out, pi).argmax(dim=1).numpy()
        if args.measures_float64:
            out, pi = out.double(), None if pi is None else pi.double()
        ms = measures(r.kind, out, pi)
        ms = torch.stack(list(ms.values())).to(torch.float64).numpy()
        out = out.to(torch.float64).numpy()
    out_dir = args.out or args.run_dir
    os.makedirs(out_dir, exist_ok=True)
    out.astype("<f8").tofile(os.path.join(out_dir, "output.f64"))
    ms.astype("<f8").tofile(os.path.join(out_dir, "measures.f64"))
    cls.astype("<i8").tofile(os.path.join(out_dir, "class.i64"))
    result = {"dtype": args.dtype, "epochs": log, "best_epoch": best_epoch, "best_val_ce": best,
              "output": {"file": "output.f64", "dtype": "f8", "shape": list(out.shape)},
              "class": {"file": "class.i64", "dtype": "i8", "shape": [len(cls)]},
              "measures": {"names": MEASURES[:len(ms)], "file": "measures.f64", "dtype": "f8",
                           "shape": list(ms.shape)}}
    with open(os.path.join(out_dir, "result.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
