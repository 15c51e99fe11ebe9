//! `.nl` import: the Pyomo-written fixtures of `tests/nl/` (regenerate with
//! `python tests/nl/gen_fixtures.py tests/nl --pglib ../bench-suites/data/pglib-opf`), a
//! hand-encoded binary file, defined variables, conditionals, unsupported features and
//! malformed files (each a typed error with its line or byte and field; none panics).

use proptest::prelude::*;
use simdnlp_modeling::nl::{self, Item, Location, Names, NlError, NlModel};
use simdnlp_modeling::{ModelBuilder, NlpModel};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/nl")
        .join(format!("{name}.nl"))
}

fn import(name: &str) -> NlModel {
    nl::import(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn cons_file_order(m: &NlModel, x: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m.model.meta().ncon];
    m.model.cons(x, &mut c);
    m.file_order(&c)
}

#[test]
fn hs071_values_at_the_start() {
    let m = import("hs071");
    let meta = m.model.meta();
    assert_eq!((meta.nvar, meta.ncon), (4, 2));
    assert_eq!(meta.x0, vec![1.0, 5.0, 5.0, 1.0]);
    assert_eq!(meta.lvar, vec![1.0; 4]);
    assert_eq!(meta.uvar, vec![5.0; 4]);
    // x1 x4 (x1 + x2 + x3) + x3
    assert_eq!(m.model.obj(&meta.x0), 16.0);
    assert_eq!(cons_file_order(&m, &meta.x0), vec![25.0, 52.0]);
    let (lo, up) = (m.file_order(&meta.lcon), m.file_order(&meta.ucon));
    assert_eq!(lo, vec![25.0, 40.0]);
    assert_eq!(up, vec![f64::INFINITY, 40.0]);
    assert_eq!(m.names.cols[1], "x[2]");
    assert!(m.patterns <= 6, "{} patterns", m.patterns);
}

/// The native model of Lukšan–Vlček problem 1 (bench-suites' `lv::rosenbrock`), written
/// again here so this crate's tests need no other crate.
fn native_rosenbrock(n: i64) -> simdnlp_modeling::Model {
    let mut m = ModelBuilder::new();
    let x = m
        .var(1..=n)
        .start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 });
    m.minimize(1..n, |i| {
        100.0 * (x.at(i).powi(2) - x.at(i + 1)).powi(2) + (x.at(i) - 1.0).powi(2)
    });
    m.constraint(1..=n - 2, |k| {
        let (a, b, c) = (x.at(k), x.at(k + 1), x.at(k + 2));
        3.0 * b.powi(3) + 2.0 * &c - 5.0 + (&b - &c).sin() * (&b + &c).sin() + 4.0 * &b
            - &a * (&a - &b).exp()
            - 3.0
    });
    m.build().unwrap()
}

fn close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-10 * (1.0 + y.abs()),
            "{what}[{k}]: {x} vs {y}"
        );
    }
}

