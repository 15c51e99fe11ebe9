//! Values given for a block attribute: one scalar for every element, or one value each.

/// Values of a block attribute (`start`, `lower`, `upper`, `lcon`, `ucon`, parameter
/// values): a scalar broadcast to every element, or a list in the block's row-major order.
///
/// Built from `f64`/`f32`/integers, slices, arrays, `Vec`s and `ndarray` arrays; the
/// `*_with` methods of the handles build a list from a closure of the element's index.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// The same value for every element.
    Scalar(f64),
    /// One value per element, row-major.
    List(Vec<f64>),
}

impl Values {
    /// The value of element `k` (a list is assumed to have the right length).
    #[inline]
    pub fn get(&self, k: usize) -> f64 {
        match self {
            Values::Scalar(v) => *v,
            Values::List(l) => l[k],
        }
    }

    /// Number of values given (`None` for a scalar).
    pub fn given_len(&self) -> Option<usize> {
        match self {
            Values::Scalar(_) => None,
            Values::List(l) => Some(l.len()),
        }
    }

    /// `true` when a list does not have `n` values.
    pub fn wrong_len(&self, n: usize) -> bool {
        self.given_len().is_some_and(|l| l != n)
    }
}

impl From<f64> for Values {
    fn from(v: f64) -> Self {
        Values::Scalar(v)
    }
}
impl From<f32> for Values {
    fn from(v: f32) -> Self {
        Values::Scalar(v as f64)
    }
}
impl From<i32> for Values {
    fn from(v: i32) -> Self {
        Values::Scalar(v as f64)
    }
}
impl From<&[f64]> for Values {
    fn from(v: &[f64]) -> Self {
        Values::List(v.to_vec())
    }
}
impl From<&[f32]> for Values {
    fn from(v: &[f32]) -> Self {
        Values::List(v.iter().map(|&x| x as f64).collect())
    }
}
impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Self {
        Values::List(v)
    }
}
impl From<&Vec<f64>> for Values {
    fn from(v: &Vec<f64>) -> Self {
        Values::List(v.clone())
    }
}
impl From<Vec<f32>> for Values {
    fn from(v: Vec<f32>) -> Self {
        Values::from(&v[..])
    }
}
impl<const N: usize> From<[f64; N]> for Values {
    fn from(v: [f64; N]) -> Self {
        Values::List(v.to_vec())
    }
}
impl<const N: usize> From<&[f64; N]> for Values {
    fn from(v: &[f64; N]) -> Self {
        Values::List(v.to_vec())
    }
}
impl<S: ndarray::Data<Elem = f64>, D: ndarray::Dimension> From<&ndarray::ArrayBase<S, D>>
    for Values
{
    fn from(a: &ndarray::ArrayBase<S, D>) -> Self {
        Values::List(a.iter().copied().collect())
    }
}
