# ratios5.py HARNESS_OUTPUT...: per run, our cpu obj/cons/grad/jac/hess (µs), CasADi's
# nlp_f/g/grad_f/jac_g/hess_l (µs) and CasADi over ours per callback
import re, sys
NAMES = ["nlp_f", "nlp_g", "nlp_grad_f", "nlp_jac_g", "nlp_hess_l"]
def us(s):
    for unit, k in (("µs", 1.0), ("ms", 1e3), ("s", 1e6)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * k
for path in sys.argv[1:]:
    run, sect, ours, peer = None, None, None, {}
    for line in open(path):
        m = re.match(r"== run (\d+) (\w+) .*load ([\d.]+)", line)
        if m:
            run, sect, peer = m.groups(), None, {}
            continue
        if line.startswith("[cpu]"):
            sect = "cpu"
            continue
        if line.startswith("["):
            sect = None
        m = re.match(r"large\s+1\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", line)
        if m and sect == "cpu":
            ours = [us(v) for v in m.groups()]
        m = re.match(r"(nlp_\w+) (\S+)", line)
        if m:
            peer[m.group(1)] = float(m.group(2)) * 1e6
            if m.group(1) == NAMES[-1] and ours:
                r = [peer[n] / o for n, o in zip(NAMES, ours)]
                print(f"run {run[0]} {run[1]:6} load {run[2]}: ours " + " ".join(f"{o:.0f}" for o in ours)
                      + " µs | casadi " + " ".join(f"{peer[n]:.0f}" for n in NAMES)
                      + " µs | ratio obj/cons/grad/jac/hess " + " ".join(f"{x:.1f}" for x in r))
