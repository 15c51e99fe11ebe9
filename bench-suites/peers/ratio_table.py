"""Ratio table: simdnlp-bench `solve --json` records against an Ipopt peer's records
(large_ipopt.py --json), matched by instance and size parameter.

Usage: python3 bench-suites/peers/ratio_table.py OURS.jsonl IPOPT.jsonl

Prints a Markdown table (iterations, solve seconds, time ratio ours / Ipopt, objectives,
our factorization and solve counts) and the summary: the shifted geometric mean of the
time ratios, SGM(r; σ) = exp(mean ln(r_i + σ)) − σ with the harness's σ = 1e-5
(bench-suites/src/harness/stats.rs; on ratios of order 0.1–1 it is the plain geometric
mean), the largest ratio, and the ratio of the two time SGMs (σ = 1e-5 s). When a file
holds several records of one instance, the last one counts. Exit status 1 when an
instance is missing from either file or did not solve.
"""
import json
import math
import sys

SHIFT = 1e-5


def load(path):
    recs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                recs[(r["instance"], r.get("param", ""))] = r
    return recs


def sgm(values, shift=SHIFT):
    return math.exp(sum(math.log(v + shift) for v in values) / len(values)) - shift


def main():
    ours, peer = load(sys.argv[1]), load(sys.argv[2])
    keys = [k for k in ours if k in peer]
    missing = sorted(set(ours) ^ set(peer))
    print("| instance | iters ours | iters Ipopt | ours (s) | Ipopt (s) | ratio "
          "| objective ours | objective Ipopt | factorizations | solves |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios, t_ours, t_peer, ok = [], [], [], True
    for k in keys:
        a, b = ours[k], peer[k]
        name = k[0] + (":" + k[1] if k[1] else "")
        r = a["solve_s"] / b["solve_s"]
        ratios.append(r)
        t_ours.append(a["solve_s"])
        t_peer.append(b["solve_s"])
        solved = a.get("success") and b.get("success")
        ok &= bool(solved)
        flag = "" if solved else " (not solved)"
        fa = a.get("objective")
        print(f"| {name}{flag} | {a.get('iterations')} | {b['iterations']} "
              f"| {a['solve_s']:.2f} | {b['solve_s']:.2f} | {r:.2f} "
              f"| {fa if fa is None else f'{fa:.6e}'} | {b['objective']:.6e} "
              f"| {a.get('factorizations')} | {a.get('solves')} |")
    if ratios:
        print()
        print(f"SGM of time ratios (σ = {SHIFT:g}): {sgm(ratios):.3f}; "
              f"largest ratio {max(ratios):.3f}; "
              f"SGM time ours / SGM time Ipopt: {sgm(t_ours) / sgm(t_peer):.3f} "
              f"over {len(ratios)} instances")
    if missing:
        print(f"\nin one file only: {missing}")
    sys.exit(0 if ok and not missing else 1)


if __name__ == "__main__":
    main()
