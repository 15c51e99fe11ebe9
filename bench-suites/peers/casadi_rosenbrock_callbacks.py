"""CasADi SX peer for the callback timings of Lukšan–Vlček rosenbrock (problem 1): the same
model as bench-suites/src/lv/problems.rs (`rosenbrock`), start point and multipliers as
`simdnlp-bench callbacks` (x0, y = 1, objective weight 1).

The five functions are the ones CasADi's nlpsol oracle gives Ipopt, built from SX
expressions (CasADi's SX virtual machine evaluates them):
  nlp_f(x) -> f, nlp_g(x) -> g, nlp_grad_f(x) -> (f, ∇f), nlp_jac_g(x) -> (g, J),
  nlp_hess_l(x, σ, λ) -> triu(∇²(σ f + λᵀ g)).
Timing follows the paper's protocol, as bench-suites/src/harness/timing.rs: one warm-up
call, the batch size calibrated from the minimum of three single calls so that a batch
lasts at least SECONDS, and the best of three batches, per call. Inputs and outputs are
bound once through CasADi's buffer API (no conversion per call).

Usage: python3 bench-suites/peers/casadi_rosenbrock_callbacks.py [N] [SECONDS]
Prints one line per function: `name seconds_per_call`.
"""
import sys
import time

import casadi as ca
import numpy as np


def model(n):
    x = ca.SX.sym("x", n)
    a, b = x[: n - 1], x[1:]
    f = ca.sum1(100.0 * (a**2 - b) ** 2 + (a - 1.0) ** 2)
    p, q, r = x[: n - 2], x[1 : n - 1], x[2:]
    g = (
        3.0 * q**3
        + 2.0 * r
        - 5.0
        + ca.sin(q - r) * ca.sin(q + r)
        + 4.0 * q
        - p * ca.exp(p - q)
        - 3.0
    )
    sigma = ca.SX.sym("sigma")
    lam = ca.SX.sym("lam", n - 2)
    lag = sigma * f + ca.dot(lam, g)
    hess = ca.triu(ca.hessian(lag, x)[0])
    return {
        "nlp_f": ca.Function("nlp_f", [x], [f]),
        "nlp_g": ca.Function("nlp_g", [x], [g]),
        "nlp_grad_f": ca.Function("nlp_grad_f", [x], [f, ca.gradient(f, x)]),
        "nlp_jac_g": ca.Function("nlp_jac_g", [x], [g, ca.jacobian(g, x)]),
        "nlp_hess_l": ca.Function("nlp_hess_l", [x, sigma, lam], [hess]),
    }


def bound(fun, args):
    """A zero-argument evaluator of `fun` with inputs `args` and preallocated outputs."""
    buf, run = fun.buffer()
    keep = []
    for i, a in enumerate(args):
        a = np.ascontiguousarray(a, dtype=np.float64)
        keep.append(a)
        buf.set_arg(i, memoryview(a))
    for i in range(fun.n_out()):
        out = np.zeros(fun.nnz_out(i))
        keep.append(out)
        buf.set_res(i, memoryview(out))
    return lambda: run(), (buf, keep)


def time_per_call(f, seconds):
    f()
    single = min(_once(f) for _ in range(3))
    n = int(min(max(np.ceil(seconds / max(single, 1e-9)), 1), 1e9))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def _once(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    t0 = time.perf_counter()
    funs = model(n)
    print(f"# casadi {ca.__version__}, N = {n}, built in {time.perf_counter() - t0:.2f} s")
    x0 = np.array([-1.2 if i % 2 == 0 else 1.0 for i in range(n)])
    y = np.ones(n - 2)
    args = {
        "nlp_f": [x0],
        "nlp_g": [x0],
        "nlp_grad_f": [x0],
        "nlp_jac_g": [x0],
        "nlp_hess_l": [x0, np.array([1.0]), y],
    }
    for name, fun in funs.items():
        run, _keep = bound(fun, args[name])
        print(f"{name} {time_per_call(run, seconds):.6e}")


if __name__ == "__main__":
    main()
