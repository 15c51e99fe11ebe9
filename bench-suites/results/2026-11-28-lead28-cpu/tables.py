# tables.py BEFORE.jsonl AFTER.jsonl: per instance, after / before time per callback and the
# JIT compile time per pattern (ms) before → after; the geometric mean of each column last
import json, math, sys
def load(p):
    return {(r["instance"], r["param"]): r for r in map(json.loads, open(p)) if r.get("backend") == "cpu"}
before, after = load(sys.argv[1]), load(sys.argv[2])
cbs = ["obj_s", "cons_s", "grad_s", "jac_s", "hess_s"]
logs = {c: [] for c in cbs}
print(f"{'instance':28} " + " ".join(f"{c[:-2]:>6}" for c in cbs) + "   jit ms/pattern")
for key in before:
    if key not in after:
        continue
    b, a = before[key], after[key]
    cells = []
    for c in cbs:
        if b.get(c) and a.get(c):
            r = a[c] / b[c]
            logs[c].append(math.log(r))
            cells.append(f"{r:6.2f}")
        else:
            cells.append(f"{'-':>6}")
    jit = f"{b.get('jit_ms_per_pattern', 0):.1f} → {a.get('jit_ms_per_pattern', 0):.1f}"
    print(f"{key[0] + ':' + key[1]:28} " + " ".join(cells) + f"   {jit}")
print(f"{'geometric mean':28} " + " ".join(f"{math.exp(sum(v) / len(v)):6.2f}" if v else f"{'-':>6}" for v in logs.values()))
