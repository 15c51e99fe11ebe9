"""Load-scaled ("congested") copies of MATPOWER cases, for comparing our solver with Ipopt
near the edge of feasibility (a stand-in for PGLIB's `api` variants, which are not in
../shared).

Usage: python3 bench-suites/peers/congest_loads.py CASE.m OUTDIR FACTOR [FACTOR ...]

Writes OUTDIR/<stem>_load<round(100·FACTOR)>.m for each FACTOR: the case with every bus's
Pd and Qd (columns 3 and 4 of `mpc.bus`) multiplied by FACTOR, everything else as is.
Prints the instance names to use with `simdnlp-bench solve --suite opf --pglib-dir OUTDIR
--instance NAME` (the stem without `pglib_opf_`).
"""
import os
import re
import sys


def scaled(text, factor):
    """`text` with the Pd and Qd of every `mpc.bus` row multiplied by `factor`."""
    m = re.search(r"mpc\.bus\s*=\s*\[(.*?)\]\s*;", text, re.S)
    if m is None:
        raise SystemExit("no mpc.bus matrix found")
    lines = []
    for line in m.group(1).split("\n"):
        body, sep, comment = line.partition("%")
        fields = body.replace(";", " ").split()
        if len(fields) >= 13:
            for col in (2, 3):
                fields[col] = repr(float(fields[col]) * factor)
            body = "\t" + "\t".join(fields) + ";"
        lines.append(body + sep + comment)
    return text[: m.start(1)] + "\n".join(lines) + text[m.end(1):]


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    path, out = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8", errors="replace").read()
    stem = os.path.basename(path)[: -len(".m")]
    os.makedirs(out, exist_ok=True)
    for arg in sys.argv[3:]:
        factor = float(arg)
        name = f"{stem}_load{round(factor * 100)}"
        with open(os.path.join(out, name + ".m"), "w") as f:
            f.write(scaled(text, factor))
        print(name.removeprefix("pglib_opf_"))


if __name__ == "__main__":
    main()
