"""Writes the .nl fixtures of simdnlp's .nl import tests with Pyomo.

Each model is the Pyomo twin of a native simdnlp model (the tests compare the optima):
  hs071              Hock-Schittkowski 71
  lv_rosenbrock_N    Luksan-Vlcek problem 1 (chained Rosenbrock with trigonometric rows)
  cops_chain_N       COPS hanging chain, nh = max(2, (N - 4) // 4) intervals
  acopf_<case>       AC polar OPF of a PGLIB-OPF MATPOWER case (the bench-suites formulation)

usage: python gen_fixtures.py OUTDIR [--pglib DIR] [--rosenbrock N] [--only NAME]
Writes NAME.nl, NAME.row, NAME.col into OUTDIR (symbolic labels, text format).
"""

import argparse
import math
import os
import re
import sys

import pyomo.environ as pyo


def hs071():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(1, 5), bounds=(1, 5), initialize={1: 1, 2: 5, 3: 5, 4: 1})
    x = m.x
    m.obj = pyo.Objective(expr=x[1] * x[4] * (x[1] + x[2] + x[3]) + x[3])
    m.prod = pyo.Constraint(expr=x[1] * x[2] * x[3] * x[4] >= 25)
    m.sumsq = pyo.Constraint(expr=sum(x[i] ** 2 for i in range(1, 5)) == 40)
    return m


def lv_rosenbrock(n):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(1, n + 1), initialize=lambda m, i: -1.2 if i % 2 == 1 else 1.0)
    x = m.x
    m.obj = pyo.Objective(
        expr=sum(100 * (x[i] ** 2 - x[i + 1]) ** 2 + (x[i] - 1) ** 2 for i in range(1, n))
    )

    def row(m, k):
        a, b, c = x[k], x[k + 1], x[k + 2]
        return (
            3 * b**3 + 2 * c - 5 + pyo.sin(b - c) * pyo.sin(b + c) + 4 * b
            - a * pyo.exp(a - b) - 3 == 0
        )

    m.c = pyo.Constraint(range(1, n - 1), rule=row)
    return m