#[test]
fn lv_rosenbrock_matches_the_native_model() {
    let m = import("lv_rosenbrock_20");
    let native = native_rosenbrock(20);
    // one row block and a few objective shapes, not one pattern per row
    assert!(m.patterns <= 5, "{} patterns", m.patterns);
    assert_eq!(m.row_groups, 1);
    assert_eq!(m.unique_rows, 0);
    // Pyomo orders the variables itself: map them by name x[i]
    let perm: Vec<usize> = m
        .names
        .cols
        .iter()
        .map(|s| {
            s.trim_start_matches("x[")
                .trim_end_matches(']')
                .parse::<usize>()
                .unwrap()
                - 1
        })
        .collect();
    let (nv, nc) = (20, 18);
    for seed in 0..4 {
        let xn: Vec<f64> = (0..nv)
            .map(|i| ((i * 7 + seed * 3) % 11) as f64 / 5.0 - 1.0)
            .collect();
        let xi: Vec<f64> = perm.iter().map(|&p| xn[p]).collect();
        assert!((m.model.obj(&xi) - native.obj(&xn)).abs() < 1e-9 * (1.0 + native.obj(&xn).abs()));
        // gradient
        let (mut gi, mut gn) = (vec![0.0; nv], vec![0.0; nv]);
        m.model.grad(&xi, &mut gi);
        native.grad(&xn, &mut gn);
        close(
            &perm.iter().map(|&p| gn[p]).collect::<Vec<_>>(),
            &gi,
            "grad",
        );
        // constraints: file row k is native row k (the file's constant moved to the bounds)
        let mut cn = vec![0.0; nc];
        native.cons(&xn, &mut cn);
        let ci = cons_file_order(&m, &xi);
        let lo = m.file_order(&m.model.meta().lcon);
        close(
            &ci.iter().zip(&lo).map(|(c, l)| c - l).collect::<Vec<_>>(),
            &cn,
            "cons",
        );
        // Jacobian and Hessian of the Lagrangian through products
        let v: Vec<f64> = (0..nv).map(|i| (i as f64 * 0.37).sin()).collect();
        let vi: Vec<f64> = perm.iter().map(|&p| v[p]).collect();
        let (mut jn, mut ji) = (vec![0.0; nc], vec![0.0; nc]);
        native.jprod(&xn, &v, &mut jn);
        m.model.jprod(&xi, &vi, &mut ji);
        close(&m.file_order(&ji), &jn, "jprod");
        let y: Vec<f64> = (0..nc).map(|k| (k as f64 * 0.61).cos()).collect();
        let mut ym = vec![0.0; nc];
        for (k, &r) in m.row_of.iter().enumerate() {
            ym[r] = y[k];
        }
        let (mut hn, mut hi) = (vec![0.0; nv], vec![0.0; nv]);
        native.hprod(&xn, &y, 1.0, &v, &mut hn);
        m.model.hprod(&xi, &ym, 1.0, &vi, &mut hi);
        close(
            &perm.iter().map(|&p| hn[p]).collect::<Vec<_>>(),
            &hi,
            "hprod",
        );
    }
}

#[test]
fn chain_and_acopf_import_into_few_patterns() {
    let chain = import("cops_chain_50");
    assert_eq!((chain.model.meta().nvar, chain.model.meta().ncon), (48, 38));
    assert!(chain.patterns <= 12, "chain: {} patterns", chain.patterns);
    let opf = import("acopf_case5_pjm");
    assert_eq!(opf.model.meta().ncon, 53);
    assert!(opf.patterns <= 20, "acopf: {} patterns", opf.patterns);
    // every row has a model row, and they are a permutation
    let mut seen = vec![false; opf.n_con];
    for &r in &opf.row_of {
        assert!(!seen[r]);
        seen[r] = true;
    }
}

/// The doc example's problem as text.
const SMALL: &str = "g3 1 1 0\n 2 1 1 0 1\n 0 1\n 0 0\n 0 2 0\n 0 0 0 1\n 0 0 0 0 0\n 2 2\n 0 0\n 0 0 0 0 0\n\
C0\nn0\nO0 0\no54\n2\no5\no0\nv0\nn-1\nn2\no5\no0\nv1\nn-2\nn2\nr\n4 1\nb\n3\n3\nk1\n1\nJ0 2\n0 1\n1 1\n";

/// The same problem in the binary encoding (little-endian ints and doubles after a text
/// header with `b` and arithmetic kind 1), written here from the format description.
fn small_binary() -> Vec<u8> {
    let mut b =
        b"b3 1 1 0\n 2 1 1 0 1\n 0 1\n 0 0\n 0 2 0\n 0 0 1 1\n 0 0 0 0 0\n 2 2\n 0 0\n 0 0 0 0 0\n"
            .to_vec();
    let int = |b: &mut Vec<u8>, v: i32| b.extend_from_slice(&v.to_le_bytes());
    let real = |b: &mut Vec<u8>, v: f64| b.extend_from_slice(&v.to_le_bytes());
    b.push(b'C');
    int(&mut b, 0);
    b.push(b'n');
    real(&mut b, 0.0);
    b.push(b'O');
    int(&mut b, 0);
    int(&mut b, 0);
    b.push(b'o');
    int(&mut b, 54);
    int(&mut b, 2);
    for (v, c) in [(0, -1i16), (1, -2)] {
        b.push(b'o');
        int(&mut b, 5);
        b.push(b'o');
        int(&mut b, 0);
        b.push(b'v');
        int(&mut b, v);
        b.push(b's'); // a short constant
        b.extend_from_slice(&c.to_le_bytes());
        b.push(b'l'); // a long constant
        int(&mut b, 2);
    }
    b.push(b'r');
    b.push(b'4');
    real(&mut b, 1.0);
    b.push(b'b');
    b.push(b'3');
    b.push(b'3');
    b.push(b'k');
    int(&mut b, 1);
    int(&mut b, 1);
    b.push(b'J');
    int(&mut b, 0);
    int(&mut b, 2);
    for v in [0, 1] {
        int(&mut b, v);
        real(&mut b, 1.0);
    }
    b
}

