# python3 smallcmp.py A B [ROUND]: per instance and callback, best over rounds (or round ROUND) of
# small-A-S-R.jsonl against small-B-S-R.jsonl (cpu lines), ratio B/A, and the geometric mean
import json, sys, glob, math
a, b = sys.argv[1], sys.argv[2]
rounds = sys.argv[3] if len(sys.argv) > 3 else "*"
def load(v):
    best = {}
    for f in sorted(glob.glob(f"small-{v}-lv-{rounds}.jsonl") + glob.glob(f"small-{v}-cops-{rounds}.jsonl")):
        for l in open(f):
            d = json.loads(l)
            if d["backend"] != "cpu": continue
            for cb in ["obj", "cons", "grad", "jac", "hess"]:
                k = (d["suite"], d["instance"], d["param"], cb)
                best[k] = min(best.get(k, 1e9), d[cb + "_s"])
    return best
A, B = load(a), load(b)
logs = []
for k in sorted(A):
    if k in B and A[k] > 0:
        r = B[k] / A[k]; logs.append(math.log(r))
        if abs(r - 1) > 0.1: print("%-5s %-22s %-6s %-5s %9.3f %9.3f µs  %.2f" % (k[0], k[1], k[2], k[3], A[k]*1e6, B[k]*1e6, r))
print("n", len(logs), "geomean ratio %s/%s %.3f" % (b, a, math.exp(sum(logs)/len(logs))), "min %.2f max %.2f" % (math.exp(min(logs)), math.exp(max(logs))))
