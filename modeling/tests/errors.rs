//! One test per bad input: each returns its typed error (never a panic or a silent alias).

use simdnlp_modeling::{Model, ModelBuilder, ModelError, NlpModel, OutOfRange};

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

    // a constraint over a data source that cannot be read: the handle still takes the
    // name, and the error uses it
    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    let _c = m.constraint(0..usize::MAX, |i| x.at(i) * 1.0).named("rows");
    let e = message(m);
    assert!(e.starts_with("data of pattern rows: "), "{e}");
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
