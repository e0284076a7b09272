"""Checks the peers' hand-written gradients against PyTorch's autograd of
the log posteriors they differentiate, and the two peers' SVGD directions
against each other (with the same bandwidth). Prints the worst relative
differences; exits 1 if any exceeds 1e-10."""
import math
import sys

import numpy as np
import torch

import svgd_peers as sp

torch.set_default_dtype(torch.float64)


def logistic_logp(theta, Xs, Ys, N):
    w, la = theta[:, :-1], theta[:, -1]
    alpha = torch.exp(la)
    d = w.shape[1]
    z = Ys.unsqueeze(1) * (Xs @ w.T)                     # y ∈ {−1, 1}
    lik = torch.nn.functional.logsigmoid(z).sum(0) * (N / Xs.shape[0])
    prior_w = 0.5 * d * la - alpha / 2 * (w * w).sum(1)
    prior_a = (sp.A0_LR - 1) * la - sp.B0_LR * alpha + la  # Jacobian of log α
    return (lik + prior_w + prior_a).sum()


def network_logp(theta, Xs, Ys, N, h):
    n = theta.shape[0]
    B, p = Xs.shape
    W1 = theta[:, : p * h].reshape(n, p, h)
    b1 = theta[:, p * h: p * h + h]
    w2 = theta[:, p * h + h: p * h + 2 * h]
    b2 = theta[:, p * h + 2 * h]
    lg, ll = theta[:, -2], theta[:, -1]
    pred = torch.bmm(torch.relu(torch.matmul(Xs, W1) + b1.unsqueeze(1)), w2.unsqueeze(2)).squeeze(2) + b2.unsqueeze(1)
    lik = -0.5 * B * (math.log(2 * math.pi) - lg) - torch.exp(lg) / 2 * ((pred - Ys) ** 2).sum(1)
    prior_g = (sp.A0_NN - 1) * lg - sp.B0_NN * torch.exp(lg) + lg
    nw = theta.shape[1] - 2
    prior_w = -0.5 * nw * (math.log(2 * math.pi) - ll) - torch.exp(ll) / 2 * (theta[:, :-2] ** 2).sum(1) \
        + (sp.A0_NN - 1) * ll - sp.B0_NN * torch.exp(ll) + ll
    return (lik * N / B + prior_g + prior_w).sum()


def rel(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def main():
    rng = np.random.default_rng(7)
    worst = 0.0
    X, y = sp.logistic_data(rng, n=500)
    theta = 0.3 * rng.standard_normal((7, X.shape[1] + 1))
    idx = rng.permutation(500)[:100]
    t = torch.tensor(theta, requires_grad=True)
    logistic_logp(t, torch.tensor(X[idx]), torch.tensor(y[idx]), 500).backward()
    auto = t.grad.numpy()
    g_np = sp.np_logistic_grad(theta, X[idx], y[idx], 500)
    g_t = sp.torch_logistic_grad(torch, torch.tensor(theta), torch.tensor(X[idx]), torch.tensor(y[idx]), 500).numpy()
    for name, g in (("numpy logistic", g_np), ("torch logistic", g_t)):
        r = rel(g, auto)
        worst = max(worst, r)
        print(f"{name}: max relative difference to autograd {r:.2e}")

    X, y = sp.network_data(rng, n=600)
    h = 50
    d = X.shape[1] * h + 2 * h + 3
    theta = 0.2 * rng.standard_normal((5, d))
    idx = rng.permutation(600)[:100]
    t = torch.tensor(theta, requires_grad=True)
    network_logp(t, torch.tensor(X[idx]), torch.tensor(y[idx]), 600, h).backward()
    auto = t.grad.numpy()
    g_np = np.stack([sp.np_network_grad_one(theta[i], X[idx], y[idx], 600, h) for i in range(5)])
    g_t = sp.torch_network_grad(torch, torch.tensor(theta), torch.tensor(X[idx]), torch.tensor(y[idx]), 600, h).numpy()
    for name, g in (("numpy network", g_np), ("torch network", g_t)):
        r = rel(g, auto)
        worst = max(worst, r)
        print(f"{name}: max relative difference to autograd {r:.2e}")

    # The directions: numpy's kernel against torch's at numpy's bandwidth.
    theta = rng.standard_normal((9, 4))
    grad = rng.standard_normal((9, 4))
    K, dxk = sp.np_svgd_kernel(theta)
    phi_np = (K @ grad + dxk) / 9
    from scipy.spatial.distance import pdist, squareform
    h2 = 0.5 * np.median(squareform(pdist(theta)) ** 2) / np.log(10)  # svgd.py's h²
    phi_t = sp.torch_svgd_phi(torch, torch.tensor(theta), torch.tensor(grad), h2).numpy()
    r = rel(phi_t, phi_np)
    worst = max(worst, r)
    print(f"directions, torch against numpy at one bandwidth: {r:.2e}")
    sys.exit(0 if worst < 1e-10 else 1)


if __name__ == "__main__":
    main()
