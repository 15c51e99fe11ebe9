//! Block shapes: any number of dimensions, each an integer range with any start.

use crate::index::{Idx, IndexArg, IntoIdx, IntoIndex};
use ndarray::{Ix0, Ix1, Ix2, Ix3, IxDyn};
use simdnlp_ad::Index;
use std::fmt;
use std::ops::{Range, RangeInclusive};

/// The shape of a block: per dimension the first index and the number of indices.
///
/// Elements are stored row-major (the last dimension varies fastest): element
/// `(i_0, …, i_{d-1})` sits at `Σ (i_k − lo_k) · stride_k` from the block's offset.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    dims: Vec<(i64, usize)>,
}

/// The most elements a block, a data source or a model's variable, parameter or row
/// vector can have: positions are `i64`, so `i64::MAX`.
pub const MAX_ELEMENTS: usize = i64::MAX as usize;

impl Shape {
    /// A shape from `(first index, length)` per dimension, unchecked: the builders check
    /// every shape they receive with [`Shape::checked`].
    pub fn new(dims: Vec<(i64, usize)>) -> Shape {
        Shape { dims }
    }

    /// A shape from `(first index, length)` per dimension, or why it is not a valid index
    /// set: a dimension whose last index does not fit in `i64`, or more than
    /// [`MAX_ELEMENTS`] elements (counting an empty dimension as one, so every stride is
    /// representable too).
    pub fn checked(dims: Vec<(i64, usize)>) -> Result<Shape, String> {
        let mut count: u128 = 1;
        for &(lo, n) in &dims {
            if n > MAX_ELEMENTS || (lo as i128 + n as i128 - 1) > i64::MAX as i128 {
                return Err(format!(
                    "dimension starting at {lo} with {n} indices ends past i64::MAX"
                ));
            }
            count = count.saturating_mul(n.max(1) as u128);
        }
        let shape = Shape { dims };
        if count > MAX_ELEMENTS as u128 {
            return Err(format!(
                "index set {shape} has {} elements, more than the {MAX_ELEMENTS} a block can hold",
                shape.element_count()
            ));
        }
        Ok(shape)
    }

    /// The number of elements, exact up to `u128::MAX` (where it saturates), so an unchecked
    /// shape never overflows it.
    pub fn element_count(&self) -> u128 {
        self.dims
            .iter()
            .fold(1u128, |a, d| a.saturating_mul(d.1 as u128))
    }

    /// `(first index, length)` per dimension.
    pub fn dims(&self) -> &[(i64, usize)] {
        &self.dims
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.dims.len()
    }

    /// Number of elements (1 for a zero-dimensional block). Saturates at `usize::MAX` for an
    /// unchecked shape too large to count (see [`Shape::checked`]).
    pub fn len(&self) -> usize {
        usize::try_from(self.element_count()).unwrap_or(usize::MAX)
    }

    /// `true` when the block has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row-major strides, one per dimension.
    pub fn strides(&self) -> Vec<usize> {
        let mut s = vec![1usize; self.dims.len()];
        for d in (0..self.dims.len().saturating_sub(1)).rev() {
            s[d] = s[d + 1].saturating_mul(self.dims[d + 1].1);
        }
        s
    }

    /// The lengths, as `usize`s (for `ndarray`).
    pub fn lens(&self) -> Vec<usize> {
        self.dims.iter().map(|d| d.1).collect()
    }

    /// `true` when `v` is a valid index of dimension `d`.
    pub fn contains(&self, d: usize, v: i64) -> bool {
        let (lo, n) = self.dims[d];
        v >= lo && ((v as i128) - (lo as i128)) < n as i128
    }

    /// The indices of element `k` (row-major position) of the block.
    pub fn key(&self, mut k: usize, out: &mut Vec<i64>) {
        out.clear();
        out.resize(self.dims.len(), 0);
        for d in (0..self.dims.len()).rev() {
            let (lo, n) = self.dims[d];
            out[d] = lo + (k % n.max(1)) as i64;
            k /= n.max(1);
        }
    }

    /// The printed range of dimension `d`: `1..=200` (or `1..1` when empty).
    pub fn range_str(&self, d: usize) -> String {
        let (lo, n) = self.dims[d];
        if n == 0 {
            format!("{lo}..{lo}")
        } else {
            format!("{lo}..={}", lo as i128 + n as i128 - 1)
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for d in 0..self.dims.len() {
            if d > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&self.range_str(d))?;
        }
        f.write_str("]")
    }
}

