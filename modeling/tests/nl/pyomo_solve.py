"""Pyomo runs simdnlp through the AMPL solver protocol and loads the solution back.

usage: python pyomo_solve.py /path/to/simdnlp
Exits non-zero (with a message) when a check fails. Checks HS071 (termination, primal
values, objective, constraint duals in Pyomo's sign convention, an option passed through)
and a maximization (dual signs of a maximized problem).
"""

import sys

import pyomo.environ as pyo

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gen_fixtures import hs071  # noqa: E402


def check(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def main(exe):
    opt = pyo.SolverFactory("asl:simdnlp", executable=exe)
    check(opt.available(exception_flag=False), "the simdnlp executable is available to Pyomo")

    m = hs071()
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    opt.options["tol"] = 1e-9
    res = opt.solve(m, tee=False)
    tc = res.solver.termination_condition
    check(tc == pyo.TerminationCondition.optimal, f"HS071 termination optimal (got {tc})")
    want = [1.0, 4.7429996, 3.8211499, 1.3794082]
    got = [pyo.value(m.x[i]) for i in range(1, 5)]
    check(all(abs(a - b) < 1e-5 for a, b in zip(got, want)), f"HS071 x = {got}")
    check(abs(pyo.value(m.obj) - 17.0140173) < 1e-6, f"HS071 objective {pyo.value(m.obj)}")
    # Ipopt's multipliers for HS071 are (-0.552294, 0.161469); AMPL/Pyomo report their negatives
    d1, d2 = m.dual[m.prod], m.dual[m.sumsq]
    check(abs(d1 - 0.552294) < 1e-4 and abs(d2 + 0.161469) < 1e-4, f"HS071 duals {d1}, {d2}")

    # a maximization: max -(x-2)^2 - (y-1)^2  s.t.  x + y <= 1 ; optimum x = 1, y = 0
    m2 = pyo.ConcreteModel()
    m2.x = pyo.Var(initialize=0.0)
    m2.y = pyo.Var(initialize=0.0)
    m2.obj = pyo.Objective(expr=-((m2.x - 2) ** 2) - (m2.y - 1) ** 2, sense=pyo.maximize)
    m2.c = pyo.Constraint(expr=m2.x + m2.y <= 1)
    m2.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    res = pyo.SolverFactory("asl:simdnlp", executable=exe).solve(m2)
    tc = res.solver.termination_condition
    check(tc == pyo.TerminationCondition.optimal, f"max termination optimal (got {tc})")
    check(abs(pyo.value(m2.x) - 1) < 1e-6 and abs(pyo.value(m2.y)) < 1e-6, "max solution")
    # d obj / d rhs = 2 for the maximization (Ipopt's AMPL interface reports +2 here)
    check(abs(m2.dual[m2.c] - 2.0) < 1e-6, f"max dual {m2.dual[m2.c]}")
    print("pyomo_solve: all checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
