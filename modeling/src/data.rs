//! Data iterators of patterns, stored as columns.
//!
//! A pattern is one expression over a *data source*: a range (`1..=nh`), a Cartesian
//! product of ranges (`(0..n, 0..m)`), a slice of tuples (`&[(usize, usize, f64)]`), a slice
//! of user structs with `#[derive(DataRow)]`, a nested iterator ([`nested`]), or the unit
//! `()` (a single data point). The source is copied once into columns — one `i64` column
//! per integer field, one real column per real field — the layout a GPU copies as is.
//! The closure of the pattern receives the *symbolic* point: [`Idx`] for integer fields and
//! [`Dat`] for real fields.

use crate::alloc::try_with_capacity;
use crate::error::ModelError;
use crate::index::{Dat, Idx};
use crate::shape::{Dims, Range1, Shape};
use ndarray::{Ix0, Ix1, Ix2, Ix3};
use simdnlp_ad::Scalar;
use std::ops::{Range, RangeInclusive};

/// Allocates the columns of a data source's symbolic point (and names them for printing).
#[derive(Clone, Debug, Default)]
pub struct ColumnAlloc {
    ints: Vec<String>,
    reals: Vec<String>,
    ranges: usize,
    rows: usize,
}

impl ColumnAlloc {
    /// A new integer column named `name`.
    pub fn int(&mut self, name: &str) -> Idx {
        self.ints.push(name.to_string());
        Idx::field((self.ints.len() - 1) as u32)
    }

    /// A new real column named `name`.
    pub fn real(&mut self, name: &str) -> Dat {
        self.reals.push(name.to_string());
        Dat::field((self.reals.len() - 1) as u32)
    }

    /// The next index name for a range: `i`, `j`, `k`, `l`, then `i4`, `i5`, …
    pub fn range_name(&mut self) -> String {
        let n = self.ranges;
        self.ranges += 1;
        match n {
            0 => "i".into(),
            1 => "j".into(),
            2 => "k".into(),
            3 => "l".into(),
            _ => format!("i{n}"),
        }
    }

    /// The next name for a data row: `d`, `e`, then `d2`, `d3`, …
    pub fn row_name(&mut self) -> String {
        let n = self.rows;
        self.rows += 1;
        match n {
            0 => "d".into(),
            1 => "e".into(),
            _ => format!("d{n}"),
        }
    }
}

/// `prefix.name`, or `name` when the prefix is empty.
pub fn field_name(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Appends one data point's field values to the columns, in declaration order.
#[derive(Debug)]
pub struct ColumnWriter<'a, T> {
    ints: &'a mut [Vec<i64>],
    reals: &'a mut [Vec<T>],
    ci: usize,
    cr: usize,
    bad: Option<String>,
}

impl<T: Scalar> ColumnWriter<'_, T> {
    /// Appends the next integer field.
    pub fn int(&mut self, v: i64) {
        if let Some(c) = self.ints.get_mut(self.ci) {
            c.push(v);
        }
        self.ci += 1;
    }

    /// Appends the next integer field from an unsigned value; values beyond `i64` are
    /// reported by `build()`.
    pub fn int_u64(&mut self, v: u64) {
        match i64::try_from(v) {
            Ok(v) => self.int(v),
            Err(_) => {
                self.bad
                    .get_or_insert_with(|| format!("integer field value {v} does not fit in i64"));
                self.int(i64::MIN)
            }
        }
    }

    /// Appends the next real field (converted to the model's scalar type).
    pub fn real(&mut self, v: f64) {
        if let Some(c) = self.reals.get_mut(self.cr) {
            c.push(T::from_f64(v));
        }
        self.cr += 1;
    }
}

/// A field type of a data row: integers become [`Idx`], floats become [`Dat`].
pub trait Field {
    /// The symbolic value of the field.
    type Sym: Copy;
    /// Allocates the field's column.
    fn declare(cols: &mut ColumnAlloc, name: &str) -> Self::Sym;
    /// Writes the field's value.
    fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>);
}

macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            type Sym = Idx;
            fn declare(cols: &mut ColumnAlloc, name: &str) -> Idx { cols.int(name) }
            #[allow(clippy::unnecessary_cast, unreachable_patterns)]
            fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>) {
                match i64::try_from(*self) {
                    Ok(v) => w.int(v),
                    Err(_) => w.int_u64(*self as u64),
                }
            }
        }
        impl DataRow for $t {
            type Sym = Idx;
            fn declare(cols: &mut ColumnAlloc, prefix: &str) -> Idx {
                let name = if prefix.is_empty() { cols.row_name() } else { prefix.to_string() };
                cols.int(&name)
            }
            fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>) { Field::write(self, w) }
        }
    )*};
}
int_field!(i64, i32, i16, i8, u64, u32, u16, u8, usize, isize);

macro_rules! real_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            type Sym = Dat;
            fn declare(cols: &mut ColumnAlloc, name: &str) -> Dat { cols.real(name) }
            fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>) { w.real(*self as f64) }
        }
        impl DataRow for $t {
            type Sym = Dat;
            fn declare(cols: &mut ColumnAlloc, prefix: &str) -> Dat {
                let name = if prefix.is_empty() { cols.row_name() } else { prefix.to_string() };
                cols.real(&name)
            }
            fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>) { Field::write(self, w) }
        }
    )*};
}
real_field!(f64, f32);

/// One element of a slice data source: the integer and float primitives, tuples of data
/// rows, and user structs with `#[derive(DataRow)]`.
pub trait DataRow {
    /// The symbolic data point the pattern closure receives.
    type Sym: Copy;
    /// Allocates the row's columns; `prefix` names them (`d` → `d.f_bus`).
    fn declare(cols: &mut ColumnAlloc, prefix: &str) -> Self::Sym;
    /// Writes the row's field values in declaration order.
    fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>);
}

macro_rules! tuple_row {
    ($(($($n:tt $A:ident),+))*) => {$(
        impl<$($A: DataRow),+> DataRow for ($($A,)+) {
            type Sym = ($($A::Sym,)+);
            fn declare(cols: &mut ColumnAlloc, prefix: &str) -> Self::Sym {
                let p = if prefix.is_empty() { cols.row_name() } else { prefix.to_string() };
                ($($A::declare(cols, &format!("{p}.{}", $n)),)+)
            }
            fn write<T: Scalar>(&self, w: &mut ColumnWriter<'_, T>) {
                $(self.$n.write(w);)+
            }
        }
    )*};
}
tuple_row! {
    (0 A)
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
    (0 A, 1 B, 2 C, 3 D, 4 E)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H)
}

/// The data iterator of a pattern.
///
/// `Point` is what the pattern closure receives; `Shape` the dimensions of the block of
/// rows a constraint over this source gets (one row per data point, row-major).
pub trait DataSource {
    /// The symbolic data point.
    type Point: Copy;
    /// Dimensions of the row block.
    type Shape: Dims;
    /// Allocates the point's columns.
    fn declare(cols: &mut ColumnAlloc) -> Self::Point;
    /// Number of data points.
    fn len(&self) -> usize;
    /// `true` when the source has no data point (allowed: the pattern has no terms).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The row block's index set (point `k` is element `k` in row-major order).
    fn shape(&self) -> Result<Shape, String>;
    /// Writes data point `k`'s field values in declaration order.
    fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>);
    /// A short description for printing: `i ∈ 1..=200`, `d ∈ 54 rows`.
    fn describe(&self, names: &mut ColumnAlloc) -> String;
}