/// Number of dimensions of a block, tied to `ndarray`'s dimension types.
///
/// Implemented for [`Ix0`](type@ndarray::Ix0) (a single element), [`Ix1`](type@ndarray::Ix1),
/// [`Ix2`](type@ndarray::Ix2), [`Ix3`](type@ndarray::Ix3) and, for blocks whose dimension
/// count is only known at run time (models read from files), [`IxDyn`](type@ndarray::IxDyn).
pub trait Dims: 'static {
    /// Number of dimensions ([`DYNAMIC`] for [`IxDyn`](type@ndarray::IxDyn): any).
    const NDIM: usize;
    /// The `ndarray` dimension type results come back in.
    type Nd: ndarray::Dimension;
    /// The concrete index of one element, given to `*_with` closures: `()`, `i64`,
    /// `(i64, i64)`, `(i64, i64, i64)`.
    type Key;
    /// The symbolic index of one element: `()`, [`Idx`], `(Idx, Idx)`, …
    type Sym: Copy;
    /// The concrete index from its components.
    fn key(k: &[i64]) -> Self::Key;
    /// The `ndarray` dimension of a shape.
    fn nd(shape: &Shape) -> Self::Nd;
}

/// [`Dims::NDIM`] of [`IxDyn`](type@ndarray::IxDyn): the count is known at run time.
pub const DYNAMIC: usize = usize::MAX;

impl Dims for IxDyn {
    const NDIM: usize = DYNAMIC;
    type Nd = IxDyn;
    type Key = Vec<i64>;
    /// Expression blocks need a static dimension count.
    type Sym = ();
    fn key(k: &[i64]) -> Vec<i64> {
        k.to_vec()
    }
    fn nd(s: &Shape) -> IxDyn {
        ndarray::IxDyn(&s.lens())
    }
}

impl IntoShape for Shape {
    type Dims = IxDyn;
    fn into_shape(self) -> Result<Shape, String> {
        Shape::checked(self.dims)
    }
}

impl At<IxDyn> for Vec<IndexArg> {
    fn args(self) -> Vec<IndexArg> {
        self
    }
}
impl At<IxDyn> for Vec<Idx> {
    fn args(self) -> Vec<IndexArg> {
        self.into_iter().map(IntoIndex::into_arg).collect()
    }
}
impl At<IxDyn> for &[Idx] {
    fn args(self) -> Vec<IndexArg> {
        self.iter().map(IntoIndex::into_arg).collect()
    }
}
impl At<IxDyn> for Vec<Index> {
    fn args(self) -> Vec<IndexArg> {
        self.into_iter().map(IntoIndex::into_arg).collect()
    }
}
impl At<IxDyn> for &[i64] {
    fn args(self) -> Vec<IndexArg> {
        self.iter().map(|&c| c.into_arg()).collect()
    }
}

impl Dims for Ix0 {
    const NDIM: usize = 0;
    type Nd = Ix0;
    type Key = ();
    type Sym = ();
    fn key(_: &[i64]) {}
    fn nd(_: &Shape) -> Ix0 {
        ndarray::Ix0()
    }
}
impl Dims for Ix1 {
    const NDIM: usize = 1;
    type Nd = Ix1;
    type Key = i64;
    type Sym = Idx;
    fn key(k: &[i64]) -> i64 {
        k[0]
    }
    fn nd(s: &Shape) -> Ix1 {
        ndarray::Ix1(s.dims[0].1)
    }
}
impl Dims for Ix2 {
    const NDIM: usize = 2;
    type Nd = Ix2;
    type Key = (i64, i64);
    type Sym = (Idx, Idx);
    fn key(k: &[i64]) -> (i64, i64) {
        (k[0], k[1])
    }
    fn nd(s: &Shape) -> Ix2 {
        ndarray::Ix2(s.dims[0].1, s.dims[1].1)
    }
}
impl Dims for Ix3 {
    const NDIM: usize = 3;
    type Nd = Ix3;
    type Key = (i64, i64, i64);
    type Sym = (Idx, Idx, Idx);
    fn key(k: &[i64]) -> (i64, i64, i64) {
        (k[0], k[1], k[2])
    }
    fn nd(s: &Shape) -> Ix3 {
        ndarray::Ix3(s.dims[0].1, s.dims[1].1, s.dims[2].1)
    }
}

/// The position arguments of a block with dimensions `D`: `()` for [`Ix0`](type@ndarray::Ix0), one
/// [`IntoIndex`] for [`Ix1`](type@ndarray::Ix1), a tuple of them for [`Ix2`](type@ndarray::Ix2)/[`Ix3`](type@ndarray::Ix3).
pub trait At<D: Dims> {
    /// One argument per dimension.
    fn args(self) -> Vec<IndexArg>;
}
impl At<Ix0> for () {
    fn args(self) -> Vec<IndexArg> {
        Vec::new()
    }
}
impl<A: IntoIndex> At<Ix1> for A {
    fn args(self) -> Vec<IndexArg> {
        vec![self.into_arg()]
    }
}
impl<A: IntoIndex, B: IntoIndex> At<Ix2> for (A, B) {
    fn args(self) -> Vec<IndexArg> {
        vec![self.0.into_arg(), self.1.into_arg()]
    }
}
impl<A: IntoIndex, B: IntoIndex, C: IntoIndex> At<Ix3> for (A, B, C) {
    fn args(self) -> Vec<IndexArg> {
        vec![self.0.into_arg(), self.1.into_arg(), self.2.into_arg()]
    }
}

