//! One test per bad input: each returns its typed error (never a panic or a silent alias).

use simdnlp_modeling::{Model, ModelBuilder, ModelError, NlpModel, NonFiniteDatum, OutOfRange};

/// The out-of-range details of a failed build.
fn out_of_range(r: Result<Model, ModelError>) -> OutOfRange {
    match r {
        Err(ModelError::IndexOutOfRange(e)) => *e,
        other => panic!("expected IndexOutOfRange, got {other:?}"),
    }
}

#[test]
fn index_past_the_end_of_a_block() {
    let mut m = ModelBuilder::new();
    let x = m.var(1..=5).named("x");
    m.minimize(1..=5, |i| x.at(i + 1).powi(2)).named("shifted");
    let e = out_of_range(m.build());
    assert_eq!(
        (
            e.pattern.as_str(),
            e.point,
            e.block.as_str(),
            e.dim,
            e.index
        ),
        ("shifted", 4, "x", 0, 6)
    );
    assert_eq!(
        (e.range.as_str(), e.kind, e.written.as_str()),
        ("1..=5", "variable", "i + 1")
    );
    assert_eq!(e.point_desc, "i = 5");
}

#[test]
fn index_below_a_block_start() {
    let mut m = ModelBuilder::new();
    let x = m.var(0..=4).named("x");
    m.constraint(0..=4, |i| x.at(i - 1)).named("lag");
    let err = m.build().unwrap_err();
    assert!(err.to_string().contains("`lag`"), "{err}");
    let e = out_of_range(Err(err));
    assert_eq!((e.point, e.index), (0, -1));
}

#[test]
fn no_silent_aliasing_into_the_next_row_of_a_2d_block() {
    // x[i, j+1] with j + 1 == 3 would land on x[i+1, 0] in the flat vector: must be rejected
    let mut m = ModelBuilder::new();
    let x = m.var((0..2, 0..3)).named("x");
    m.minimize((0..2, 0..3), |(i, j)| x.at((i, j + 1)).powi(2));
    let e = out_of_range(m.build());
    assert_eq!((e.dim, e.index, e.point), (1, 3, 2));
    assert_eq!(e.point_desc, "i = 0, j = 2");
}

#[test]
fn constant_index_out_of_range() {
    let mut m = ModelBuilder::new();
    let h = m.var(0..=10).named("h");
    m.maximize((), |_| h.at(11));
    assert_eq!(out_of_range(m.build()).index, 11);
}

#[test]
fn parameter_index_out_of_range() {
    let mut m = ModelBuilder::new();
    let x = m.var(3);
    let p = m.param([1.0, 2.0]).named("p");
    m.minimize(0..3, |i| p.at(i) * x.at(i));
    let e = out_of_range(m.build());
    assert_eq!((e.kind, e.index, e.block.as_str()), ("parameter", 2, "p"));
}

#[test]
fn augmentation_row_out_of_range() {
    let mut m = ModelBuilder::new();
    let x = m.var(3);
    let c = m.constraint(0..2, |i| x.at(i)).named("bal");
    let data: Vec<(usize, usize)> = vec![(0, 1), (1, 2)];
    m.augment(&c, &data, |(g, row)| (row, x.at(g)));
    let e = out_of_range(m.build());
    assert_eq!(
        (e.kind, e.index, e.point, e.block.as_str()),
        ("constraint", 2, 1, "bal")
    );
}

#[test]
fn expression_block_index_out_of_range() {
    let mut m = ModelBuilder::new();
    let x = m.var(1..=4);
    let s = m.expr(1..=4, |i| x.at(i).powi(2)).named("s");
    m.minimize(1..=4, |i| s.at(i + 1));
    let e = out_of_range(m.build());
    assert_eq!((e.kind, e.index, e.block.as_str()), ("expression", 5, "s"));
}

#[test]
fn pruned_reference_is_still_checked() {
    // floor() has a zero derivative, so x[i + 10] is no first-order slot; it is still read
    let mut m = ModelBuilder::new();
    let x = m.var(3);
    m.minimize(0..3, |i| x.at(i + 10).floor() + x.at(i));
    assert_eq!(out_of_range(m.build()).index, 10);
}

#[test]
fn nan_bound() {
    let mut m = ModelBuilder::new();
    let _x = m.var(3).lower([0.0, f64::NAN, 0.0]).named("x");
    match m.build() {
        Err(ModelError::NotANumber { block, at, .. }) => {
            assert_eq!((block.as_str(), at.as_str()), ("x", "[1]"))
        }
        other => panic!("expected NotANumber, got {other:?}"),
    }
}

