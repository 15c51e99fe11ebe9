# python3 ranges.py FILE...: min–max per variant and callback of loop*.sh outputs
import sys, collections
for f in sys.argv[1:]:
    r = collections.defaultdict(list)
    for l in open(f):
        p = l.split()
        if len(p) == 3 and p[0] != "load":
            r[(p[1], p[0])].append(float(p[2]))
    print(f)
    for cb in dict.fromkeys(k[0] for k in r):
        print("  %-5s " % cb + "  ".join("%s %.1f–%.1f" % (v, min(x), max(x)) for (c, v), x in r.items() if c == cb))
