//! Options by name (`Options::set`/`get`), the option table, options files (Ipopt format and
//! TOML), `Options::validate`, and fuzzing of option strings.

mod common;
use common::*;
use proptest::prelude::*;
use simdnlp_solver::{
    OPTIONS, OptionError, OptionKind, Options, SolverError, Status, ValidRange, solve,
};

/// Values of an option of `kind` in `range` that differ from `default` (as text), most
/// preferred first.
fn other_values(kind: OptionKind, range: ValidRange, default: &str) -> Vec<String> {
    match kind {
        OptionKind::Real => [1e-6, 0.25, 0.75, 1.25, 1.5, 3.0, 7.0, 12.5]
            .into_iter()
            .filter(|&v| range.contains(v))
            .map(|v| format!("{v:?}"))
            .filter(|v| v != default)
            .collect(),
        OptionKind::Integer => {
            let v: usize = default.parse().unwrap();
            vec![(v + 1).to_string()]
        }
        OptionKind::Bool => vec![if default == "yes" { "no" } else { "yes" }.to_string()],
        OptionKind::Choice(words) => words
            .iter()
            .filter(|w| **w != default && !w.contains('='))
            .map(|w| w.to_string())
            .collect(),
        _ => panic!("unknown option kind {kind:?}"),
    }
}

/// The JSON (serde) field names whose values differ between `a` and `b`: serde names the
/// struct fields independently of the option table, so this checks that `set(name, ..)`
/// wrote the field called `name`.
fn changed_fields(a: &Options, b: &Options) -> Vec<String> {
    let (a, b) = (
        serde_json::to_value(a).unwrap(),
        serde_json::to_value(b).unwrap(),
    );
    let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
    a.keys().filter(|k| a[*k] != b[*k]).cloned().collect()
}

#[test]
fn every_documented_option_can_be_set_by_name() {
    let defaults = Options::default();
    let fields = serde_json::to_value(&defaults).unwrap();
    // the table lists every field of the struct, once
    assert_eq!(OPTIONS.len(), fields.as_object().unwrap().len());
    for info in OPTIONS {
        assert!(
            fields.get(info.name).is_some(),
            "{} is not a field",
            info.name
        );
        assert!(!info.doc.trim().is_empty(), "{} has no doc", info.name);
        let default = defaults.get(info.name).unwrap();
        // the default, written back, is accepted and changes nothing
        let mut o = Options::default();
        o.set(info.name, &default).unwrap();
        assert_eq!(o, defaults, "{}", info.name);
        // every other valid value is accepted and changes exactly that field; at least one
        // of them also keeps the relations between options (validate)
        let values = other_values(info.kind, info.range, &default);
        assert!(!values.is_empty(), "{}", info.name);
        let mut validated = false;
        for value in values {
            let mut o = Options::default();
            o.set(info.name, &value)
                .unwrap_or_else(|e| panic!("{} = {value}: {e}", info.name));
            assert_eq!(o.get(info.name).unwrap(), value, "{}", info.name);
            assert_eq!(changed_fields(&o, &defaults), [info.name], "{}", info.name);
            validated |= o.validate().is_ok();
        }
        assert!(validated, "{}", info.name);
    }
    assert!(defaults.validate().is_ok());
}

#[test]
fn values_are_parsed_in_ipopt_spellings() {
    let mut o = Options::default();
    o.set("tol", " 1e-6 ").unwrap();
    o.set("max_iter", "100").unwrap();
    o.set("nlp_scaling", "no").unwrap();
    o.set("warm_start_init_point", "TRUE").unwrap();
    o.set("mu_strategy", "adaptive").unwrap();
    o.set("linear_solver", "lblt").unwrap();
    o.set("kkt", "Condensed").unwrap();
    o.set("print_level", "0").unwrap();
    assert_eq!(o.tol, 1e-6);
    assert_eq!(o.max_iter, 100);
    assert!(!o.nlp_scaling && o.warm_start_init_point);
    assert_eq!(o.mu_strategy, simdnlp_solver::MuStrategy::AdaptiveLoqo);
    assert_eq!(o.linear_solver, simdnlp_solver::LinearSolverKind::Lblt);
    assert_eq!(o.kkt, simdnlp_solver::KktKind::Condensed);
    assert_eq!(o.print_level, simdnlp_solver::PrintLevel::None);
    o.set("print_level", "5").unwrap();
    assert_eq!(o.print_level, simdnlp_solver::PrintLevel::Iterations);
}

