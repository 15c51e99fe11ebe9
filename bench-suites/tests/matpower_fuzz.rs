//! Fuzzing the MATPOWER reader (proptest over mutated case files): whatever the bytes, the
//! reader answers with a case or a typed error, never a panic; and a case it accepts
//! converts to valid per-unit data from which the AC OPF model builds.
//!
//! `cargo test` runs a few thousand cases. The long run (issue 17: no panic in 10⁵
//! cases) is
//!
//! ```text
//! MATPOWER_FUZZ_CASES=100000 cargo test -p simdnlp-bench --test matpower_fuzz
//! ```

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use simdnlp_bench::opf::matpower::{decode, parse_case};
use simdnlp_bench::opf::model::acopf;
use simdnlp_bench::opf::{OpfData, find_case};

/// Number of cases: `$MATPOWER_FUZZ_CASES`, else 2 000 (a few seconds in the dev profile).
fn fuzz_cases() -> u32 {
    std::env::var("MATPOWER_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

/// A small valid case exercising the format's corners (comments, an ignored cell array,
/// commas and tabs, several rows per line, an isolated bus and its branch, an
/// out-of-service generator, a cost row with one coefficient).
const SEED: &str = "% seed case for the fuzzer\n\
function mpc = seed\n\
mpc.version = '2';\n\
mpc.baseMVA = 100.0;   % MVA\n\
mpc.bus_name = { 'north'; 'south ] x'; 'east'; 'isolated' };\n\
mpc.bus = [ 1, 3, 0, 0, 0, 0, 1, 1.02, 0, 345, 1, 1.06, 0.94;\n\
\t2, 2, 90.5, 30, 0, 19, 1, 1, 0, 345, 1, 1.06, 0.94; 3, 1, 100, 35, 0, 0, 1, 1, 0, 345, 1, 1.06, 0.94;\n\
  4, 4, 0, 0, 0, 0, 1, 1, 0, 345, 1, 1.06, 0.94 ];\n\
mpc.gen = [\n 1 72.3 27 300 -300 1.04 100 1 250 10 0 0 0 0 0 0 0 0 0 0 0;\n\
 2 163 6.54 300 -300 1.025 100 1 300 10;\n 3 0 0 50 -50 1 100 0 100 0;\n];\n\
mpc.gencost = [ 2 1500 0 3 0.11 5 150; 2 2000 0 3 0.085 1.2 600; 2 0 0 1 7 ];\n\
mpc.branch = [\n 1 2 0 0.0576 0 250 250 250 0 0 1 -360 360;\n\
 2 3 0.017 0.092 0.158 0 0 0 0.978 -3 1 -30 30;\n\
 3 1 0.039 0.17 0.358 150 150 150 0 0 1 -360 360;\n 3 4 0.01 0.1 0 0 0 0 0 0 1 -360 360;\n];\n";

/// The seed parses, converts and builds (else the fuzzer would mostly test error paths).
#[test]
fn the_seed_is_a_valid_case() {
    let case = parse_case(SEED, Path::new("seed.m")).unwrap();
    assert_eq!(
        (case.bus.len(), case.gen_rows.len(), case.branch.len()),
        (4, 3, 4)
    );
    let data = OpfData::from_case(&case).unwrap();
    assert_eq!((data.nbus(), data.ngen(), data.nbranch()), (3, 2, 3));
    acopf(&data).unwrap();
}

/// The seed files: [`SEED`] and two real cases (shipped in the repository), read once for
/// all cases.
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut out = vec![SEED.as_bytes().to_vec()];
        for name in ["case5_pjm", "case14_ieee"] {
            let path = find_case(name).unwrap_or_else(|e| panic!("bundled case {name}: {e}"));
            let bytes =
                std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            out.push(bytes);
        }
        out
    })
}

/// Tokens a mutation writes over a number: non-finite and extreme values, signs, format
/// characters, field names, a byte-order mark, non-ASCII text.
const NASTY: &[&str] = &[
    "NaN",
    "Inf",
    "-Inf",
    "inf",
    "1e300",
    "-1e300",
    "1e-300",
    "0",
    "-0",
    "-1",
    "-20",
    "1e19",
    "4.5",
    "3",
    "99999999999999999999",
    "1.7976931348623157e308",
    "",
    "[",
    "]",
    ";",
    "];",
    "%",
    "{",
    "}",
    "'",
    ",",
    "\n",
    "mpc.bus = [",
    "mpc.gen = [",
    "mpc.baseMVA = 0;",
    "mpc.gencost = [",
    "\u{feff}",
    "ü",
    "0x10",
    "1e",
    "--1",
    "+",
    "2 0 0 9 1 1 1",
];