impl DataSource for () {
    type Point = ();
    type Shape = Ix0;
    fn declare(_: &mut ColumnAlloc) {}
    fn len(&self) -> usize {
        1
    }
    fn shape(&self) -> Result<Shape, String> {
        Ok(Shape::new(Vec::new()))
    }
    fn write<T: Scalar>(&self, _: usize, _: &mut ColumnWriter<'_, T>) {}
    fn describe(&self, _: &mut ColumnAlloc) -> String {
        String::new()
    }
}

macro_rules! range_source {
    ($($t:ty),*) => {$(
        impl DataSource for Range<$t> {
            type Point = Idx;
            type Shape = Ix1;
            fn declare(cols: &mut ColumnAlloc) -> Idx { let n = cols.range_name(); cols.int(&n) }
            fn len(&self) -> usize { self.range1().map(|r| r.1).unwrap_or(0) }
            fn shape(&self) -> Result<Shape, String> { Ok(Shape::new(vec![self.range1()?])) }
            fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) {
                let lo = self.range1().map(|r| r.0).unwrap_or(0);
                w.int(lo + k as i64)
            }
            fn describe(&self, names: &mut ColumnAlloc) -> String {
                format!("{} ∈ {}", names.range_name(), Shape::new(vec![self.range1().unwrap_or((0, 0))]).range_str(0))
            }
        }
        impl DataSource for RangeInclusive<$t> {
            type Point = Idx;
            type Shape = Ix1;
            fn declare(cols: &mut ColumnAlloc) -> Idx { let n = cols.range_name(); cols.int(&n) }
            fn len(&self) -> usize { self.range1().map(|r| r.1).unwrap_or(0) }
            fn shape(&self) -> Result<Shape, String> { Ok(Shape::new(vec![self.range1()?])) }
            fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) {
                let lo = self.range1().map(|r| r.0).unwrap_or(0);
                w.int(lo + k as i64)
            }
            fn describe(&self, names: &mut ColumnAlloc) -> String {
                format!("{} ∈ {}", names.range_name(), Shape::new(vec![self.range1().unwrap_or((0, 0))]).range_str(0))
            }
        }
    )*};
}
range_source!(i64, i32, usize, u32);

impl<R: DataRow> DataSource for &[R] {
    type Point = R::Sym;
    type Shape = Ix1;
    fn declare(cols: &mut ColumnAlloc) -> R::Sym {
        R::declare(cols, "")
    }
    fn len(&self) -> usize {
        <[R]>::len(self)
    }
    fn shape(&self) -> Result<Shape, String> {
        Ok(Shape::new(vec![(0, <[R]>::len(self))]))
    }
    fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) {
        self[k].write(w)
    }
    fn describe(&self, names: &mut ColumnAlloc) -> String {
        format!("{} ∈ {} rows", names.row_name(), <[R]>::len(self))
    }
}

macro_rules! delegate_slice {
    ($($ty:ty => [$($g:tt)*]),*) => {$(
        impl<$($g)*> DataSource for $ty {
            type Point = R::Sym;
            type Shape = Ix1;
            fn declare(cols: &mut ColumnAlloc) -> R::Sym { <&[R] as DataSource>::declare(cols) }
            fn len(&self) -> usize { self[..].len() }
            fn shape(&self) -> Result<Shape, String> { DataSource::shape(&&self[..]) }
            fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) { self[k].write(w) }
            fn describe(&self, names: &mut ColumnAlloc) -> String { DataSource::describe(&&self[..], names) }
        }
    )*};
}
delegate_slice!(
    &Vec<R> => [R: DataRow],
    Vec<R> => [R: DataRow],
    &[R; N] => [R: DataRow, const N: usize],
    [R; N] => [R: DataRow, const N: usize]
);

/// Data sources with one dimension (ranges, slices, nested iterators): the components of
/// a Cartesian product.
pub trait Source1: DataSource<Shape = Ix1> {}
impl<S: DataSource<Shape = Ix1>> Source1 for S {}