#[test]
fn inverted_variable_bounds() {
    let mut m = ModelBuilder::new();
    let _x = m.var(2..=4).bounds(1.0, [2.0, 0.5, 3.0]).named("x");
    match m.build() {
        Err(ModelError::InvertedBounds {
            at, lower, upper, ..
        }) => {
            assert_eq!((at.as_str(), lower, upper), ("[3]", 1.0, 0.5))
        }
        other => panic!("expected InvertedBounds, got {other:?}"),
    }
}

#[test]
fn inverted_constraint_bounds() {
    let mut m = ModelBuilder::new();
    let x = m.var(2);
    m.constraint(0..2, |i| x.at(i)).bounds(1.0, 0.0).named("c");
    assert!(matches!(
        m.build(),
        Err(ModelError::InvertedBounds {
            what: "constraint",
            ..
        })
    ));
}

#[test]
fn nan_constraint_bound() {
    let mut m = ModelBuilder::new();
    let x = m.var(2);
    m.constraint(0..2, |i| x.at(i)).upper(f64::NAN);
    assert!(matches!(
        m.build(),
        Err(ModelError::NotANumber {
            what: "upper bound",
            ..
        })
    ));
}

#[test]
fn non_finite_start() {
    let mut m = ModelBuilder::new();
    let _x = m.var(2).start(f64::INFINITY);
    assert!(matches!(
        m.build(),
        Err(ModelError::NotANumber { what: "start", .. })
    ));
}

#[test]
fn wrong_length_of_bound_list() {
    let mut m = ModelBuilder::new();
    let _x = m.var(0..=3).upper([1.0, 2.0]).named("x");
    assert!(matches!(
        m.build(),
        Err(ModelError::LengthMismatch {
            what: "upper bound",
            expected: 4,
            got: 2,
            ..
        })
    ));
}

#[test]
fn wrong_parameter_length() {
    let mut m = ModelBuilder::new();
    let _p = m.param_shaped(0..3, [1.0, 2.0]);
    assert!(matches!(
        m.build(),
        Err(ModelError::LengthMismatch {
            what: "parameter values",
            ..
        })
    ));
}

#[test]
fn nan_parameter() {
    let mut m = ModelBuilder::new();
    let _p = m.param([f64::NAN]);
    assert!(matches!(
        m.build(),
        Err(ModelError::NotANumber {
            what: "parameter value",
            ..
        })
    ));
}

#[test]
fn negative_block_length() {
    let mut m = ModelBuilder::new();
    let _x = m.var(-3i64);
    assert!(matches!(m.build(), Err(ModelError::BadShape { .. })));
}

#[test]
fn declaration_errors_use_the_final_name() {
    // each error is found before `.named(..)` runs; the message names the block as named
    let message = |m: ModelBuilder| m.build().unwrap_err().to_string();
    let mut m = ModelBuilder::new();
    let _x = m.var(0..=3).upper([1.0, 2.0]).named("height");
    let e = message(m);
    assert_eq!(e, "upper bound of block `height`: expected 4 values, got 2");

    let mut m = ModelBuilder::new();
    let _x = m.var(-3i64).named("steps");
    let e = message(m);
    assert!(e.starts_with("variable block steps: "), "{e}");

    let mut m = ModelBuilder::new();
    let _p = m.param_shaped(0..3, [1.0, 2.0]).named("price");
    let e = message(m);
    assert_eq!(
        e,
        "parameter values of block `price`: expected 3 values, got 2"
    );

    // a constraint over a data source that cannot be read is reported under the name its
    // handle has at build(), even when `.named()` comes after the failed declaration
    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    let _c = m.constraint(0..usize::MAX, |i| x.at(i) * 1.0).named("rows");
    let e = message(m);
    assert!(e.contains("data of pattern rows"), "{e}");
    assert!(!e.contains("c0"), "{e}");
    // unnamed, it keeps its default label; `c1` is not mistaken for a prefix of `c12`
    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    let _c = m.constraint(0..2, |i| x.at(i) * 1.0);
    let _d = m.constraint(0..usize::MAX, |i| x.at(i) * 1.0);
    let e = message(m);
    assert!(e.contains("data of pattern c1"), "{e}");
    // objective and augmentation patterns too
    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    let _o = m.minimize(0..usize::MAX, |i| x.at(0) * i).named("cost");
    let e = message(m);
    assert!(e.contains("data of pattern cost"), "{e}");
    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    let rows = m.constraint(0..2, |i| x.at(i) * 1.0).named("balance");
    let _a = m
        .augment(&rows, 0..usize::MAX, |i| (0, x.at(i)))
        .named("flows");
    let e = message(m);
    assert!(e.contains("pattern flows"), "{e}");
}