/// One edit of the file's bytes; positions are taken modulo the current length.
#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the `k`-th whitespace-separated token with a [`NASTY`] one.
    Token(usize, usize),
    /// Delete `len` bytes at `at`.
    Delete(usize, usize),
    /// Insert arbitrary bytes (any value, so possibly invalid UTF-8) at `at`.
    Insert(usize, Vec<u8>),
    /// Duplicate line `k`.
    DuplicateLine(usize),
    /// Delete line `k`.
    DeleteLine(usize),
    /// Swap lines `a` and `b`.
    SwapLines(usize, usize),
    /// Cut the file at `at`.
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), 0..NASTY.len()).prop_map(|(k, t)| Mutation::Token(k, t)),
        2 => (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        2 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..6))
            .prop_map(|(a, b)| Mutation::Insert(a, b)),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// Byte ranges of the whitespace-separated tokens of `bytes`.
fn tokens(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in bytes.iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, bytes.len()));
    }
    out
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    let lines =
        |b: &[u8]| -> Vec<Vec<u8>> { b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect() };
    match m {
        Mutation::Token(k, t) => {
            let toks = tokens(bytes);
            if !toks.is_empty() {
                let (s, e) = toks[k % toks.len()];
                bytes.splice(s..e, NASTY[*t].bytes());
            }
        }
        Mutation::Delete(at, n) => {
            let s = at % len;
            let e = (s + n).min(bytes.len());
            if s < e {
                bytes.drain(s..e);
            }
        }
        Mutation::Insert(at, b) => {
            let s = at % (bytes.len() + 1);
            bytes.splice(s..s, b.iter().copied());
        }
        Mutation::DuplicateLine(k) => {
            let mut ls = lines(bytes);
            let i = k % ls.len();
            ls.insert(i, ls[i].clone());
            *bytes = ls.join(&b'\n');
        }
        Mutation::DeleteLine(k) => {
            let mut ls = lines(bytes);
            let i = k % ls.len();
            ls.remove(i);
            *bytes = ls.join(&b'\n');
        }
        Mutation::SwapLines(a, b) => {
            let mut ls = lines(bytes);
            let n = ls.len();
            ls.swap(a % n, b % n);
            *bytes = ls.join(&b'\n');
        }
        Mutation::Truncate(at) => bytes.truncate(at % len),
    }
}

/// The per-unit data a valid case converts to: every number the model computes with is
/// finite, every bound pair ordered, at least one reference bus.
fn check_data(d: &OpfData) -> Result<(), TestCaseError> {
    let finite = |v: f64| v.is_finite();
    prop_assert!(!d.ref_buses.is_empty());
    for b in &d.buses {
        prop_assert!([b.pd, b.qd, b.gs, b.bs].into_iter().all(finite), "{b:?}");
        prop_assert!(b.vmin <= b.vmax, "{b:?}");
    }
    for g in &d.gens {
        prop_assert!([g.c2, g.c1, g.c0].into_iter().all(finite), "{g:?}");
        prop_assert!(g.pmin <= g.pmax && g.qmin <= g.qmax, "{g:?}");
    }
    for br in &d.branches {
        prop_assert!(br.c.iter().all(|&c| finite(c)), "{br:?}");
        prop_assert!(br.angmin <= br.angmax && !br.rate_a.is_nan(), "{br:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: fuzz_cases(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_case_files_never_panic(
        seed in any::<usize>(),
        edits in prop::collection::vec(mutation(), 1..8),
    ) {
        let seeds = seeds();
        let mut bytes = seeds[seed % seeds.len()].clone();
        for m in &edits {
            apply(&mut bytes, m);
        }
        let text = decode(&bytes);
        let Ok(case) = parse_case(&text, Path::new("fuzz.m")) else {
            return Ok(());
        };
        let Ok(data) = OpfData::from_case(&case) else {
            return Ok(());
        };
        check_data(&data)?;
        // what the reader accepts, the model builder accepts: every input error is reported
        // with file and line before the model is built
        if let Err(e) = acopf(&data) {
            prop_assert!(false, "reader accepted a case the model rejects: {e}");
        }
    }
}