/// Affine position arguments of an expression block with dimensions `D`.
pub trait AtIdx<D: Dims> {
    /// The symbolic index.
    fn sym(self) -> D::Sym;
}
impl AtIdx<Ix0> for () {
    fn sym(self) {}
}
impl<A: IntoIdx> AtIdx<Ix1> for A {
    fn sym(self) -> Idx {
        self.into_idx()
    }
}
impl<A: IntoIdx, B: IntoIdx> AtIdx<Ix2> for (A, B) {
    fn sym(self) -> (Idx, Idx) {
        (self.0.into_idx(), self.1.into_idx())
    }
}
impl<A: IntoIdx, B: IntoIdx, C: IntoIdx> AtIdx<Ix3> for (A, B, C) {
    fn sym(self) -> (Idx, Idx, Idx) {
        (self.0.into_idx(), self.1.into_idx(), self.2.into_idx())
    }
}

/// Flattens a symbolic [`Dims::Sym`] into its components.
pub trait SymParts {
    /// The components, one per dimension.
    fn parts(&self) -> Vec<Idx>;
}
impl SymParts for () {
    fn parts(&self) -> Vec<Idx> {
        Vec::new()
    }
}
impl SymParts for Idx {
    fn parts(&self) -> Vec<Idx> {
        vec![*self]
    }
}
impl SymParts for (Idx, Idx) {
    fn parts(&self) -> Vec<Idx> {
        vec![self.0, self.1]
    }
}
impl SymParts for (Idx, Idx, Idx) {
    fn parts(&self) -> Vec<Idx> {
        vec![self.0, self.1, self.2]
    }
}

/// Something that describes the index set of a block: a count `n` (indices `0..n`), a
/// range `a..b` or `a..=b` with any integer start, `()` for a single element, or a tuple of
/// counts/ranges for several dimensions: `(0..=nx, 1..=ny)`.
pub trait IntoShape {
    /// The static dimension count.
    type Dims: Dims;
    /// The shape, or a message when it is not a valid index set (a negative count, a
    /// bound outside `i64`).
    fn into_shape(self) -> Result<Shape, String>;
}

/// A one-dimensional index range (`(first, length)`).
pub trait Range1 {
    /// `(first index, length)` or an error message.
    fn range1(&self) -> Result<(i64, usize), String>;
}

fn to_i64<V: TryInto<i64> + Copy + fmt::Display>(v: V) -> Result<i64, String> {
    v.try_into()
        .map_err(|_| format!("index {v} does not fit in i64"))
}

/// `(first, length)` of the indices `first..first + len`, or why a block cannot hold them.
fn span(first: i64, len: i128, written: impl FnOnce() -> String) -> Result<(i64, usize), String> {
    if len > MAX_ELEMENTS as i128 {
        return Err(format!(
            "range {} has {len} indices, more than the {MAX_ELEMENTS} a block can hold",
            written()
        ));
    }
    Ok((first, len.max(0) as usize))
}

macro_rules! range1 {
    ($($t:ty),*) => {$(
        impl Range1 for $t {
            fn range1(&self) -> Result<(i64, usize), String> {
                let n = to_i64(*self)?;
                if n < 0 { return Err(format!("negative block length {n}")); }
                Ok((0, n as usize))
            }
        }
        impl Range1 for Range<$t> {
            fn range1(&self) -> Result<(i64, usize), String> {
                let (a, b) = (to_i64(self.start)?, to_i64(self.end)?);
                span(a, b as i128 - a as i128, || format!("{a}..{b}"))
            }
        }
        impl Range1 for RangeInclusive<$t> {
            fn range1(&self) -> Result<(i64, usize), String> {
                let (a, b) = (to_i64(*self.start())?, to_i64(*self.end())?);
                span(a, b as i128 - a as i128 + 1, || format!("{a}..={b}"))
            }
        }
        impl IntoShape for $t {
            type Dims = Ix1;
            fn into_shape(self) -> Result<Shape, String> { Shape::checked(vec![self.range1()?]) }
        }
        impl IntoShape for Range<$t> {
            type Dims = Ix1;
            fn into_shape(self) -> Result<Shape, String> { Shape::checked(vec![self.range1()?]) }
        }
        impl IntoShape for RangeInclusive<$t> {
            type Dims = Ix1;
            fn into_shape(self) -> Result<Shape, String> { Shape::checked(vec![self.range1()?]) }
        }
    )*};
}
range1!(i64, i32, usize, u32);

impl IntoShape for () {
    type Dims = Ix0;
    fn into_shape(self) -> Result<Shape, String> {
        Ok(Shape::new(Vec::new()))
    }
}
impl<A: Range1, B: Range1> IntoShape for (A, B) {
    type Dims = Ix2;
    fn into_shape(self) -> Result<Shape, String> {
        Shape::checked(vec![self.0.range1()?, self.1.range1()?])
    }
}
impl<A: Range1, B: Range1, C: Range1> IntoShape for (A, B, C) {
    type Dims = Ix3;
    fn into_shape(self) -> Result<Shape, String> {
        Shape::checked(vec![self.0.range1()?, self.1.range1()?, self.2.range1()?])
    }
}