#[test]
fn binary_and_text_give_the_same_model() {
    let t = nl::import_bytes(SMALL.as_bytes(), Names::default()).unwrap();
    let b = nl::import_bytes(&small_binary(), Names::default()).unwrap();
    for x in [[0.0, 0.0], [1.0, 2.0], [-0.5, 3.0]] {
        assert_eq!(t.model.obj(&x), b.model.obj(&x));
        let (mut ct, mut cb) = ([0.0], [0.0]);
        t.model.cons(&x, &mut ct);
        b.model.cons(&x, &mut cb);
        assert_eq!(ct, cb);
    }
    assert_eq!(b.model.obj(&[0.0, 0.0]), 5.0);
    assert_eq!(b.model.meta().lcon, vec![1.0]);
    // a truncated binary file names the byte
    let bin = small_binary();
    let err = nl::import_bytes(&bin[..bin.len() - 3], Names::default()).unwrap_err();
    assert!(
        matches!(
            err,
            NlError::Malformed {
                at: Location::Byte(_),
                ..
            }
        ),
        "{err}"
    );
}

fn header(n_var: usize, n_con: usize, n_common: [usize; 5]) -> String {
    format!(
        "g3 1 1 0\n {n_var} {n_con} 1 0 0\n {n_con} 1\n 0 0\n {n_var} {n_var} {n_var}\n 0 0 0 1\n 0 0 0 0 0\n 0 0\n 0 0\n {} {} {} {} {}\n",
        n_common[0], n_common[1], n_common[2], n_common[3], n_common[4]
    )
}

#[test]
fn defined_variables_are_inlined() {
    // V2 = 3 x0 + x0*x1 ; V3 = exp(V2) ; row: V2 + V3 ; objective: V2^2
    let text = header(2, 1, [2, 0, 0, 0, 0])
        + "V2 1 0\n0 3\no2\nv0\nv1\nV3 0 0\no44\nv2\nC0\no0\nv2\nv3\nO0 0\no5\nv2\nn2\nr\n3\nb\n3\n3\n";
    let m = nl::import_bytes(text.as_bytes(), Names::default()).unwrap();
    let x = [0.5, -0.25];
    let v2 = 3.0 * 0.5 + 0.5 * -0.25;
    let mut c = [0.0];
    m.model.cons(&x, &mut c);
    assert!((c[0] - (v2 + f64::exp(v2))).abs() < 1e-14);
    assert!((m.model.obj(&x) - v2 * v2).abs() < 1e-14);
    let mut g = [0.0; 2];
    m.model.grad(&x, &mut g);
    assert!((g[0] - 2.0 * v2 * (3.0 - 0.25)).abs() < 1e-13);
    assert!((g[1] - 2.0 * v2 * 0.5).abs() < 1e-13);
}

#[test]
fn conditionals_take_the_active_branch() {
    // objective: if x0 >= 1 then x0^2 else 2 x0  (o35 over o28)
    let text = header(1, 0, [0; 5]) + "O0 0\no35\no28\nv0\nn1\no5\nv0\nn2\no2\nn2\nv0\nb\n3\n";
    let m = nl::import_bytes(text.as_bytes(), Names::default()).unwrap();
    let mut g = [0.0];
    for (x, f, df) in [
        (3.0, 9.0, 6.0),
        (1.0, 1.0, 2.0),
        (0.5, 1.0, 2.0),
        (-2.0, -4.0, 2.0),
    ] {
        assert_eq!(m.model.obj(&[x]), f, "f({x})");
        m.model.grad(&[x], &mut g);
        assert_eq!(g[0], df, "f'({x})");
    }
}

