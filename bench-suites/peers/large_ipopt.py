"""Ipopt peer for the large set of issue 16: the same models as the harness (variables,
rows, bounds and start points of bench-suites/src/lv/problems.rs, cops/bearing.rs,
cops/chain.rs and, through acopf_ipopt.py, opf/model.rs), built with CasADi and solved by
its bundled Ipopt + MUMPS with default options and tol 1e-8 (as the harness).

Usage:
  python3 bench-suites/peers/large_ipopt.py [--pglib-dir DIR] [--json FILE]
          [INSTANCE ...] [-- ipopt_option=value ...]

INSTANCE is `rosenbrock:N`, `cragg_levy:N`, `bearing:NXxNY`, `chain:N` or a PGLIB case
name (`case9591_goc`); without instances, the issue's eight. Ipopt's log goes to stderr
(print_level 5 unless given); one JSON object per instance goes to stdout (and to --json
FILE, appended), with the harness's keys: suite, instance, param, status, success,
iterations, objective, solve_s (Ipopt's solve wall time, model construction excluded as
in the harness) and build_s. Combine with the harness's records by ratio_table.py.
"""
import contextlib
import json
import math
import os
import sys
import time

import casadi as ca

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acopf_ipopt  # noqa: E402

DEFAULT = ["rosenbrock:200000", "cragg_levy:200000", "bearing:320x320", "chain:20000",
           "case2869_pegase", "case4661_sdet", "case9591_goc", "case10000_goc"]


def rosenbrock(n):
    """LV problem 1 (lv/problems.rs `rosenbrock`): n variables, n − 2 equality rows."""
    x = ca.SX.sym("x", n)
    x0 = [-1.2 if i % 2 == 1 else 1.0 for i in range(1, n + 1)]
    a, b = x[0:n - 1], x[1:n]
    f = ca.sum1(100.0 * (a ** 2 - b) ** 2 + (a - 1.0) ** 2)
    a, b, c = x[0:n - 2], x[1:n - 1], x[2:n]
    g = (3.0 * b ** 3 + 2.0 * c - 5.0 + ca.sin(b - c) * ca.sin(b + c) + 4.0 * b
         - a * ca.exp(a - b) - 3.0)
    return dict(x=x, f=f, g=g), dict(x0=x0, lbg=0.0, ubg=0.0)


def cragg_levy(n):
    """LV problem 4 (lv/problems.rs `cragg_levy`): terms i = 1 .. n/2 − 1, n − 2 rows."""
    x = ca.SX.sym("x", n)
    x0 = [1.0 if i % 4 == 1 else 2.0 for i in range(1, n + 1)]
    k = n // 2 - 1
    # x_{2i−1}, x_{2i}, x_{2i+1}, x_{2i+2} for i = 1..k (0-based 2i−2 .. 2i+1)
    a, b, c, d = (x[[2 * i - 2 + s for i in range(1, k + 1)]] for s in range(4))
    f = ca.sum1((ca.exp(a) - b) ** 4 + 100.0 * (b - c) ** 6 + ca.tan(c - d) ** 4
                + 8.0 * a ** 8 + (d - 1.0) ** 2)
    a, b, c = x[0:n - 2], x[1:n - 1], x[2:n]
    g = 8.0 * b * (b ** 2 - a) - 2.0 * (1.0 - b) + 4.0 * (b - c ** 2)
    return dict(x=x, f=f, g=g), dict(x0=x0, lbg=0.0, ubg=0.0)


def bearing(nx, ny):
    """COPS journal bearing (cops/bearing.rs): v ≥ 0 on an (nx+2) × (ny+2) grid, the four
    sides as equality rows v = 0."""
    b_len, ecc = 10.0, 0.1
    hx = 2.0 * math.pi / (nx + 1)
    hy = 2.0 * b_len / (ny + 1)
    scale = 0.5 * hx * hy / 6.0

    def wq(i):
        return (1.0 + ecc * math.cos((i - 1) * hx)) ** 3

    v = ca.SX.sym("v", (nx + 2) * (ny + 2))

    def at(i, j):
        return v[(i - 1) * (ny + 2) + (j - 1)]

    x0 = [max(math.sin((i - 1) * hx), 0.0) for i in range(1, nx + 3) for _ in range(1, ny + 3)]
    terms = []
    for i in range(1, nx + 2):
        c = scale * (wq(i) + 2.0 * wq(i + 1))
        for j in range(1, ny + 2):
            terms.append(c * (((at(i + 1, j) - at(i, j)) / hx) ** 2
                              + ((at(i, j + 1) - at(i, j)) / hy) ** 2))
    for i in range(2, nx + 3):
        c = scale * (2.0 * wq(i) + 2.0 * wq(i - 1))
        for j in range(2, ny + 3):
            terms.append(c * (((at(i - 1, j) - at(i, j)) / hx) ** 2
                              + ((at(i, j - 1) - at(i, j)) / hy) ** 2))
    for i in range(1, nx + 3):
        c = -hx * hy * ecc * math.sin((i - 1) * hx)
        for j in range(1, ny + 3):
            terms.append(c * at(i, j))
    f = ca.sum1(ca.vertcat(*terms))
    rows = []
    for j in (1, ny + 2):
        for i in range(1, nx + 3):
            rows.append(at(i, j))
    for i in (1, nx + 2):
        for j in range(1, ny + 3):
            rows.append(at(i, j))
    g = ca.vertcat(*rows)
    return dict(x=v, f=f, g=g), dict(x0=x0, lbx=0.0, ubx=ca.inf, lbg=0.0, ubg=0.0)


