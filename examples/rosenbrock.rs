//! Extended Rosenbrock function (ExaModels paper, eq. 4.1):
//!
//! ```text
//! min_x  Σ_{i=2}^{N} 100 (x_{i-1}² − x_i)² + (x_{i-1} − 1)²
//! ```
//!
//! One objective pattern over the range `2..=N`, variables indexed `1..=N` as in the paper,
//! started at the classical point (−1.2, 1, −1.2, 1, …). Generic over the scalar type
//! (`f64` and `f32`). Run: `cargo run --release --example rosenbrock -- 1000000`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError, NlpModel, Scalar, Var};

/// Builds the Rosenbrock model with `n` variables in scalar type `T`; returns the model
/// and the variable block.
pub fn rosenbrock_model<T: Scalar>(n: usize) -> Result<(Model<T>, Var), ModelError> {
    let mut m = ModelBuilder::<T>::default();
    m.set_name("rosenbrock");
    let x = m
        .var(1..=n)
        .start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 })
        .named("x");
    m.minimize(2..=n, |i| {
        100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2)
    })
    .named("rosenbrock");
    Ok((m.build()?, x))
}

#[allow(dead_code)]
fn main() -> Result<(), simdnlp::Error> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let t = std::time::Instant::now();
    let (model, x) = rosenbrock_model::<f64>(n)?;
    let build = t.elapsed();
    if n <= 20 {
        println!("{model}");
    }
    let meta = model.meta();
    println!(
        "built N = {n} in {build:.2?}: nvar = {}, nnzh = {}",
        meta.nvar, meta.nnzh
    );
    println!("f(x0) = {}", model.obj(&meta.x0));

    let options = simdnlp::Options {
        print_level: simdnlp::solver::PrintLevel::None,
        ..Default::default()
    };
    let result = simdnlp::solve(&model, &options)?;
    let xs = model.solution(&x, &result.x)?;
    println!(
        "{:?} after {} iterations: f = {:.10e}, x[1..4] = {:?}",
        result.status,
        result.iterations,
        result.objective,
        xs.iter().take(4).collect::<Vec<_>>()
    );
    Ok(())
}
