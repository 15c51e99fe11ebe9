# ratios.py HARNESS_OUTPUT...: per run, our cpu cons/jac (µs) and CasADi nlp_g/nlp_jac_g, ratio
import re, sys
for path in sys.argv[1:]:
    run = None
    for line in open(path):
        m = re.match(r'== run (\d+) (\w+) .*load ([\d.]+)', line)
        if m: run = [m.group(1), m.group(2), m.group(3)]; sect = None; continue
        if line.startswith('[cpu]'): sect = 'cpu'; continue
        if line.startswith('['): sect = None
        m = re.match(r'large\s+1\s+\S+\s+(\S+)\s+\S+\s+(\S+)', line)
        if m and sect == 'cpu':
            f = lambda s: float(s[:-2]) * (1000 if s.endswith('ms') else 1)
            ours = (f(m.group(1)), f(m.group(2)))
        m = re.match(r'nlp_g (\S+)', line)
        if m: g = float(m.group(1)) * 1e6
        m = re.match(r'nlp_jac_g (\S+)', line)
        if m:
            jg = float(m.group(1)) * 1e6
            print(f"{path.split('/')[-1]} run {run[0]} {run[1]:6} load {run[2]}: cons {ours[0]:.0f} µs jac {ours[1]:.0f} µs | casadi g {g:.0f} jac_g {jg:.0f} | ratio cons {g/ours[0]:.2f}x jac {jg/ours[1]:.2f}x")