def chain(n):
    """COPS hanging chain (cops/chain.rs): nh = max((n − 4)/4, 2) intervals, variables
    u, x1, x2, x3 (nh + 1 each), trapezoidal rows."""
    nh = max((max(n, 4) - 4) // 4, 2)
    length, a_val, b_val, tf = 4.0, 1.0, 3.0, 1.0
    h = tf / nh
    tmin = 0.25 if b_val > a_val else 0.75

    def u0(k):
        return 4.0 * abs(b_val - a_val) * (k / nh - tmin)

    def x10(k):
        t = k / nh
        return 4.0 * abs(b_val - a_val) * t * (0.5 * t - tmin) + a_val

    u, x1 = ca.SX.sym("u", nh + 1), ca.SX.sym("x1", nh + 1)
    x2, x3 = ca.SX.sym("x2", nh + 1), ca.SX.sym("x3", nh + 1)
    ks = range(1, nh + 2)
    x0 = [u0(k) for k in ks] + [x10(k) for k in ks] + [x10(k) * u0(k) for k in ks] \
        + [u0(k) for k in ks]
    f = x2[nh]
    lo, hi = slice(0, nh), slice(1, nh + 1)
    s = ca.sqrt(1.0 + u ** 2)
    rows = [
        x1[hi] - x1[lo] - 0.5 * h * (u[lo] + u[hi]),
        x1[0] - a_val, x1[nh] - b_val, x2[0], x3[0], x3[nh] - length,
        x2[hi] - x2[lo] - 0.5 * h * (x1[lo] * s[lo] + x1[hi] * s[hi]),
        x3[hi] - x3[lo] - 0.5 * h * (s[lo] + s[hi]),
    ]
    x = ca.vertcat(u, x1, x2, x3)
    return dict(x=x, f=f, g=ca.vertcat(*rows)), dict(x0=x0, lbg=0.0, ubg=0.0)


def build(instance, pglib_dir):
    """(suite, name, param, nlp, args) of an instance string."""
    name, _, param = instance.partition(":")
    if name == "rosenbrock":
        return ("lv", name, param) + rosenbrock(int(param))
    if name == "cragg_levy":
        return ("lv", name, param) + cragg_levy(int(param))
    if name == "bearing":
        nx, ny = (int(v) for v in param.split("x"))
        return ("cops", name, param) + bearing(nx, ny)
    if name == "chain":
        return ("cops", name, param) + chain(int(param))
    case = name if name.startswith("pglib_opf_") else "pglib_opf_" + name
    here = os.path.dirname(os.path.abspath(__file__))
    # the harness's lookup: --pglib-dir / $SIMDNLP_PGLIB_DIR, the shipped cases, then
    # ../shared/data/pglib-opf next to the workspace root
    dirs = [pglib_dir, os.environ.get("SIMDNLP_PGLIB_DIR"),
            os.path.join(here, "..", "data", "pglib-opf"),
            os.path.join(here, "..", "..", "..", "shared", "data", "pglib-opf")]
    paths = [os.path.join(d, case + ".m") for d in dirs if d]
    path = next((p for p in paths if os.path.exists(p)), None)
    if path is None:
        raise SystemExit(f"{case}.m not found in {dirs} (use --pglib-dir)")
    nlp, args = acopf_ipopt.build(path)
    return ("opf", case.removeprefix("pglib_opf_"), "") + (nlp, args)


def parse_options(items):
    opts = {"print_level": 5, "tol": 1e-8}
    for a in items:
        k, v = a.split("=", 1)
        for conv in (int, float):
            try:
                v = conv(v)
                break
            except ValueError:
                pass
        opts[k] = v
    return opts


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    pglib_dir = None
    json_path = None
    instances = []
    while argv:
        a = argv.pop(0)
        if a == "--pglib-dir":
            pglib_dir = argv.pop(0)
        elif a == "--json":
            json_path = argv.pop(0)
        else:
            instances.append(a)
    opts = parse_options(extra)
    for instance in instances or DEFAULT:
        t0 = time.time()
        suite, name, param, nlp, args = build(instance, pglib_dir)
        solver = ca.nlpsol(name, "ipopt", nlp, {"ipopt": opts, "print_time": False})
        build_s = time.time() - t0
        t = time.time()
        # Ipopt prints to stdout: send its log to stderr, keep stdout for the records.
        with contextlib.redirect_stdout(sys.stderr):
            sys.stdout.flush()
            fd = os.dup(1)
            os.dup2(2, 1)
            try:
                sol = solver(**args)
            finally:
                sys.stdout.flush()
                os.dup2(fd, 1)
                os.close(fd)
        solve_s = time.time() - t
        st = solver.stats()
        rec = dict(suite=suite, instance=name, param=param, backend="ipopt",
                   status=st["return_status"], success=bool(st["success"]),
                   iterations=int(st["iter_count"]), objective=float(sol["f"]),
                   solve_s=solve_s, build_s=build_s)
        line = json.dumps(rec)
        print(line, flush=True)
        if json_path:
            with open(json_path, "a", encoding="utf-8") as out:
                out.write(line + "\n")


if __name__ == "__main__":
    main()
