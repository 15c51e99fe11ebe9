"""Ipopt (CasADi's bundled Ipopt + MUMPS) on the two badly scaled HS71 variants of issue 17.

Usage: python3 bench-suites/peers/hs71_badly_scaled.py [ipopt_option=value ...]
Prints Ipopt's log and, per variant, the status, iterations and objective.
The same models are solver/tests/scaling.rs's `hs71_times_1e12` and `hs71_with_y`.
"""
import sys

import casadi as ca


def hs71_times_1e12():
    x = ca.SX.sym("x", 4)
    f = 1e12 * (x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2])
    g = ca.vertcat(1e12 * x[0] * x[1] * x[2] * x[3], ca.sumsqr(x))
    return dict(x=x, f=f, g=g), dict(x0=[1, 5, 5, 1], lbx=[1] * 4, ubx=[5] * 4,
                                     lbg=[25e12, 40], ubg=[ca.inf, 40])


def hs71_with_y():
    x = ca.SX.sym("x", 5)
    y = x[4]
    f = x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2] + 1e-12 * (y - 1e12 * x[0]) ** 2
    g = ca.vertcat(x[0] * x[1] * x[2] * x[3], ca.sumsqr(x[:4]), 1e-12 * y - x[0])
    inf = ca.inf
    return dict(x=x, f=f, g=g), dict(x0=[1, 5, 5, 1, 0], lbx=[1] * 4 + [-inf],
                                     ubx=[5] * 4 + [inf], lbg=[25, 40, 0], ubg=[inf, 40, 0])


def main():
    opts = {}
    for a in sys.argv[1:]:
        k, v = a.split("=", 1)
        try:
            v = float(v) if any(c in v for c in ".e") else int(v)
        except ValueError:
            pass
        opts[k] = v
    for name, build in [("hs71_times_1e12", hs71_times_1e12), ("hs71_with_y", hs71_with_y)]:
        nlp, args = build()
        solver = ca.nlpsol(name, "ipopt", nlp, {"ipopt": opts, "print_time": False})
        sol = solver(**args)
        st = solver.stats()
        print(f"{name}: {st['return_status']} iterations {st['iter_count']} "
              f"objective {float(sol['f']):.8g} x {[float(v) for v in sol['x'].nz]}")


if __name__ == "__main__":
    main()