#[test]
fn duplicate_names() {
    let mut m = ModelBuilder::new();
    let _a = m.var(2).named("x");
    let _b = m.var(2).named("x");
    assert!(matches!(m.build(), Err(ModelError::DuplicateName { .. })));
}

#[test]
fn conflicting_sense() {
    let mut m = ModelBuilder::new();
    let x = m.var(2);
    m.minimize(0..2, |i| x.at(i));
    m.maximize(0..2, |i| x.at(i));
    assert_eq!(m.build().err(), Some(ModelError::ConflictingSense));
}

#[test]
fn block_of_another_model() {
    let mut other = ModelBuilder::new();
    let y = other.var(5);
    let mut m = ModelBuilder::new();
    let _x = m.var(5);
    m.minimize(0..5, |i| y.at(i).powi(2));
    assert!(matches!(
        m.build(),
        Err(ModelError::ForeignBlock {
            kind: "variable",
            ..
        })
    ));
}

#[test]
fn augmenting_a_constraint_of_another_model() {
    let mut other = ModelBuilder::new();
    let ox = other.var(1);
    let oc = other.constraint((), |_| ox.at(0));
    let mut m = ModelBuilder::new();
    let x = m.var(1);
    m.augment(&oc, (), |_| ((), x.at(0)));
    assert!(matches!(
        m.build(),
        Err(ModelError::ForeignHandle {
            kind: "constraint",
            ..
        })
    ));
}

#[test]
fn too_many_index_columns() {
    // an affine position over more than MAX_IDX_TERMS columns cannot be represented
    let mut m = ModelBuilder::new();
    let x = m.var(100);
    let data: Vec<(usize, usize, usize, usize, usize)> = vec![(0, 1, 2, 3, 4)];
    m.minimize(&data, |(a, b, c, d, e)| x.at(a + b + c + d + e));
    assert!(matches!(m.build(), Err(ModelError::InvalidIndex { .. })));
}

#[test]
fn accessor_errors() {
    let mut m = ModelBuilder::new();
    let x = m.var(3).named("x");
    let c = m.constraint(0..3, |i| x.at(i)).named("c");
    let p = m.param([1.0]).named("p");
    let mut model = m.build().unwrap();
    let mut other = ModelBuilder::new();
    let foreign = other.var(3).named("x");
    assert!(matches!(
        model.set_start(&foreign, 1.0),
        Err(ModelError::ForeignHandle { .. })
    ));
    assert!(matches!(
        model.set_lower(&x, [1.0, 2.0]),
        Err(ModelError::LengthMismatch { .. })
    ));
    assert!(matches!(
        model.set_upper(&x, f64::NAN),
        Err(ModelError::NotANumber { .. })
    ));
    model.set_lower(&x, 1.0).unwrap();
    assert!(matches!(
        model.set_upper(&x, 0.0),
        Err(ModelError::InvertedBounds { .. })
    ));
    assert!(matches!(
        model.set_lcon(&c, 1.0),
        Err(ModelError::InvertedBounds { .. })
    ));
    assert!(matches!(
        model.set_value(&p, [1.0, 2.0]),
        Err(ModelError::LengthMismatch { .. })
    ));
    assert!(matches!(
        model.solution(&x, &[0.0; 2]),
        Err(ModelError::LengthMismatch { .. })
    ));
    assert!(matches!(
        model.multipliers(&c, &[0.0; 4]),
        Err(ModelError::LengthMismatch { .. })
    ));
    assert!(matches!(
        model.var_named::<simdnlp_modeling::Ix1>("nope"),
        Err(ModelError::NotFound { .. })
    ));
    assert!(matches!(
        model.var_named::<simdnlp_modeling::Ix2>("x"),
        Err(ModelError::DimensionMismatch { .. })
    ));
    // nothing changed by the rejected calls
    assert_eq!(model.meta().uvar, vec![f64::INFINITY; 3]);
    assert_eq!(model.meta().lcon, vec![0.0; 3]);
}

#[test]
fn wrong_number_of_positions_for_a_run_time_shaped_block() {
    let mut m = ModelBuilder::new();
    let z = m
        .var(simdnlp_modeling::Shape::new(vec![(0, 2), (0, 2)]))
        .named("z");
    m.minimize(0..2, |i| z.at(vec![i]).powi(2));
    assert!(matches!(
        m.build(),
        Err(ModelError::WrongArity {
            expected: 2,
            got: 1,
            ..
        })
    ));
}

