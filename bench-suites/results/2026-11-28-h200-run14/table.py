"""Run 14's tables: the PGLIB cases above 1 000 buses on the H200 (condensed and hybrid KKT
forms, 16 cuDSS host threads) against the same machine's CPU (default augmented KKT, one
process at a time), and the summary lines of the note. Run from this folder:
python3 table.py > table.md"""
import glob
import json
import math
import re


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


cpu = {}
for path in sorted(glob.glob("cpu-case*.jsonl")) + ["cpu-rest.jsonl"]:
    for r in load(path):
        # cpu-rest.jsonl (the second device call) re-ran the five cases the first call's
        # budget cut off or never started
        cpu[r["instance"]] = r
condensed = {r["instance"]: r for r in load("opf-condensed.jsonl")}
hybrid = {r["instance"]: r for r in load("opf-hybrid.jsonl")}


def at_baseline(r):
    return r["success"] and (r["rel_err"] is None or r["rel_err"] <= 1e-4)


for name, runs in [("condensed", condensed), ("hybrid", hybrid)]:
    bad = [(k, r["status"]) for k, r in runs.items() if not at_baseline(r)]
    worst = max((r["rel_err"] or 0.0) for r in runs.values() if at_baseline(r))
    print(
        f"- {name}: {len(runs) - len(bad)} of {len(runs)} at BASELINE (failures: {bad or 'none'}), "
        f"{sum(r['iterations'] for r in runs.values())} iterations, "
        f"{sum(r['solve_s'] for r in runs.values()):.1f} s of solve time, largest rel_err {worst:.1e}"
    )
print()
print("| case | condensed iter | condensed s | hybrid iter | hybrid s | CG iter | CPU iter | CPU s | condensed/CPU | hybrid/CPU |")
print("|---|---|---|---|---|---|---|---|---|---|")
ratios = {"condensed": [], "hybrid": [], "best": []}
rows = []
for k in condensed:
    buses = int(re.match(r"case(\d+)", k).group(1))
    if buses > 1000:
        rows.append((buses, k))
for _, k in sorted(rows):
    c, h, p = condensed[k], hybrid[k], cpu[k]
    assert at_baseline(p), k
    rc, rh = c["solve_s"] / p["solve_s"], h["solve_s"] / p["solve_s"]
    ratios["condensed"].append(rc)
    ratios["hybrid"].append(rh)
    ratios["best"].append(min(rc, rh))
    mark = lambda r, x: f"**{x:.2f}**" if x >= 1 else f"{x:.2f}"
    print(
        f"| {k} | {c['iterations']} | {c['solve_s']:.2f} | {h['iterations']} | {h['solve_s']:.2f} "
        f"| {h['cg_iterations']} | {p['iterations']} | {p['solve_s']:.2f} | {mark(c, rc)} | {mark(h, rh)} |"
    )
print()
for name, xs in ratios.items():
    gm = math.exp(sum(math.log(x) for x in xs) / len(xs))
    slower = sum(1 for x in xs if x >= 1)
    print(f"- GPU/CPU, {name}: geometric mean {gm:.3f}, max {max(xs):.2f}, {slower} of {len(xs)} not faster")
