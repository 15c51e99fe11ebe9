"""Ipopt peer for COPS methanol: the same model as bench-suites/src/cops/methanol.rs
(three-point Gauss collocation on NH intervals of [0, 1.122], the same variables in the
same order, the same rows and COPSBenchmark.jl's start: every state 0.001, theta = 1),
built with CasADi and solved by its bundled Ipopt + MUMPS with default options.

Usage: python3 bench-suites/peers/methanol_ipopt.py NH [print_level]
Prints Ipopt's log and one summary line: `n N m M status S iter K obj F`.
From this start Ipopt ends at 2.0574837e-2 (NH = 2, 23 iterations), 8.947925e-3 (5, 18),
1.7278447e-2 (10, 34) and 1.7272196e-2 (50, 32): methanol:2/10/50 at a local solution
other than COPS's reference 9.02229e-3 (NH = 100).
"""
import math
import sys

import casadi as ca
nh = int(sys.argv[1]) if len(sys.argv) > 1 else 50
RHO = [0.11270166537926, 0.5, 0.88729833462074]
BC = [1.0, 0.0, 0.0]
TAU = [0.0,0.050,0.065,0.080,0.123,0.233,0.273,0.354,0.397,0.418,0.502,0.553,0.681,0.750,0.916,0.937,1.122]
Z = [[1.0000,0.0000,0.0000],[0.7085,0.1621,0.0811],[0.5971,0.1855,0.0965],[0.5537,0.1989,0.1198],
[0.3684,0.2845,0.1535],[0.1712,0.3491,0.2097],[0.1198,0.3098,0.2628],[0.0747,0.3576,0.2467],
[0.0529,0.3347,0.2884],[0.0415,0.3388,0.2757],[0.0261,0.3557,0.3167],[0.0208,0.3483,0.2954],
[0.0085,0.3836,0.2950],[0.0053,0.3611,0.2937],[0.0019,0.3609,0.2831],[0.0018,0.3485,0.2846],[0.0006,0.3698,0.2899]]
ne, nc, nm = 3, 3, len(TAU)
tf = TAU[-1]; h = tf / nh; t = [i*h for i in range(nh+1)]
itau = [min(nh, math.floor(tj/h)+1) for tj in TAU]
v0 = [[0.001]*ne for _ in range(nh)]  # grid.v0.fill(0.001)
fact = math.factorial
X = []; X0 = []; LB = []
def var(start, lb=-ca.inf):
    s = ca.SX.sym('x%d' % len(X)); X.append(s); X0.append(start); LB.append(lb); return s
th = [var(1.0, 0.0) for _ in range(5)]
v = [[var(v0[i][s]) for s in range(ne)] for i in range(nh)]
w = [[[var(0.0) for s in range(ne)] for k in range(nc)] for i in range(nh)]
uc = [[[var(v0[i][s]) for s in range(ne)] for j in range(nc)] for i in range(nh)]
duc = [[[var(0.0) for s in range(ne)] for j in range(nc)] for i in range(nh)]
obj = 0
for j in range(nm):
    it = itau[j]; dt = TAU[j] - t[it-1]
    for s in range(ne):
        fit = v[it-1][s]
        for k in range(1, nc+1):
            fit = fit + w[it-1][k-1][s] * dt**k / (fact(k) * h**(k-1))
        obj = obj + (fit - Z[j][s])**2
G = []
for i in range(nh):
    for j, r in enumerate(RHO):
        for s in range(ne):
            G.append(uc[i][j][s] - v[i][s] - h*sum(w[i][k-1][s]*r**k/fact(k) for k in range(1, nc+1)))
for i in range(nh):
    for j, r in enumerate(RHO):
        for s in range(ne):
            G.append(duc[i][j][s] - sum(w[i][k-1][s]*r**(k-1)/fact(k-1) for k in range(1, nc+1)))
for i in range(nh-1):
    for s in range(ne):
        G.append(v[i][s] + sum(w[i][k-1][s]*h/fact(k) for k in range(1, nc+1)) - v[i+1][s])
for s in range(ne):
    G.append(v[0][s] - BC[s])
for i in range(nh):
    for j in range(nc):
        u1, u2 = uc[i][j][0], uc[i][j][1]
        q = (th[1]+th[4])*u1 + u2
        G.append(duc[i][j][0] + (2*th[1] - th[0]*u2/q + th[2] + th[3])*u1)
for i in range(nh):
    for j in range(nc):
        u1, u2 = uc[i][j][0], uc[i][j][1]
        q = (th[1]+th[4])*u1 + u2
        G.append(duc[i][j][1] - (th[0]*u1*(th[1]*u1 - u2)/q + th[2]*u1))
for i in range(nh):
    for j in range(nc):
        u1, u2 = uc[i][j][0], uc[i][j][1]
        q = (th[1]+th[4])*u1 + u2
        G.append(duc[i][j][2] - (th[0]*u1*(u2 + th[4]*u1)/q + th[3]*u1))
nlp = {'x': ca.vertcat(*X), 'f': obj, 'g': ca.vertcat(*G)}
opts = {'ipopt.print_level': int(sys.argv[2]) if len(sys.argv) > 2 else 5, 'print_time': False}
S = ca.nlpsol('S', 'ipopt', nlp, opts)
r = S(x0=X0, lbx=LB, ubx=[ca.inf]*len(X), lbg=0, ubg=0)
print('n', len(X), 'm', len(G), 'status', S.stats()['return_status'], 'iter', S.stats()['iter_count'], 'obj', float(r['f']))