// ---- sizes, memory, foreign blocks, data and constant rows (issue 17) ----

#[test]
fn four_blocks_of_2_pow_62_elements_overflow_the_variable_count() {
    // 2·2⁶² > i64::MAX: the second block no longer fits (a panic or a wrap before)
    let mut m = ModelBuilder::new();
    for _ in 0..4 {
        let _ = m.var(1usize << 62);
    }
    match m.build() {
        Err(ModelError::TooLarge { what, elements }) => {
            assert!(
                what.contains("variables") && what.contains("`x1`"),
                "{what}"
            );
            assert_eq!(elements, 1u64 << 63);
        }
        other => panic!("expected TooLarge, got {:?}", other.err()),
    }
}

#[test]
fn element_count_of_a_2d_block_must_not_wrap() {
    // 2³² × 2³² = 2⁶⁴ wrapped to an empty block before
    let mut m = ModelBuilder::new();
    let x = m.var((0..1i64 << 32, 0..1i64 << 32)).named("x");
    m.minimize((), |_| x.at((0, 0)));
    match m.build() {
        Err(ModelError::BadShape { what, reason }) => {
            // named by the name the block has at build() (issue 13)
            assert_eq!(what, "variable block x");
            assert!(reason.contains("18446744073709551616 elements"), "{reason}");
        }
        other => panic!("expected BadShape, got {:?}", other.err()),
    }
    // a constraint over the same product of ranges is refused too (its data is the product)
    let mut m = ModelBuilder::new();
    let y = m.var(1);
    m.constraint((0..1i64 << 32, 0..1i64 << 32), |_| y.at(0));
    assert!(matches!(m.build(), Err(ModelError::BadShape { .. })));
}

#[test]
fn the_whole_i64_range_is_too_many_indices() {
    let mut m = ModelBuilder::new();
    let _x = m.var(i64::MIN..=i64::MAX);
    match m.build() {
        Err(ModelError::BadShape { reason, .. }) => {
            assert!(
                reason.contains("-9223372036854775808..=9223372036854775807")
                    && reason.contains("18446744073709551616 indices"),
                "{reason}"
            );
        }
        other => panic!("expected BadShape, got {:?}", other.err()),
    }
    // the largest block that fits is still accepted as a declaration
    let mut m = ModelBuilder::new();
    let x = m.var(0..i64::MAX);
    assert_eq!(x.len(), i64::MAX as usize);
}

/// `/proc/sys/vm/overcommit_memory` is `1` ("always"): there an 8 TB allocation succeeds
/// and the test would fill it.
fn overcommit_always() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|s| s.trim() == "1")
}

#[test]
fn a_model_too_large_for_memory_is_an_error_naming_the_bytes() {
    // 2⁴⁵ variables: 2⁴⁸ bytes per vector, beyond a 47-bit user address space under any
    // overcommit policy
    let n = 1usize << 45;
    let mut m = ModelBuilder::new();
    let x = m.var(n).named("x");
    m.minimize((), |_| x.at(0).powi(2));
    match m.build() {
        Err(ModelError::OutOfMemory { what, bytes }) => {
            assert_eq!(bytes, 8 * n as u64);
            assert!(what.contains(&format!("{n} variables")), "{what}");
        }
        other => panic!("expected OutOfMemory, got {:?}", other.err()),
    }
    // 10¹² variables (the case: 8 TB per vector)
    if !overcommit_always() {
        let mut m = ModelBuilder::new();
        let _x = m.var(1_000_000_000_000usize);
        assert!(matches!(
            m.build(),
            Err(ModelError::OutOfMemory {
                bytes: 8_000_000_000_000,
                ..
            })
        ));
    }
    // a start list of that size, at declaration
    let mut m = ModelBuilder::new();
    let _x = m.var(n).named("big").start_with(|i| i as f64);
    match m.build() {
        Err(ModelError::OutOfMemory { what, .. }) => assert!(what.contains("`big`"), "{what}"),
        other => panic!("expected OutOfMemory, got {:?}", other.err()),
    }
    // data columns of a pattern over 2⁴⁵ points
    let mut m = ModelBuilder::new();
    let y = m.var(1);
    m.minimize(0..n, |i| y.at(0) * i);
    match m.build() {
        Err(ModelError::OutOfMemory { what, bytes }) => {
            assert!(what.contains("data of pattern obj0"), "{what}");
            assert_eq!(bytes, 8 * n as u64);
        }
        other => panic!("expected OutOfMemory, got {:?}", other.err()),
    }
}