impl<A: Source1, B: Source1> DataSource for (A, B) {
    type Point = (A::Point, B::Point);
    type Shape = Ix2;
    fn declare(cols: &mut ColumnAlloc) -> Self::Point {
        (A::declare(cols), B::declare(cols))
    }
    fn len(&self) -> usize {
        self.0.len().saturating_mul(self.1.len())
    }
    fn shape(&self) -> Result<Shape, String> {
        let (a, b) = (self.0.shape()?, self.1.shape()?);
        Shape::checked(vec![a.dims()[0], b.dims()[0]])
    }
    fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) {
        let nb = self.1.len();
        self.0.write(k / nb, w);
        self.1.write(k % nb, w);
    }
    fn describe(&self, names: &mut ColumnAlloc) -> String {
        format!("{}, {}", self.0.describe(names), self.1.describe(names))
    }
}

impl<A: Source1, B: Source1, C: Source1> DataSource for (A, B, C) {
    type Point = (A::Point, B::Point, C::Point);
    type Shape = Ix3;
    fn declare(cols: &mut ColumnAlloc) -> Self::Point {
        (A::declare(cols), B::declare(cols), C::declare(cols))
    }
    fn len(&self) -> usize {
        self.0
            .len()
            .saturating_mul(self.1.len())
            .saturating_mul(self.2.len())
    }
    fn shape(&self) -> Result<Shape, String> {
        let (a, b, c) = (self.0.shape()?, self.1.shape()?, self.2.shape()?);
        Shape::checked(vec![a.dims()[0], b.dims()[0], c.dims()[0]])
    }
    fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) {
        let (nb, nc) = (self.1.len(), self.2.len());
        self.0.write(k / (nb * nc), w);
        self.1.write((k / nc) % nb, w);
        self.2.write(k % nc, w);
    }
    fn describe(&self, names: &mut ColumnAlloc) -> String {
        format!(
            "{}, {}, {}",
            self.0.describe(names),
            self.1.describe(names),
            self.2.describe(names)
        )
    }
}

/// A nested iterator: for each `i` of an outer integer range, every point of the inner
/// source `inner(i)` (which may depend on `i`: triangular loops, adjacency lists).
///
/// The pattern closure receives `(i, inner point)`; the row block is one-dimensional
/// (`0..total`), in outer-then-inner order. Built with [`nested`].
#[derive(Clone, Debug)]
pub struct Nested<S> {
    outer: Vec<i64>,
    inner: Vec<S>,
    starts: Vec<usize>,
}

/// `for i in outer, for p in inner(i)` as one data source (see [`Nested`]).
///
/// ```
/// use simdnlp_modeling::{nested, DataSource};
/// let tri = nested(0..3i64, |i| 0..=i); // (0,0) (1,0) (1,1) (2,0) (2,1) (2,2)
/// assert_eq!(tri.len(), 6);
/// ```
pub fn nested<R, S, F>(outer: R, inner: F) -> Nested<S>
where
    R: IntoIterator<Item = i64>,
    S: Source1,
    F: Fn(i64) -> S,
{
    let mut n = Nested {
        outer: Vec::new(),
        inner: Vec::new(),
        starts: vec![0],
    };
    for i in outer {
        let s = inner(i);
        let total = n
            .starts
            .last()
            .copied()
            .unwrap_or(0)
            .saturating_add(s.len());
        n.outer.push(i);
        n.inner.push(s);
        n.starts.push(total);
    }
    n
}

impl<S: Source1> DataSource for Nested<S> {
    type Point = (Idx, S::Point);
    type Shape = Ix1;
    fn declare(cols: &mut ColumnAlloc) -> Self::Point {
        let n = cols.range_name();
        (cols.int(&n), S::declare(cols))
    }
    fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }
    fn shape(&self) -> Result<Shape, String> {
        Shape::checked(vec![(0, self.len())])
    }
    fn write<T: Scalar>(&self, k: usize, w: &mut ColumnWriter<'_, T>) {
        // the outer position whose [start, next start) contains k
        let o = self.starts.partition_point(|&s| s <= k) - 1;
        w.int(self.outer[o]);
        self.inner[o].write(k - self.starts[o], w);
    }
    fn describe(&self, names: &mut ColumnAlloc) -> String {
        let i = names.range_name();
        format!("{i} and its nested points ({} in all)", self.len())
    }
}