#[test]
fn deep_nesting_up_to_the_limit() {
    // sin(sin(…sin(x0)…)) nested `depth` times in the objective
    let nested =
        |depth: usize| header(1, 0, [0; 5]) + "O0 0\n" + &"o41\n".repeat(depth) + "v0\nb\n3\n";
    let m = nl::import_bytes(nested(1000).as_bytes(), Names::default()).unwrap();
    // at the limit itself: accepted and compiled (on a test thread's 2 MiB stack)
    let deep = nl::import_bytes(nested(nl::MAX_DEPTH).as_bytes(), Names::default()).unwrap();
    assert!(deep.model.obj(&[0.5]).is_finite());
    let mut want = 0.5f64;
    for _ in 0..1000 {
        want = want.sin();
    }
    assert!((m.model.obj(&[0.5]) - want).abs() < 1e-12);
    let (_, field, reason) = malformed(&nested(nl::MAX_DEPTH + 5));
    assert_eq!(field, "expression");
    assert!(reason.contains("nested deeper"), "{reason}");
}

#[test]
fn a_problem_without_objective() {
    // find x with x0 + x1 = 1 (no objective: n_obj = 0)
    let text = "g3 1 1 0\n 2 1 0 0 1\n 0 0\n 0 0\n 0 0 0\n 0 0 0 1\n 0 0 0 0 0\n 2 0\n 0 0\n 0 0 0 0 0\n\
C0\nn0\nr\n4 1\nb\n3\n3\nJ0 2\n0 1\n1 1\n";
    let m = nl::import_bytes(text.as_bytes(), Names::default()).unwrap();
    assert_eq!(m.model.obj(&[0.3, 0.4]), 0.0);
    let mut c = [0.0];
    m.model.cons(&[0.3, 0.4], &mut c);
    assert!((c[0] - 0.7).abs() < 1e-15);
}

