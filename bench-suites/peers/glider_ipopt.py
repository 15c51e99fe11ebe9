"""Ipopt peer for the COPS hang glider: the same model as bench-suites/src/cops/glider.rs
(trapezoidal rule on NH intervals, the same variables, rows, bounds and start point),
built with CasADi and solved by its bundled Ipopt + MUMPS with default options (tol 1e-8,
as the harness). Maximizes the final range by minimizing -x[NH].

Usage: python3 bench-suites/peers/glider_ipopt.py NH [ipopt_option=value ...]
Prints Ipopt's log and one summary line: `glider:NH status iterations range seconds`.
"""
import sys
import time

import casadi as ca

X_0, Y_0, Y_F = 0.0, 1000.0, 900.0
VX_0, VX_F, VY_0, VY_F = 13.23, 13.23, -1.288, -1.288
U_C, R_0, MASS, G = 2.5, 100.0, 100.0, 9.81
CD0, CD1, S, RHO = 0.034, 0.069662, 14.0, 1.13
CL_MIN, CL_MAX = 0.0, 1.4


def build(nh):
    inf = ca.inf
    t_f = ca.SX.sym("t_f")
    x, y = ca.SX.sym("x", nh + 1), ca.SX.sym("y", nh + 1)
    vx, vy = ca.SX.sym("vx", nh + 1), ca.SX.sym("vy", nh + 1)
    cl = ca.SX.sym("cL", nh + 1)
    # variable order as the Rust model declares its blocks
    z = ca.vertcat(t_f, x, y, vx, vy, cl)
    lbz = [0.0] + [0.0] * (nh + 1) + [-inf] * (nh + 1) + [0.0] * (nh + 1) \
        + [-inf] * (nh + 1) + [CL_MIN] * (nh + 1)
    ubz = [inf] * (4 * (nh + 1) + 1) + [CL_MAX] * (nh + 1)
    z0 = [1.0] + [X_0 + VX_0 * (k / nh) for k in range(nh + 1)] \
        + [Y_0 + (k / nh) * (Y_F - Y_0) for k in range(nh + 1)] \
        + [VX_0] * (nh + 1) + [VY_0] * (nh + 1) + [CL_MAX / 2.0] * (nh + 1)

    def accel(i):
        r = (x[i] / R_0 - 2.5) ** 2
        u = U_C * (1.0 - r) * ca.exp(-r)
        w = vy[i] - u
        v = ca.sqrt(vx[i] ** 2 + w ** 2)
        drag = 0.5 * (CD0 + CD1 * cl[i] ** 2) * RHO * S * v ** 2
        lift = 0.5 * cl[i] * RHO * S * v ** 2
        ax = (-lift * (w / v) - drag * (vx[i] / v)) / MASS
        ay = (lift * (vx[i] / v) - drag * (w / v)) / MASS - G
        return ax, ay

    acc = [accel(i) for i in range(nh + 1)]
    h = 0.5 / nh * t_f
    rows = []
    rows += [x[j] - (x[j - 1] + h * (vx[j] + vx[j - 1])) for j in range(1, nh + 1)]
    rows += [y[j] - (y[j - 1] + h * (vy[j] + vy[j - 1])) for j in range(1, nh + 1)]
    rows += [vx[j] - (vx[j - 1] + h * (acc[j][0] + acc[j - 1][0])) for j in range(1, nh + 1)]
    rows += [vy[j] - (vy[j - 1] + h * (acc[j][1] + acc[j - 1][1])) for j in range(1, nh + 1)]
    rows += [x[0] - X_0, y[0] - Y_0, y[nh] - Y_F, vx[0] - VX_0, vx[nh] - VX_F,
             vy[0] - VY_0, vy[nh] - VY_F]
    nlp = dict(x=z, f=-x[nh], g=ca.vertcat(*rows))
    return nlp, dict(x0=z0, lbx=lbz, ubx=ubz, lbg=0.0, ubg=0.0)


def main():
    nh = int(sys.argv[1])
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
    nlp, args = build(nh)
    solver = ca.nlpsol("glider", "ipopt", nlp, {"ipopt": opts, "print_time": False})
    t = time.time()
    sol = solver(**args)
    st = solver.stats()
    print(f"glider:{nh} {st['return_status']} {st['iter_count']} {-float(sol['f']):.6e} "
          f"{time.time() - t:.2f}")


if __name__ == "__main__":
    main()
