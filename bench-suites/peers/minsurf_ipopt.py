"""Ipopt peer for the COPS minimal surface with obstacle: the same model as
bench-suites/src/cops/minsurf.rs (piecewise-linear elements on an (NX + 2) × (NY + 2) grid;
boundary values, v ≥ 0 and the obstacle v ≥ 1 on [1/4, 3/4]² as constraint rows; the same
start 1 − (2x − 1)²), built with CasADi and solved by its bundled Ipopt + MUMPS with
default options (tol 1e-8, as the harness).

Usage: python3 bench-suites/peers/minsurf_ipopt.py NX NY [ipopt_option=value ...]
Prints Ipopt's log and one summary line: `minsurf:NXxNY status iterations area seconds`.
"""
import math
import sys
import time

import casadi as ca


def build(nx, ny):
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    area = 0.5 * hx * hy
    # v[i, j] for i in 1..=nx+2, j in 1..=ny+2, stored 0-based, row-major in i
    v = ca.SX.sym("v", (nx + 2) * (ny + 2))

    def at(i, j):
        return v[(i - 1) * (ny + 2) + (j - 1)]

    def profile(i):
        return 1.0 - (2.0 * ((i - 1) / (nx + 1)) - 1.0) ** 2

    v0 = [profile(i) for i in range(1, nx + 3) for _ in range(1, ny + 3)]
    f = 0
    for i in range(1, nx + 2):
        for j in range(1, ny + 2):
            f += area * ca.sqrt(1.0 + ((at(i + 1, j) - at(i, j)) / hx) ** 2
                                + ((at(i, j + 1) - at(i, j)) / hy) ** 2)
    for i in range(2, nx + 3):
        for j in range(2, ny + 3):
            f += area * ca.sqrt(1.0 + ((at(i - 1, j) - at(i, j)) / hx) ** 2
                                + ((at(i, j - 1) - at(i, j)) / hy) ** 2)
    rows, lb, ub = [], [], []

    def add(e, lo, hi):
        rows.append(e)
        lb.append(lo)
        ub.append(hi)

    for i in (1, nx + 2):
        for j in range(1, ny + 3):
            add(at(i, j), 0.0, 0.0)
    for i in range(1, nx + 3):
        for j in (1, ny + 2):
            add(at(i, j) - 1.0 + (2.0 * hx * (i - 1) - 1.0) ** 2, 0.0, 0.0)
    for i in range(1, nx + 3):
        for j in range(1, ny + 3):
            add(at(i, j), 0.0, ca.inf)
    xa, xb = math.floor(0.25 / hx), math.ceil(0.75 / hx)
    ya, yb = math.floor(0.25 / hy), math.ceil(0.75 / hy)
    for i in range(xa + 1, xb + 2):
        for j in range(ya + 1, yb + 2):
            add(at(i, j), 1.0, ca.inf)
    nlp = dict(x=v, f=f, g=ca.vertcat(*rows))
    return nlp, dict(x0=v0, lbg=lb, ubg=ub)


def main():
    nx, ny = int(sys.argv[1]), int(sys.argv[2])
    opts = {"print_level": 5, "tol": 1e-8}
    for a in sys.argv[3:]:
        k, val = a.split("=", 1)
        try:
            val = int(val)
        except ValueError:
            try:
                val = float(val)
            except ValueError:
                pass
        opts[k] = val
    nlp, args = build(nx, ny)
    solver = ca.nlpsol("minsurf", "ipopt", nlp, {"ipopt": opts, "print_time": False})
    t = time.time()
    sol = solver(**args)
    st = solver.stats()
    print(f"minsurf:{nx}x{ny} {st['return_status']} {st['iter_count']} {float(sol['f']):.6e} "
          f"{time.time() - t:.2f}")


if __name__ == "__main__":
    main()