def cops_chain(n):
    nh = max(2, (n - 4) // 4)
    L, A, B, TF = 4.0, 1.0, 3.0, 1.0
    h = TF / nh
    tmin = 0.25 if B > A else 0.75
    u0 = lambda k: 4 * abs(B - A) * (k / nh - tmin)
    x10 = lambda k: 4 * abs(B - A) * (k / nh) * (0.5 * (k / nh) - tmin) + A
    K = range(1, nh + 2)
    J = range(1, nh + 1)
    m = pyo.ConcreteModel()
    m.u = pyo.Var(K, initialize=lambda m, k: u0(k))
    m.x1 = pyo.Var(K, initialize=lambda m, k: x10(k))
    m.x2 = pyo.Var(K, initialize=lambda m, k: x10(k) * u0(k))
    m.x3 = pyo.Var(K, initialize=lambda m, k: u0(k))
    u, x1, x2, x3 = m.u, m.x1, m.x2, m.x3
    m.energy = pyo.Objective(expr=x2[nh + 1])
    m.height = pyo.Constraint(
        J, rule=lambda m, j: x1[j + 1] - x1[j] - 0.5 * h * (u[j] + u[j + 1]) == 0
    )
    m.x1_first = pyo.Constraint(expr=x1[1] == A)
    m.x1_last = pyo.Constraint(expr=x1[nh + 1] == B)
    m.x2_first = pyo.Constraint(expr=x2[1] == 0)
    m.x3_first = pyo.Constraint(expr=x3[1] == 0)
    m.x3_last = pyo.Constraint(expr=x3[nh + 1] == L)
    m.energy_integral = pyo.Constraint(
        J,
        rule=lambda m, j: x2[j + 1] - x2[j]
        - 0.5 * h * (x1[j] * pyo.sqrt(1 + u[j] ** 2) + x1[j + 1] * pyo.sqrt(1 + u[j + 1] ** 2))
        == 0,
    )
    m.length_integral = pyo.Constraint(
        J,
        rule=lambda m, j: x3[j + 1] - x3[j]
        - 0.5 * h * (pyo.sqrt(1 + u[j] ** 2) + pyo.sqrt(1 + u[j + 1] ** 2))
        == 0,
    )
    return m


def matpower(path):
    """The bus, gen, branch and gencost matrices and baseMVA of a MATPOWER case file."""
    text = open(path).read()
    text = re.sub(r"%[^\n]*", "", text)
    base = float(re.search(r"mpc\.baseMVA\s*=\s*([^;]+);", text).group(1))

    def matrix(name):
        body = re.search(r"mpc\." + name + r"\s*=\s*\[(.*?)\]", text, re.S).group(1)
        rows = [r.split() for r in re.split(r"[;\n]", body)]
        return [[float(v) for v in r] for r in rows if r]

    return base, matrix("bus"), matrix("gen"), matrix("branch"), matrix("gencost")


def acopf(path):
    base, bus, gen, branch, gencost = matpower(path)
    deg = math.pi / 180
    index, buses, refs = {}, [], []
    for v in bus:
        if v[1] == 4:
            index[int(v[0])] = None
            continue
        index[int(v[0])] = len(buses)
        if v[1] == 3:
            refs.append(len(buses))
        buses.append(dict(pd=v[2] / base, qd=v[3] / base, gs=v[4] / base, bs=v[5] / base,
                          vmin=v[12], vmax=v[11]))
    gens = []
    for v, c in zip(gen, gencost):
        b = index[int(v[0])]
        if b is None or not v[7] > 0:
            continue
        n = int(c[3])
        coef = lambda k: c[4 + n - 1 - k] if k < n else 0.0
        gens.append(dict(bus=b, pmin=v[9] / base, pmax=v[8] / base, qmin=v[4] / base,
                         qmax=v[3] / base, c2=coef(2) * base * base, c1=coef(1) * base,
                         c0=coef(0)))
    brs = []
    for v in branch:
        f, t = index[int(v[0])], index[int(v[1])]
        if f is None or t is None or not v[10] > 0:
            continue
        r, x, bb = v[2], v[3], v[4]
        z2 = r * r + x * x
        g, b = r / z2, -x / z2
        tap = 1.0 if v[8] == 0 else v[8]
        shift = v[9] * deg
        tr, ti = tap * math.cos(shift), tap * math.sin(shift)
        ttm = tr * tr + ti * ti
        c = [(-g * tr - b * ti) / ttm, (-b * tr + g * ti) / ttm, (-g * tr + b * ti) / ttm,
             (-b * tr - g * ti) / ttm, g / ttm, (b + bb / 2) / ttm, g, b + bb / 2]
        rate = v[5] / base
        brs.append(dict(f=f, t=t, c=c, rate=math.inf if rate == 0 else abs(rate),
                        angmin=v[11] * deg, angmax=v[12] * deg))
    nb, ng, nl = len(buses), len(gens), len(brs)
    arcs = [(l, brs[l]["f"]) for l in range(nl)] + [(nl + l, brs[l]["t"]) for l in range(nl)]
    rate = lambda a: brs[a % nl]["rate"]
    fin = lambda v: None if math.isinf(v) else v

    m = pyo.ConcreteModel()
    m.va = pyo.Var(range(nb), initialize=0.0)
    m.vm = pyo.Var(range(nb), bounds=lambda m, i: (buses[i]["vmin"], buses[i]["vmax"]),
                   initialize=1.0)
    m.pg = pyo.Var(range(ng), bounds=lambda m, g: (gens[g]["pmin"], gens[g]["pmax"]),
                   initialize=0.0)
    m.qg = pyo.Var(range(ng), bounds=lambda m, g: (gens[g]["qmin"], gens[g]["qmax"]),
                   initialize=0.0)
    m.p = pyo.Var(range(2 * nl), bounds=lambda m, a: (fin(-rate(a)), fin(rate(a))),
                  initialize=0.0)
    m.q = pyo.Var(range(2 * nl), bounds=lambda m, a: (fin(-rate(a)), fin(rate(a))),
                  initialize=0.0)
    va, vm, pg, qg, p, q = m.va, m.vm, m.pg, m.qg, m.p, m.q
    m.cost = pyo.Objective(
        expr=sum(gn["c2"] * pg[g] ** 2 + gn["c1"] * pg[g] + gn["c0"] for g, gn in enumerate(gens))
    )
    m.ref = pyo.Constraint(refs, rule=lambda m, r: va[r] == 0)

    def flows(m, l, which):
        br = brs[l]
        f, t = br["f"], br["t"]
        c1, c2, c3, c4, c5, c6, c7, c8 = br["c"]
        if which == 0:
            th, vv = va[f] - va[t], vm[f] * vm[t]
            return p[l] - c5 * vm[f] ** 2 - c3 * (vv * pyo.cos(th)) - c4 * (vv * pyo.sin(th)) == 0
        if which == 1:
            th, vv = va[f] - va[t], vm[f] * vm[t]
            return q[l] + c6 * vm[f] ** 2 + c4 * (vv * pyo.cos(th)) - c3 * (vv * pyo.sin(th)) == 0
        th, vv = va[t] - va[f], vm[t] * vm[f]
        if which == 2:
            return p[nl + l] - c7 * vm[t] ** 2 - c1 * (vv * pyo.cos(th)) - c2 * (vv * pyo.sin(th)) == 0
        return q[nl + l] + c8 * vm[t] ** 2 + c2 * (vv * pyo.cos(th)) - c1 * (vv * pyo.sin(th)) == 0

    m.flows = pyo.Constraint(range(nl), range(4), rule=flows)
    m.angle = pyo.Constraint(
        range(nl), rule=lambda m, l: (brs[l]["angmin"], va[brs[l]["f"]] - va[brs[l]["t"]],
                                      brs[l]["angmax"])
    )

    def balance(m, b, reactive):
        bs = buses[b]
        out = [a for a, ab in arcs if ab == b]
        gb = [g for g, gn in enumerate(gens) if gn["bus"] == b]
        if reactive:
            return bs["qd"] - bs["bs"] * vm[b] ** 2 + sum(q[a] for a in out) - sum(qg[g] for g in gb) == 0
        return bs["pd"] + bs["gs"] * vm[b] ** 2 + sum(p[a] for a in out) - sum(pg[g] for g in gb) == 0

    m.balance = pyo.Constraint(range(nb), [0, 1], rule=balance)
    limited = [a for a in range(2 * nl) if not math.isinf(rate(a))]
    m.thermal = pyo.Constraint(
        limited, rule=lambda m, a: p[a] ** 2 + q[a] ** 2 <= rate(a) ** 2
    )
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--pglib", default=os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                    "bench-suites", "data", "pglib-opf"))
    ap.add_argument("--rosenbrock", type=int, default=20)
    ap.add_argument("--only")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    models = {
        "hs071": lambda: hs071(),
        f"lv_rosenbrock_{args.rosenbrock}": lambda: lv_rosenbrock(args.rosenbrock),
        "cops_chain_50": lambda: cops_chain(50),
        "acopf_case5_pjm": lambda: acopf(os.path.join(args.pglib, "pglib_opf_case5_pjm.m")),
    }
    for name, make in models.items():
        if args.only and name != args.only:
            continue
        make().write(os.path.join(args.outdir, name + ".nl"),
                     io_options={"symbolic_solver_labels": True})
        print(os.path.join(args.outdir, name + ".nl"))


if __name__ == "__main__":
    sys.exit(main())