#[test]
fn unknown_names_fail_with_the_closest_valid_names() {
    let mut o = Options::default();
    let err = o.set("no_such_option", "1").unwrap_err();
    assert!(matches!(&err, OptionError::UnknownOption { name, .. } if name == "no_such_option"));
    assert!(err.to_string().contains("no_such_option"), "{err}");
    let err = o.set("max_itr", "3").unwrap_err();
    let OptionError::UnknownOption { suggestions, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(suggestions[0], "max_iter");
    assert!(err.to_string().contains("did you mean `max_iter`"), "{err}");
    // Ipopt's name for the time limit of old, and its scaling switch
    let err = o.set("max_cpu_time", "10").unwrap_err();
    assert!(err.to_string().contains("max_wall_time"), "{err}");
    let err = o.set("nlp_scaling_method", "none").unwrap_err();
    assert!(err.to_string().contains("`nlp_scaling`"), "{err}");
    assert_eq!(o, Options::default());
}

#[test]
fn ill_typed_and_out_of_range_values_fail() {
    let mut o = Options::default();
    for (name, value) in [
        ("tol", "abc"),
        ("tol", ""),
        ("tol", "NaN"),
        ("max_wall_time", "nan"),
        ("max_wall_time", "inf"),
        ("max_iter", "3.5"),
        ("max_iter", "-1"),
        ("max_iter", "1e3"),
        ("nlp_scaling", "maybe"),
        ("linear_solver", "ma57"),
        ("print_level", "13"),
    ] {
        let err = o.set(name, value).unwrap_err();
        assert!(
            matches!(&err, OptionError::WrongType { name: n, .. } if *n == name),
            "{name} = {value}: {err:?}"
        );
        assert!(err.to_string().contains(name), "{err}");
    }
    let err = o.set("linear_solver", "ma57").unwrap_err();
    assert_eq!(
        err.to_string(),
        "option `linear_solver`: \"ma57\" is not one of `ldlt`, `lblt`, `lblt_paired`, `multifrontal`"
    );
    for (name, value) in [
        ("tol", "-1"),
        ("tol", "0"),
        ("max_wall_time", "-5"),
        ("acceptable_tol", "-1e-6"),
        ("max_hessian_perturbation", "0"),
        ("bound_frac", "0.6"),
        ("tau_min", "1"),
        ("mu_superlinear_decrease_power", "2"),
        ("kappa_sigma", "0.5"),
        ("filter_reset_trigger", "0"),
    ] {
        let err = o.set(name, value).unwrap_err();
        assert!(
            matches!(&err, OptionError::OutOfRange { name: n, .. } if *n == name),
            "{name} = {value}: {err:?}"
        );
    }
    let err = o.set("bound_frac", "0.6").unwrap_err();
    assert_eq!(
        err.to_string(),
        "option `bound_frac` = 0.6 is outside its valid range 0 < x <= 0.5"
    );
    assert_eq!(o, Options::default(), "failed sets change nothing");
}

/// Issue 17: options that make no sense are rejected before the solve, whichever way
/// they were set (struct fields bypass `set`).
#[test]
fn nonsense_options_are_rejected_by_validate_and_solve() {
    let model = hs71().model;
    let cases: Vec<(Options, &str)> = vec![
        (
            Options {
                max_wall_time: f64::NAN,
                ..Options::default()
            },
            "max_wall_time",
        ),
        (
            Options {
                max_wall_time: -1.0,
                ..Options::default()
            },
            "max_wall_time",
        ),
        (
            Options {
                acceptable_tol: -1e-6,
                ..Options::default()
            },
            "acceptable_tol",
        ),
        (
            Options {
                min_refinement_steps: 5,
                max_refinement_steps: 2,
                ..Options::default()
            },
            "min_refinement_steps",
        ),
        (
            Options {
                max_hessian_perturbation: 0.0,
                ..Options::default()
            },
            "max_hessian_perturbation",
        ),
        (
            Options {
                first_hessian_perturbation: 1e30,
                ..Options::default()
            },
            "first_hessian_perturbation",
        ),
        (
            Options {
                tol: f64::INFINITY,
                ..Options::default()
            },
            "tol",
        ),
    ];
    for (options, name) in cases {
        let err = options.validate().unwrap_err();
        assert_eq!(err.option_name(), Some(name), "{err}");
        match solve(&model, &options) {
            Err(SolverError::BadOption(e)) => assert_eq!(e.option_name(), Some(name)),
            other => panic!("{name}: expected BadOption, got {other:?}"),
        }
    }
    let err = Options {
        min_refinement_steps: 5,
        max_refinement_steps: 2,
        ..Options::default()
    }
    .validate()
    .unwrap_err();
    assert!(
        matches!(
            err,
            OptionError::Conflict {
                other: "max_refinement_steps",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn ipopt_options_text_is_read() {
    let mut o = Options::default();
    o.apply_ipopt_text(
        "# a comment\n\n  tol 1e-3   # trailing comment\nmax_iter 2\nmu_strategy adaptive\ntol 1e-4\n",
        "ipopt.opt",
    )
    .unwrap();
    assert_eq!((o.tol, o.max_iter), (1e-4, 2), "a later line overrides");
    assert_eq!(o.mu_strategy, simdnlp_solver::MuStrategy::AdaptiveLoqo);

    let before = o.clone();
    let err = o
        .apply_ipopt_text("tol 1e-5\nmax_iter\n", "ipopt.opt")
        .unwrap_err();
    assert!(
        matches!(&err, OptionError::Syntax { line: 2, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "ipopt.opt:2: expected `name value`, found \"max_iter\""
    );
    let err = o
        .apply_ipopt_text("tol 1e-5\nmax_iter 3 4\n", "f")
        .unwrap_err();
    assert!(
        matches!(&err, OptionError::Syntax { line: 2, .. }),
        "{err:?}"
    );
    let err = o
        .apply_ipopt_text("tol 1e-5\n\nno_such_option 1\n", "f.opt")
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("f.opt:3: unknown option `no_such_option`"),
        "{err}"
    );
    assert_eq!(err.option_name(), Some("no_such_option"));
    assert_eq!(o, before, "a failed file changes nothing");
}

#[test]
fn toml_options_text_is_read() {
    let mut o = Options::default();
    o.apply_toml_text(
        "# comment\ntol = 1e-3\nmax_iter = 2\nmu_strategy = \"adaptive\"\nnlp_scaling = false\nbound_push = 1\n",
        "opts.toml",
    )
    .unwrap();
    assert_eq!((o.tol, o.max_iter, o.nlp_scaling), (1e-3, 2, false));
    assert_eq!(o.bound_push, 1.0);
    assert_eq!(o.mu_strategy, simdnlp_solver::MuStrategy::AdaptiveLoqo);
    let before = o.clone();
    for (text, line, needle) in [
        (
            "tol = 1e-5\nno_such_option = 1\n",
            2,
            "unknown option `no_such_option`",
        ),
        (
            "tol = 1e-5\nmax_iter = 3.0\n",
            2,
            "\"3.0\" is not a non-negative integer",
        ),
        ("max_iter = -3\n", 1, "\"-3\" is not a non-negative integer"),
        ("tol = [1, 2]\n", 1, "a TOML array"),
        ("[section]\ntol = 1\n", 1, "a TOML table"),
        ("tol = \n", 1, ""),
    ] {
        let err = o.apply_toml_text(text, "opts.toml").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("opts.toml:{line}: ")) && msg.contains(needle),
            "{text:?}: {msg}"
        );
    }
    assert_eq!(o, before, "a failed file changes nothing");
}

#[test]
fn options_files_are_read_by_extension() {
    let dir = std::env::temp_dir().join(format!("simdnlp-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ipopt = dir.join("ipopt.opt");
    let toml = dir.join("options.toml");
    std::fs::write(&ipopt, "tol 1e-3\nmax_iter 2\n").unwrap();
    std::fs::write(&toml, "tol = 1e-3\nmax_iter = 2\n").unwrap();
    for path in [&ipopt, &toml] {
        let o = Options::from_file(path).unwrap();
        assert_eq!((o.tol, o.max_iter), (1e-3, 2));
        // and the solver honours them: two iterations, then the iteration limit
        let r = solve(&hs71().model, &o).unwrap();
        assert_eq!(r.status, Status::MaximumIterationsExceeded);
        assert_eq!(r.iterations, 2);
    }
    // from_file validates the relations between options
    std::fs::write(&ipopt, "min_refinement_steps 4\nmax_refinement_steps 3\n").unwrap();
    assert!(matches!(
        Options::from_file(&ipopt),
        Err(OptionError::Conflict { .. })
    ));
    let missing = dir.join("missing.opt");
    let err = Options::from_file(&missing).unwrap_err();
    assert!(matches!(err, OptionError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("missing.opt"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// How many cases each fuzz property runs: `$SIMDNLP_FUZZ_CASES` (or proptest's own
/// `$PROPTEST_CASES`), else 5 000 (about a second in the test profile). The long run of
/// issue 17 (no panic in 10⁵ cases, ~20 s) is
///
/// ```text
/// SIMDNLP_FUZZ_CASES=100000 cargo test -p simdnlp-solver --test options fuzz
/// ```
fn fuzz_cases() -> u32 {
    ["SIMDNLP_FUZZ_CASES", "PROPTEST_CASES"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.parse().ok())
        .unwrap_or(5_000)
}

/// Option names: mostly real ones (so values reach the parsers), some arbitrary text.
fn option_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(OPTIONS.iter().map(|i| i.name).collect::<Vec<_>>())
            .prop_map(str::to_string),
        1 => ".{0,24}",
    ]
}

/// Option values: numbers in many spellings, words, and arbitrary text.
fn option_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>().prop_map(|v| format!("{v:?}")),
        any::<i64>().prop_map(|v| v.to_string()),
        "[-+]?[0-9]{0,4}(\\.[0-9]{0,3})?([eEdD][-+]?[0-9]{0,4})?",
        "(yes|no|true|false|monotone|adaptive|ldlt|lblt|lblt_paired|multifrontal|augmented|condensed|make_parameter|relax_bounds|none|debug|nan|inf|-inf|infinity)",
        ".{0,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(), ..ProptestConfig::default() })]

    /// `set` never panics; on success the value reads back and re-sets to the same options,
    /// and the options still validate (ranges) or fail only on a relation between options.
    #[test]
    fn fuzz_set_never_panics(name in option_name(), value in option_value()) {
        let mut o = Options::default();
        match o.set(&name, &value) {
            Ok(()) => {
                let text = o.get(name.trim()).expect("a set option has a value");
                let mut again = Options::default();
                again.set(&name, &text).expect("get's text is accepted by set");
                prop_assert_eq!(&again, &o);
                if let Err(e) = o.validate() {
                    prop_assert!(matches!(e, OptionError::Conflict { .. }), "{}", e);
                }
            }
            Err(e) => {
                prop_assert_eq!(&o, &Options::default());
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }

    /// Options files of arbitrary lines never panic, in either format.
    #[test]
    fn fuzz_options_text_never_panics(
        lines in proptest::collection::vec(
            (option_name(), option_value(), ".{0,8}").prop_map(|(n, v, rest)| format!("{n} {v}{rest}")),
            0..6,
        ),
        junk in ".{0,40}",
    ) {
        let text = format!("{}\n{junk}", lines.join("\n"));
        let mut o = Options::default();
        let _ = o.apply_ipopt_text(&text, "fuzz.opt");
        let toml_text = lines
            .iter()
            .map(|l| l.replacen(' ', " = ", 1))
            .collect::<Vec<_>>()
            .join("\n");
        let _ = o.apply_toml_text(&toml_text, "fuzz.toml");
        let _ = o.apply_toml_text(&text, "fuzz.toml");
    }
}