#[test]
fn a_foreign_block_at_the_same_position_as_a_local_one_is_not_merged() {
    // y (another builder) and x both start at position 0: the AD compiler keys slots by
    // position, so x[0] − 3·y[0] used to compile as −2·x[0]
    let mut other = ModelBuilder::new();
    let y = other.var(2).named("y");
    let mut m = ModelBuilder::new();
    let x = m.var(2).start(1.0).named("x");
    let y_id = y.id();
    m.minimize((), |_| (x.at(0) - 3.0 * y.at(0)).powi(2));
    assert_eq!(
        m.build().err(),
        Some(ModelError::ForeignBlock {
            pattern: "obj0".into(),
            kind: "variable",
            id: y_id,
        })
    );
    // the same for parameters, and for a reference built outside the pattern's closure
    let mut other = ModelBuilder::new();
    let q = other.param([5.0]);
    let mut m = ModelBuilder::new();
    let p = m.param([2.0]);
    let x = m.var(1);
    let outside = q.at(0) * x.at(0);
    m.minimize((), |_| p.at(0) * x.at(0) + outside.clone());
    assert!(matches!(
        m.build(),
        Err(ModelError::ForeignBlock {
            kind: "parameter",
            ..
        })
    ));
}

#[test]
fn non_finite_data_is_rejected_with_pattern_point_and_field() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut m = ModelBuilder::new();
        let x = m.var(3);
        let data = [(0usize, 1.0), (1, 2.0), (2, bad)];
        m.constraint(&data[..], |(i, d)| x.at(i) - d).named("fit");
        match m.build() {
            Err(ModelError::NonFiniteData(e)) => {
                let NonFiniteDatum {
                    pattern,
                    point,
                    point_desc,
                    field,
                    value,
                } = *e;
                assert_eq!((pattern.as_str(), point, field.as_str()), ("fit", 2, "d.1"));
                assert_eq!(point_desc, format!("d.0 = 2, d.1 = {bad:?}"));
                assert!(value.is_nan() == bad.is_nan() && (bad.is_nan() || value == bad));
            }
            other => panic!("expected NonFiniteData, got {:?}", other.err()),
        }
    }
    // a field the expression does not read may hold anything
    let mut m = ModelBuilder::new();
    let x = m.var(2);
    let data: [(usize, f64, f64); 2] = [(0, 1.0, f64::NAN), (1, 2.0, f64::INFINITY)];
    m.minimize(&data[..], |(i, d, _unused)| (x.at(i) - d).powi(2));
    assert!(m.build().is_ok());
}

#[test]
fn a_constant_row_outside_its_bounds_is_rejected_at_build() {
    use simdnlp_modeling::Expr;
    let mut m = ModelBuilder::new();
    let x = m.var(2);
    m.minimize(0..2, |i| x.at(i).powi(2));
    m.constraint(0..2, |i| x.at(i)).upper(1.0).named("fine");
    let demand = [0.0, 0.0, 1.5];
    m.constraint(&demand[..], |d| d * 1.0).named("balance");
    assert_eq!(
        m.build().err(),
        Some(ModelError::InfeasibleConstantRow {
            block: "balance".into(),
            at: "[2]".into(),
            value: 1.5,
            lower: 0.0,
            upper: 0.0,
        })
    );
    // a variable multiplied by zero is no variable
    let mut m = ModelBuilder::new();
    let x = m.var(1);
    m.constraint((), |_| 0.0 * x.at(0) + 2.0)
        .upper(1.0)
        .named("c");
    assert!(matches!(
        m.build(),
        Err(ModelError::InfeasibleConstantRow { value: 2.0, .. })
    ));
    // a constant row within its bounds, rounding included, builds
    let mut m = ModelBuilder::new();
    let x = m.var(1);
    m.minimize((), |_| x.at(0).powi(2));
    m.constraint((), |_| Expr::constant(0.1 + 0.2 - 0.3))
        .named("rounding");
    m.constraint((), |_| Expr::constant(-5.0))
        .upper(0.0)
        .named("slack");
    assert!(m.build().is_ok());
    // a constant base row that an augmentation gives a variable is not constant
    let mut m = ModelBuilder::new();
    let pg = m.var(1);
    let bal = m.constraint(&[1.0][..], |d| d * 1.0).named("bal");
    m.augment(&bal, (), |_| (0, -pg.at(0)));
    assert!(m.build().is_ok());
    // a row reading a variable without a derivative (sign) is not constant either
    let mut m = ModelBuilder::new();
    let x = m.var(1);
    m.constraint((), |_| x.at(0).sign() + 3.0).named("signed");
    assert!(m.build().is_ok());
}