/// The columns of one pattern's data points.
#[derive(Clone, Debug, Default)]
pub struct Columns<T> {
    /// Number of data points.
    pub len: usize,
    /// Integer columns.
    pub ints: Vec<Vec<i64>>,
    /// Real columns.
    pub reals: Vec<Vec<T>>,
    /// Integer column names.
    pub int_names: Vec<String>,
    /// Real column names.
    pub real_names: Vec<String>,
}

/// A pattern's data as the builder takes it: the symbolic point, the columns, the row shape
/// and a printable description (or the typed error saying why the data could not be read).
pub(crate) type Collected<P, T> = Result<(P, Columns<T>, Shape, String), ModelError>;

/// Run-time columns (the `.nl` importer's tables) as a pattern's data: a one-dimensional
/// row block `0..cols.len`; the pattern reads the columns with `Idx::field` / `Dat::field`.
pub(crate) fn table<T>(cols: Columns<T>) -> Collected<(), T> {
    if cols.ints.iter().any(|c| c.len() != cols.len)
        || cols.reals.iter().any(|c| c.len() != cols.len)
    {
        return Err(ModelError::BadShape {
            what: "run-time data table".to_string(),
            reason: format!("table columns are not all {} long", cols.len),
        });
    }
    let shape = Shape::new(vec![(0, cols.len)]);
    let desc = format!("d ∈ {} rows", cols.len);
    Ok(((), cols, shape, desc))
}

/// Copies a data source into columns; returns the symbolic point, the columns, the row
/// shape and a printable description. `what` names the data in errors (`data of pattern
/// obj0`): a source that cannot be read is a [`ModelError::BadShape`], columns too large
/// for memory a [`ModelError::OutOfMemory`].
pub(crate) fn collect<S: DataSource, T: Scalar>(src: &S, what: &str) -> Collected<S::Point, T> {
    let bad = |reason: String| ModelError::BadShape {
        what: what.to_string(),
        reason,
    };
    let mut alloc = ColumnAlloc::default();
    let point = S::declare(&mut alloc);
    let shape = src
        .shape()
        .and_then(|s| Shape::checked(s.dims().to_vec()))
        .map_err(bad)?;
    let n = src.len();
    if shape.len() != n {
        return Err(bad(format!(
            "data source has {n} points but its shape {shape} has {}",
            shape.len()
        )));
    }
    let column = |kind: &str, name: &str| format!("{kind} column `{name}` of {what} ({n} points)");
    let mut ints: Vec<Vec<i64>> = Vec::with_capacity(alloc.ints.len());
    for name in &alloc.ints {
        ints.push(try_with_capacity(n, || column("integer", name))?);
    }
    let mut reals: Vec<Vec<T>> = Vec::with_capacity(alloc.reals.len());
    for name in &alloc.reals {
        reals.push(try_with_capacity(n, || column("real", name))?);
    }
    let mut first_bad = None;
    for k in 0..n {
        let mut w = ColumnWriter {
            ints: &mut ints,
            reals: &mut reals,
            ci: 0,
            cr: 0,
            bad: None,
        };
        src.write(k, &mut w);
        if w.ci != alloc.ints.len() || w.cr != alloc.reals.len() {
            return Err(bad(format!(
                "data point {k} wrote {} integer and {} real fields, {} and {} were declared",
                w.ci,
                w.cr,
                alloc.ints.len(),
                alloc.reals.len()
            )));
        }
        if first_bad.is_none() {
            first_bad = w.bad.map(|b| format!("data point {k}: {b}"));
        }
    }
    if let Some(b) = first_bad {
        return Err(bad(b));
    }
    let mut names = ColumnAlloc::default();
    let desc = src.describe(&mut names);
    let cols = Columns {
        len: n,
        ints,
        reals,
        int_names: alloc.ints,
        real_names: alloc.reals,
    };
    Ok((point, cols, shape, desc))
}
