#!/usr/bin/env python3
"""Generates the constants of `exp`'s table-driven kernel in `ad/src/vmath.rs` (issue 18,
session 27): the table of 2^(j/N) as (relative tail, adjusted high part) bit patterns, the
split of ln 2 / N, and the polynomial Q(r) ~ (e^r - 1 - r) / r^2 on |r| <= ln 2 / (2N)
(Chebyshev interpolation in 60-digit arithmetic, coefficients rounded to doubles), and
prints the error of the rounded polynomial. Needs mpmath (`pip install mpmath`).

usage: python3 ad/scripts/exp_table.py [N] [DEGREE]   (defaults: 16 and 5, the committed ones)
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 60


def bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def rust_hex(b: int) -> str:
    h = f"{b:016x}"
    return f"0x{h[0:4]}_{h[4:8]}_{h[8:12]}_{h[12:16]}"


def main() -> None:
    n_table = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    degree = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    shift = n_table.bit_length() - 1
    assert 1 << shift == n_table
    ln2 = mp.log(2)

    # N / ln 2, ln 2 / N as hi + lo
    inv = float(n_table / ln2)
    c_hi = float(ln2 / n_table)
    c_lo = float(ln2 / n_table - mp.mpf(c_hi))
    print(f"N_OVER_LN2 {rust_hex(bits(inv))}  {inv!r}")
    print(f"LN2_OVER_N_HI {rust_hex(bits(c_hi))}  {c_hi!r}")
    print(f"LN2_OVER_N_LO {rust_hex(bits(c_lo))}  {c_lo!r}")

    # table: T_j = 2^(j/N) = hi (1 + tail); EXP_TAIL[j] = tail's bits,
    # EXP_HIGH[j] = hi's bits - (j << (52 - shift))
    tails, highs = [], []
    worst_tail = mp.mpf(0)
    for j in range(n_table):
        t = mp.power(2, mp.mpf(j) / n_table)
        hi = float(t)
        tail = float((t - mp.mpf(hi)) / mp.mpf(hi))
        # what the kernel's hi (1 + tail) misses
        worst_tail = max(worst_tail, abs((mp.mpf(hi) * (1 + mp.mpf(tail)) - t) / t))
        tails.append(bits(tail))
        highs.append((bits(hi) - (j << (52 - shift))) & (2**64 - 1))
    for name, words in (("EXP_TAIL", tails), ("EXP_HIGH", highs)):
        print(f"{name} [u64; {n_table}]")
        for w in words:
            print(f"    {rust_hex(w)},")
    print(f"# largest relative error of hi (1 + tail): {mp.nstr(worst_tail, 3)}"
          f" = 2^{mp.nstr(mp.log(worst_tail, 2), 4)}")

    # Q(r) ~ (e^r - 1 - r) / r^2 on [-a, a], a = ln 2 / (2N) with a little slack for the
    # rounding of the reduction
    a = ln2 / (2 * n_table) * (1 + mp.mpf(2) ** -40)

    def q(r):
        # the series: no cancellation at tiny nodes (the middle one of an odd count)
        return mp.nsum(lambda i: r ** int(i) / mp.factorial(int(i) + 2), [0, 40])

    # Chebyshev nodes, interpolating polynomial in the monomial basis
    k = degree + 1
    nodes = [a * mp.cos(mp.pi * (2 * i + 1) / (2 * k)) for i in range(k)]
    vand = mp.matrix([[x ** p for p in range(k)] for x in nodes])
    coef = mp.lu_solve(vand, mp.matrix([q(x) for x in nodes]))
    rounded = [float(coef[p]) for p in range(k)]
    print(f"EXP_Q [f64; {k}]")
    for c in rounded:
        print(f"    f64::from_bits({rust_hex(bits(c))}), // {c!r}")
    # error of r^2 Q(r) against e^r - 1 - r, relative to e^r, over a dense sweep
    worst = mp.mpf(0)
    samples = 20000
    for i in range(samples + 1):
        r = -a + 2 * a * i / samples
        p = sum(mp.mpf(c) * r ** e for e, c in enumerate(rounded))
        err = abs(r * r * p - (mp.exp(r) - 1 - r)) / mp.exp(r)
        worst = max(worst, err)
    print(f"# largest relative error of r^2 Q(r): {mp.nstr(worst, 3)} = 2^{mp.nstr(mp.log(worst, 2), 4)}")


if __name__ == "__main__":
    main()