fn err(text: &str) -> NlError {
    match nl::import_bytes(text.as_bytes(), Names::default()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn malformed(text: &str) -> (Location, String, String) {
    match err(text) {
        NlError::Malformed { at, field, reason } => (at, field, reason),
        other => panic!("expected a malformed-file error, got {other}"),
    }
}

#[test]
fn truncated_file() {
    let (at, field, reason) = malformed(&SMALL[..SMALL.find("n-1").unwrap()]);
    assert_eq!(at, Location::Line(19));
    assert_eq!(field, "expression");
    assert!(reason.contains("end of file"), "{reason}");
    let (at, field, _) = malformed(&SMALL[..40]);
    assert_eq!(at, Location::Line(6));
    assert!(field.contains("imported functions"), "{field}");
}

#[test]
fn bad_header() {
    let (at, field, reason) = malformed(&SMALL.replacen("g3", "q3", 1));
    assert_eq!(
        (at, field.as_str()),
        (Location::Line(1), "file format letter")
    );
    assert!(reason.contains("'g'"), "{reason}");
    let (at, field, reason) = malformed(&SMALL.replacen(" 2 1 1 0 1\n", " 2 x 1 0 1\n", 1));
    assert_eq!(
        (at, field.as_str()),
        (Location::Line(2), "number of constraints")
    );
    assert!(reason.contains("\"x\""), "{reason}");
    let (at, field, _) = malformed(&SMALL.replacen(" 2 1 1 0 1\n", " 99999999 1 1 0 1\n", 1));
    assert_eq!(
        (at, field.as_str()),
        (Location::Line(2), "number of variables")
    );
}

#[test]
fn unknown_opcode() {
    let (at, field, reason) = malformed(&SMALL.replacen("o54\n", "o99\n", 1));
    assert_eq!((at, field.as_str()), (Location::Line(14), "opcode"));
    assert!(reason.contains("o99"), "{reason}");
}

#[test]
fn index_out_of_range() {
    let (at, field, reason) = malformed(&SMALL.replacen("v1\n", "v7\n", 1));
    assert_eq!((at, field.as_str()), (Location::Line(23), "variable index"));
    assert!(reason.contains("out of range: 7"), "{reason}");
    let (_, field, _) = malformed(&SMALL.replacen("J0 2\n0 1", "J0 2\n5 1", 1));
    assert_eq!(field, "variable of a linear term");
    let (_, field, _) = malformed(&SMALL.replacen("C0\n", "C3\n", 1));
    assert_eq!(field, "constraint number of a C segment");
}

#[test]
fn nan_constants() {
    let (at, field, reason) = malformed(&SMALL.replacen("n-2\n", "nNaN\n", 1));
    assert_eq!((at, field.as_str()), (Location::Line(24), "number"));
    assert!(reason.contains("NaN"), "{reason}");
    let (_, field, _) = malformed(&SMALL.replacen("r\n4 1\n", "r\n4 nan\n", 1));
    assert_eq!(field, "bound of constraint 0");
}

#[test]
fn unsupported_features_name_the_row() {
    // integer variables (header line 7)
    let e = err(&SMALL.replacen(" 0 0 0 0 0\n 2 2", " 0 1 0 0 0\n 2 2", 1));
    assert!(
        matches!(&e, NlError::Unsupported { feature, item: Item::Variable { index: 1, .. }, .. } if feature.contains("integer")),
        "{e}"
    );
    // complementarity in the r segment
    let e = err(&SMALL.replacen("r\n4 1\n", "r\n5 0 2\n", 1));
    assert!(
        matches!(&e, NlError::Unsupported { feature, item: Item::Constraint { index: 0, .. }, .. } if feature.contains("complementarity")),
        "{e}"
    );
    // an imported function call in the objective
    let text = SMALL
        .replacen(" 0 0 0 1\n", " 0 1 0 1\n", 1)
        .replacen("C0\n", "F0 0 1 myfunc\nC0\n", 1)
        .replacen("O0 0\n", "O0 0\nf0 1\nv0\n", 1);
    let e = err(&text);
    assert!(
        matches!(&e, NlError::Unsupported { feature, item: Item::Objective { index: 0, .. }, .. } if feature.contains("myfunc")),
        "{e}"
    );
    assert!(e.to_string().contains("objective 0"), "{e}");
    // a counting operator
    let e = err(&SMALL.replacen("C0\nn0\n", "C0\no59\n1\nv0\n", 1));
    assert!(
        e.to_string().contains("count") && e.to_string().contains("constraint 0"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Mutated files (bytes replaced, removed, inserted; the file cut) never panic: they
    /// import or give a typed error, and malformed-file errors carry a location.
    #[test]
    fn mutated_files_never_panic(
        which in 0usize..3,
        edits in proptest::collection::vec((any::<u16>(), 0u8..4, any::<u8>()), 1..6),
        cut in any::<u16>(),
    ) {
        let mut data = match which {
            0 => SMALL.as_bytes().to_vec(),
            1 => small_binary(),
            _ => std::fs::read(fixture("hs071")).unwrap(),
        };
        let alphabet = b"0123456789 \n-+.eonvCOJrbxkVGSFL#";
        for (pos, kind, byte) in edits {
            if data.is_empty() {
                break;
            }
            let p = pos as usize % data.len();
            let b = if byte % 2 == 0 { alphabet[byte as usize % alphabet.len()] } else { byte };
            match kind {
                0 => data[p] = b,
                1 => { data.remove(p); }
                2 => data.insert(p, b),
                _ => data.truncate(p),
            }
        }
        if cut % 4 == 0 {
            let n = cut as usize % (data.len() + 1);
            data.truncate(n);
        }
        match nl::import_bytes(&data, Names::default()) {
            Ok(m) => {
                // whatever was accepted evaluates without panicking
                let x0 = m.model.meta().x0.clone();
                let _ = m.model.obj(&x0);
            }
            Err(NlError::Malformed { field, .. }) => prop_assert!(!field.is_empty()),
            Err(_) => {}
        }
    }
}
