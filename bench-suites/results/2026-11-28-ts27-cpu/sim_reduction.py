# usage: python3 sim_reduction.py KMAX NRANDOM XMAX  (ts27: 1100 40000 1608 -> sim-short.txt; 0 40000 10 -> sim-small.txt)
# Simulates the proposed short reduction in IEEE doubles (fma exact via Fraction) against
# 100-digit values of x - n*pi/2.
import mpmath, struct, random, sys
from fractions import Fraction as F
mpmath.mp.dps = 100
PI2 = mpmath.pi/2
def bits(v): return struct.unpack('<Q', struct.pack('<d', v))[0]
def fb(b): return struct.unpack('<d', struct.pack('<Q', b))[0]
def fma(a,b,c): return float(F(a)*F(b)+F(c))  # exact a*b+c, rounded once (Fraction -> float rounds to nearest)
P1 = float(PI2)  # mpmath -> nearest double
P2 = float(PI2 - mpmath.mpf(P1))
P3 = float(PI2 - mpmath.mpf(P1) - mpmath.mpf(P2))
TWO_OVER_PI = fb(0x3fe45f306dc9c883)
MAGIC = 6755399441055744.0
def reduce(x):
    t = fma(x, TWO_OVER_PI, MAGIC)
    n = t - MAGIC
    a = fma(-n, P1, x)
    assert F(a) == F(x) - F(n)*F(P1), x
    p = n * P2
    hi = a - p
    d = a - hi
    assert F(d) == F(a) - F(hi), x
    lo = fma(-n, P3, fma(-n, P2, d))
    return n, hi, lo
def relerr(x):
    n, hi, lo = reduce(x)
    r = mpmath.mpf(x) - n*PI2
    if r == 0: return None
    return abs((mpmath.mpf(hi)+mpmath.mpf(lo)) - r)/abs(r), abs(lo/hi) if hi else 0, n
if __name__ == '__main__':
    kmax = int(sys.argv[1]); nrand = int(sys.argv[2]); xmax = float(sys.argv[3])
    print("P1=%#x P2=%#x P3=%#x" % (bits(P1), bits(P2), bits(P3)), P1, P2, P3)
    worst = (0, None); worst_lo = (0, None)
    pts = []
    for k in range(1, kmax+1):
        x = float(k*PI2)
        for d in range(-3, 4):
            pts.append(fb(bits(x)+d))
    random.seed(1)
    for _ in range(nrand):
        pts.append(random.uniform(-xmax, xmax))
    pts += [1e-300, 5e-9, 0.7853981633974483, 0.7853981633974484, 0.78, 0.8, 0.99, 1.0]
    for x in pts:
        for s in (1, -1):
            e = relerr(s*x)
            if e is None: continue
            if e[0] > worst[0]: worst = (e[0], s*x, e[2])
            if e[1] > worst_lo[0]: worst_lo = (e[1], s*x)
    print("points", 2*len(pts), "worst rel err 2^%.2f at %r (n=%d)" % (float(mpmath.log(worst[0],2)), worst[1], worst[2]),
          "largest |lo/hi| 2^%.2f at %r" % (float(mpmath.log(worst_lo[0],2)), worst_lo[1]))
