//! Lukšan–Vlček, COPS and PGLIB-OPF benchmark suites and the `simdnlp-bench` harness.
