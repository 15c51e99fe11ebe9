//! Aggregates of the ExaModels paper: shifted geometric mean and the composite callback
//! cost.

/// The paper's SGM shift: σ = 10 µs = 1e-5 s.
pub const SGM_SHIFT_S: f64 = 1e-5;

/// Call counts of one GPU-resident solve of the largest OPF instance in the paper, used
/// as composite weights: 115 obj, 115 cons, 114 grad, 114 jac, 113 hess.
pub const COMPOSITE_WEIGHTS: CallbackWeights = CallbackWeights {
    obj: 115.0,
    cons: 115.0,
    grad: 114.0,
    jac: 114.0,
    hess: 113.0,
};

/// Weights (or times) of the five timed callbacks.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CallbackWeights {
    /// `obj`.
    pub obj: f64,
    /// `cons`.
    pub cons: f64,
    /// `grad`.
    pub grad: f64,
    /// `jac_coord`.
    pub jac: f64,
    /// `hess_coord`.
    pub hess: f64,
}

/// Shifted geometric mean `exp(mean(ln(t_i + σ))) − σ`; `None` for no values.
pub fn sgm(values: &[f64], shift: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mean = values.iter().map(|&t| (t + shift).ln()).sum::<f64>() / values.len() as f64;
    Some(mean.exp() - shift)
}

/// The composite evaluation cost of one instance (seconds): the callback times weighted
/// by [`COMPOSITE_WEIGHTS`] and summed. The paper's composite row is the SGM of this
/// value over the instances of a class.
pub fn composite(t: &CallbackWeights) -> f64 {
    let w = COMPOSITE_WEIGHTS;
    w.obj * t.obj + w.cons * t.cons + w.grad * t.grad + w.jac * t.jac + w.hess * t.hess
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgm_matches_definition() {
        assert_eq!(sgm(&[], SGM_SHIFT_S), None);
        // one value: sgm = the value
        assert!((sgm(&[3e-3], SGM_SHIFT_S).unwrap() - 3e-3).abs() < 1e-15);
        // no shift: plain geometric mean
        assert!((sgm(&[1.0, 4.0, 16.0], 0.0).unwrap() - 4.0).abs() < 1e-12);
        // with shift, by hand: exp((ln(1e-5+1e-5) + ln(1e-3+1e-5))/2) − 1e-5
        let want = ((2e-5f64).ln() / 2.0 + (1.01e-3f64).ln() / 2.0).exp() - 1e-5;
        assert!((sgm(&[1e-5, 1e-3], SGM_SHIFT_S).unwrap() - want).abs() < 1e-18);
        // the shift damps tiny outliers: below the plain geometric mean's pull
        let g = sgm(&[1e-9, 1e-3], 0.0).unwrap();
        let s = sgm(&[1e-9, 1e-3], SGM_SHIFT_S).unwrap();
        assert!(s > g);
    }

    #[test]
    fn composite_weights() {
        let t = CallbackWeights {
            obj: 1.0,
            cons: 10.0,
            grad: 100.0,
            jac: 1000.0,
            hess: 10000.0,
        };
        assert_eq!(
            composite(&t),
            115.0 + 1150.0 + 11400.0 + 114000.0 + 1130000.0
        );
    }
}
