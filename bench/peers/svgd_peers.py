"""SVGD iterations written the way a researcher would write them in PyTorch
and in numpy, timed for comparison with pkg/svgd's benchmarks.

These are measurement peers, not part of the tests. Shapes match the Go
benchmarks in pkg/svgd/svgd_bench_test.go:

  logistic  Covertype's shape: 10,000 rows of 54 uniform features and a bias
            column, theta = (w, log alpha), d = 56, 100 particles,
            minibatch 100 (BenchmarkIteration).
  network   Naval's shape: 10,741 rows of 16 features, one hidden layer of
            50 ReLU units, theta = (W1, b1, w2, b2, log gamma, log lambda),
            d = 903, 20 particles, minibatch 100 (BenchmarkIterationBNN).

The numpy peer follows the DartML SVGD code (Liu and Wang): svgd.py's kernel
with scipy's pdist/squareform and np.median, the logistic gradient of
bayesian_logistic_regression.py, and for the network a loop over the
particles as bayesian_nn.py has (there each particle's gradient came from
Theano; here it is the hand-written backward pass). The PyTorch peer is a
straightforward float64 port with all particles batched, hand-written
gradients (checked against autograd by check_grads.py) and torch.median
(the lower middle value) for the median heuristic.

Usage: python3 svgd_peers.py {torch,numpy} {logistic,network} ITERS SAMPLES
prints one line per sample: "<peer> <model> wall_us=<w> cpu_us=<c>" (the
peer named torch2 when PEER_THREADS=2), the
per-iteration wall and process-CPU time over ITERS iterations, after a
warm-up of ITERS iterations. Run with one thread (run.sh sets it).
"""
import math
import os
import sys
import time

import numpy as np

A0_LR, B0_LR = 1.0, 0.01
A0_NN, B0_NN = 1.0, 0.1
FUDGE, MOMENTUM, STEP = 1e-6, 0.9, 1e-3
# PyTorch's intra-op threads (PEER_THREADS, default 1); numpy's come from
# OPENBLAS_NUM_THREADS.
THREADS = int(os.environ.get("PEER_THREADS", "1"))


def logistic_data(rng, n=10000, p=55):
    X = rng.random((n, p))
    X[:, -1] = 1.0
    w = rng.standard_normal(p)
    prob = 1.0 / (1.0 + np.exp(-X @ w))
    y = np.where(rng.random(n) < prob, 1.0, -1.0)
    return X, y


def network_data(rng, n=10741, p=16):
    return rng.standard_normal((n, p)), rng.standard_normal(n)


class Batches:
    """DartML's minibatches: consecutive slices of one fixed permutation."""

    def __init__(self, rng, N, B):
        self.perm, self.N, self.B, self.it = rng.permutation(N), N, B, 0

    def next(self):
        idx = [i % self.N for i in range(self.it * self.B, (self.it + 1) * self.B)]
        self.it += 1
        return self.perm[idx]


# ---------------------------------------------------------------- numpy

def np_logistic_grad(theta, Xs, Ys, N):
    # bayesian_logistic_regression.py's dlnprob.
    w = theta[:, :-1]
    alpha = np.exp(theta[:, -1])
    d = w.shape[1]
    wt = np.multiply((alpha / 2), np.sum(w ** 2, axis=1))
    coff = np.matmul(Xs, w.T)
    y_hat = 1.0 / (1.0 + np.exp(-1 * coff))
    dw_data = np.matmul(((np.tile(np.vstack(Ys), (1, theta.shape[0])) + 1) / 2.0 - y_hat).T, Xs)
    dw_prior = -np.multiply(np.tile(np.vstack(alpha), (1, d)), w)
    dw = dw_data * 1.0 * N / Xs.shape[0] + dw_prior
    dalpha = d / 2.0 - wt + (A0_LR - 1) - B0_LR * alpha + 1
    return np.hstack([dw, np.vstack(dalpha)])


def nn_unpack(theta, p, h):
    W1 = theta[: p * h].reshape(p, h)
    b1 = theta[p * h: p * h + h]
    w2 = theta[p * h + h: p * h + 2 * h]
    b2 = theta[p * h + 2 * h]
    return W1, b1, w2, b2, theta[-2], theta[-1]


