"""Ipopt peer for the PGLIB AC OPF: the same model as bench-suites/src/opf/model.rs
(polar form, the same variables, rows, bounds and start point), built with CasADi and
solved by its bundled Ipopt + MUMPS with default options (tol 1e-8, as the harness).

Usage: python3 bench-suites/peers/acopf_ipopt.py CASE.m [ipopt_option=value ...]
Prints Ipopt's log (print_level 5 unless given) and one summary line:
`CASE status iterations objective seconds`.
"""
import math
import re
import sys
import time

import casadi as ca


def matrix(text, name):
    """Rows of the MATPOWER matrix `mpc.NAME = [ ... ];` as lists of floats."""
    m = re.search(r"mpc\." + name + r"\s*=\s*\[(.*?)\]\s*;", text, re.S)
    rows = []
    for line in m.group(1).split("\n"):
        line = line.split("%")[0]
        for part in line.split(";"):
            vals = [float(v) for v in part.replace(",", " ").split()]
            if vals:
                rows.append(vals)
    return rows


def read_case(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    base = float(re.search(r"mpc\.baseMVA\s*=\s*([0-9.eE+-]+)", text).group(1))
    bus, gen = matrix(text, "bus"), matrix(text, "gen")
    branch, cost = matrix(text, "branch"), matrix(text, "gencost")
    return base, bus, gen, branch, cost


def build(path):
    base, bus_rows, gen_rows, branch_rows, cost_rows = read_case(path)
    deg = math.pi / 180
    index, buses, refs = {}, [], []
    for r in bus_rows:
        if r[1] == 4:
            index[int(r[0])] = None
            continue
        index[int(r[0])] = len(buses)
        if r[1] == 3:
            refs.append(len(buses))
        buses.append(dict(pd=r[2] / base, qd=r[3] / base, gs=r[4] / base, bs=r[5] / base,
                          vmax=r[11], vmin=r[12]))
    gens = []
    for r, c in zip(gen_rows, cost_rows):
        b = index[int(r[0])]
        if b is None or r[7] <= 0:
            continue
        n = int(c[3])
        coef = lambda k: c[4 + n - 1 - k] if k < n else 0.0
        gens.append(dict(bus=b, pmax=r[8] / base, pmin=r[9] / base, qmax=r[3] / base,
                         qmin=r[4] / base, c2=coef(2) * base * base, c1=coef(1) * base,
                         c0=coef(0)))
    branches = []
    for r in branch_rows:
        f, t = index[int(r[0])], index[int(r[1])]
        if f is None or t is None or r[10] <= 0:
            continue
        rr, xx, bb = r[2], r[3], r[4]
        z2 = rr * rr + xx * xx
        g, b = rr / z2, -xx / z2
        tap = r[8] if r[8] != 0 else 1.0
        shift = r[9] * deg
        tr, ti = tap * math.cos(shift), tap * math.sin(shift)
        ttm = tr * tr + ti * ti
        c = [(-g * tr - b * ti) / ttm, (-b * tr + g * ti) / ttm, (-g * tr + b * ti) / ttm,
             (-b * tr - g * ti) / ttm, g / ttm, (b + bb / 2) / ttm, g, b + bb / 2]
        rate = r[5] / base if r[5] != 0 else ca.inf
        branches.append(dict(f=f, t=t, c=c, rate=rate, angmin=r[11] * deg,
                             angmax=r[12] * deg))
    nb, ng, nl = len(buses), len(gens), len(branches)
    va, vm = ca.SX.sym("va", nb), ca.SX.sym("vm", nb)
    pg, qg = ca.SX.sym("pg", ng), ca.SX.sym("qg", ng)
    p, q = ca.SX.sym("p", 2 * nl), ca.SX.sym("q", 2 * nl)
    x = ca.vertcat(va, vm, pg, qg, p, q)
    inf = ca.inf
    lbx = [-inf] * nb + [b["vmin"] for b in buses] + [g["pmin"] for g in gens] \
        + [g["qmin"] for g in gens] + [-br["rate"] for br in branches] * 2 \
        + [-br["rate"] for br in branches] * 2
    ubx = [inf] * nb + [b["vmax"] for b in buses] + [g["pmax"] for g in gens] \
        + [g["qmax"] for g in gens] + [br["rate"] for br in branches] * 2 \
        + [br["rate"] for br in branches] * 2
    x0 = [0.0] * nb + [1.0] * nb + [0.0] * (2 * ng + 4 * nl)
    f = sum(g["c2"] * pg[k] ** 2 + g["c1"] * pg[k] + g["c0"] for k, g in enumerate(gens))
    rows, lb, ub = [], [], []

    def add(expr, lo, hi):
        rows.append(expr)
        lb.append(lo)
        ub.append(hi)

    for r in refs:
        add(va[r], 0, 0)
    cs = [br["c"] for br in branches]
    for l, br in enumerate(branches):
        vf, vt, th = vm[br["f"]], vm[br["t"]], va[br["f"]] - va[br["t"]]
        c = cs[l]
        add(p[l] - c[4] * vf ** 2 - c[2] * vf * vt * ca.cos(th) - c[3] * vf * vt * ca.sin(th), 0, 0)
    for l, br in enumerate(branches):
        vf, vt, th = vm[br["f"]], vm[br["t"]], va[br["f"]] - va[br["t"]]
        c = cs[l]
        add(q[l] + c[5] * vf ** 2 + c[3] * vf * vt * ca.cos(th) - c[2] * vf * vt * ca.sin(th), 0, 0)
    for l, br in enumerate(branches):
        vf, vt, th = vm[br["f"]], vm[br["t"]], va[br["t"]] - va[br["f"]]
        c = cs[l]
        add(p[nl + l] - c[6] * vt ** 2 - c[0] * vt * vf * ca.cos(th) - c[1] * vt * vf * ca.sin(th), 0, 0)
    for l, br in enumerate(branches):
        vf, vt, th = vm[br["f"]], vm[br["t"]], va[br["t"]] - va[br["f"]]
        c = cs[l]
        add(q[nl + l] + c[7] * vt ** 2 + c[1] * vt * vf * ca.cos(th) - c[0] * vt * vf * ca.sin(th), 0, 0)
    for br in branches:
        add(va[br["f"]] - va[br["t"]], br["angmin"], br["angmax"])
    pb = [b["pd"] + b["gs"] * vm[k] ** 2 for k, b in enumerate(buses)]
    qb = [b["qd"] - b["bs"] * vm[k] ** 2 for k, b in enumerate(buses)]
    for l, br in enumerate(branches):
        pb[br["f"]] += p[l]
        qb[br["f"]] += q[l]
        pb[br["t"]] += p[nl + l]
        qb[br["t"]] += q[nl + l]
    for k, g in enumerate(gens):
        pb[g["bus"]] -= pg[k]
        qb[g["bus"]] -= qg[k]
    for e in pb:
        add(e, 0, 0)
    for e in qb:
        add(e, 0, 0)
    for side in (0, nl):
        for l, br in enumerate(branches):
            add(p[side + l] ** 2 + q[side + l] ** 2, -inf, br["rate"] ** 2)
    nlp = dict(x=x, f=f, g=ca.vertcat(*rows))
    return nlp, dict(x0=x0, lbx=lbx, ubx=ubx, lbg=lb, ubg=ub)


def main():
    path = sys.argv[1]
    opts = {"print_level": 5, "tol": 1e-8}
    for a in sys.argv[2:]:
        k, v = a.split("=", 1)
        try:
            v = int(v)
        except ValueError:
            try:
                v = float(v)
            except ValueError:
                pass
        opts[k] = v
    nlp, args = build(path)
    solver = ca.nlpsol("acopf", "ipopt", nlp, {"ipopt": opts, "print_time": False})
    t = time.time()
    sol = solver(**args)
    st = solver.stats()
    name = path.rsplit("/", 1)[-1]
    print(f"{name} {st['return_status']} {st['iter_count']} {float(sol['f']):.6e} "
          f"{time.time() - t:.2f}")


if __name__ == "__main__":
    main()
