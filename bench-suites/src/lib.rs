//! Lukšan–Vlček, COPS and PGLIB-OPF benchmark suites and the `simdnlp-bench` harness.
//!
//! - [`opf`]: the PGLIB-OPF data layer (MATPOWER parser, per-unit network, baselines)
//!   and the pattern-based AC polar model (`opf::model`).
//! - [`lv`], [`cops`]: the Lukšan–Vlček and COPS builders (modeling layer).
//! - [`handcoded`]: hand-written [`simdnlp_modeling::NlpModel`]s (AC polar OPF,
//!   Lukšan–Vlček Rosenbrock) — the baseline that makes the modeling layer's abstraction
//!   cost visible.
//! - [`harness`]: the instance registry, the callback-timing protocol, the solve seam and
//!   reporting (tables, JSON Lines, plots) behind the `simdnlp-bench` binary.
//! - [`testing`]: test support — a deterministic RNG and the finite-difference checker
//!   that every model test of this crate uses.

pub mod cops;
pub mod handcoded;
pub mod harness;
pub mod lv;
pub mod opf;
pub mod testing;