def np_network_grad_one(theta, Xs, Ys, N, h):
    # The gradient of bayesian_nn.py's log posterior for one particle.
    p = Xs.shape[1]
    W1, b1, w2, b2, lg, ll = nn_unpack(theta, p, h)
    gamma, lam = math.exp(lg), math.exp(ll)
    Z = Xs @ W1 + b1
    A = np.maximum(Z, 0.0)
    r = A @ w2 + b2 - Ys
    B = Xs.shape[0]
    g = -gamma * r * (N / B)
    dw2 = A.T @ g
    db2 = g.sum()
    dZ = np.outer(g, w2) * (Z > 0)
    dW1 = Xs.T @ dZ
    db1 = dZ.sum(axis=0)
    nw = theta.size - 2
    sq = (theta[:-2] ** 2).sum()
    grad = np.concatenate([dW1.ravel(), db1, dw2, [db2]]) - lam * theta[:-2]
    dlg = 0.5 * N - 0.5 * gamma * (r @ r) * (N / B) + (A0_NN - 1) - B0_NN * gamma + 1
    dll = 0.5 * nw - 0.5 * lam * sq + (A0_NN - 1) - B0_NN * lam + 1
    return np.concatenate([grad, [dlg, dll]])


def np_svgd_kernel(theta):
    # svgd.py's svgd_kernel with the median heuristic.
    from scipy.spatial.distance import pdist, squareform
    sq_dist = pdist(theta)
    pairwise_dists = squareform(sq_dist) ** 2
    h = np.median(pairwise_dists)
    h = np.sqrt(0.5 * h / np.log(theta.shape[0] + 1))
    Kxy = np.exp(-pairwise_dists / h ** 2 / 2)
    dxkxy = -np.matmul(Kxy, theta)
    sumkxy = np.sum(Kxy, axis=1)
    for i in range(theta.shape[1]):
        dxkxy[:, i] = dxkxy[:, i] + np.multiply(theta[:, i], sumkxy)
    dxkxy = dxkxy / (h ** 2)
    return Kxy, dxkxy


# ---------------------------------------------------------------- torch

def torch_logistic_grad(torch, theta, Xs, Ys, N):
    w = theta[:, :-1]
    alpha = torch.exp(theta[:, -1])
    d = w.shape[1]
    y_hat = torch.sigmoid(Xs @ w.T)
    t = ((Ys + 1) / 2).unsqueeze(1) - y_hat
    dw = (t.T @ Xs) * (N / Xs.shape[0]) - alpha.unsqueeze(1) * w
    dalpha = d / 2.0 - alpha / 2 * (w * w).sum(1) + (A0_LR - 1) - B0_LR * alpha + 1
    return torch.cat([dw, dalpha.unsqueeze(1)], 1)


def torch_network_grad(torch, theta, Xs, Ys, N, h):
    n, _ = theta.shape
    B, p = Xs.shape
    W1 = theta[:, : p * h].reshape(n, p, h)
    b1 = theta[:, p * h: p * h + h]
    w2 = theta[:, p * h + h: p * h + 2 * h]
    b2 = theta[:, p * h + 2 * h]
    gamma, lam = torch.exp(theta[:, -2]), torch.exp(theta[:, -1])
    Z = torch.matmul(Xs, W1) + b1.unsqueeze(1)             # n × B × h
    A = torch.relu(Z)
    r = torch.bmm(A, w2.unsqueeze(2)).squeeze(2) + b2.unsqueeze(1) - Ys
    g = -(gamma * (N / B)).unsqueeze(1) * r                  # n × B
    dw2 = torch.bmm(g.unsqueeze(1), A).squeeze(1)
    db2 = g.sum(1, keepdim=True)
    dZ = g.unsqueeze(2) * w2.unsqueeze(1) * (Z > 0)
    dW1 = torch.matmul(Xs.T, dZ).reshape(n, p * h)
    db1 = dZ.sum(1)
    w = theta[:, :-2]
    nw = w.shape[1]
    dw = torch.cat([dW1, db1, dw2, db2], 1) - lam.unsqueeze(1) * w
    dlg = 0.5 * N - 0.5 * gamma * (r * r).sum(1) * (N / B) + (A0_NN - 1) - B0_NN * gamma + 1
    dll = 0.5 * nw - 0.5 * lam * (w * w).sum(1) + (A0_NN - 1) - B0_NN * lam + 1
    return torch.cat([dw, dlg.unsqueeze(1), dll.unsqueeze(1)], 1)


def torch_svgd_phi(torch, theta, grad, h2=None):
    """SVGD's direction; h2 = h² from the median heuristic unless given."""
    n = theta.shape[0]
    sq = (theta * theta).sum(1)
    D = (sq.unsqueeze(1) + sq.unsqueeze(0) - 2 * theta @ theta.T).clamp_min_(0)
    if h2 is None:
        h2 = 0.5 * torch.median(D) / math.log(n + 1)
    K = torch.exp(-D / (2 * h2))
    dxkxy = (theta * K.sum(1, keepdim=True) - K @ theta) / h2
    return (K @ grad + dxkxy) / n


# ---------------------------------------------------------------- setup

def setup(peer, model):
    rng = np.random.default_rng(1)
    if model == "logistic":
        X, y = logistic_data(rng)
        n, B = 100, 100
        theta = 0.1 * rng.standard_normal((n, X.shape[1] + 1))
    else:
        X, y = network_data(rng)
        n, B, h = 20, 100, 50
        d = X.shape[1] * h + 2 * h + 1 + 2
        theta = 0.1 * rng.standard_normal((n, d))
    N = X.shape[0]
    batches = Batches(rng, N, B)
    hist = np.zeros_like(theta)
    state = {"it": 0}

    if peer == "numpy":
        def step():
            idx = batches.next()
            Xs, Ys = X[idx], y[idx]
            nonlocal theta, hist
            if model == "logistic":
                g = np_logistic_grad(theta, Xs, Ys, N)
            else:
                g = np.zeros_like(theta)
                for i in range(theta.shape[0]):
                    g[i] = np_network_grad_one(theta[i], Xs, Ys, N, 50)
            kxy, dxkxy = np_svgd_kernel(theta)
            grad_theta = (np.matmul(kxy, g) + dxkxy) / theta.shape[0]
            if state["it"] == 0:
                hist = hist + grad_theta ** 2
            else:
                hist = MOMENTUM * hist + (1 - MOMENTUM) * (grad_theta ** 2)
            theta = theta + STEP * np.divide(grad_theta, FUDGE + np.sqrt(hist))
            state["it"] += 1
        return step

    import torch
    torch.set_num_threads(THREADS)
    tX, ty = torch.from_numpy(X), torch.from_numpy(y)
    tth, thist = torch.from_numpy(theta.copy()), torch.from_numpy(hist.copy())

    def tstep():
        nonlocal tth, thist
        idx = torch.from_numpy(batches.next())
        Xs, Ys = tX[idx], ty[idx]
        if model == "logistic":
            g = torch_logistic_grad(torch, tth, Xs, Ys, N)
        else:
            g = torch_network_grad(torch, tth, Xs, Ys, N, 50)
        phi = torch_svgd_phi(torch, tth, g)
        if state["it"] == 0:
            thist = thist + phi * phi
        else:
            thist = MOMENTUM * thist + (1 - MOMENTUM) * phi * phi
        tth = tth + STEP * phi / (FUDGE + torch.sqrt(thist))
        state["it"] += 1
    return tstep


def main():
    peer, model, iters, samples = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    step = setup(peer, model)
    for _ in range(iters):
        step()
    for _ in range(samples):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(iters):
            step()
        w1, c1 = time.perf_counter(), time.process_time()
        print(f"{peer}{'' if THREADS == 1 else THREADS} {model} wall_us={(w1 - w0) / iters * 1e6:.1f} cpu_us={(c1 - c0) / iters * 1e6:.1f}", flush=True)


if __name__ == "__main__":
    main()
